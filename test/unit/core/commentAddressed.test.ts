// A review comment counts as addressed when its step or section was revised since the review:
// for a section, changed, removed, or added (a comment may ask for a section the plan lacks).
import { TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { commentAddressed, comparePlans, createPlanText, describeComparison, parsePlan, reject, reviewHistoryOf, setContent, setMetadata, submit, type PlanDocument } from '../../../src/core';

const ctx = { now: '2026-11-23T10:00:00.000Z', actor: 'agent' as const, approvals: TEST_APPROVALS };
const user = { ...ctx, actor: 'user' as const };

/** A proposed plan with a goal, two steps and a Verification section, and no Risks section. */
function proposedWithoutRisks(): PlanDocument {
  const draft = parsePlan(createPlanText({ id: 'PLAN-0000c0de', title: 'No risks yet', status: 'draft' }, ctx.now));
  const text = setContent(draft, '## Goal\nShip it.\n\n## Steps\n1. [ ] Build it\n2. [ ] Test it\n\n## Verification\n- The tests pass.\n', ctx).text;
  return parsePlan(submit(parsePlan(text), ctx).text);
}

/** The plan rejected with `comments`, and the comments as the review history reads them back. */
function rejected(doc: PlanDocument, comments: { anchor: string; body: string }[]) {
  const after = parsePlan(reject(doc, 'Not yet.', user, doc.fm.version, comments).text);
  return { doc: after, comments: reviewHistoryOf(after).at(-1)!.notes.comments };
}

describe('core: a comment answered by a new section counts as addressed (commentAddressed)', () => {
  it('"Risks: add a Risks section", then ## Risks written: addressed; a comment on a section left alone is not', () => {
    const reviewed = proposedWithoutRisks();
    const { doc, comments } = rejected(reviewed, [
      { anchor: 'Risks', body: 'add a Risks section' },
      { anchor: 'Verification', body: 'name the command' },
    ]);
    const revised = parsePlan(setMetadata(doc, { risks: ['The parser may be slow on large files.'] }, {}, ctx).text);
    const cmp = comparePlans(reviewed, revised);
    assert.deepEqual(cmp.sectionsAdded, ['Risks']);
    assert.deepEqual(describeComparison(cmp), ['+ ## Risks added']);
    assert.deepEqual(
      comments.map((c) => [c.anchor, commentAddressed(c, cmp)]),
      [
        ['Risks', true],
        ['Verification', false],
      ],
    );
  });

  it('only the section the comment names counts: one added under another title does not, nor a "section" named like a step', () => {
    const reviewed = proposedWithoutRisks();
    const { doc, comments } = rejected(reviewed, [{ anchor: 'Risks', body: 'add a Risks section' }]);
    const other = comparePlans(reviewed, parsePlan(setMetadata(doc, { assumptions: ['The input is UTF-8.'] }, {}, ctx).text));
    assert.deepEqual(other.sectionsAdded, ['Assumptions']);
    assert.equal(commentAddressed(comments[0], other), false);
    const both = comparePlans(reviewed, parsePlan(setMetadata(doc, { assumptions: ['The input is UTF-8.'], risks: ['It may be slow.'] }, {}, ctx).text));
    assert.equal(commentAddressed(comments[0], both), true);
    // A step anchor is answered by step changes only.
    const cmp = { ...both, sectionsAdded: ['S001'] };
    assert.equal(commentAddressed({ anchor: 'S001', body: 'x' }, cmp), false);
  });

  it('a section anchor matches its title as every section name does, whatever the case: "risks: …" is answered by ## Risks', () => {
    const reviewed = proposedWithoutRisks();
    const { doc, comments } = rejected(reviewed, [
      { anchor: 'risks', body: 'add a Risks section' },
      { anchor: 'VERIFICATION', body: 'name the command' },
    ]);
    const revised = parsePlan(setMetadata(doc, { risks: ['The parser may be slow on large files.'], verification: ['npm test passes.'] }, {}, ctx).text);
    const cmp = comparePlans(reviewed, revised);
    assert.deepEqual(cmp.sectionsAdded, ['Risks']);
    assert.deepEqual(cmp.sectionsChanged, ['Verification']);
    assert.deepEqual(
      comments.map((c) => [c.anchor, commentAddressed(c, cmp)]),
      [
        ['risks', true],
        ['VERIFICATION', true],
      ],
    );
    // Left alone, a section is untouched under any case of its name.
    const alone = comparePlans(reviewed, parsePlan(setMetadata(doc, { assumptions: ['The input is UTF-8.'] }, {}, ctx).text));
    assert.deepEqual(comments.map((c) => commentAddressed(c, alone)), [false, false]);
  });
});
