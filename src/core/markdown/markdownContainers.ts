/**
 * The containers of the Markdown pre-scan: which block quotes and list items a line continues,
 * opens and ends, whether it continues a paragraph lazily or is indented code, and the caps on
 * quote depth and nesting; with what each costs (a container that ends moves the events before it).
 */
import type { MarkdownWeights } from './markdownWeights';
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import type { Fences } from './markdownFences';
import type { Line, LineReader } from './markdownLineReader';
import type { Paragraphs } from './markdownParagraphs';
import type { ScanLedger } from './markdownScanLedger';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { TEXT, LIST, NESTED } = weights;
const { ATX, matchesAt, htmlBlockStart, listMarker } = syntax;

/** An open list item: its content column, quote level and marker column. */
interface Item {
  col: number;
  q: number;
  mcol: number;
  nested: boolean;
}

/** The open quotes and list items, line by line. */
export class Containers {
  /** Open list items: content column and quote level. */
  private readonly items: Item[] = [];
  /** The list items the current line ended (a sibling it starts takes its predecessor off: its list goes on). */
  private readonly ended: Item[] = [];
  /** Quotes the previous line (not a lazy one) was in. */
  private prevQ = 0;
  /** The previous line was blank (or none): an indented line after it is code. */
  private prevBlank = true;
  /** The previous line was indented code: so is the next as indented. */
  private indentedCode = false;

  constructor(
    private readonly reader: LineReader,
    private readonly ledger: ScanLedger,
    private readonly paragraphs: Paragraphs,
    private readonly fences: Fences,
    private readonly w: MarkdownWeights,
  ) {}

  /**
   * The quote markers, each after at most three blanks (inside a fenced block only up to the
   * fence's own quote level: more are its text): the line taken apart, or undefined when refused.
   */
  quotePrefix(at: number, stop: number): Line | undefined {
    const { reader, ledger } = this;
    const { text } = reader;
    const fence = this.fences.open;
    let col = 0;
    let q = 0;
    let quotesHere = 0;
    let content = reader.skipBlanks(at, stop, 0);
    while (content < stop && text.charCodeAt(content) === 0x3e /* > */ && reader.blankCol - col <= 3 && !(fence && q >= fence.q)) {
      q++;
      quotesHere++;
      if (quotesHere > ledger.caps.quoteDepth) {
        ledger.refuseQuotes(quotesHere);
        return undefined;
      }
      col = reader.blankCol + 1;
      content = reader.skipBlanks(content + 1, stop, col);
    }
    const contentCol = reader.blankCol;
    return { at, stop, q, quotesHere, col, content, contentCol, indent: contentCol - col, blank: content >= stop, lazy: false, inList: false, c: content, cCol: contentCol, item: -1 };
  }

  /** A line in a fenced code block: it continues the containers it is in, as they are. */
  fencedLine(l: Line): void {
    this.prevBlank = l.blank;
    this.prevQ = l.q;
    this.ledger.add(NESTED, this.w.container * (l.q + this.items.length));
  }

  /** A blank line in `q` quotes: the quotes it is not in end; the list items stay open. */
  blankLine(q: number): void {
    this.prevBlank = true;
    this.endQuotes(q);
    this.ledger.add(NESTED, this.w.container * (q + this.items.length));
  }

  /**
   * Whether the line continues the paragraph lazily (`l.lazy`); if not, the containers it does not
   * continue end. True when the line is indented code (it is done).
   */
  continues(l: Line): boolean {
    const { stop, q, content, contentCol, indent } = l;
    // A line that continues the paragraph lazily: fewer quotes, or less indentation than the
    // content of the list item the paragraph is in, and nothing that can interrupt a paragraph.
    const para = this.paragraphs.para;
    const lazy = !!para && q <= para.q && !this.interrupts(content, stop, indent) && (q < para.q || (para.inList && contentCol < para.col));
    l.lazy = lazy;
    l.inList = this.items.length > 0;
    if (!lazy) {
      this.closeItems(q, contentCol);
      this.endQuotes(q);
      if (para && q !== para.q) this.paragraphs.end();
    }

    // Indented code: four columns past the innermost list item's content, after a blank line
    // (and on, while its lines stay as indented): never inline Markdown.
    const code = !this.paragraphs.para && (this.prevBlank || this.indentedCode) && contentCol - Math.max(0, this.itemAt(q)) >= 4 && indent >= 4;
    this.indentedCode = code;
    this.prevBlank = false;
    if (code) {
      this.ledger.add(NESTED, this.w.container * (q + this.items.length));
      return true;
    }
    return false;
  }

  /**
   * List markers: each opens an item (a chain on one line nests them), and quotes may follow. Counts
   * the line's depth; true when the line is done (refused, or an empty list item or quote).
   */
  listMarkers(l: Line): boolean {
    const { reader, ledger, w } = this;
    const { text } = reader;
    const { caps, counts } = ledger;
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
      this.paragraphs.endLeaf();
      this.closeItems(q, cCol);
      const markerEnd = cCol + (m - c);
      const after = reader.skipBlanks(m, stop, markerEnd);
      const itemCol = after >= stop || reader.blankCol - markerEnd > 4 ? markerEnd + 1 : reader.blankCol;
      for (let k = this.ended.length - 1; k >= 0; k--) {
        if (this.ended[k].q === q && this.ended[k].mcol === cCol) {
          this.ended.splice(k, 1);
          break;
        }
      }
      this.items.push({ col: itemCol, q, mcol: cCol, nested: q > 0 || this.items.length > 0 });
      markersHere++;
      if (q + this.items.length > caps.nesting) {
        ledger.refuseNesting(q + this.items.length);
        return true;
      }
      itemsWork += w.listItem + w.itemShift * ledger.line * this.items.length;
      c = after;
      cCol = reader.blankCol;
      while (c < stop && text.charCodeAt(c) === 0x3e /* > */) {
        q++;
        quotesHere++;
        if (quotesHere > caps.quoteDepth) {
          ledger.refuseQuotes(quotesHere);
          return true;
        }
        c = reader.skipBlanks(c + 1, stop, cCol + 1);
        cCol = reader.blankCol;
      }
    }
    l.q = q;
    l.quotesHere = quotesHere;
    l.c = c;
    l.cCol = cCol;
    l.item = this.itemAt(q);

    let depth = q;
    for (const it of this.items) if (it.q <= q) depth++;
    const here = quotesHere + markersHere;
    counts.maxDepth = Math.max(counts.maxDepth, depth);
    if (q > this.prevQ) this.prevQ = q;
    // The line, its items and containers are what it is: a line of quotes or nested lists, a list item, or text in one.
    const kind = quotesHere > 0 || depth > 1 ? NESTED : markersHere > 0 || depth > 0 ? LIST : TEXT;
    if (kind !== TEXT) ledger.lineIs(kind);
    ledger.add(kind, itemsWork + w.container * depth + w.nestingPairs * here * here);
    if (depth > caps.nesting) {
      ledger.refuseNesting(depth);
      return true;
    }
    return c >= stop; // an empty list item or quote
  }

  /** The content column of the innermost list item at quote level `q`, or -1 when none is open. */
  private itemAt(q: number): number {
    for (let k = this.items.length - 1; k >= 0; k--) if (this.items[k].q === q) return this.items[k].col;
    return -1;
  }

  /** The lists the line ended (not continued by a sibling item): each moves the events before it. */
  endLists(): void {
    if (!this.ended.length) return;
    for (const it of this.ended) this.ledger.add(it.nested ? NESTED : LIST, this.w.endShift * this.ledger.line);
    this.ended.length = 0;
  }

  /** Whether a list marker at `c` (ending at `m`) starts an item here: inside a list always; else it must be able to interrupt a paragraph if one is open. */
  private canStartItem(c: number, m: number, stop: number, inList: boolean): boolean {
    const { reader } = this;
    if (reader.thematicAt(c, stop)) return false;
    if (!this.paragraphs.para || inList) return true;
    const ordered = reader.text.charCodeAt(c) <= 0x39;
    return reader.skipBlanks(m, stop, 0) < stop && (!ordered || (m === c + 2 && reader.text.charCodeAt(c) === 0x31));
  }

  /** Closes the list items a line at `col` with `q` quotes does not continue. */
  private closeItems(q: number, col: number): void {
    const items = this.items;
    while (items.length && (items[items.length - 1].q > q || (items[items.length - 1].q === q && items[items.length - 1].col > col))) this.ended.push(items.pop()!);
  }

  /** A line (not a lazy one) in `q` quotes: the quotes the line before was in and this one is not have ended. */
  private endQuotes(q: number): void {
    if (q < this.prevQ) this.ledger.add(NESTED, this.w.endShift * this.ledger.line * (this.prevQ - q));
    this.prevQ = q;
  }

  /** Whether the line's content can interrupt a paragraph (so it is no lazy continuation). */
  private interrupts(c: number, stop: number, indent: number): boolean {
    const { reader } = this;
    const { text } = reader;
    if (indent >= 4 || c >= stop) return false;
    const f = text.charCodeAt(c);
    if (f === 0x3e) return true;
    if ((f === 0x60 || f === 0x7e) && reader.isFence(c, stop, f, 3, false)) return true;
    if (f === 0x23 && matchesAt(ATX, text, c)) return true;
    if ((f === 0x2a || f === 0x2d || f === 0x5f) && reader.thematicAt(c, stop)) return true;
    if (f === 0x3c && htmlBlockStart(text, c, stop)) return true;
    // Inside a list, a marker starts a sibling; elsewhere only a bullet with content, or "1.", interrupts.
    const m = listMarker(text, c, stop);
    return m >= 0 && this.canStartItem(c, m, stop, this.items.length > 0);
  }
}
