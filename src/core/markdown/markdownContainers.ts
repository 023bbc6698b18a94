/**
 * The containers of the Markdown pre-scan: which block quotes and list items a line continues,
 * opens and ends, whether it continues a paragraph lazily or is indented code, and the caps on
 * quote depth and nesting; with what each costs (a container that ends moves the events before it).
 */
import * as weights from './markdownWeights';
import * as syntax from './markdownSyntax';
import * as ledger from './markdownScanLedger';
import * as reader from './markdownLineReader';
import * as paragraphs from './markdownParagraphs';
import type { Line } from './markdownLineReader';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { TEXT, LIST, NESTED } = weights;
const { ATX, matchesAt, htmlBlockStart, listMarker } = syntax;
const { add, lineIs, refuseQuotes, refuseNesting } = ledger;
const { skipBlanks, isFence, thematicAt } = reader;
const { endPara, endLeaf } = paragraphs;

/**
 * The quote markers, each after at most three blanks (inside a fenced block only up to the
 * fence's own quote level: more are its text): the line taken apart, or undefined when refused.
 */
export function quotePrefix(s: ScanState, at: number, stop: number): Line | undefined {
  const { text, caps, fence } = s;
  let col = 0;
  let q = 0;
  let quotesHere = 0;
  let content = skipBlanks(s, at, stop, 0);
  while (content < stop && text.charCodeAt(content) === 0x3e /* > */ && s.blankCol - col <= 3 && !(fence && q >= fence.q)) {
    q++;
    quotesHere++;
    if (quotesHere > caps.quoteDepth) {
      refuseQuotes(s, quotesHere);
      return undefined;
    }
    col = s.blankCol + 1;
    content = skipBlanks(s, content + 1, stop, col);
  }
  const contentCol = s.blankCol;
  return { at, stop, q, quotesHere, col, content, contentCol, indent: contentCol - col, blank: content >= stop, lazy: false, inList: false, c: content, cCol: contentCol, item: -1 };
}

/** A line in a fenced code block: it continues the containers it is in, as they are. */
export function containersInFence(s: ScanState, l: Line): void {
  s.prevBlank = l.blank;
  s.prevQ = l.q;
  add(s, NESTED, s.w.container * (l.q + s.items.length));
}

/** A blank line in `q` quotes: the quotes it is not in end; the list items stay open. */
export function containersAtBlank(s: ScanState, q: number): void {
  s.prevBlank = true;
  endQuotes(s, q);
  add(s, NESTED, s.w.container * (q + s.items.length));
}

/**
 * Whether the line continues the paragraph lazily (`l.lazy`); if not, the containers it does not
 * continue end. True when the line is indented code (it is done).
 */
export function continuesContainers(s: ScanState, l: Line): boolean {
  const { stop, q, content, contentCol, indent } = l;
  // A line that continues the paragraph lazily: fewer quotes, or less indentation than the
  // content of the list item the paragraph is in, and nothing that can interrupt a paragraph.
  const para = s.para;
  const lazy = !!para && q <= para.q && !interrupts(s, content, stop, indent) && (q < para.q || (para.inList && contentCol < para.col));
  l.lazy = lazy;
  l.inList = s.items.length > 0;
  if (!lazy) {
    closeItems(s, q, contentCol);
    endQuotes(s, q);
    if (para && q !== para.q) endPara(s);
  }

  // Indented code: four columns past the innermost list item's content, after a blank line
  // (and on, while its lines stay as indented): never inline Markdown.
  const code = !s.para && (s.prevBlank || s.indentedCode) && contentCol - itemCol(s, q) >= 4 && indent >= 4;
  s.indentedCode = code;
  s.prevBlank = false;
  if (code) {
    add(s, NESTED, s.w.container * (q + s.items.length));
    return true;
  }
  return false;
}

/**
 * List markers: each opens an item (a chain on one line nests them), and quotes may follow. Counts
 * the line's depth; true when the line is done (refused, or an empty list item or quote).
 */
export function listMarkers(s: ScanState, l: Line): boolean {
  const { text, caps, counts, items, ended, w } = s;
  const { stop, lazy, inList } = l;
  let q = l.q;
  let quotesHere = l.quotesHere;
  let c = l.content;
  let cCol = l.contentCol;
  let markersHere = 0;
  let itemsWork = 0;
  while (!lazy && c < stop) {
    const m = listMarker(text, c, stop);
    if (m < 0 || !canStartItem(s, c, m, stop, inList || markersHere > 0)) break;
    endLeaf(s);
    closeItems(s, q, cCol);
    const markerEnd = cCol + (m - c);
    const after = skipBlanks(s, m, stop, markerEnd);
    const itemCol = after >= stop || s.blankCol - markerEnd > 4 ? markerEnd + 1 : s.blankCol;
    for (let k = ended.length - 1; k >= 0; k--) {
      if (ended[k].q === q && ended[k].mcol === cCol) {
        ended.splice(k, 1);
        break;
      }
    }
    items.push({ col: itemCol, q, mcol: cCol, nested: q > 0 || items.length > 0 });
    markersHere++;
    if (q + items.length > caps.nesting) {
      refuseNesting(s, q + items.length);
      return true;
    }
    itemsWork += w.listItem + w.itemShift * s.line * items.length;
    c = after;
    cCol = s.blankCol;
    while (c < stop && text.charCodeAt(c) === 0x3e /* > */) {
      q++;
      quotesHere++;
      if (quotesHere > caps.quoteDepth) {
        refuseQuotes(s, quotesHere);
        return true;
      }
      c = skipBlanks(s, c + 1, stop, cCol + 1);
      cCol = s.blankCol;
    }
  }
  l.q = q;
  l.quotesHere = quotesHere;
  l.c = c;
  l.cCol = cCol;

  // The line's depth, and the innermost list item at its quote level (the last one open there).
  let depth = q;
  let item = -1;
  for (const it of items) {
    if (it.q <= q) depth++;
    if (it.q === q) item = it.col;
  }
  l.item = item;
  const here = quotesHere + markersHere;
  counts.maxDepth = Math.max(counts.maxDepth, depth);
  if (q > s.prevQ) s.prevQ = q;
  // The line, its items and containers are what it is: a line of quotes or nested lists, a list item, or text in one.
  const kind = quotesHere > 0 || depth > 1 ? NESTED : markersHere > 0 || depth > 0 ? LIST : TEXT;
  if (kind !== TEXT) lineIs(s, kind);
  add(s, kind, itemsWork + w.container * depth + w.nestingPairs * here * here);
  if (depth > caps.nesting) {
    refuseNesting(s, depth);
    return true;
  }
  return c >= stop; // an empty list item or quote
}

/** The lists the line ended (not continued by a sibling item): each moves the events before it. */
export function endLists(s: ScanState): void {
  for (const it of s.ended) add(s, it.nested ? NESTED : LIST, s.w.endShift * s.line);
  s.ended.length = 0;
}

/** The content column of the innermost list item at quote level `q` (0 outside lists). */
function itemCol(s: ScanState, q: number): number {
  const { items } = s;
  for (let k = items.length - 1; k >= 0; k--) if (items[k].q === q) return items[k].col;
  return 0;
}

/** Whether a list marker at `c` (ending at `m`) starts an item here: inside a list always; else it must be able to interrupt a paragraph if one is open. */
function canStartItem(s: ScanState, c: number, m: number, stop: number, inList: boolean): boolean {
  if (thematicAt(s, c, stop)) return false;
  if (!s.para || inList) return true;
  const { text } = s;
  const ordered = text.charCodeAt(c) <= 0x39;
  return skipBlanks(s, m, stop, 0) < stop && (!ordered || (m === c + 2 && text.charCodeAt(c) === 0x31));
}

/** Closes the list items a line at `col` with `q` quotes does not continue. */
function closeItems(s: ScanState, q: number, col: number): void {
  const { items } = s;
  while (items.length && (items[items.length - 1].q > q || (items[items.length - 1].q === q && items[items.length - 1].col > col))) s.ended.push(items.pop()!);
}

/** A line (not a lazy one) in `q` quotes: the quotes the line before was in and this one is not have ended. */
function endQuotes(s: ScanState, q: number): void {
  if (q < s.prevQ) add(s, NESTED, s.w.endShift * s.line * (s.prevQ - q));
  s.prevQ = q;
}

/** Whether the line's content can interrupt a paragraph (so it is no lazy continuation). */
function interrupts(s: ScanState, c: number, stop: number, indent: number): boolean {
  const { text } = s;
  if (indent >= 4 || c >= stop) return false;
  const f = text.charCodeAt(c);
  if (f === 0x3e) return true;
  if ((f === 0x60 || f === 0x7e) && isFence(s, c, stop, f, 3, false)) return true;
  if (f === 0x23 && matchesAt(ATX, text, c)) return true;
  if ((f === 0x2a || f === 0x2d || f === 0x5f) && thematicAt(s, c, stop)) return true;
  if (f === 0x3c && htmlBlockStart(text, c, stop)) return true;
  // Inside a list, a marker starts a sibling; elsewhere only a bullet with content, or "1.", interrupts.
  const m = listMarker(text, c, stop);
  return m >= 0 && canStartItem(s, c, m, stop, s.items.length > 0);
}
