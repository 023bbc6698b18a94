/**
 * The pre-scan that runs before any Markdown parse of plan text. remark (micromark, mdast, rehype)
 * is linear on ordinary text but super-linear on some ordinary-looking input: deep `>` quotes
 * (quadratic, then a stack overflow), emphasis and bracket runs in one paragraph (quadratic), lazy
 * continuation lines (quadratic), tables whose rows are padded to a wide header (rows x columns).
 * Its linear costs also differ a hundredfold between constructs (a list item costs what a hundred
 * characters of prose cost). This scan is a bounded counter over lines, not a parser: it counts
 * what the parser's cost grows with and refuses text over a cap, naming the line, the limit and
 * the fix. It refuses only what it can see is over a cap: where it cannot tell (is this line a
 * heading, a lazy line, a list item?) it takes the reading that counts less, and it takes a fenced
 * code block to end where its container may end (a list item, a quote), as the parser does, so
 * the paragraphs after it are always counted. The work budget bounds the rest: the scan counts
 * what the parse will cost (a weight per construct, see MARKDOWN_WEIGHTS) and refuses, at the line
 * where it goes over, text that costs more than its size allows (`workBudget`: about twice what
 * ordinary plan text of that size costs, above a floor), naming what it is mostly made of.
 */
import { LIMITS } from './limits';
import * as weights from './markdownWeights';
import type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';
import * as syntax from './markdownSyntax';
import { ScanBase } from './markdownScanParts';

export { MARKDOWN_WEIGHTS, workBudget } from './markdownWeights';
export type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';

// Read once into this module's own constants: where each file runs as CommonJS (tsx, in the tests
// and the benchmark) an imported name is a getter on its module read at every use, and the scan
// reads these per line and per character (twice the scan's time); a bundle has no such cost.
const { MARKDOWN_WEIGHTS, workBudget, TEXT, LIST, NESTED, HEADINGS, BLOCKS, TABLE, DEFS } = weights;
const { CR, TABLE_DELIMITER_ROW, SETEXT_UNDERLINE, ATX, DEFINITION, matchesAt, hasPipe, htmlBlockStart, listMarker, countColumns } = syntax;

/**
 * Scans `text` (a plan body, or a piece of Markdown the plan editor renders) and returns the first
 * cap it is over, or undefined. Linear in the text, no allocation per character. With
 * `sections: true` (a plan body) the `##` sections are also held to their size caps.
 */
export function scanMarkdown(text: string, opts: ScanOptions = {}): MarkdownRefusal | undefined {
  return inspectMarkdown(text, opts).refusal;
}

/**
 * How a text is scanned: `sections` for a plan body (its sections' size caps); `work` for another
 * cap on the work budget than a plan's (the budget is `workBudget(text.length, work)`; Infinity: no
 * budget); `weights` for another cost model than MARKDOWN_WEIGHTS (bench/calibrate.ts).
 */
export interface ScanOptions {
  sections?: boolean;
  work?: number;
  weights?: MarkdownWeights;
}

/** The scan's refusal, if any, and what it counted up to where it stopped. */
export function inspectMarkdown(text: string, opts: ScanOptions = {}): { refusal?: MarkdownRefusal; counts: MarkdownCounts } {
  const limit = opts.work ?? LIMITS.markdown.work;
  const s = new Scan(text, opts.sections === true, limit === Infinity ? Infinity : workBudget(text.length, limit), opts.weights ?? MARKDOWN_WEIGHTS);
  const refusal = s.run();
  return refusal ? { refusal, counts: s.counts } : { counts: s.counts };
}

/** The counts of a scan that passed (undefined when it refuses): for the benchmark and the tests. */
export function markdownCounts(text: string, opts: ScanOptions = {}): MarkdownCounts | undefined {
  const r = inspectMarkdown(text, opts);
  return r.refusal ? undefined : r.counts;
}

/** A line as `scanLine` takes it apart: its quote markers, its content, and where its leaf content starts. */
interface Line {
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
}

class Scan extends ScanBase {
  run(): MarkdownRefusal | undefined {
    const { text } = this;
    const n = text.length;
    if (this.sections) this.piece = { title: '', line: 1, contentStart: 0, cap: Infinity };
    for (let at = 0; at <= n && !this.refusal; ) {
      let end = text.indexOf('\n', at);
      if (end === -1) end = n;
      const stop = end > at && text.charCodeAt(end - 1) === CR ? end - 1 : end;
      this.line++;
      this.scanLine(at, stop);
      if (this.ended.length) this.endLists();
      if (this.counts.work > this.caps.work) this.refuseWork();
      at = end + 1;
      if (end === n) break;
    }
    if (!this.refusal) this.endPara();
    if (!this.refusal && this.piece) this.closePiece(n);
    this.counts.lines = this.line;
    if (this.counts.work > this.caps.work) this.refuseWork();
    return this.refusal;
  }

  private scanLine(at: number, stop: number): void {
    const len = stop - at;
    if (len > this.caps.lineChars) {
      return this.refuse('TOO_LARGE', 'markdown-line-length', `the line is ${len} characters, over the ${this.caps.lineChars}-character limit: break it into shorter lines, or move it into a file under .pi/plans/artifacts/ and link it`);
    }
    const w = this.w;
    this.lineCost = w.char * len + w.line;
    this.add(TEXT, this.lineCost);
    const l = this.quotePrefix(at, stop);
    if (!l || this.fencedOrBlank(l) || this.containers(l) || this.listMarkers(l)) return;
    const f = this.text.charCodeAt(l.c);
    if (this.blockStart(l, f)) return;
    this.leafLine(l, f);
  }

  /**
   * The quote markers, each after at most three blanks (inside a fenced block only up to the
   * fence's own quote level: more are its text): the line taken apart, or undefined when refused.
   */
  private quotePrefix(at: number, stop: number): Line | undefined {
    const { text, caps } = this;
    let col = 0;
    let q = 0;
    let quotesHere = 0;
    let content = this.skipBlanks(at, stop, 0);
    while (content < stop && text.charCodeAt(content) === 0x3e /* > */ && this.blankCol - col <= 3 && !(this.fence && q >= this.fence.q)) {
      q++;
      quotesHere++;
      if (quotesHere > caps.quoteDepth) {
        this.refuseQuotes(quotesHere);
        return undefined;
      }
      col = this.blankCol + 1;
      content = this.skipBlanks(content + 1, stop, col);
    }
    const contentCol = this.blankCol;
    return { at, stop, q, quotesHere, col, content, contentCol, indent: contentCol - col, blank: content >= stop, lazy: false, inList: false, c: content, cCol: contentCol };
  }

  /** A line in the fenced code block this scan follows, or a blank line: counted, and true (the line is done). */
  private fencedOrBlank(l: Line): boolean {
    const { at, stop, q, col, content, contentCol, indent, blank } = l;
    const w = this.w;
    // A fence this scan follows ends when its container does: fewer quotes, or less indentation
    // than its opener had (a list item it was in has ended). Ending early counts more, never less.
    if (this.fence && !blank && (q < this.fence.q || contentCol < this.fence.col)) this.fence = undefined;
    if (this.fence) {
      if (!blank && indent - (this.fence.col - col) <= 3 && this.isFence(content, stop, this.fence.ch, this.fence.len, true)) {
        this.fence = undefined;
        this.stickyFence = undefined;
      }
      this.sectionLine(at, stop, content, q, blank, true);
      this.prevBlank = blank;
      this.prevQ = q;
      this.add(NESTED, w.container * (q + this.items.length));
      return true;
    }
    if (this.stickyFence && !blank && this.isFence(content, stop, this.stickyFence.ch, this.stickyFence.len, true)) this.stickyFence = undefined;
    this.sectionLine(at, stop, content, q, blank, false);

    if (blank) {
      this.endPara();
      this.table = undefined;
      this.afterDefinition = false;
      this.prevBlank = true;
      if (this.html === '') this.html = undefined;
      this.endQuotes(q);
      this.add(NESTED, w.container * (q + this.items.length));
      return true;
    }
    return false;
  }

  /**
   * Whether the line continues the paragraph lazily (`l.lazy`); if not, the containers it does not
   * continue end. True when the line is indented code (it is done).
   */
  private containers(l: Line): boolean {
    const { stop, q, content, contentCol, indent } = l;
    // A line that continues the paragraph lazily: fewer quotes, or less indentation than the
    // content of the list item the paragraph is in, and nothing that can interrupt a paragraph.
    const para = this.para;
    const lazy = !!para && q <= para.q && !this.interrupts(content, stop, indent) && (q < para.q || (para.inList && contentCol < para.col));
    l.lazy = lazy;
    l.inList = this.items.length > 0;
    if (!lazy) {
      this.closeItems(q, contentCol);
      this.endQuotes(q);
      if (para && q !== para.q) this.endPara();
    }

    // Indented code: four columns past the innermost list item's content, after a blank line
    // (and on, while its lines stay as indented): never inline Markdown.
    const code = !this.para && (this.prevBlank || this.indentedCode) && contentCol - this.itemCol(q) >= 4 && indent >= 4;
    this.indentedCode = code;
    this.prevBlank = false;
    if (code) {
      this.add(NESTED, this.w.container * (q + this.items.length));
      return true;
    }
    return false;
  }

  /**
   * List markers: each opens an item (a chain on one line nests them), and quotes may follow. Counts
   * the line's depth; true when the line is done (refused, or an empty list item or quote).
   */
  private listMarkers(l: Line): boolean {
    const { text, caps, counts } = this;
    const w = this.w;
    const { stop, lazy, inList } = l;
    let q = l.q;
    let quotesHere = l.quotesHere;
    let c = l.content;
    let cCol = l.contentCol;
    let markersHere = 0;
    let itemsWork = 0;
    while (!lazy && c < stop) {
      const m = listMarker(text, c, stop);
      if (m < 0 || !this.canStartItem(c, m, stop, inList || markersHere > 0)) break;
      this.endPara();
      this.table = undefined;
      this.closeItems(q, cCol);
      const markerEnd = cCol + (m - c);
      const after = this.skipBlanks(m, stop, markerEnd);
      const itemCol = after >= stop || this.blankCol - markerEnd > 4 ? markerEnd + 1 : this.blankCol;
      for (let k = this.ended.length - 1; k >= 0; k--) {
        if (this.ended[k].q === q && this.ended[k].mcol === cCol) {
          this.ended.splice(k, 1);
          break;
        }
      }
      this.items.push({ col: itemCol, q, mcol: cCol, nested: q > 0 || this.items.length > 0 });
      markersHere++;
      if (q + this.items.length > caps.nesting) {
        this.refuseNesting(q + this.items.length);
        return true;
      }
      itemsWork += w.listItem + w.itemShift * this.line * this.items.length;
      c = after;
      cCol = this.blankCol;
      while (c < stop && text.charCodeAt(c) === 0x3e /* > */) {
        q++;
        quotesHere++;
        if (quotesHere > caps.quoteDepth) {
          this.refuseQuotes(quotesHere);
          return true;
        }
        c = this.skipBlanks(c + 1, stop, cCol + 1);
        cCol = this.blankCol;
      }
    }
    l.q = q;
    l.quotesHere = quotesHere;
    l.c = c;
    l.cCol = cCol;

    let depth = q;
    for (const it of this.items) if (it.q <= q) depth++;
    const here = quotesHere + markersHere;
    counts.maxDepth = Math.max(counts.maxDepth, depth);
    if (q > this.prevQ) this.prevQ = q;
    // The line, its items and containers are what it is: a line of quotes or nested lists, a list item, or text in one.
    const kind = quotesHere > 0 || depth > 1 ? NESTED : markersHere > 0 || depth > 0 ? LIST : TEXT;
    if (kind !== TEXT) this.lineIs(kind);
    this.add(kind, itemsWork + w.container * depth + w.nestingPairs * here * here);
    if (depth > caps.nesting) {
      this.refuseNesting(depth);
      return true;
    }
    return c >= stop; // an empty list item or quote
  }

  /** A fence opener, an ATX heading, a thematic break or a setext underline at `l.c` (its first character `f`): counted, and true (the line is done). */
  private blockStart(l: Line, f: number): boolean {
    const { text } = this;
    const w = this.w;
    const { stop, lazy, q, c, cCol } = l;
    // A fence opens a code block: nothing in it is inline Markdown.
    if (!lazy && (f === 0x60 || f === 0x7e) && this.isFence(c, stop, f, 3, false)) {
      this.endPara();
      this.table = undefined;
      let run = 0;
      while (text.charCodeAt(c + run) === f) run++;
      this.lineIs(BLOCKS);
      this.add(BLOCKS, w.fence);
      this.fence = { ch: f, len: run, q, col: cCol };
      this.stickyFence = { ch: f, len: run };
      return true;
    }
    if (!lazy && ((f === 0x23 && matchesAt(ATX, text, c)) || ((f === 0x2a || f === 0x2d || f === 0x5f) && this.thematicAt(c, stop)) || (this.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c)))) {
      const setext = f !== 0x23 && !!this.para && (f === 0x3d || f === 0x2d) && matchesAt(SETEXT_UNDERLINE, text, c);
      this.endPara();
      this.table = undefined;
      if (f === 0x23) {
        this.lineIs(HEADINGS);
        this.add(HEADINGS, w.heading);
        this.startPara(q, cCol, false);
        this.inline(c, stop);
        this.endPara();
      } else if (setext) {
        this.lineIs(HEADINGS);
        this.add(HEADINGS, w.setext + w.setextShift * this.line);
      } else {
        this.lineIs(BLOCKS);
        this.add(BLOCKS, w.thematic);
      }
      return true;
    }
    if (!lazy && f === 0x3c && htmlBlockStart(text, c, stop)) this.endPara();
    return false;
  }

  /** The rest of a line from `l.c` (its first character `f`): a table row or delimiter row, a definition, or paragraph text. */
  private leafLine(l: Line, f: number): void {
    const { text, caps, counts } = this;
    const w = this.w;
    const { stop, lazy, q, c, cCol } = l;
    // Tables: a delimiter row under a paragraph line (its header); then rows until a blank line.
    if (this.table && this.table.q === q && !lazy) {
      counts.tableCells += this.table.cols;
      this.lineIs(TABLE);
      this.add(TABLE, w.tableCell * this.table.cols);
      if (counts.tableCells > caps.tableCells) {
        return this.refuse('TOO_LARGE', 'markdown-table-cells', `the tables have over ${caps.tableCells} cells by this line: split them, or move them into a file under .pi/plans/artifacts/ and link it`);
      }
      this.cells(c, stop, q, cCol);
      return;
    }
    this.table = undefined;
    if (this.para && this.para.q === q && !lazy && (f === 0x7c || f === 0x3a || f === 0x2d) && hasPipe(text, c, stop) && matchesAt(TABLE_DELIMITER_ROW, text, c)) {
      const cols = countColumns(text, c, stop);
      counts.maxColumns = Math.max(counts.maxColumns, cols);
      if (cols > caps.tableColumns) {
        return this.refuse('TOO_LARGE', 'markdown-table-width', `the table has ${cols} columns, over the limit of ${caps.tableColumns}: split it into narrower tables`);
      }
      this.endPara();
      this.table = { cols, q };
      counts.tableCells += 2 * cols; // its header and this row
      this.lineIs(TABLE);
      this.add(TABLE, 2 * w.tableCell * cols);
      return;
    }

    // Link reference definitions (and footnote definitions) start a paragraph, or follow one another.
    if ((!this.para || this.afterDefinition) && f === 0x5b && matchesAt(DEFINITION, text, c)) {
      counts.definitions++;
      this.lineIs(DEFS);
      this.add(DEFS, text.charCodeAt(c + 1) === 0x5e /* ^ */ ? w.footnoteDefinition : w.definition);
      this.afterDefinition = true;
      if (counts.definitions > caps.definitions) {
        return this.refuse('TOO_LARGE', 'markdown-definitions', `the Markdown has over ${caps.definitions} link reference or footnote definitions by this line: write the links inline, or move them into a file under .pi/plans/artifacts/`);
      }
      this.endPara();
      return;
    }
    this.afterDefinition = false;

    if (!this.para) {
      const inList = this.items.some((it) => it.q === q);
      this.startPara(q, inList ? this.itemCol(q) : cCol, inList);
    } else if (lazy) {
      const p = this.para;
      p.lazy++;
      counts.maxLazy = Math.max(counts.maxLazy, p.lazy);
      if (p.lazy > caps.lazyLines) {
        return this.refuse('TOO_LARGE', 'markdown-lazy-lines', `the paragraph has over ${caps.lazyLines} lines that continue a quote or a list item without its ">" or its indentation: indent them (or add the ">"), or leave a blank line before them`);
      }
    }
    this.inline(c, stop);
  }
}

/**
 * Refusals and failed parses remembered by the text they were about (a plan body, or the body a
 * worker was given): the next read of the same text is refused at once, with the same reason,
 * instead of being scanned or parsed again. Bounded in entries and characters; the newest stay.
 */
const refused = new Map<string, MarkdownRefusal>();
const REFUSED_ENTRIES = 64;
const REFUSED_CHARS = 2 * 1024 * 1024;
let refusedChars = 0;

/** Remembers that `body` was refused (by the scan, a failed parse or a parse over its time budget). */
export function rememberRefusal(body: string, refusal: MarkdownRefusal): void {
  if (refused.has(body)) refused.delete(body);
  else refusedChars += body.length;
  refused.set(body, refusal);
  while (refused.size > REFUSED_ENTRIES || (refusedChars > REFUSED_CHARS && refused.size > 1)) {
    const oldest = refused.keys().next().value as string;
    refused.delete(oldest);
    refusedChars -= oldest.length;
  }
}

/** The refusal remembered for `body`, if any. */
export function knownRefusal(body: string): MarkdownRefusal | undefined {
  return refused.get(body);
}

/** The refusal of a parse that threw (a stack overflow, running out of memory): the text is refused, never parsed again. */
export function parseFailure(e: unknown): MarkdownRefusal {
  const what = e instanceof RangeError ? 'the Markdown parser ran out of stack' : `the Markdown parser failed (${String((e as Error)?.message ?? e).slice(0, 120)})`;
  return { code: 'INVALID_FILE', rule: 'markdown-parse-failed', message: `${what}: simplify the deepest nesting, or split the plan`, line: 1 };
}
