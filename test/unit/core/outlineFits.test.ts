import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { computeOutline, createPlanText, outlineFits, quickStepCounts, type Outline } from '../../../src/core';

/** Lines a plan body may hold, hostile ones included: headings of every kind, fences, items, breaks, HTML. */
const LINES = [
  '## Steps', '## Goal', '# Title', '## Risks ##', '## **Bold** title', '## a `code` title', '##', '### Deeper', '   ## indented heading',
  '1. [ ] S001 Do a', '2. [x] S002 Do b (edit: update → src/b.ts)', '3) [ ] S003 c', '- [ ] S004 d', '* item', '+ item',
  '  1. indented item', '   details of a step', '   > Note: a note', '10. [ ] S010 ten',
  '```', '~~~', '```md', '---', '===', '***', 'Setext title', 'plain text', 'text with → arrow', '', '', '> quote', '<div>', '</div>',
  '[ref]: https://example.com', '| a | b |', '| --- | --- |',
  '    ## four spaces', '\t## tab', '## Steps\t', '#', '#Steps', '##  Steps  ', '````', '~~~~', '``` a`b', '1.', '1. ', '-', '- ',
  '  - two-space bullet', '   - a sub-item', 'text\\', '* * *', '- - -', '    code', '## Steps', '## Steps', '1. [ ] S001 Do a',
];
const body = fc.array(fc.constantFrom(...LINES), { maxLength: 40 }).map((ls) => ls.join('\n') + '\n');

/** An outline changed in one place: what a corrupted or tampered cache file could hold. */
function mutate(o: Outline, pick: number): Outline {
  const c: Outline = JSON.parse(JSON.stringify(o));
  const n = pick % 8;
  if (n === 0 && c.steps.length) c.steps.pop();
  else if (n === 1 && c.sections.length) c.sections.pop();
  else if (n === 2 && c.steps.length) c.steps[pick % c.steps.length].end += 1;
  else if (n === 3 && c.steps.length) c.steps[pick % c.steps.length].start -= 1;
  else if (n === 4 && c.sections.length) c.sections[pick % c.sections.length].title += 'x';
  else if (n === 5 && c.sections.length) c.sections[pick % c.sections.length].end -= 1;
  else if (n === 6) c.stepsSection = c.stepsSection + 1;
  else if (c.steps.length) c.steps[pick % c.steps.length].ordered = !c.steps[pick % c.steps.length].ordered;
  return c;
}

const fits = (b: string, o: unknown) => outlineFits(b, o, quickStepCounts(b).total);

describe('outlineFits: an outline kept on disk is used only where it is the body\'s own', () => {
  it('the outline of a plan our writer made fits its body (so the cache serves the plans the tools write)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.:()→/-]{0,40}$/), { maxLength: 30 }), fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.]{0,30}$/), { maxLength: 3 }), (texts, risks) => {
        const text = createPlanText({ id: 'PLAN-0000f175', title: 'T', goal: 'G', steps: texts.map((t, i) => ({ text: t.trim() || 'x', ...(i % 2 ? { tool: 'edit', operation: 'update', target: `src/m${i}.ts` } : {}) })), ...(risks.length ? { risks } : {}), verification: ['v'] }, '2026-11-24T10:00:00.000Z');
        const b = text.slice(text.indexOf('\n---\n') + 5);
        assert.ok(fits(b, computeOutline(b)));
      }),
      { numRuns: 200 },
    );
  });

  it('an outline of another body fits only if it is exactly that body\'s outline (hostile bodies, edited)', () => {
    fc.assert(
      fc.property(body, body, (a, b) => {
        const oa = computeOutline(a);
        if (fits(b, oa)) assert.deepEqual(oa, computeOutline(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('a changed outline (a corrupted cache file) fits only if it is still the body\'s outline', () => {
    fc.assert(
      fc.property(body, fc.nat(), (b, pick) => {
        const m = mutate(computeOutline(b), pick);
        if (fits(b, m)) assert.deepEqual(m, computeOutline(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what is not an outline, and what it cannot confirm without a parse', () => {
    const b = '## Steps\n1. [ ] S001 a\n';
    assert.equal(fits(b, computeOutline(b)), true);
    for (const bad of [undefined, null, 42, 'x', {}, { sections: [], steps: [], stepsSection: -1 }, { ...computeOutline(b), steps: [{ start: '0' }] }]) assert.equal(fits(b, bad), false);
    // Inline markup in a heading, a setext heading: the parse decides.
    for (const text of ['## **Steps**\n1. [ ] S001 a\n', 'Steps\n-----\n1. [ ] S001 a\n']) assert.equal(fits(text, computeOutline(text)), false, text);
  });
});
