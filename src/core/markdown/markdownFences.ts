/**
 * The fenced code block the Markdown pre-scan follows: where it opens, and where it ends (at its
 * closing fence, or earlier where its container may end, so the text after it is always counted).
 */
import type { Line, LineReader } from './markdownLineReader';

/** The open fenced code block, followed twice: as the parser may end it, and as only a closing fence ends it. */
export class Fences {
  /** An open fenced code block as this scan follows it (closed early when its container seems to end). */
  open: { ch: number; len: number; q: number; col: number } | undefined;
  /** The same fence, closed only by a closing fence line: while it is open, no `#` line is surely a heading. */
  sticky: { ch: number; len: number } | undefined;

  constructor(private readonly reader: LineReader) {}

  /** A fence of `run` characters `ch` opens, in `q` quotes at column `col`. */
  opens(ch: number, run: number, q: number, col: number): void {
    this.open = { ch, len: run, q, col };
    this.sticky = { ch, len: run };
  }

  /** Whether the line is in the open fence (its closing line included): the fence closes at its closer or where its container ends. */
  follows(l: Line): boolean {
    const { stop, q, col, content, contentCol, indent, blank } = l;
    // A fence this scan follows ends when its container does: fewer quotes, or less indentation
    // than its opener had (a list item it was in has ended). Ending early counts more, never less.
    if (this.open && !blank && (q < this.open.q || contentCol < this.open.col)) this.open = undefined;
    if (this.open) {
      if (!blank && indent - (this.open.col - col) <= 3 && this.reader.isFence(content, stop, this.open.ch, this.open.len, true)) {
        this.open = undefined;
        this.sticky = undefined;
      }
      return true;
    }
    if (this.sticky && !blank && this.reader.isFence(content, stop, this.sticky.ch, this.sticky.len, true)) this.sticky = undefined;
    return false;
  }
}
