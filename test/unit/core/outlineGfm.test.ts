// The parse that decides a plan's structure leaves out GFM's autolink literals (src/core/format/outline.ts):
// the outline it gives (every section, its title and extent, every step's extent) must be the one
// full GFM gives, on the pre-scan's pathological families, on long plans and on random documents
// built from the constructs that could tell them apart (literal links in headings and items,
// strikethrough, tables, footnote definitions, task items, fences, quotes).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { bodyOf, createPlanText, inspectMarkdown } from '../../../src/core';
import { computeOutline, outlineOfTree } from '../../../src/core/format/outline';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from '../../helpers/pathologicalMarkdown';

const fullGfm = unified().use(remarkParse).use(remarkGfm);
const fullOutline = (body: string) => outlineOfTree(body, fullGfm.parse(body) as Root);

function assertSame(body: string, what: string): void {
  assert.deepEqual(computeOutline(body), fullOutline(body), what);
}

const FRAGMENTS = [
  '## Steps',
  '## Steps www.example.com',
  '## www.example.com',
  '## ~~Steps~~',
  '## ~Steps~',
  '# Goal https://example.com/a_(b)',
  '## Notes <https://example.com>',
  '## a@b.co Steps',
  '1. [ ] S001 Fetch www.example.com/x.',
  '2. [x] S002 Mail someone@example.com, then ~~skip~~ it',
  '- [ ] a task http://x.y/z?q=1)',
  '   details: see https://example.com/path_(x) and www.a.b.',
  '   > quoted www.q.r',
  '| a | b |',
  '| - | - |',
  '| www.t.u | ~~v~~ |',
  '[^1]: a footnote with www.f.g',
  '    - a list in a footnote',
  '```',
  '~~~',
  'text with https://example.com and a trailing www.',
  'Setext heading www.s.t',
  '===',
  '---',
  '> ## Steps',
  '',
  '',
];

describe('the structure parse without GFM autolink literals gives the outline full GFM gives', function () {
  this.timeout(120_000);

  it("on every pathological family the pre-scan accepts, at two sizes", () => {
    let compared = 0;
    for (const f of PATHOLOGICAL_FAMILIES) {
      for (const chars of [500, 2_000]) {
        const body = bodyOf(planWithMarkdown(f.make(chars)))!;
        if (inspectMarkdown(body).refusal) continue;
        assertSame(body, `${f.name} at ${chars} characters`);
        compared++;
      }
    }
    assert.ok(compared > PATHOLOGICAL_FAMILIES.length, `compared ${compared}`);
  });

  it('on a 1,000-step plan whose details are full of addresses and links', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i}: fetch www.example.com/${i} ~~or not~~`, details: `Mail ops${i}@example.com, see https://example.com/${i}_(x) and [docs](https://d.e/${i}).` }));
    const text = createPlanText({ id: 'PLAN-0000fa11', title: 'Long', goal: 'G www.g.h', steps, context: 'www.c.d' }, '2026-11-22T10:00:00.000Z');
    const body = bodyOf(text)!;
    const outline = computeOutline(body);
    assert.equal(outline.steps.length, 1000);
    assertSame(body, 'the long plan');
  });

  it('on random documents of literal links, strikethrough, tables, footnotes, task items, fences and quotes', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 40 }), fc.array(fc.constantFrom('', '  ', '   ', '    ', '> '), { minLength: 40, maxLength: 40 }), (lines, indents) => {
        const body = `\n${lines.map((l, i) => indents[i] + l).join('\n')}\n`;
        fc.pre(!inspectMarkdown(body).refusal);
        assertSame(body, JSON.stringify(body));
      }),
      { numRuns: 1000, seed: 40 },
    );
  });
});
