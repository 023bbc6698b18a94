/**
 * The Markdown pre-scan's state and its helpers per construct (markdownGuard.ts's Scan runs it
 * line by line): the work counter and refusals, list items, quotes and fences, paragraphs and
 * their inline counts, table rows, and the `##` sections' size caps.
 */
import { LIMITS } from './limits';
import * as weights from './markdownWeights';
import type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';
import * as syntax from './markdownSyntax';

// Read once into this module's own constants: where each file runs as CommonJS (tsx, in the tests
// and the benchmark) an imported name is a getter on its module read at every use, and the scan
// reads these per line and per character (twice the scan's time); a bundle has no such cost.
const { KINDS, TEXT, LIST, NESTED, EMPHASIS, LINKS, HTML, LAZY } = weights;
const { SPACE, TAB, HTML_RAW, HTML_RAW_END, SETEXT_UNDERLINE, ATX, matchesAt, INLINE_CHAR, INLINE_SYNTAX, htmlBlockStart, listMarker, delimiterRun } = syntax;

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

/** The scan's state and its helpers; Scan (markdownGuard.ts) adds the walk over the lines. */
export abstract class ScanBase {
  readonly counts: MarkdownCounts = { work: 0, lines: 0, maxDepth: 0, maxDelimiters: 0, maxBrackets: 0, maxLazy: 0, maxColumns: 0, tableCells: 0, definitions: 0 };
  protected readonly caps: { [K in keyof typeof LIMITS.markdown]: number };
  protected line = 0;
  /** Open list items: content column and quote level. */
  protected readonly items: Item[] = [];
  /** The list items the current line ended (a sibling it starts takes its predecessor off: its list goes on). */
  protected readonly ended: Item[] = [];
  /** An open fenced code block as this scan follows it (closed early when its container seems to end). */
  protected fence: { ch: number; len: number; q: number; col: number } | undefined;
  /** The same fence, closed only by a closing fence line: while it is open, no `#` line is surely a heading. */
  protected stickyFence: { ch: number; len: number } | undefined;
  /** A possible HTML block at the top level (its end: a blank line, or a terminator). */
  protected html: string | undefined;
  protected para: Para | undefined;
  protected table: { cols: number; q: number } | undefined;
  /** The previous line was a link reference definition (the next may be one too). */
  protected afterDefinition = false;
  /** The previous line was blank (or none): an indented line after it is code. */
  protected prevBlank = true;
  /** The previous line was indented code: so is the next as indented. */
  protected indentedCode = false;
  protected piece: Piece | undefined;
  /** Where the current run of non-blank top-level lines started (a setext heading's text starts there at the earliest). */
  protected runStart = 0;
  protected runLine = 1;
  protected refusal: MarkdownRefusal | undefined;
  /** Quotes the previous line (not a lazy one) was in. */
  protected prevQ = 0;
  /** The work by what it was spent on (KINDS). */
  protected readonly spent = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

  constructor(
    protected readonly text: string,
    protected readonly sections: boolean,
    work: number,
    protected readonly w: MarkdownWeights,
  ) {
    this.caps = { ...LIMITS.markdown, work };
  }

  /** The current line's own cost (characters and line), spent on short lines until the line is found to be something else. */
  protected lineCost = 0;
  /** The current line is a `kind` (the first call for a line counts): its own cost is spent on that. */
  protected lineIs(kind: number): void {
    this.spent[TEXT] -= this.lineCost;
    this.spent[kind] += this.lineCost;
    this.lineCost = 0;
  }

  /** Adds `units` of work spent on `kind`. */
  protected add(kind: number, units: number): void {
    this.counts.work += units;
    this.spent[kind] += units;
  }

  /** Refuses the text as over its work budget, by this line: naming what the work went to most, and its fix. */
  protected refuseWork(): void {
    let most = 0;
    for (let k = 1; k < KINDS.length; k++) if (this.spent[k] > this.spent[most]) most = k;
    const kb = Math.max(1, Math.round(this.caps.work / LIMITS.markdown.workPerChar / 1024));
    this.refuse(
      'TOO_LARGE',
      'markdown-complexity',
      `the Markdown costs far more to parse than ordinary plan text of its size: by this line it is over what ${kb} KB of text may cost (${this.line} lines, mostly ${KINDS[most][0]}): ${KINDS[most][1]}, or move it into a file under .pi/plans/artifacts/ and link it`,
    );
  }

  protected refuse(code: MarkdownRefusal['code'], rule: string, message: string, line = this.line): void {
    this.refusal ??= { code, rule, message, line };
  }

  /** Refuses a line with `n` quote markers, over the cap (counting stops there). */
  protected refuseQuotes(n: number): void {
    this.refuse('TOO_LARGE', 'markdown-quote-depth', `the line nests more than ${this.caps.quoteDepth} block quotes (${n} so far), the limit: split the quote or shorten the line (remove the extra ">" markers)`);
  }

  /** Refuses a line nested `depth` levels deep, over the cap (counting stops there). */
  protected refuseNesting(depth: number): void {
    this.refuse('TOO_LARGE', 'markdown-nesting', `the line is nested more than ${this.caps.nesting} levels deep in quotes and lists (${depth} so far), the limit: flatten the list or the quote`);
  }

  /**
   * Whether a thematic break (three or more of `-`, `*` or `_`, blanks between) runs from `c` to
   * the line's end. The line's tail made of one such character and blanks is found once per line.
   */
  protected thematicAt(c: number, stop: number): boolean {
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
  protected nextInline = -1;
  protected nextInlineFrom = 0;
  protected tailLineEnd = -1;
  protected tailStart = 0;
  protected tailChar = -1;

  /** Whether a list marker at `c` (ending at `m`) starts an item here: inside a list always; else it must be able to interrupt a paragraph if one is open. */
  protected canStartItem(c: number, m: number, stop: number, inList: boolean): boolean {
    if (this.thematicAt(c, stop)) return false;
    if (!this.para || inList) return true;
    const ordered = this.text.charCodeAt(c) <= 0x39;
    return this.skipBlanks(m, stop, 0) < stop && (!ordered || (m === c + 2 && this.text.charCodeAt(c) === 0x31));
  }

  /** The content column of the innermost list item at quote level `q` (0 outside lists). */
  protected itemCol(q: number): number {
    for (let k = this.items.length - 1; k >= 0; k--) if (this.items[k].q === q) return this.items[k].col;
    return 0;
  }

  /** Closes the list items a line at `col` with `q` quotes does not continue. */
  protected closeItems(q: number, col: number): void {
    const items = this.items;
    while (items.length && (items[items.length - 1].q > q || (items[items.length - 1].q === q && items[items.length - 1].col > col))) this.ended.push(items.pop()!);
  }

  /** The lists the line ended (not continued by a sibling item): each moves the events before it. */
  protected endLists(): void {
    for (const it of this.ended) this.add(it.nested ? NESTED : LIST, this.w.endShift * this.line);
    this.ended.length = 0;
  }

  /** A line (not a lazy one) in `q` quotes: the quotes the line before was in and this one is not have ended. */
  protected endQuotes(q: number): void {
    if (q < this.prevQ) this.add(NESTED, this.w.endShift * this.line * (this.prevQ - q));
    this.prevQ = q;
  }

  /** Whether the line's content can interrupt a paragraph (so it is no lazy continuation). */
  protected interrupts(c: number, stop: number, indent: number): boolean {
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
  protected skipBlanks(i: number, stop: number, col: number): number {
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
  protected blankCol = 0;

  /** Whether a fence of `ch` at least `min` long starts at `c` (a closing one: nothing after it). */
  protected isFence(c: number, stop: number, ch: number, min: number, closing: boolean): boolean {
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

  protected startPara(q: number, col: number, inList: boolean): void {
    this.para = { delimiters: 0, brackets: 0, lazy: 0, chars: 0, tickLengths: 0, tickScans: 0, q, col, inList };
  }

  /** Ends the paragraph: its quadratic costs go into the work. */
  protected endPara(): void {
    const p = this.para;
    if (!p) return;
    this.para = undefined;
    const w = this.w;
    this.add(EMPHASIS, w.delimiterPairs * p.delimiters * p.delimiters + w.backtickScan * p.tickScans * p.chars);
    if (p.brackets) this.add(LINKS, w.bracketPairs * p.brackets * p.brackets);
    if (p.lazy) this.add(LAZY, w.lazyPairs * p.lazy * p.lazy);
  }

  /** A table row: each cell is inline content of its own. */
  protected cells(c: number, stop: number, q: number, col: number): void {
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
  protected inline(c: number, stop: number): void {
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
  protected sectionLine(at: number, stop: number, content: number, q: number, blank: boolean, inFence: boolean): void {
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

  protected closePiece(end: number): void {
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
