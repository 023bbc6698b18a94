import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import { toString } from 'mdast-util-to-string';
import type { Root, RootContent, List } from 'mdast';

/** A `#`/`##` section of the body: offsets relative to the body text. */
export interface OutlineSection {
  /** Heading text, trimmed. */
  title: string;
  depth: number;
  /** Start of the heading line. */
  start: number;
  /** End of the heading line (before its line break). */
  headingEnd: number;
  /** Start of the next `#`/`##` heading, or the end of the body. */
  end: number;
}

/** One top-level list item of the Steps section: offsets relative to the body text. */
export interface OutlineItem {
  start: number;
  /** End of the item's first line (before its line break). */
  lineEnd: number;
  /** End of the item's last character. */
  end: number;
  ordered: boolean;
}

/** Where the sections and steps are. Computed by remark (GFM), cached by body text. */
export interface Outline {
  sections: OutlineSection[];
  /** Index into `sections` of the Steps section, or -1. */
  stepsSection: number;
  steps: OutlineItem[];
}

/** remark's parser with GFM (task lists, tables); nothing is ever stringified back by remark. */
const processor = unified().use(remarkParse).use(remarkGfm);

/** Lines that close the previous section: headings of depth 1 or 2. */
const SECTION_DEPTH = 2;

/** Parses `body` with remark and GFM and returns its section and step positions. */
export function computeOutline(body: string): Outline {
  const root = processor.parse(body) as Root;
  const sections: OutlineSection[] = [];
  for (const node of root.children) {
    if (node.type === 'heading' && node.depth <= SECTION_DEPTH && node.position) {
      const start = node.position.start.offset ?? 0;
      sections.push({
        title: toString(node).trim(),
        depth: node.depth,
        start,
        headingEnd: lineEndAt(body, start),
        end: body.length,
      });
    }
  }
  for (let i = 0; i + 1 < sections.length; i++) sections[i].end = sections[i + 1].start;
  const stepsSection = sections.findIndex((s) => s.depth === 2 && s.title.toLowerCase() === 'steps');
  const steps: OutlineItem[] = [];
  if (stepsSection >= 0) {
    const sec = sections[stepsSection];
    for (const node of root.children as RootContent[]) {
      const off = node.position?.start.offset ?? -1;
      if (node.type !== 'list' || off < sec.headingEnd || off >= sec.end) continue;
      const list = node as List;
      for (const item of list.children) {
        const s = item.position?.start.offset ?? 0;
        steps.push({ start: s, lineEnd: lineEndAt(body, s), end: item.position?.end.offset ?? s, ordered: !!list.ordered });
      }
    }
  }
  // Edits work on whole lines: an item ends at the end of its last line, and never on or past the
  // line where the next item starts (remark's end of an item with an unclosed code fence can fall
  // inside the next item's first line).
  for (let i = 0; i < steps.length; i++) {
    const it = steps[i];
    const next = steps[i + 1];
    it.end = settleEnd(body, it.lineEnd, next ? Math.min(it.end, lineStartAt(body, next.start)) : it.end);
  }
  return { sections, stepsSection, steps };
}

/** Where an item that reaches `end` ends: at the end of its last line that is not blank (never before its header line's end). */
function settleEnd(body: string, lineEnd: number, end: number): number {
  let e = end;
  while (e > lineEnd && /\s/.test(body[e - 1])) e--;
  return Math.max(lineEndAt(body, e), lineEnd);
}

/** Start of the line that contains `at`. */
export function lineStartAt(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** End of the line that contains `at`, before any "\r\n" or "\n". */
export function lineEndAt(text: string, at: number): number {
  let e = text.indexOf('\n', at);
  if (e === -1) e = text.length;
  if (e > at && text[e - 1] === '\r') e--;
  return e;
}

/**
 * The outline of `body` after line edits that keep the block structure (a step's header
 * rewritten in place, its note line replaced, added after its last line or removed): every offset
 * moves by the edits before it, an insertion exactly at an offset moves what starts or ends a
 * block there but not a header line's end, and an item ends at its last non-blank line, as a
 * parse would say. Saves a Markdown parse on the hot path of step updates; the property tests
 * hold it equal to a fresh parse on hostile Markdown.
 */
export function shiftOutline(outline: Outline, edits: readonly { start: number; end: number; text: string }[], body: string): Outline {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  if (!sorted.length) return outline;
  const first = sorted[0].start;
  const last = sorted[sorted.length - 1].end;
  let delta = 0;
  for (const e of sorted) delta += e.text.length - (e.end - e.start);
  const map = (o: number, insertMoves = true) => {
    let d = 0;
    for (const e of sorted) {
      if (e.end > o || (e.start === e.end && e.end === o && !insertMoves)) break;
      d += e.text.length - (e.end - e.start);
    }
    return o + d;
  };
  // Blocks that end before the first edit keep their offsets (and their objects); blocks that
  // start after the last one move by the whole change, their text and so their settled end
  // unchanged. Only blocks an edit touches are worked out offset by offset.
  return {
    stepsSection: outline.stepsSection,
    sections: outline.sections.map((s) =>
      s.end < first ? s : s.start > last ? { ...s, start: s.start + delta, headingEnd: s.headingEnd + delta, end: s.end + delta } : { ...s, start: map(s.start), headingEnd: map(s.headingEnd, false), end: map(s.end) },
    ),
    steps: outline.steps.map((it): OutlineItem => {
      if (it.end < first) return it;
      if (it.start > last) return { start: it.start + delta, lineEnd: it.lineEnd + delta, end: it.end + delta, ordered: it.ordered };
      const start = map(it.start);
      const lineEnd = map(it.lineEnd, false);
      return { start, lineEnd, end: settleEnd(body, lineEnd, map(it.end)), ordered: it.ordered };
    }),
  };
}
