/**
 * The fenced code block the Markdown pre-scan follows: where it opens, and where it ends (at its
 * closing fence, or earlier where its container may end, so the text after it is always counted).
 */
import * as reader from './markdownLineReader';
import type { Line } from './markdownLineReader';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { isFence } = reader;

/** A fence of `run` characters `ch` opens, in `q` quotes at column `col`: followed as the parser may end it, and as only a closing fence ends it. */
export function openFence(s: ScanState, ch: number, run: number, q: number, col: number): void {
  s.fence = { ch, len: run, q, col };
  s.stickyFence = { ch, len: run };
}

/** Whether the line is in the open fence (its closing line included): the fence closes at its closer or where its container ends. */
export function inFence(s: ScanState, l: Line): boolean {
  if (!s.fence && !s.stickyFence) return false;
  const { stop, q, col, content, contentCol, indent, blank } = l;
  // A fence this scan follows ends when its container does: fewer quotes, or less indentation
  // than its opener had (a list item it was in has ended). Ending early counts more, never less.
  if (s.fence && !blank && (q < s.fence.q || contentCol < s.fence.col)) s.fence = undefined;
  if (s.fence) {
    if (!blank && indent - (s.fence.col - col) <= 3 && isFence(s, content, stop, s.fence.ch, s.fence.len, true)) {
      s.fence = undefined;
      s.stickyFence = undefined;
    }
    return true;
  }
  if (s.stickyFence && !blank && isFence(s, content, stop, s.stickyFence.ch, s.stickyFence.len, true)) s.stickyFence = undefined;
  return false;
}
