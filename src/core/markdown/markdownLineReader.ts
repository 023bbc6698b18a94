/**
 * What the characters of a line are, for the Markdown pre-scan: blanks and the columns they reach
 * (tabs to the next multiple of four), fence runs, thematic breaks; and the line as the scan takes it apart.
 */
import * as syntax from './markdownSyntax';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { SPACE, TAB } = syntax;

/** A line as the scan takes it apart: its quote markers, its content, and where its leaf content starts. */
export interface Line {
  at: number;
  stop: number;
  /** Quote level (quote markers after list markers count too), and the quote markers on this line. */
  q: number;
  quotesHere: number;
  /** The column after the last leading quote marker; the content's offset, column and indentation past it. */
  col: number;
  content: number;
  contentCol: number;
  indent: number;
  blank: boolean;
  /** The line continues the paragraph lazily; list items were open before it. */
  lazy: boolean;
  inList: boolean;
  /** Where the content after the list markers (and the quotes after them) starts, and its column. */
  c: number;
  cCol: number;
  /** The content column of the innermost list item at the line's quote level (after its markers), or -1 when none is open. */
  item: number;
}

/** Skips blanks from `i`, counting columns from `col` (tabs to the next multiple of four): the offset after them; the column in `s.blankCol`. */
export function skipBlanks(s: ScanState, i: number, stop: number, col: number): number {
  const { text } = s;
  let k = i;
  let c = col;
  while (k < stop) {
    const ch = text.charCodeAt(k);
    if (ch === SPACE) c++;
    else if (ch === TAB) c += 4 - (c % 4);
    else break;
    k++;
  }
  s.blankCol = c;
  return k;
}

/** Whether a fence of `ch` at least `min` long starts at `c` (a closing one: nothing after it). */
export function isFence(s: ScanState, c: number, stop: number, ch: number, min: number, closing: boolean): boolean {
  const { text } = s;
  let k = c;
  while (k < stop && text.charCodeAt(k) === ch) k++;
  if (k - c < min) return false;
  if (closing) {
    for (let j = k; j < stop; j++) if (text.charCodeAt(j) !== SPACE && text.charCodeAt(j) !== TAB) return false;
    return true;
  }
  // A backtick fence's info string has no backtick.
  return ch !== 0x60 || text.indexOf('`', k) === -1 || text.indexOf('`', k) >= stop;
}

/**
 * Whether a thematic break (three or more of `-`, `*` or `_`, blanks between) runs from `c` to
 * the line's end. The line's tail made of one such character and blanks is found once per line.
 */
export function thematicAt(s: ScanState, c: number, stop: number): boolean {
  const { text } = s;
  if (s.tailLineEnd !== stop) {
    s.tailLineEnd = stop;
    let k = stop;
    while (k > c && (text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === TAB)) k--;
    const ch = k > c ? text.charCodeAt(k - 1) : -1;
    s.tailChar = ch === 0x2d || ch === 0x2a || ch === 0x5f ? ch : -1;
    while (k > c && (text.charCodeAt(k - 1) === s.tailChar || text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === TAB)) k--;
    s.tailStart = k;
  }
  if (s.tailChar === -1 || c < s.tailStart || text.charCodeAt(c) !== s.tailChar) return false;
  let n = 0;
  for (let k = c; k < stop && n < 3; k++) if (text.charCodeAt(k) === s.tailChar) n++;
  return n >= 3;
}
