/**
 * The leaf block a line's content starts or continues, for the Markdown pre-scan: a fence opener,
 * a heading, a thematic break, a table row, a link definition, or paragraph text (a lazy line too);
 * with the caps on tables, definitions and lazy lines.
 */
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import * as ledger from './markdownScanLedger';
import * as reader from './markdownLineReader';
import * as paragraphs from './markdownParagraphs';
import * as fences from './markdownFences';
import type { Line } from './markdownLineReader';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { HEADINGS, BLOCKS, TABLE, DEFS } = weights;
const { TABLE_DELIMITER_ROW, SETEXT_UNDERLINE, ATX, DEFINITION, matchesAt, hasPipe, htmlBlockStart, countColumns } = syntax;
const { add, lineIs, refuse } = ledger;
const { isFence, thematicAt } = reader;
const { startPara, endPara, endLeaf, inline, cells } = paragraphs;
const { openFence } = fences;

/** A fence opener, an ATX heading, a thematic break or a setext underline at `l.c` (its first character `f`): counted, and true (the line is done). */
export function blockStart(s: ScanState, l: Line, f: number): boolean {
  const { text, w } = s;
  const { stop, lazy, q, c, cCol } = l;
  // A fence opens a code block: nothing in it is inline Markdown.
  if (!lazy && (f === 0x60 || f === 0x7e) && isFence(s, c, stop, f, 3, false)) {
    endLeaf(s);
    let run = 0;
    while (text.charCodeAt(c + run) === f) run++;
    lineIs(s, BLOCKS);
    add(s, BLOCKS, w.fence);
    openFence(s, f, run, q, cCol);
    return true;
  }
  if (!lazy && ((f === 0x23 && matchesAt(ATX, text, c)) || ((f === 0x2a || f === 0x2d || f === 0x5f) && thematicAt(s, c, stop)) || (s.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c)))) {
    const setext = f !== 0x23 && !!s.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c);
    endLeaf(s);
    if (f === 0x23) {
      lineIs(s, HEADINGS);
      add(s, HEADINGS, w.heading);
      startPara(s, q, cCol, false);
      inline(s, c, stop);
      endPara(s);
    } else if (setext) {
      lineIs(s, HEADINGS);
      add(s, HEADINGS, w.setext + w.setextShift * s.line);
    } else {
      lineIs(s, BLOCKS);
      add(s, BLOCKS, w.thematic);
    }
    return true;
  }
  if (!lazy && f === 0x3c && htmlBlockStart(text, c, stop)) endPara(s);
  return false;
}

/** The rest of a line from `l.c` (its first character `f`): a table row or delimiter row, a definition, or paragraph text. */
export function leafLine(s: ScanState, l: Line, f: number): void {
  const { text, caps, counts, w } = s;
  const { stop, lazy, q, c, cCol } = l;
  // Tables: a delimiter row under a paragraph line (its header); then rows until a blank line.
  const table = s.table;
  if (table && table.q === q && !lazy) {
    counts.tableCells += table.cols;
    lineIs(s, TABLE);
    add(s, TABLE, w.tableCell * table.cols);
    if (counts.tableCells > caps.tableCells) {
      return refuse(s, 'TOO_LARGE', 'markdown-table-cells', `the tables have over ${caps.tableCells} cells by this line: split them, or move them into a file under .pi/plans/artifacts/ and link it`);
    }
    cells(s, c, stop, q, cCol);
    return;
  }
  s.table = undefined;
  if (s.para && s.para.q === q && !lazy && (f === 0x7c || f === 0x3a || f === 0x2d) && hasPipe(text, c, stop) && matchesAt(TABLE_DELIMITER_ROW, text, c)) {
    const cols = countColumns(text, c, stop);
    counts.maxColumns = Math.max(counts.maxColumns, cols);
    if (cols > caps.tableColumns) {
      return refuse(s, 'TOO_LARGE', 'markdown-table-width', `the table has ${cols} columns, over the limit of ${caps.tableColumns}: split it into narrower tables`);
    }
    endPara(s);
    s.table = { cols, q };
    counts.tableCells += 2 * cols; // its header and this row
    lineIs(s, TABLE);
    add(s, TABLE, 2 * w.tableCell * cols);
    return;
  }

  // Link reference definitions (and footnote definitions) start a paragraph, or follow one another.
  if ((!s.para || s.afterDefinition) && f === 0x5b && matchesAt(DEFINITION, text, c)) {
    counts.definitions++;
    lineIs(s, DEFS);
    add(s, DEFS, text.charCodeAt(c + 1) === 0x5e /* ^ */ ? w.footnoteDefinition : w.definition);
    s.afterDefinition = true;
    if (counts.definitions > caps.definitions) {
      return refuse(s, 'TOO_LARGE', 'markdown-definitions', `the Markdown has over ${caps.definitions} link reference or footnote definitions by this line: write the links inline, or move them into a file under .pi/plans/artifacts/`);
    }
    endPara(s);
    return;
  }
  s.afterDefinition = false;

  if (!s.para) {
    // A paragraph in a list item starts at the item's content column (lines less indented are lazy).
    startPara(s, q, l.item >= 0 ? l.item : cCol, l.item >= 0);
  } else if (lazy) {
    const p = s.para;
    p.lazy++;
    counts.maxLazy = Math.max(counts.maxLazy, p.lazy);
    if (p.lazy > caps.lazyLines) {
      return refuse(s, 'TOO_LARGE', 'markdown-lazy-lines', `the paragraph has over ${caps.lazyLines} lines that continue a quote or a list item without its ">" or its indentation: indent them (or add the ">"), or leave a blank line before them`);
    }
  }
  inline(s, c, stop);
}
