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

/** Why a text is refused before its Markdown parse: a stable rule name, the message (what to do) and the line. */
export interface MarkdownRefusal {
  code: 'TOO_LARGE' | 'INVALID_FILE';
  /** Stable name, e.g. `markdown-quote-depth`. */
  rule: string;
  message: string;
  /** 1-based line in the scanned text. */
  line: number;
}

/**
 * What the parser's cost grows with, in work units: the weights are the parse's measured cost per
 * construct (bench/calibrate.ts fits them to remark's parse time: each pathological family's cost
 * per character against an ordinary plan's of its size, leaning to over-estimates; then rounded,
 * and a few set by hand where the fit lacked cases, see the comments). A character of an ordinary
 * plan (steps with details) counts about 3 to 4 units (more as it grows: its nested lists end);
 * the budget (`workBudget`) allows `LIMITS.markdown.workPerChar` per character, above a floor.
 * The quadratic terms are micromark's: a setext underline, and a quote or a list that ends (not a
 * list item followed by a sibling), each move the events before them (cost times the line).
 */
export const MARKDOWN_WEIGHTS = {
  char: 1.9,
  line: 14,
  /**
   * Per open container (quote or list item) a line continues. Set by hand above the fit (2, which
   * had no nested cases): short quoted lines nested in a list item or a quote took about 4 x an
   * ordinary plan's time per KB, and over 2 MB per KB, at the cap.
   */
  container: 6,
  listItem: 20,
  /**
   * Per list item, times the lines before it and its depth: the fit found a list item followed by
   * a sibling linear (0); what is quadratic is a list that ends (endShift). Kept for the calibration.
   */
  itemShift: 0,
  /** Per quote or list that ends (a list item not followed by a sibling: its exit moves the events before it), times the lines before it. */
  endShift: 0.09,
  heading: 29,
  /** A setext heading's underline (it turns the paragraph before it into a heading), and the same times the lines before it. */
  setext: 0,
  setextShift: 0.06,
  thematic: 3,
  fence: 5,
  tableCell: 22,
  /** Definitions, set by hand (the fit had no case under their cap): measured at 4 KB, about 0.9 x and 1.9 x plan text. */
  definition: 40,
  footnoteDefinition: 120,
  /** Set by hand below the fit (11): emphasis in many paragraphs measured about 1.1 x plan text. */
  delimiter: 6,
  bracket: 12,
  /** An image's `![` on top of its brackets, set by hand: paragraphs of images measured about 2 x plan text per KB at the cap with brackets alone. */
  image: 16,
  html: 5,
  entity: 7,
  escape: 9,
  /** Set by hand above the fit (8): paragraphs of code spans measured about 1.8 x plan text per KB at the cap. */
  backtickRun: 12,
  /** Quadratic terms: per paragraph, times the square of the count (set by hand: their caps bound them). */
  delimiterPairs: 0.05,
  bracketPairs: 0.05,
  lazyPairs: 0.08,
  /** Per quote or list marker on one line, times the count squared (each opens a container inside the others). */
  nestingPairs: 0.06,
  /** A code span opener of a length not seen before in the paragraph scans the rest of it. */
  backtickScan: 0.025,
} as const;
/** The weights of the scan's cost model (see MARKDOWN_WEIGHTS). */
export type MarkdownWeights = { [K in keyof typeof MARKDOWN_WEIGHTS]: number };

/**
 * The work a text of `chars` characters may cost: what that many characters of ordinary plan text
 * cost with a margin (`workPerChar` each), at least `workFloor` (what a small plan costs), at most
 * `limit` (a plan's `LIMITS.markdown.work`, or the plan editor's `renderWork`).
 */
export function workBudget(chars: number, limit: number = LIMITS.markdown.work): number {
  return Math.min(limit, Math.max(LIMITS.markdown.workFloor, LIMITS.markdown.workPerChar * chars));
}

/** What the work is spent on, for the refusal's message: what the text is mostly made of, and the fix. */
const KINDS = [
  ['short lines', 'join short lines into longer ones'],
  ['list items', 'write fewer, longer list items'],
  ['quotes and nested lists', 'flatten the quotes and lists'],
  ['headings', 'use fewer headings'],
  ['thematic breaks and code blocks', 'use fewer thematic breaks and code blocks'],
  ['table cells', 'split the table or make it narrower'],
  ['link definitions', 'write the links inline'],
  ['emphasis and code spans', 'write fewer emphasis markers and code spans'],
  ['links and brackets', 'write fewer links and brackets'],
  ['HTML, entities and escapes', 'write fewer HTML tags, entities and escapes'],
  ['lazy lines', 'indent the lines that continue a quote or a list item'],
] as const;
const TEXT = 0;
const LIST = 1;
const NESTED = 2;
const HEADINGS = 3;
const BLOCKS = 4;
const TABLE = 5;
const DEFS = 6;
const EMPHASIS = 7;
const LINKS = 8;
const HTML = 9;
const LAZY = 10;

/** The counts a scan found (for the benchmark and tests); `work` is what the budget caps. */
export interface MarkdownCounts {
  work: number;
  lines: number;
  maxDepth: number;
  maxDelimiters: number;
  maxBrackets: number;
  maxLazy: number;
  maxColumns: number;
  tableCells: number;
  definitions: number;
}

const CR = 13;
const SPACE = 32;
const TAB = 9;

/** HTML block names (CommonMark's kind 6): a line that opens one of these interrupts a paragraph. */
const HTML_BLOCK =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s/>]|$)/i;
/** HTML blocks of kinds 1 to 5 (raw text elements, comments, processing instructions, declarations, CDATA): they end at their own terminator, not a blank line. */
const HTML_RAW = /^<(?:(script|pre|style|textarea)(?:[\s>]|$)|(!--)|(\?)|(![A-Za-z])|(!\[CDATA\[))/i;
const HTML_RAW_END = ['', '-->', '?>', '>', ']]>'];
// Tested where a line's content starts (sticky), up to its end: no copy of the line.
const TABLE_DELIMITER_ROW = /\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*(?=\r?\n|$)/y;
const SETEXT_UNDERLINE = /(?:=+|-+)[ \t]*(?=\r?\n|$)/y;
const ATX = /#{1,6}(?=[ \t\r\n]|$)/y;
const DEFINITION = /\[\^?(?:[^\\\]\n]|\\.){1,999}\]:/y;

/** Whether sticky `re` matches `text` at `at`. */
function matchesAt(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}
/** Characters the counts of inline content look at. */
const INLINE_CHAR = /[*[\]<&\\_`~]/g;
/** Characters a heading's Markdown gives a meaning inline: its title as written may not be its title. */
const INLINE_SYNTAX = /[\\`*_[\]<>&~!]/;

/** A paragraph (or a heading, a table cell): the inline content whose counts grow together. */
interface Para {
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

/** An open list item: its content column, quote level and marker column. */
interface Item {
  col: number;
  q: number;
  mcol: number;
  nested: boolean;
}

/** A `##` section's piece of text, from its heading line to the next line that may be a heading. */
interface Piece {
  title: string;
  line: number;
  contentStart: number;
  cap: number;
}

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

class Scan {
  readonly counts: MarkdownCounts = { work: 0, lines: 0, maxDepth: 0, maxDelimiters: 0, maxBrackets: 0, maxLazy: 0, maxColumns: 0, tableCells: 0, definitions: 0 };
  private readonly caps: { [K in keyof typeof LIMITS.markdown]: number };
  private line = 0;
  /** Open list items: content column and quote level. */
  private readonly items: Item[] = [];
  /** The list items the current line ended (a sibling it starts takes its predecessor off: its list goes on). */
  private readonly ended: Item[] = [];
  /** An open fenced code block as this scan follows it (closed early when its container seems to end). */
  private fence: { ch: number; len: number; q: number; col: number } | undefined;
  /** The same fence, closed only by a closing fence line: while it is open, no `#` line is surely a heading. */
  private stickyFence: { ch: number; len: number } | undefined;
  /** A possible HTML block at the top level (its end: a blank line, or a terminator). */
  private html: string | undefined;
  private para: Para | undefined;
  private table: { cols: number; q: number } | undefined;
  /** The previous line was a link reference definition (the next may be one too). */
  private afterDefinition = false;
  /** The previous line was blank (or none): an indented line after it is code. */
  private prevBlank = true;
  /** The previous line was indented code: so is the next as indented. */
  private indentedCode = false;
  private piece: Piece | undefined;
  /** Where the current run of non-blank top-level lines started (a setext heading's text starts there at the earliest). */
  private runStart = 0;
  private runLine = 1;
  private refusal: MarkdownRefusal | undefined;
  /** Quotes the previous line (not a lazy one) was in. */
  private prevQ = 0;
  /** The work by what it was spent on (KINDS). */
  private readonly spent = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

  constructor(
    private readonly text: string,
    private readonly sections: boolean,
    work: number,
    private readonly w: MarkdownWeights,
  ) {
    this.caps = { ...LIMITS.markdown, work };
  }

  /** The current line's own cost (characters and line), spent on short lines until the line is found to be something else. */
  private lineCost = 0;
  /** The current line is a `kind` (the first call for a line counts): its own cost is spent on that. */
  private lineIs(kind: number): void {
    this.spent[TEXT] -= this.lineCost;
    this.spent[kind] += this.lineCost;
    this.lineCost = 0;
  }

  /** Adds `units` of work spent on `kind`. */
  private add(kind: number, units: number): void {
    this.counts.work += units;
    this.spent[kind] += units;
  }

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

  /** Refuses the text as over its work budget, by this line: naming what the work went to most, and its fix. */
  private refuseWork(): void {
    let most = 0;
    for (let k = 1; k < KINDS.length; k++) if (this.spent[k] > this.spent[most]) most = k;
    const kb = Math.max(1, Math.round(this.caps.work / LIMITS.markdown.workPerChar / 1024));
    this.refuse(
      'TOO_LARGE',
      'markdown-complexity',
      `the Markdown costs far more to parse than ordinary plan text of its size: by this line it is over what ${kb} KB of text may cost (${this.line} lines, mostly ${KINDS[most][0]}): ${KINDS[most][1]}, or move it into a file under .pi/plans/artifacts/ and link it`,
    );
  }

  private refuse(code: MarkdownRefusal['code'], rule: string, message: string, line = this.line): void {
    this.refusal ??= { code, rule, message, line };
  }

  private scanLine(at: number, stop: number): void {
    const { text, caps, counts } = this;
    const len = stop - at;
    if (len > caps.lineChars) {
      return this.refuse('TOO_LARGE', 'markdown-line-length', `the line is ${len} characters, over the ${caps.lineChars}-character limit: break it into shorter lines, or move it into a file under .pi/plans/artifacts/ and link it`);
    }
    const w = this.w;
    this.lineCost = w.char * len + w.line;
    this.add(TEXT, this.lineCost);

    // The quote markers, each after at most three blanks (inside a fenced block only up to the
    // fence's own quote level: more are its text).
    let col = 0;
    let q = 0;
    let quotesHere = 0;
    let content = this.skipBlanks(at, stop, 0);
    while (content < stop && text.charCodeAt(content) === 0x3e /* > */ && this.blankCol - col <= 3 && !(this.fence && q >= this.fence.q)) {
      q++;
      quotesHere++;
      if (quotesHere > caps.quoteDepth) return this.refuseQuotes(quotesHere);
      col = this.blankCol + 1;
      content = this.skipBlanks(content + 1, stop, col);
    }
    const contentCol = this.blankCol;
    const indent = contentCol - col;
    const blank = content >= stop;

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
      return;
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
      return;
    }

    // A line that continues the paragraph lazily: fewer quotes, or less indentation than the
    // content of the list item the paragraph is in, and nothing that can interrupt a paragraph.
    const para = this.para;
    const lazy = !!para && q <= para.q && !this.interrupts(content, stop, indent) && (q < para.q || (para.inList && contentCol < para.col));
    const inList = this.items.length > 0;
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
      this.add(NESTED, w.container * (q + this.items.length));
      return;
    }

    // List markers: each opens an item (a chain on one line nests them), and quotes may follow.
    let c = content;
    let cCol = contentCol;
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
      if (q + this.items.length > caps.nesting) return this.refuseNesting(q + this.items.length);
      itemsWork += w.listItem + w.itemShift * this.line * this.items.length;
      c = after;
      cCol = this.blankCol;
      while (c < stop && text.charCodeAt(c) === 0x3e /* > */) {
        q++;
        quotesHere++;
        if (quotesHere > caps.quoteDepth) return this.refuseQuotes(quotesHere);
        c = this.skipBlanks(c + 1, stop, cCol + 1);
        cCol = this.blankCol;
      }
    }

    let depth = q;
    for (const it of this.items) if (it.q <= q) depth++;
    const here = quotesHere + markersHere;
    counts.maxDepth = Math.max(counts.maxDepth, depth);
    if (q > this.prevQ) this.prevQ = q;
    // The line, its items and containers are what it is: a line of quotes or nested lists, a list item, or text in one.
    const kind = quotesHere > 0 || depth > 1 ? NESTED : markersHere > 0 || depth > 0 ? LIST : TEXT;
    if (kind !== TEXT) this.lineIs(kind);
    this.add(kind, itemsWork + w.container * depth + w.nestingPairs * here * here);
    if (depth > caps.nesting) return this.refuseNesting(depth);
    if (c >= stop) return; // an empty list item or quote

    const f = text.charCodeAt(c);
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
      return;
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
      return;
    }
    if (!lazy && f === 0x3c && htmlBlockStart(text, c, stop)) this.endPara();

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

  /** Refuses a line with `n` quote markers, over the cap (counting stops there). */
  private refuseQuotes(n: number): void {
    this.refuse('TOO_LARGE', 'markdown-quote-depth', `the line nests more than ${this.caps.quoteDepth} block quotes (${n} so far), the limit: split the quote or shorten the line (remove the extra ">" markers)`);
  }

  /** Refuses a line nested `depth` levels deep, over the cap (counting stops there). */
  private refuseNesting(depth: number): void {
    this.refuse('TOO_LARGE', 'markdown-nesting', `the line is nested more than ${this.caps.nesting} levels deep in quotes and lists (${depth} so far), the limit: flatten the list or the quote`);
  }

  /**
   * Whether a thematic break (three or more of `-`, `*` or `_`, blanks between) runs from `c` to
   * the line's end. The line's tail made of one such character and blanks is found once per line.
   */
  private thematicAt(c: number, stop: number): boolean {
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
  /** The next inline character at or after `nextInlineFrom` (the text's length when none). */
  private nextInline = -1;
  private nextInlineFrom = 0;
  private tailLineEnd = -1;
  private tailStart = 0;
  private tailChar = -1;

  /** Whether a list marker at `c` (ending at `m`) starts an item here: inside a list always; else it must be able to interrupt a paragraph if one is open. */
  private canStartItem(c: number, m: number, stop: number, inList: boolean): boolean {
    if (this.thematicAt(c, stop)) return false;
    if (!this.para || inList) return true;
    const ordered = this.text.charCodeAt(c) <= 0x39;
    return this.skipBlanks(m, stop, 0) < stop && (!ordered || (m === c + 2 && this.text.charCodeAt(c) === 0x31));
  }

  /** True while the fence this scan follows is open for a line of `q` quotes. */
  private inFenceAt(q: number): boolean {
    return !!this.fence && q >= this.fence.q;
  }

  /** The content column of the innermost list item at quote level `q` (0 outside lists). */
  private itemCol(q: number): number {
    for (let k = this.items.length - 1; k >= 0; k--) if (this.items[k].q === q) return this.items[k].col;
    return 0;
  }

  /** Closes the list items a line at `col` with `q` quotes does not continue. */
  private closeItems(q: number, col: number): void {
    const items = this.items;
    while (items.length && (items[items.length - 1].q > q || (items[items.length - 1].q === q && items[items.length - 1].col > col))) this.ended.push(items.pop()!);
  }

  /** The lists the line ended (not continued by a sibling item): each moves the events before it. */
  private endLists(): void {
    for (const it of this.ended) this.add(it.nested ? NESTED : LIST, this.w.endShift * this.line);
    this.ended.length = 0;
  }

  /** A line (not a lazy one) in `q` quotes: the quotes the line before was in and this one is not have ended. */
  private endQuotes(q: number): void {
    if (q < this.prevQ) this.add(NESTED, this.w.endShift * this.line * (this.prevQ - q));
    this.prevQ = q;
  }

  /** Whether the line's content can interrupt a paragraph (so it is no lazy continuation). */
  private interrupts(c: number, stop: number, indent: number): boolean {
    const { text } = this;
    if (indent >= 4 || c >= stop) return false;
    const f = text.charCodeAt(c);
    if (f === 0x3e) return true;
    if ((f === 0x60 || f === 0x7e) && this.isFence(c, stop, f, 3, false)) return true;
    if (f === 0x23 && matchesAt(ATX, text, c)) return true;
    if ((f === 0x2a || f === 0x2d || f === 0x5f) && this.thematicAt(c, stop)) return true;
    if (f === 0x3c && htmlBlockStart(text, c, stop)) return true;
    // Inside a list, a marker starts a sibling; elsewhere only a bullet with content, or "1.", interrupts.
    const m = listMarker(text, c, stop);
    return m >= 0 && this.canStartItem(c, m, stop, this.items.length > 0);
  }

  /** Skips blanks from `i`, counting columns from `col` (tabs to the next multiple of four): the offset after them; the column in `this.blankCol`. */
  private skipBlanks(i: number, stop: number, col: number): number {
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
  private blankCol = 0;

  /** Whether a fence of `ch` at least `min` long starts at `c` (a closing one: nothing after it). */
  private isFence(c: number, stop: number, ch: number, min: number, closing: boolean): boolean {
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

  private startPara(q: number, col: number, inList: boolean): void {
    this.para = { delimiters: 0, brackets: 0, lazy: 0, chars: 0, tickLengths: 0, tickScans: 0, q, col, inList };
  }

  /** Ends the paragraph: its quadratic costs go into the work. */
  private endPara(): void {
    const p = this.para;
    if (!p) return;
    this.para = undefined;
    const w = this.w;
    this.add(EMPHASIS, w.delimiterPairs * p.delimiters * p.delimiters + w.backtickScan * p.tickScans * p.chars);
    if (p.brackets) this.add(LINKS, w.bracketPairs * p.brackets * p.brackets);
    if (p.lazy) this.add(LAZY, w.lazyPairs * p.lazy * p.lazy);
  }

  /** A table row: each cell is inline content of its own. */
  private cells(c: number, stop: number, q: number, col: number): void {
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
        this.startPara(q, col, false);
        this.inline(from, k);
        this.endPara();
      }
      from = k + 1;
    }
  }

  /** Counts a line's inline constructs into the paragraph, refusing at a cap. */
  private inline(c: number, stop: number): void {
    const { text, caps, counts } = this;
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
        this.add(HTML, this.w.escape);
        k++;
      } else if (ch === 0x5b || ch === 0x5d /* [ ] */) {
        p.brackets++;
        this.add(LINKS, this.w.bracket);
        if (ch === 0x5b && k > 0 && text.charCodeAt(k - 1) === 0x21 /* ! */) this.add(LINKS, this.w.image);
        if (p.brackets > caps.brackets) {
          counts.maxBrackets = p.brackets;
          return this.refuse('TOO_LARGE', 'markdown-brackets', `the paragraph has over ${caps.brackets} "[" and "]" by this line: split it into several paragraphs, or escape the brackets that are not links (\\[)`);
        }
        counts.maxBrackets = Math.max(counts.maxBrackets, p.brackets);
      } else if (ch === 0x3c /* < */) {
        this.add(HTML, this.w.html);
      } else if (ch === 0x26 /* & */) {
        this.add(HTML, this.w.entity);
      } else if (ch === 0x60 /* ` */) {
        let e = k + 1;
        while (e < stop && text.charCodeAt(e) === 0x60) e++;
        const run = e - k;
        const bit = run <= 30 ? 1 << (run - 1) : 0;
        if (!bit || !(p.tickLengths & bit)) p.tickScans++;
        p.tickLengths |= bit;
        this.add(EMPHASIS, this.w.backtickRun);
        k = e - 1;
      } else {
        // `*`, `_`, `~`: a run that can open or close emphasis (or strikethrough) by the flanking rules.
        let e = k + 1;
        while (e < stop && text.charCodeAt(e) === ch) e++;
        if (delimiterRun(text, k, e, c, stop, ch)) {
          p.delimiters++;
          this.add(EMPHASIS, this.w.delimiter);
          if (p.delimiters > caps.delimiters) {
            counts.maxDelimiters = p.delimiters;
            return this.refuse('TOO_LARGE', 'markdown-emphasis', `the paragraph has over ${caps.delimiters} emphasis markers ("*", "_", "~") by this line: split it into several paragraphs, or put code in backticks and escape the markers that are not emphasis (\\*)`);
          }
          counts.maxDelimiters = Math.max(counts.maxDelimiters, p.delimiters);
        }
        k = e - 1;
      }
    }
  }

  /**
   * Section caps on the raw text: every line that may be a `#`/`##` heading ends the piece before
   * it, so a piece is never larger than the section the parse finds. A piece is held to the cap of
   * its title only when its heading is surely one (no quote, column 0, outside any code block or
   * HTML block, a title without inline syntax); otherwise to the larger of that cap and the cap of
   * the piece before (it may be part of it), never less than either.
   */
  private sectionLine(at: number, stop: number, content: number, q: number, blank: boolean, inFence: boolean): void {
    if (!this.piece) return;
    const { text } = this;
    if (blank) {
      this.runStart = -1;
      return;
    }
    if (this.runStart === -1) {
      this.runStart = at;
      this.runLine = this.line;
    }
    const htmlBefore = this.html;
    if (this.html) {
      const k = text.slice(at, stop).toLowerCase().indexOf(this.html);
      if (k !== -1) this.html = undefined;
    }
    const lead = content - at;
    const ch = text.charCodeAt(content);
    if (q > 0 || lead > 3 || (ch !== 0x23 && ch !== 0x3d && ch !== 0x2d && ch !== 0x3c)) return;
    if (ch === 0x3c) {
      if (inFence || this.stickyFence || this.html !== undefined) return;
      const raw = HTML_RAW.exec(text.slice(content, Math.min(stop, content + 16)));
      if (!raw) this.html = '';
      else {
        const kind = raw.slice(1).findIndex((g) => g !== undefined);
        this.html = kind === 0 ? `</${raw[1].toLowerCase()}>` : HTML_RAW_END[kind];
        if (text.slice(content + raw[0].length, stop).toLowerCase().includes(this.html)) this.html = undefined;
      }
      return;
    }
    const atx = ch === 0x23 && (matchesAt(ATX, text, content) && (text.charCodeAt(content + 1) !== 0x23 || text.charCodeAt(content + 2) !== 0x23));
    const setext = !atx && ch !== 0x23 && this.runStart < at && matchesAt(SETEXT_UNDERLINE, text, content);
    if (!atx && !setext) return;
    const depth = atx ? (text.charCodeAt(content + 1) === 0x23 ? 2 : 1) : ch === 0x3d ? 1 : 2;
    const title = atx ? text.slice(content + depth, stop).replace(/[ \t]+#+[ \t]*$|^[ \t]*#+[ \t]*$/, '').trim() : '';
    const plain = atx && !INLINE_SYNTAX.test(title);
    const sure = plain && lead === 0 && !inFence && !this.stickyFence && htmlBefore === undefined;
    this.closePiece(setext ? this.runStart : at);
    const own = plain ? sectionCap(depth, title) : Infinity;
    const cap = sure ? own : Math.max(own, this.piece.cap);
    this.piece = { title, line: setext ? this.runLine : this.line, contentStart: stop, cap };
  }

  private closePiece(end: number): void {
    const p = this.piece!;
    if (p.cap === Infinity || end - p.contentStart <= p.cap) return;
    // Trimmed, as the tools measure a section they write.
    let s = p.contentStart;
    let e = end;
    while (s < e && /\s/.test(this.text[s])) s++;
    while (e > s && /\s/.test(this.text[e - 1])) e--;
    if (e - s <= p.cap) return;
    const context = p.title.toLowerCase() === 'context';
    this.refuse(
      'TOO_LARGE',
      context ? 'context-too-large' : 'section-too-large',
      context
        ? `## Context is ${e - s} characters, over the ${p.cap}-character limit (${p.cap / 1024} KB): move large context into a file under .pi/plans/artifacts/ and link it`
        : `## ${p.title} is ${e - s} characters, over the ${p.cap}-character limit: shorten it, or move detail into a file under .pi/plans/artifacts/ and link it`,
      p.line,
    );
  }
}

/** The size cap of a section by its heading: Context and the sections the tools write; none for Steps and the rest. */
function sectionCap(depth: number, title: string): number {
  if (depth !== 2) return Infinity;
  switch (title.toLowerCase()) {
    case 'context':
      return LIMITS.contextBytes;
    case 'goal':
    case 'assumptions':
    case 'risks':
    case 'verification':
    case 'files':
      return LIMITS.section;
    default:
      return Infinity;
  }
}

/** Whether the line [c, stop) has a `|`. */
function hasPipe(text: string, c: number, stop: number): boolean {
  const k = text.indexOf('|', c);
  return k !== -1 && k < stop;
}

/** Whether an HTML block that can interrupt a paragraph (kinds 1 to 6) starts at `c`. */
function htmlBlockStart(text: string, c: number, stop: number): boolean {
  const head = text.slice(c, Math.min(stop, c + 16));
  return HTML_BLOCK.test(head) || HTML_RAW.test(head);
}

/** The offset after a list marker at `c` (`-`, `+`, `*`, or 1-9 digits and `.`/`)`, then a blank or the end), or -1. */
function listMarker(text: string, c: number, stop: number): number {
  const ch = text.charCodeAt(c);
  let e: number;
  if (ch === 0x2d || ch === 0x2b || ch === 0x2a) e = c + 1;
  else if (ch >= 0x30 && ch <= 0x39) {
    e = c + 1;
    while (e < stop && e - c < 10 && text.charCodeAt(e) >= 0x30 && text.charCodeAt(e) <= 0x39) e++;
    const d = text.charCodeAt(e);
    if (e - c > 9 || (d !== 0x2e && d !== 0x29)) return -1;
    e++;
  } else return -1;
  if (e < stop && text.charCodeAt(e) !== SPACE && text.charCodeAt(e) !== TAB) return -1;
  return e;
}

/** Columns of a table delimiter row: its cells between pipes. */
function countColumns(text: string, c: number, stop: number): number {
  let cols = 1;
  let s = c;
  let e = stop;
  while (s < e && (text.charCodeAt(s) === SPACE || text.charCodeAt(s) === TAB)) s++;
  while (e > s && (text.charCodeAt(e - 1) === SPACE || text.charCodeAt(e - 1) === TAB)) e--;
  if (text.charCodeAt(s) === 0x7c) s++;
  if (e > s && text.charCodeAt(e - 1) === 0x7c) e--;
  for (let k = s; k < e; k++) if (text.charCodeAt(k) === 0x7c) cols++;
  return cols;
}

const PUNCTUATION = /[\p{P}\p{S}]/u;
const WHITESPACE = /\s/;

/** Whether a run of `*`, `_` or `~` at [s, e) of a line's content [c, stop) can open or close (CommonMark's flanking rules). */
function delimiterRun(text: string, s: number, e: number, c: number, stop: number, ch: number): boolean {
  if (ch === 0x7e && e - s > 2) return false; // GFM strikethrough takes one or two tildes
  const before = s > c ? text[s - 1] : ' ';
  const after = e < stop ? text[e] : ' ';
  const wsBefore = WHITESPACE.test(before);
  const wsAfter = WHITESPACE.test(after);
  const pBefore = !wsBefore && PUNCTUATION.test(before);
  const pAfter = !wsAfter && PUNCTUATION.test(after);
  const left = !wsAfter && (!pAfter || wsBefore || pBefore);
  const right = !wsBefore && (!pBefore || wsAfter || pAfter);
  if (ch !== 0x5f) return left || right;
  return (left && (!right || pBefore)) || (right && (!left || pAfter));
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
