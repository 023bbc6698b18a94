// What a person at a terminal reads before they approve: the plan's text as it will be approved
// (its body: the goal, every step with its details, every section), what changed since the last
// version a person reviewed, and the header; paged when it is longer than the terminal, so a
// long plan is read a screen at a time before the question, never scrolled past it.
import { describeComparison, PlanDocument } from '../core';
import { compareWithReviewed } from '../service';
import type { PlanStore } from '../store';

/**
 * Text with the characters that would make a terminal show something else written as escapes:
 * control characters (line breaks aside: an escape sequence or a carriage return redraws what was
 * printed) and the bidirectional controls (which reorder what follows).
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** The lines a person reads before approving: the changes since the last review (when there was one), then the plan's body. */
export async function approvalReading(store: PlanStore, doc: PlanDocument): Promise<string[]> {
  const lines: string[] = [];
  const r = await compareWithReviewed({ store }, doc.fm.id, { doc }).catch(() => undefined);
  if (r?.comparison) {
    const changes = describeComparison(r.comparison);
    lines.push(`Changed since v${r.comparison.fromVersion}, the version last reviewed:`, ...(changes.length ? changes.map((l) => `  ${l}`) : ['  no change to the steps or sections']), '');
  }
  lines.push(`The plan, as it will be approved:`, ...doc.body.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\s+$/, '').split(/\r?\n/).map((l) => (l.trim() ? `  ${l}` : '')), '');
  return lines.map(printable);
}

/**
 * Prints `lines`, a screen at a time when there is a terminal height and they do not fit (`rows`);
 * between pages it asks: Enter for the next, "a" for all the rest, "s" to go to the question.
 */
export async function paged(lines: readonly string[], out: (s: string) => void, ask: (q: string) => Promise<string>, rows: number | undefined): Promise<void> {
  const page = rows && rows > 6 ? rows - 2 : Infinity;
  for (let i = 0; i < lines.length; ) {
    const end = Math.min(lines.length, i + page);
    out(lines.slice(i, end).join('\n') + '\n');
    i = end;
    if (i >= lines.length) return;
    const answer = (await ask(`-- ${lines.length - i} more lines: Enter for the next page, a for all, s to skip to the question -- `)).trim().toLowerCase();
    if (answer === 's') return;
    if (answer === 'a') {
      out(lines.slice(i).join('\n') + '\n');
      return;
    }
  }
}
