/**
 * The open paragraph (or heading, table cell) of the Markdown pre-scan and what its inline content
 * costs: emphasis, brackets, code spans, HTML and escapes, their caps per paragraph, and the
 * quadratic costs counted when it ends; also where the open table and a run of definitions end.
 */
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import * as ledger from './markdownScanLedger';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { EMPHASIS, LINKS, HTML, LAZY } = weights;
const { INLINE_CHAR, delimiterRun } = syntax;
const { add, refuse } = ledger;

/** A paragraph starts in `q` quotes at column `col` (in a list item: `inList`). */
export function startPara(s: ScanState, q: number, col: number, inList: boolean): void {
  s.para = { delimiters: 0, brackets: 0, lazy: 0, chars: 0, tickLengths: 0, tickScans: 0, q, col, inList };
}

/** Ends the paragraph: its quadratic costs go into the work. */
export function endPara(s: ScanState): void {
  const p = s.para;
  if (!p) return;
  s.para = undefined;
  const { w } = s;
  add(s, EMPHASIS, w.delimiterPairs * p.delimiters * p.delimiters + w.backtickScan * p.tickScans * p.chars);
  if (p.brackets) add(s, LINKS, w.bracketPairs * p.brackets * p.brackets);
  if (p.lazy) add(s, LAZY, w.lazyPairs * p.lazy * p.lazy);
}

/** A block starts (a list item, a fence, a heading, a break): the paragraph and the table before it end. */
export function endLeaf(s: ScanState): void {
  endPara(s);
  s.table = undefined;
}

/** A blank line: the paragraph, the table and a run of definitions end. */
export function leafAtBlank(s: ScanState): void {
  endPara(s);
  s.table = undefined;
  s.afterDefinition = false;
}

/** A table row: each cell is inline content of its own. */
export function cells(s: ScanState, c: number, stop: number, q: number, col: number): void {
  const { text } = s;
  let from = c;
  for (let k = c; k <= stop; k++) {
    const ch = k < stop ? text.charCodeAt(k) : 0x7c;
    if (ch === 0x5c /* \ */) {
      k++;
      continue;
    }
    if (ch !== 0x7c /* | */) continue;
    if (k > from) {
      startPara(s, q, col, false);
      inline(s, from, k);
      endPara(s);
    }
    from = k + 1;
  }
}

/** Counts a line's inline constructs into the paragraph, refusing at a cap. */
export function inline(s: ScanState, c: number, stop: number): void {
  const { text, caps, counts, w } = s;
  const p = s.para!;
  p.chars += stop - c;
  for (let k = c; k < stop; k++) {
    // To the next character inline Markdown may give a meaning: a native search, whose answer
    // is kept for the lines before it (each is searched once, not once per line).
    if (k > s.nextInline || k < s.nextInlineFrom) {
      INLINE_CHAR.lastIndex = k;
      s.nextInline = INLINE_CHAR.test(text) ? INLINE_CHAR.lastIndex - 1 : text.length;
      s.nextInlineFrom = k;
    }
    k = s.nextInline;
    if (k >= stop) return;
    const ch = text.charCodeAt(k);
    if (ch === 0x5c /* \ */) {
      add(s, HTML, w.escape);
      k++;
    } else if (ch === 0x5b || ch === 0x5d /* [ ] */) {
      p.brackets++;
      add(s, LINKS, w.bracket);
      if (ch === 0x5b && k > 0 && text.charCodeAt(k - 1) === 0x21 /* ! */) add(s, LINKS, w.image);
      if (p.brackets > caps.brackets) {
        counts.maxBrackets = p.brackets;
        return refuse(s, 'TOO_LARGE', 'markdown-brackets', `the paragraph has over ${caps.brackets} "[" and "]" by this line: split it into several paragraphs, or escape the brackets that are not links (\\[)`);
      }
      counts.maxBrackets = Math.max(counts.maxBrackets, p.brackets);
    } else if (ch === 0x3c /* < */) {
      add(s, HTML, w.html);
    } else if (ch === 0x26 /* & */) {
      add(s, HTML, w.entity);
    } else if (ch === 0x60 /* ` */) {
      let e = k + 1;
      while (e < stop && text.charCodeAt(e) === 0x60) e++;
      const run = e - k;
      const bit = run <= 30 ? 1 << (run - 1) : 0;
      if (!bit || !(p.tickLengths & bit)) p.tickScans++;
      p.tickLengths |= bit;
      add(s, EMPHASIS, w.backtickRun);
      k = e - 1;
    } else {
      // `*`, `_`, `~`: a run that can open or close emphasis (or strikethrough) by the flanking rules.
      let e = k + 1;
      while (e < stop && text.charCodeAt(e) === ch) e++;
      if (delimiterRun(text, k, e, c, stop, ch)) {
        p.delimiters++;
        add(s, EMPHASIS, w.delimiter);
        if (p.delimiters > caps.delimiters) {
          counts.maxDelimiters = p.delimiters;
          return refuse(s, 'TOO_LARGE', 'markdown-emphasis', `the paragraph has over ${caps.delimiters} emphasis markers ("*", "_", "~") by this line: split it into several paragraphs, or put code in backticks and escape the markers that are not emphasis (\\*)`);
        }
        counts.maxDelimiters = Math.max(counts.maxDelimiters, p.delimiters);
      }
      k = e - 1;
    }
  }
}
