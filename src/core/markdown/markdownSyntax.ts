/**
 * The Markdown syntax the pre-scan (markdownGuard.ts) recognizes on a line: character codes, the
 * patterns of block starts (sticky: tested where a line's content starts), and the tests of list
 * markers, HTML blocks, table rows and emphasis delimiter runs.
 */

export const CR = 13;
export const SPACE = 32;
export const TAB = 9;

/** HTML block names (CommonMark's kind 6): a line that opens one of these interrupts a paragraph. */
export const HTML_BLOCK =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s/>]|$)/i;
/** HTML blocks of kinds 1 to 5 (raw text elements, comments, processing instructions, declarations, CDATA): they end at their own terminator, not a blank line. */
export const HTML_RAW = /^<(?:(script|pre|style|textarea)(?:[\s>]|$)|(!--)|(\?)|(![A-Za-z])|(!\[CDATA\[))/i;
export const HTML_RAW_END = ['', '-->', '?>', '>', ']]>'];
// Tested where a line's content starts (sticky), up to its end: no copy of the line.
export const TABLE_DELIMITER_ROW = /\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*(?=\r?\n|$)/y;
export const SETEXT_UNDERLINE = /(?:=+|-+)[ \t]*(?=\r?\n|$)/y;
export const ATX = /#{1,6}(?=[ \t\r\n]|$)/y;
export const DEFINITION = /\[\^?(?:[^\\\]\n]|\\.){1,999}\]:/y;

/** Whether sticky `re` matches `text` at `at`. */
export function matchesAt(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}
/** Characters the counts of inline content look at. */
export const INLINE_CHAR = /[*[\]<&\\_`~]/g;
/** Characters a heading's Markdown gives a meaning inline: its title as written may not be its title. */
export const INLINE_SYNTAX = /[\\`*_[\]<>&~!]/;

/** Whether the line [c, stop) has a `|`. */
export function hasPipe(text: string, c: number, stop: number): boolean {
  const k = text.indexOf('|', c);
  return k !== -1 && k < stop;
}

/** Whether an HTML block that can interrupt a paragraph (kinds 1 to 6) starts at `c`. */
export function htmlBlockStart(text: string, c: number, stop: number): boolean {
  const head = text.slice(c, Math.min(stop, c + 16));
  return HTML_BLOCK.test(head) || HTML_RAW.test(head);
}

/** The offset after a list marker at `c` (`-`, `+`, `*`, or 1-9 digits and `.`/`)`, then a blank or the end), or -1. */
export function listMarker(text: string, c: number, stop: number): number {
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
export function countColumns(text: string, c: number, stop: number): number {
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
export function delimiterRun(text: string, s: number, e: number, c: number, stop: number, ch: number): boolean {
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
