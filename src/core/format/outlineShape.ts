/**
 * A plan's outline: where its `#`/`##` sections and the items of its Steps section are, as
 * offsets into the body. What decides it is outline.ts (remark's parse, or a proposal shown to
 * equal it); here, what works on an outline with no parse: moving it through line edits
 * (`shiftOutline`) and checking one kept elsewhere against the body (`outlineFits`).
 */

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

/** Where the sections and steps are. Computed by remark's parser (GFM), cached by body text. */
export interface Outline {
  sections: OutlineSection[];
  /** Index into `sections` of the Steps section, or -1. */
  stepsSection: number;
  steps: OutlineItem[];
}

/** Where an item that reaches `end` ends: at the end of its last line that is not blank (never before its header line's end). */
export function settleEnd(body: string, lineEnd: number, end: number): number {
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

/** Characters a heading's Markdown gives a meaning inline (emphasis, code, links, HTML, entities, escapes, strikethrough). */
const INLINE_SYNTAX = /[\\`*_[\]<>&~]/;
const ATX = /^ {0,3}(#{1,2})(?:[ \t]+|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** Lines that could open a block the checks below cannot follow: HTML, and fences off the left margin (inside a list item, say). */
const UNFOLLOWED = /^ {0,3}<|^ {1,3}(?:```|~~~)/;
const ITEM_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * Whether an outline kept elsewhere (a cache on disk, keyed by the body's digest) fits `body`, by
 * checks that need no Markdown parse: the shape; every `#`/`##` heading line outside code fences
 * is a section, at its offsets, titled with its plain text; no line could underline a setext
 * heading; each step is a list item line of the Steps section, items in order, as many as the
 * cheap step count finds, with nothing but blank lines between them. Conservative: what it
 * cannot confirm (inline markup in a heading, indented items, a setext underline, HTML, an
 * indented fence, text between steps) makes it false, and the caller parses instead. The property
 * tests hold that an outline of another body never fits unless it is that body's outline.
 */
export function outlineFits(body: string, o: unknown, countedSteps: number): o is Outline {
  if (!o || typeof o !== 'object') return false;
  const { sections, steps, stepsSection } = o as Outline;
  const int = (n: unknown, max = body.length): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= max;
  if (!Array.isArray(sections) || !Array.isArray(steps) || !Number.isInteger(stepsSection) || steps.length !== countedSteps) return false;
  // Every heading line outside fences, in order, with nothing that could be a setext heading.
  const headings: number[] = [];
  /** Lines outside fences that start with a list marker at the left margin: where items can start. */
  const markers: number[] = [];
  let fence: string | undefined;
  let prevBlank = true;
  for (let at = 0; at < body.length; ) {
    const end = lineEndAt(body, at);
    const line = body.slice(at, end);
    if (UNFOLLOWED.test(line)) return false;
    const f = FENCE.exec(line);
    // A fence opens with a run of three or more (a backtick run's info has no backtick); it closes
    // with a run of the same character, at least as long, and nothing after it.
    const opens = f && !fence && !(f[1][0] === '`' && f[2].includes('`'));
    const closes = f && fence && f[1][0] === fence[0] && f[1].length >= fence.length && !f[2].trim();
    if (opens) fence = f[1];
    else if (closes) fence = undefined;
    else if (!fence) {
      if (!prevBlank && SETEXT_UNDERLINE.test(line)) return false;
      if (ATX.test(line)) headings.push(at);
      else if (ITEM_MARKER.test(line)) markers.push(at);
    }
    prevBlank = !line.trim();
    const nl = body.indexOf('\n', end);
    at = nl === -1 ? body.length : nl + 1;
  }
  if (headings.length !== sections.length) return false;
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i];
    if (!s || typeof s !== 'object' || typeof s.title !== 'string' || !int(s.start) || !int(s.headingEnd) || !int(s.end)) return false;
    const m = ATX.exec(body.slice(headings[i], lineEndAt(body, headings[i])));
    if (!m || s.start !== headings[i] + m[0].indexOf('#') || s.depth !== m[1].length || s.headingEnd !== lineEndAt(body, s.start)) return false;
    const raw = body.slice(s.start + s.depth, s.headingEnd).replace(/[ \t]+#+[ \t]*$|^[ \t]*#+[ \t]*$/, '').trim();
    if (INLINE_SYNTAX.test(raw) || s.title !== raw) return false;
    if (s.end !== (i + 1 < sections.length ? sections[i + 1].start : body.length)) return false;
  }
  if (stepsSection !== sections.findIndex((s) => s.depth === 2 && s.title.toLowerCase() === 'steps')) return false;
  const sec = sections[stepsSection];
  // An item indented by one to three spaces may be a list of its own that the count does not see.
  if (sec && /^ {1,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/m.test(body.slice(sec.headingEnd, sec.end))) return false;
  // Every marker line of the Steps section starts one of its items, and no item starts elsewhere.
  const starts = sec ? markers.filter((m) => m > sec.headingEnd && m < sec.end) : [];
  if (starts.length !== steps.length || steps.some((it, i) => !it || it.start !== starts[i])) return false;
  if (!steps.length) return true;
  if (!sec) return false;
  let prevEnd = sec.headingEnd;
  for (const it of steps) {
    if (!it || typeof it !== 'object' || !int(it.start) || !int(it.lineEnd) || !int(it.end) || typeof it.ordered !== 'boolean') return false;
    // At the start of its line (items are counted there), a marker of its list's kind, with only
    // blank lines between it and the heading or the item before (a line of text there could
    // make it a paragraph's continuation).
    if (it.start <= prevEnd || it.start !== lineStartAt(body, it.start) || it.start >= sec.end || body.slice(prevEnd, it.start).trim()) return false;
    const marker = ITEM_MARKER.exec(body.slice(it.start, it.start + 12));
    if (!marker || /^\d/.test(marker[0]) !== it.ordered) return false;
    if (it.lineEnd !== lineEndAt(body, it.start) || it.end < it.lineEnd || it.end > sec.end) return false;
    // It ends at the end of a line that is not blank, as a parse settles it.
    if (it.end !== lineEndAt(body, it.end) || !body.slice(lineStartAt(body, it.end), it.end).trim()) return false;
    prevEnd = it.end;
  }
  return true;
}
