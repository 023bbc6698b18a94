import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFootnoteFromMarkdown } from 'mdast-util-gfm-footnote';
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { toString } from 'mdast-util-to-string';
import type { Root, RootContent, List } from 'mdast';
import { proposedOutline, plainOutline } from './outlineQuick';
import { lineEndAt, lineStartAt, settleEnd, type Outline, type OutlineItem, type OutlineSection } from './outlineShape';

export * from './outlineShape';

/**
 * The parse that decides a plan's structure: remark's (mdast-util-from-markdown) with GFM, all of
 * it but autolink literals. A literal autolink (`www.example.com`, a bare URL or address) only
 * wraps text already in a paragraph or heading in a link with the same text: it moves no block
 * and changes no heading's text, and finding it cost a quarter of the parse of a long plan (a
 * pass over every text node after the parse). Tables and footnote definitions are blocks, task
 * list items and strikethrough decide a heading's or item's text: those stay.
 * test/unit/core/outlineGfm.test.ts holds this outline equal to the one full GFM gives.
 */
const micromarkExtensions = [gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];
const mdastExtensions = [gfmFootnoteFromMarkdown(), gfmStrikethroughFromMarkdown(), gfmTableFromMarkdown(), gfmTaskListItemFromMarkdown()];
const parseStructure = (body: string): Root => fromMarkdown(body, { extensions: micromarkExtensions, mdastExtensions });

/** Lines that close the previous section: headings of depth 1 or 2. */
const SECTION_DEPTH = 2;

/**
 * `body`'s section and step positions, as remark's parser with GFM reads them. markdown-it's
 * outline where checks with no parse show it is the same (outlineQuick.ts: a plan as agents write
 * it, about eight times faster), remark's own parse anywhere else. The parse itself
 * is unbounded on some Markdown: callers scan the body first (markdownGuard's `inspectMarkdown`,
 * as parsePlan and the parser worker do) and never parse what the scan refuses.
 */
export function computeOutline(body: string): Outline {
  const proposed = proposedOutline(body);
  return plainOutline(body, proposed) ? proposed : outlineOfTree(body, parseStructure(body));
}

/** The outline of `body` from its syntax tree (`root`, a parse of exactly that text). */
export function outlineOfTree(body: string, root: Root): Outline {
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
