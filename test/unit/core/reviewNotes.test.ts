// The hook's quick count of a rejection's open comments (no Markdown parse) against core's
// openReview over the parsed plan, on the shapes a plan file takes.
import { strict as assert } from 'node:assert';
import { createPlanText, openReview, parsePlan, quickRejectionComments } from '../../../src/core';

const base = (status: string) => createPlanText({ id: 'PLAN-0000a0a0', title: 'T', goal: 'G', status: 'draft', steps: [{ text: 'One' }, { text: 'Two' }] }, '2026-11-01T00:00:00.000Z').replace(/^status: draft$/m, `status: ${status}`);
const rejection = (v: number, comments: string[]) => `\n## Rejection (v${v})\n\nNot yet.\n\n${comments.map((c, i) => `- S00${i + 1}: ${c}`).join('\n')}\n`;

describe('quickRejectionComments: the open comments of a plan being revised, without a Markdown parse', () => {
  const cases: [string, string][] = [
    ['no review', base('rejected')],
    ['one rejection with two comments', base('rejected') + rejection(1, ['a', 'b'])],
    ['a comment with a continuation line', base('rejected') + rejection(1, ['a\n  more of a', 'b'])],
    ['two rejections: the last counts', base('needs_review') + rejection(1, ['a', 'b', 'c']) + rejection(2, ['d'])],
    ['a section after the rejection ends it', `${base('draft') + rejection(1, ['a'])}\n## Notes\n\n- S002: not a comment\n`],
    ['a rejection heading inside a fence is text', `${base('rejected') + rejection(1, ['a', 'b'])}\n## Notes\n\n\`\`\`md\n## Rejection (v9)\n\n- S001: fenced\n\`\`\`\n`],
    ['an approval after the rejection: nothing open while planned', base('draft') + rejection(1, ['a']) + '\n## Approval (v2)\n\n- S001: x\n'],
    ['proposed: a rejection is answered by the submission', base('proposed') + rejection(1, ['a'])],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const doc = parsePlan(text);
      const body = text.slice(doc.block.bodyStart);
      assert.equal(quickRejectionComments(body, doc.fm.status), openReview(doc)?.notes.comments.length ?? 0);
    });
  }

  it('counts what the parse counts in these cases, not zero', () => {
    const text = base('rejected') + rejection(1, ['a', 'b']);
    assert.equal(quickRejectionComments(text.slice(parsePlan(text).block.bodyStart), 'rejected'), 2);
  });
});
