/**
 * A faster road to a plan's outline (issue 40): markdown-it reads the blocks of a 1,000-step plan
 * about eight times faster than remark's parser in a fresh process. Its outline is only a
 * proposal: remark's parse (outline.ts) stays the one that decides a plan's structure, and the
 * proposal is taken only where checks that need no parse show remark would give the very same
 * outline (`plainOutline`); anywhere else remark parses, as before. The property tests hold the
 * two roads equal on random and hostile Markdown (test/unit/core/outlineQuick.test.ts).
 */
import MarkdownIt, { type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import { lineEndAt, lineStartAt, outlineFits, settleEnd, type Outline, type OutlineItem, type OutlineSection } from './outlineShape';

/** Headings of depth 1 or 2 open the sections. */
const SECTION_DEPTH = 2;

/**
 * markdown-it, CommonMark with GFM's tables, strikethrough and footnote definitions
 * (markdown-it-footnote without its inline footnotes, which GFM has not), blocks only: where the
 * top-level headings and list items are, which CommonMark decides before any inline parse, and
 * the text of the `#`/`##` headings, whose inline content alone is parsed. Nesting as deep as the
 * pre-scan lets through (markdown-it's CommonMark preset stops at 20 levels).
 */
const structure = new MarkdownIt('commonmark', { html: true, maxNesting: 100 }).enable(['table', 'strikethrough']).use(footnote);
structure.inline.ruler.disable(['footnote_inline']);
structure.core.ruler.disable(['inline', 'footnote_tail', 'text_join']);

/** Start of every line of `text`, as CommonMark ends lines: at "\r\n", "\n" or "\r" (markdown-it counts its lines so). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

/** A heading's text as mdast-util-to-string would give it: text, code, HTML and image descriptions as written; a hard break as nothing, a soft one as a line break. */
function plainText(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) {
    if (t.type === 'softbreak') out += '\n';
    else if (t.type === 'image') out += plainText(t.children ?? []);
    else if (t.type === 'text' || t.type === 'text_special' || t.type === 'code_inline' || t.type === 'html_inline') out += t.content;
  }
  return out;
}

/** The outline markdown-it gives `body`: a proposal, which `computeOutline` takes only where `plainOutline` shows remark would give the same. */
export function proposedOutline(body: string): Outline {
  const env: Record<string, unknown> = {};
  const tokens = structure.parse(body, env);
  const starts = lineStarts(body);
  /** Where the block starting on `line` starts: past the line's indent (at most three spaces at the top level). */
  const blockStart = (line: number) => {
    let at = starts[line];
    while (body.charCodeAt(at) === 32) at++;
    return at;
  };
  const sections: OutlineSection[] = [];
  const lists: { start: number; items: { line: number; endLine: number }[]; ordered: boolean }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t.map) continue;
    // An item one level down belongs to the list of the top level opened last (a list in a quote or
    // a footnote has its items two levels down).
    if (t.level === 1 && t.type === 'list_item_open') lists[lists.length - 1]?.items.push({ line: t.map[0], endLine: t.map[1] });
    if (t.level !== 0) continue;
    if (t.type === 'heading_open') {
      const depth = Number(t.tag.slice(1));
      if (depth > SECTION_DEPTH) continue;
      const inline: Token[] = [];
      structure.inline.parse(tokens[i + 1].content, structure, env, inline);
      const start = blockStart(t.map[0]);
      sections.push({ title: plainText(inline).trim(), depth, start, headingEnd: lineEndAt(body, start), end: body.length });
    } else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
      lists.push({ start: blockStart(t.map[0]), items: [], ordered: t.type === 'ordered_list_open' });
    }
  }
  for (let i = 0; i + 1 < sections.length; i++) sections[i].end = sections[i + 1].start;
  const stepsSection = sections.findIndex((s) => s.depth === 2 && s.title.toLowerCase() === 'steps');
  const steps: OutlineItem[] = [];
  if (stepsSection >= 0) {
    const sec = sections[stepsSection];
    for (const list of lists) {
      if (list.start < sec.headingEnd || list.start >= sec.end) continue;
      for (const item of list.items) {
        const s = blockStart(item.line);
        steps.push({ start: s, lineEnd: lineEndAt(body, s), end: item.endLine < starts.length ? starts[item.endLine] : body.length, ordered: list.ordered });
      }
    }
  }
  // Edits work on whole lines: an item ends at the end of its last line that is not blank, and
  // never on or past the line where the next item starts.
  for (let i = 0; i < steps.length; i++) {
    const it = steps[i];
    const next = steps[i + 1];
    it.end = settleEnd(body, it.lineEnd, next ? Math.min(it.end, lineStartAt(body, next.start)) : it.end);
  }
  return { sections, stepsSection, steps };
}

/** A list marker at the start of an item's line, and the one space after it that puts its text at the marker's width plus one. */
const MARKER_ONE_SPACE = /^(?:[-*+]|\d{1,9}[.)]) (?=[^ \t\r\n])/;

/**
 * Whether remark's parse would give `body` the outline `o` (markdown-it's proposal), shown with no
 * parse: it fits the body as a kept outline must (`outlineFits`: every heading a section, titled
 * with its plain text, no setext heading, no HTML, no fence off the margin, every item at the
 * margin with only blank lines between them), and no step's extent hangs on laziness, where
 * parsers differ: each item's first line has its text one space after the marker, every other
 * line of it that is not blank is indented at least that far (so it belongs to the item by its
 * indent alone), and nothing but blank lines follows the last step in its section. Conservative:
 * false sends the body to remark's parse.
 */
export function plainOutline(body: string, o: Outline): boolean {
  if (body.includes('\t') || !outlineFits(body, o, o.steps.length)) return false;
  for (const it of o.steps) {
    const marker = MARKER_ONE_SPACE.exec(body.slice(it.start, it.lineEnd));
    if (!marker) return false;
    const width = marker[0].length;
    for (let at = it.lineEnd + 1; at < it.end; ) {
      const end = lineEndAt(body, at);
      let indent = 0;
      while (body.charCodeAt(at + indent) === 32) indent++;
      if (at + indent < end && body[at + indent] !== '\r' && indent < width) return false;
      const nl = body.indexOf('\n', end);
      at = nl === -1 ? body.length : nl + 1;
    }
  }
  const last = o.steps[o.steps.length - 1];
  return !last || !body.slice(last.end, o.sections[o.stepsSection].end).trim();
}
