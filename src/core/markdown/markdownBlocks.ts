/**
 * The leaf block a line's content starts or continues, for the Markdown pre-scan: a fence opener,
 * a heading, a thematic break, a table row, a link definition, or paragraph text (a lazy line too);
 * with the caps on tables, definitions and lazy lines.
 */
import type { MarkdownWeights } from './markdownWeights';
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import type { Fences } from './markdownFences';
import type { Line, LineReader } from './markdownLineReader';
import type { Paragraphs } from './markdownParagraphs';
import type { ScanLedger } from './markdownScanLedger';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { HEADINGS, BLOCKS, TABLE, DEFS } = weights;
const { TABLE_DELIMITER_ROW, SETEXT_UNDERLINE, ATX, DEFINITION, matchesAt, hasPipe, htmlBlockStart, countColumns } = syntax;

/** What a line's content is, once its containers are known. */
export class LeafBlocks {
  constructor(
    private readonly reader: LineReader,
    private readonly ledger: ScanLedger,
    private readonly paragraphs: Paragraphs,
    private readonly fences: Fences,
    private readonly w: MarkdownWeights,
  ) {}

  /** A fence opener, an ATX heading, a thematic break or a setext underline at `l.c` (its first character `f`): counted, and true (the line is done). */
  blockStart(l: Line, f: number): boolean {
    const { reader, ledger, paragraphs, w } = this;
    const { text } = reader;
    const { stop, lazy, q, c, cCol } = l;
    // A fence opens a code block: nothing in it is inline Markdown.
    if (!lazy && (f === 0x60 || f === 0x7e) && reader.isFence(c, stop, f, 3, false)) {
      paragraphs.endLeaf();
      let run = 0;
      while (text.charCodeAt(c + run) === f) run++;
      ledger.lineIs(BLOCKS);
      ledger.add(BLOCKS, w.fence);
      this.fences.opens(f, run, q, cCol);
      return true;
    }
    if (!lazy && ((f === 0x23 && matchesAt(ATX, text, c)) || ((f === 0x2a || f === 0x2d || f === 0x5f) && reader.thematicAt(c, stop)) || (paragraphs.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c)))) {
      const setext = f !== 0x23 && !!paragraphs.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c);
      paragraphs.endLeaf();
      if (f === 0x23) {
        ledger.lineIs(HEADINGS);
        ledger.add(HEADINGS, w.heading);
        paragraphs.start(q, cCol, false);
        paragraphs.inline(c, stop);
        paragraphs.end();
      } else if (setext) {
        ledger.lineIs(HEADINGS);
        ledger.add(HEADINGS, w.setext + w.setextShift * ledger.line);
      } else {
        ledger.lineIs(BLOCKS);
        ledger.add(BLOCKS, w.thematic);
      }
      return true;
    }
    if (!lazy && f === 0x3c && htmlBlockStart(text, c, stop)) paragraphs.end();
    return false;
  }

  /** The rest of a line from `l.c` (its first character `f`): a table row or delimiter row, a definition, or paragraph text. */
  leafLine(l: Line, f: number): void {
    const { reader, ledger, paragraphs, w } = this;
    const { text } = reader;
    const { caps, counts } = ledger;
    const { stop, lazy, q, c, cCol } = l;
    // Tables: a delimiter row under a paragraph line (its header); then rows until a blank line.
    const table = paragraphs.table;
    if (table && table.q === q && !lazy) {
      counts.tableCells += table.cols;
      ledger.lineIs(TABLE);
      ledger.add(TABLE, w.tableCell * table.cols);
      if (counts.tableCells > caps.tableCells) {
        return ledger.refuse('TOO_LARGE', 'markdown-table-cells', `the tables have over ${caps.tableCells} cells by this line: split them, or move them into a file under .pi/plans/artifacts/ and link it`);
      }
      paragraphs.cells(c, stop, q, cCol);
      return;
    }
    paragraphs.table = undefined;
    if (paragraphs.para && paragraphs.para.q === q && !lazy && (f === 0x7c || f === 0x3a || f === 0x2d) && hasPipe(text, c, stop) && matchesAt(TABLE_DELIMITER_ROW, text, c)) {
      const cols = countColumns(text, c, stop);
      counts.maxColumns = Math.max(counts.maxColumns, cols);
      if (cols > caps.tableColumns) {
        return ledger.refuse('TOO_LARGE', 'markdown-table-width', `the table has ${cols} columns, over the limit of ${caps.tableColumns}: split it into narrower tables`);
      }
      paragraphs.end();
      paragraphs.table = { cols, q };
      counts.tableCells += 2 * cols; // its header and this row
      ledger.lineIs(TABLE);
      ledger.add(TABLE, 2 * w.tableCell * cols);
      return;
    }

    // Link reference definitions (and footnote definitions) start a paragraph, or follow one another.
    if ((!paragraphs.para || paragraphs.afterDefinition) && f === 0x5b && matchesAt(DEFINITION, text, c)) {
      counts.definitions++;
      ledger.lineIs(DEFS);
      ledger.add(DEFS, text.charCodeAt(c + 1) === 0x5e /* ^ */ ? w.footnoteDefinition : w.definition);
      paragraphs.afterDefinition = true;
      if (counts.definitions > caps.definitions) {
        return ledger.refuse('TOO_LARGE', 'markdown-definitions', `the Markdown has over ${caps.definitions} link reference or footnote definitions by this line: write the links inline, or move them into a file under .pi/plans/artifacts/`);
      }
      paragraphs.end();
      return;
    }
    paragraphs.afterDefinition = false;

    if (!paragraphs.para) {
      // A paragraph in a list item starts at the item's content column (lines less indented are lazy).
      paragraphs.start(q, l.item >= 0 ? l.item : cCol, l.item >= 0);
    } else if (lazy) {
      const p = paragraphs.para;
      p.lazy++;
      counts.maxLazy = Math.max(counts.maxLazy, p.lazy);
      if (p.lazy > caps.lazyLines) {
        return ledger.refuse('TOO_LARGE', 'markdown-lazy-lines', `the paragraph has over ${caps.lazyLines} lines that continue a quote or a list item without its ">" or its indentation: indent them (or add the ">"), or leave a blank line before them`);
      }
    }
    paragraphs.inline(c, stop);
  }
}
