/**
 * The `##` sections' size caps, held by the Markdown pre-scan on the raw text of a plan body: where
 * a line may start a section, which cap the piece after it has, and the refusal of a piece over it.
 */
import { LIMITS } from '../limits/limits';
import * as syntax from './markdownSyntax';
import type { Fences } from './markdownFences';
import type { ScanLedger } from './markdownScanLedger';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { HTML_RAW, HTML_RAW_END, SETEXT_UNDERLINE, ATX, matchesAt, INLINE_SYNTAX } = syntax;

/** A `##` section's piece of text, from its heading line to the next line that may be a heading. */
interface Piece {
  title: string;
  line: number;
  contentStart: number;
  cap: number;
}

/**
 * Section caps on the raw text: every line that may be a `#`/`##` heading ends the piece before
 * it, so a piece is never larger than the section the parse finds. A piece is held to the cap of
 * its title only when its heading is surely one (no quote, column 0, outside any code block or
 * HTML block, a title without inline syntax); otherwise to the larger of that cap and the cap of
 * the piece before (it may be part of it), never less than either.
 */
export class Sections {
  /** The piece the scan is in; none when the text is not a plan body (no caps). */
  private piece: Piece | undefined;
  /** Where the current run of non-blank top-level lines started (a setext heading's text starts there at the earliest). */
  private runStart = 0;
  private runLine = 1;
  /** A possible HTML block at the top level (its end: a blank line, or a terminator). */
  private html: string | undefined;

  constructor(
    private readonly text: string,
    private readonly ledger: ScanLedger,
    private readonly fences: Fences,
    capped: boolean,
  ) {
    if (capped) this.piece = { title: '', line: 1, contentStart: 0, cap: Infinity };
  }

  /** A line from `at` to `stop`, its content at `content` in `q` quotes; `inFence`: in a fenced code block this scan follows. */
  line(at: number, stop: number, content: number, q: number, blank: boolean, inFence: boolean): void {
    if (!this.piece) return;
    const { text } = this;
    if (blank) {
      this.runStart = -1;
      // A blank line ends an HTML block that ends at one (kinds 6 and 7).
      if (!inFence && this.html === '') this.html = undefined;
      return;
    }
    if (this.runStart === -1) {
      this.runStart = at;
      this.runLine = this.ledger.line;
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
      if (inFence || this.fences.sticky || this.html !== undefined) return;
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
    const sure = plain && lead === 0 && !inFence && !this.fences.sticky && htmlBefore === undefined;
    this.closePiece(setext ? this.runStart : at);
    const own = plain ? sectionCap(depth, title) : Infinity;
    const cap = sure ? own : Math.max(own, this.piece.cap);
    this.piece = { title, line: setext ? this.runLine : this.ledger.line, contentStart: stop, cap };
  }

  /** The text ends at `end`: the last piece is held to its cap. */
  end(end: number): void {
    if (this.piece) this.closePiece(end);
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
    this.ledger.refuse(
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
