// The outline's two roads (src/core/format/outlineQuick.ts): markdown-it's proposal is taken only
// where checks with no parse show remark's parse would give the same outline. Held here: plans as
// agents write them take the fast road and get remark's outline; on random plan-shaped Markdown
// full of what the two parsers read differently (lazy lines, wide markers, setext underlines,
// single tildes, tabs, fences, HTML, tables, footnotes, quotes, line endings), computeOutline is
// always remark's outline; and where markdown-it alone reads otherwise, the check sends the body
// to remark.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { bodyOf, createPlanText, inspectMarkdown } from '../../../src/core';
import { computeOutline, outlineOfTree } from '../../../src/core/format/outline';
import { plainOutline, proposedOutline } from '../../../src/core/format/outlineQuick';

const gfm = unified().use(remarkParse).use(remarkGfm);
const remarks = (body: string) => outlineOfTree(body, gfm.parse(body) as Root);
const quick = (body: string) => plainOutline(body, proposedOutline(body));

const AT = '2026-11-22T10:00:00.000Z';

/** Lines the two parsers can read differently, or that a check must notice. */
const LINES = ['## Steps', '## ~Steps~', '# Goal', '## Notes', '## Steps ##', '## [x]', '1. [ ] S001 a', '10. [ ] S010 b', '100. [x] S100 c', '- [ ] d', '*  e', '2.    f', '1.', '   details', '    more', '     deeper', '    ## Steps', '   ## Steps', '     ## Steps', 'text', '```', '   ```', '    ```', '~~~', '<div>', '| a | b |', '| - | - |', '[^1]: note', '[x]: /u', '===', '---', '> ## Steps', '> 1. q', '', '', '', '\t1. tab', ' 3) g', '* * *', '+ h'];

describe("the outline's fast road (markdown-it, checked) gives remark's outline", function () {
  this.timeout(120_000);

  it('plans as agents write them take the fast road: a 1,000-step plan with details, and plans with notes, checks, records and Windows line ends', () => {
    const long = Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i + 1}: move module ${i}`, details: `Edit src/module${i}/reader.ts and keep the public names.` }));
    const plans = [
      createPlanText({ id: 'PLAN-0000aa01', title: 'Long', goal: 'Move every module.', steps: long, verification: ['npm test passes'], context: 'Generated.' }, AT),
      createPlanText({ id: 'PLAN-0000aa02', title: 'Short', goal: 'G', steps: [{ text: 'Run it', details: 'verify: npm test\nThen look at `out/`.' }, { text: 'Ship **it**' }], context: 'C' }, AT),
    ];
    const bodies = plans.map((p) => bodyOf(p)!);
    bodies.push(bodies[1].replace(/\n/g, '\r\n'));
    bodies.push(`${bodies[1]}\n## Notes\n- a note\n  over two lines\n`);
    for (const body of bodies) {
      assert.ok(quick(body), JSON.stringify(body.slice(0, 200)));
      assert.deepEqual(computeOutline(body), remarks(body));
    }
    assert.equal(computeOutline(bodies[0]).steps.length, 1000);
  });

  it('where markdown-it alone reads a plan otherwise, the checks send it to remark', () => {
    const differing = [
      '\n## ~Steps~\n1. [ ] S001 a\n', // GFM's single-tilde strikethrough: the title is "Steps"
      '\n## Steps\n  2. [x] S002 a\n    ## Steps\n', // a lazy line markdown-it reads as a heading
      '\n    ## Steps\n10. [ ] S010 b\n===\n## Steps\n', // a setext underline under an item, after indented code
      '\n## Steps\n 2.    f\n    ```\n## Steps\n', // a wide marker, then a fence
      '\n## Steps\n[x]: /u\n2.    f\n## Steps\n', // a wide marker after a definition
    ];
    for (const body of differing) {
      assert.notDeepEqual(proposedOutline(body), remarks(body), `markdown-it reads ${JSON.stringify(body)} as remark does: pick another example`);
      assert.equal(quick(body), false, JSON.stringify(body));
      assert.deepEqual(computeOutline(body), remarks(body), JSON.stringify(body));
    }
  });

  it('on random plan-shaped Markdown, with either line end, the outline is always remark’s, and many take the fast road', () => {
    let fast = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 24 }), fc.array(fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '> '), { minLength: 24, maxLength: 24 }), fc.boolean(), (lines, indents, crlf) => {
        const eol = crlf ? '\r\n' : '\n';
        const middle = lines.map((l, i) => indents[i] + l).join(eol);
        const body = ['', '## Goal', 'g', '', '## Steps', '1. [ ] S001 first', '   details', middle, '2. [ ] S002 last', '', '## Verification', '- ok', ''].join(eol);
        fc.pre(!inspectMarkdown(body).refusal);
        const outline = computeOutline(body);
        if (quick(body) && outline.steps.length) fast++;
        assert.deepEqual(outline, remarks(body), JSON.stringify(body));
      }),
      { numRuns: 3000, seed: 4040 },
    );
    assert.ok(fast >= 200, `only ${fast} of 3000 took the fast road`);
  });
});
