/**
 * What the characters of a line are, for the Markdown pre-scan: blanks and the columns they reach
 * (tabs to the next multiple of four), fence runs, thematic breaks; and the line as the scan takes it apart.
 */
import * as syntax from './markdownSyntax';

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

/** Reads the text's lines at given offsets; remembers the column blanks reached, and a line's tail. */
export class LineReader {
  /** The column `skipBlanks` reached. */
  blankCol = 0;
  private tailLineEnd = -1;
  private tailStart = 0;
  private tailChar = -1;

  constructor(readonly text: string) {}

  /** Skips blanks from `i`, counting columns from `col` (tabs to the next multiple of four): the offset after them; the column in `this.blankCol`. */
  skipBlanks(i: number, stop: number, col: number): number {
    const { text } = this;
    let k = i;
    let c = col;
    while (k < stop) {
      const ch = text.charCodeAt(k);
      if (ch === SPACE) c++;
      else if (ch === TAB) c += 4 - (c % 4);
      else break;
      k++;
    }
    this.blankCol = c;
    return k;
  }

  /** Whether a fence of `ch` at least `min` long starts at `c` (a closing one: nothing after it). */
  isFence(c: number, stop: number, ch: number, min: number, closing: boolean): boolean {
    const { text } = this;
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
  thematicAt(c: number, stop: number): boolean {
    const { text } = this;
    if (this.tailLineEnd !== stop) {
      this.tailLineEnd = stop;
      let k = stop;
      while (k > c && (text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === TAB)) k--;
      const ch = k > c ? text.charCodeAt(k - 1) : -1;
      this.tailChar = ch === 0x2d || ch === 0x2a || ch === 0x5f ? ch : -1;
      while (k > c && (text.charCodeAt(k - 1) === this.tailChar || text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === TAB)) k--;
      this.tailStart = k;
    }
    if (this.tailChar === -1 || c < this.tailStart || text.charCodeAt(c) !== this.tailChar) return false;
    let n = 0;
    for (let k = c; k < stop && n < 3; k++) if (text.charCodeAt(k) === this.tailChar) n++;
    return n >= 3;
  }
}
