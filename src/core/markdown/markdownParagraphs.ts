/**
 * The open paragraph (or heading, table cell) of the Markdown pre-scan and what its inline content
 * costs: emphasis, brackets, code spans, HTML and escapes, their caps per paragraph, and the
 * quadratic costs counted when it ends; also the open table and a run of link definitions.
 */
import type { MarkdownWeights } from './markdownWeights';
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import type { ScanLedger } from './markdownScanLedger';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { EMPHASIS, LINKS, HTML, LAZY } = weights;
const { INLINE_CHAR, delimiterRun } = syntax;

/** A paragraph (or a heading, a table cell): the inline content whose counts grow together. */
export interface Para {
  delimiters: number;
  brackets: number;
  lazy: number;
  chars: number;
  /** Backtick run lengths seen (bit n-1 for length n up to 30); longer runs each count as new. */
  tickLengths: number;
  tickScans: number;
  /** Quote level and content column where it started (lines with less are lazy). */
  q: number;
  col: number;
  /** Started inside a list item (then marker lines of that list start siblings, never continue it). */
  inList: boolean;
}

/** The open paragraph and table, and the inline counts of each line of them. */
export class Paragraphs {
  para: Para | undefined;
  /** The open table: its columns and quote level (rows follow until a blank line). */
  table: { cols: number; q: number } | undefined;
  /** The previous line was a link reference definition (the next may be one too). */
  afterDefinition = false;
  /** The next inline character at or after `nextInlineFrom` (the text's length when none). */
  private nextInline = -1;
  private nextInlineFrom = 0;

  constructor(
    private readonly text: string,
    private readonly ledger: ScanLedger,
    private readonly w: MarkdownWeights,
  ) {}

  start(q: number, col: number, inList: boolean): void {
    this.para = { delimiters: 0, brackets: 0, lazy: 0, chars: 0, tickLengths: 0, tickScans: 0, q, col, inList };
  }

  /** Ends the paragraph: its quadratic costs go into the work. */
  end(): void {
    const p = this.para;
    if (!p) return;
    this.para = undefined;
    const { w, ledger } = this;
    ledger.add(EMPHASIS, w.delimiterPairs * p.delimiters * p.delimiters + w.backtickScan * p.tickScans * p.chars);
    if (p.brackets) ledger.add(LINKS, w.bracketPairs * p.brackets * p.brackets);
    if (p.lazy) ledger.add(LAZY, w.lazyPairs * p.lazy * p.lazy);
  }

  /** A block starts (a list item, a fence, a heading, a break): the paragraph and the table before it end. */
  endLeaf(): void {
    this.end();
    this.table = undefined;
  }

  /** A blank line: the paragraph, the table and a run of definitions end. */
  blankLine(): void {
    this.endLeaf();
    this.afterDefinition = false;
  }

  /** A table row: each cell is inline content of its own. */
  cells(c: number, stop: number, q: number, col: number): void {
    const { text } = this;
    let from = c;
    for (let k = c; k <= stop; k++) {
      const ch = k < stop ? text.charCodeAt(k) : 0x7c;
      if (ch === 0x5c /* \ */) {
        k++;
        continue;
      }
      if (ch !== 0x7c /* | */) continue;
      if (k > from) {
        this.start(q, col, false);
        this.inline(from, k);
        this.end();
      }
      from = k + 1;
    }
  }

  /** Counts a line's inline constructs into the paragraph, refusing at a cap. */
  inline(c: number, stop: number): void {
    const { text, ledger, w } = this;
    const { caps, counts } = ledger;
    const p = this.para!;
    p.chars += stop - c;
    for (let k = c; k < stop; k++) {
      // To the next character inline Markdown may give a meaning: a native search, whose answer
      // is kept for the lines before it (each is searched once, not once per line).
      if (k > this.nextInline || k < this.nextInlineFrom) {
        INLINE_CHAR.lastIndex = k;
        this.nextInline = INLINE_CHAR.test(text) ? INLINE_CHAR.lastIndex - 1 : text.length;
        this.nextInlineFrom = k;
      }
      k = this.nextInline;
      if (k >= stop) return;
      const ch = text.charCodeAt(k);
      if (ch === 0x5c /* \ */) {
        ledger.add(HTML, w.escape);
        k++;
      } else if (ch === 0x5b || ch === 0x5d /* [ ] */) {
        p.brackets++;
        ledger.add(LINKS, w.bracket);
        if (ch === 0x5b && k > 0 && text.charCodeAt(k - 1) === 0x21 /* ! */) ledger.add(LINKS, w.image);
        if (p.brackets > caps.brackets) {
          counts.maxBrackets = p.brackets;
          return ledger.refuse('TOO_LARGE', 'markdown-brackets', `the paragraph has over ${caps.brackets} "[" and "]" by this line: split it into several paragraphs, or escape the brackets that are not links (\\[)`);
        }
        counts.maxBrackets = Math.max(counts.maxBrackets, p.brackets);
      } else if (ch === 0x3c /* < */) {
        ledger.add(HTML, w.html);
      } else if (ch === 0x26 /* & */) {
        ledger.add(HTML, w.entity);
      } else if (ch === 0x60 /* ` */) {
        let e = k + 1;
        while (e < stop && text.charCodeAt(e) === 0x60) e++;
        const run = e - k;
        const bit = run <= 30 ? 1 << (run - 1) : 0;
        if (!bit || !(p.tickLengths & bit)) p.tickScans++;
        p.tickLengths |= bit;
        ledger.add(EMPHASIS, w.backtickRun);
        k = e - 1;
      } else {
        // `*`, `_`, `~`: a run that can open or close emphasis (or strikethrough) by the flanking rules.
        let e = k + 1;
        while (e < stop && text.charCodeAt(e) === ch) e++;
        if (delimiterRun(text, k, e, c, stop, ch)) {
          p.delimiters++;
          ledger.add(EMPHASIS, w.delimiter);
          if (p.delimiters > caps.delimiters) {
            counts.maxDelimiters = p.delimiters;
            return ledger.refuse('TOO_LARGE', 'markdown-emphasis', `the paragraph has over ${caps.delimiters} emphasis markers ("*", "_", "~") by this line: split it into several paragraphs, or put code in backticks and escape the markers that are not emphasis (\\*)`);
          }
          counts.maxDelimiters = Math.max(counts.maxDelimiters, p.delimiters);
        }
        k = e - 1;
      }
    }
  }
}
