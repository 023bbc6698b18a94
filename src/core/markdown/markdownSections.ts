/**
 * The `##` sections' size caps, held by the Markdown pre-scan on the raw text of a plan body: where
 * a line may start a section, which cap the piece after it has, and the refusal of a piece over it.
 */
import { LIMITS } from '../limits/limits';
import * as syntax from './markdownSyntax';
import * as ledger from './markdownScanLedger';
import type { ScanState } from './markdownScanState';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { HTML_RAW, HTML_RAW_END, SETEXT_UNDERLINE, ATX, matchesAt, INLINE_SYNTAX } = syntax;
const { refuse } = ledger;

/** The text is a plan body: its sections are held to their caps, from its first line. */
export function capSections(s: ScanState): void {
  s.piece = { title: '', line: 1, contentStart: 0, cap: Infinity };
}

/**
 * Section caps on the raw text: every line that may be a `#`/`##` heading ends the piece before
 * it, so a piece is never larger than the section the parse finds. A piece is held to the cap of
 * its title only when its heading is surely one (no quote, column 0, outside any code block or
 * HTML block, a title without inline syntax); otherwise to the larger of that cap and the cap of
 * the piece before (it may be part of it), never less than either. `inFence`: the line is in a
 * fenced code block this scan follows.
 */
export function sectionLine(s: ScanState, at: number, stop: number, content: number, q: number, blank: boolean, inFence: boolean): void {
  if (!s.piece) return;
  const { text } = s;
  if (blank) {
    s.runStart = -1;
    // A blank line ends an HTML block that ends at one (kinds 6 and 7).
    if (!inFence && s.html === '') s.html = undefined;
    return;
  }
  if (s.runStart === -1) {
    s.runStart = at;
    s.runLine = s.line;
  }
  const htmlBefore = s.html;
  if (s.html) {
    const k = text.slice(at, stop).toLowerCase().indexOf(s.html);
    if (k !== -1) s.html = undefined;
  }
  const lead = content - at;
  const ch = text.charCodeAt(content);
  if (q > 0 || lead > 3 || (ch !== 0x23 && ch !== 0x3d && ch !== 0x2d && ch !== 0x3c)) return;
  if (ch === 0x3c) {
    if (inFence || s.stickyFence || s.html !== undefined) return;
    const raw = HTML_RAW.exec(text.slice(content, Math.min(stop, content + 16)));
    if (!raw) s.html = '';
    else {
      const kind = raw.slice(1).findIndex((g) => g !== undefined);
      s.html = kind === 0 ? `</${raw[1].toLowerCase()}>` : HTML_RAW_END[kind];
      if (text.slice(content + raw[0].length, stop).toLowerCase().includes(s.html)) s.html = undefined;
    }
    return;
  }
  const atx = ch === 0x23 && (matchesAt(ATX, text, content) && (text.charCodeAt(content + 1) !== 0x23 || text.charCodeAt(content + 2) !== 0x23));
  const setext = !atx && ch !== 0x23 && s.runStart < at && matchesAt(SETEXT_UNDERLINE, text, content);
  if (!atx && !setext) return;
  const depth = atx ? (text.charCodeAt(content + 1) === 0x23 ? 2 : 1) : ch === 0x3d ? 1 : 2;
  const title = atx ? text.slice(content + depth, stop).replace(/[ \t]+#+[ \t]*$|^[ \t]*#+[ \t]*$/, '').trim() : '';
  const plain = atx && !INLINE_SYNTAX.test(title);
  const sure = plain && lead === 0 && !inFence && !s.stickyFence && htmlBefore === undefined;
  closePiece(s, setext ? s.runStart : at);
  const own = plain ? sectionCap(depth, title) : Infinity;
  const cap = sure ? own : Math.max(own, s.piece.cap);
  s.piece = { title, line: setext ? s.runLine : s.line, contentStart: stop, cap };
}

/** The text ends at `end`: the last piece is held to its cap. */
export function endSections(s: ScanState, end: number): void {
  if (s.piece) closePiece(s, end);
}

function closePiece(s: ScanState, end: number): void {
  const p = s.piece!;
  if (p.cap === Infinity || end - p.contentStart <= p.cap) return;
  // Trimmed, as the tools measure a section they write.
  let a = p.contentStart;
  let e = end;
  while (a < e && /\s/.test(s.text[a])) a++;
  while (e > a && /\s/.test(s.text[e - 1])) e--;
  if (e - a <= p.cap) return;
  const context = p.title.toLowerCase() === 'context';
  refuse(
    s,
    'TOO_LARGE',
    context ? 'context-too-large' : 'section-too-large',
    context
      ? `## Context is ${e - a} characters, over the ${p.cap}-character limit (${p.cap / 1024} KB): move large context into a file under .pi/plans/artifacts/ and link it`
      : `## ${p.title} is ${e - a} characters, over the ${p.cap}-character limit: shorten it, or move detail into a file under .pi/plans/artifacts/ and link it`,
    p.line,
  );
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
