import { strict as assert } from 'node:assert';
import { isFinished, isRejectionHeadingLine, isReviewHistoryTitle, nextOpenStep, progressOf, rejectedVersionOf, rejectionTitle, reviewedVersion, STEP_STATUSES } from '../../../src/core';
import { ALL_TOOLS } from '../../../src/tools';

describe('policy: the rules every face shares, written once', () => {
  it('a step is finished when done or skipped; progress and the next step count that way', () => {
    assert.deepEqual(STEP_STATUSES.filter(isFinished), ['done', 'skipped']);
    const steps = [{ status: 'done' }, { status: 'skipped' }, { status: 'blocked' }, { status: 'pending' }] as const;
    assert.deepEqual(progressOf(steps), { done: 2, total: 4 });
    assert.equal(nextOpenStep(steps), steps[2]);
    assert.equal(nextOpenStep([{ status: 'done' }]), undefined);
  });

  it('review history titles: rejections name the version; approvals are history too; a heading line is recognised with CRLF', () => {
    assert.equal(rejectionTitle(3), 'Rejection (v3)');
    assert.equal(rejectedVersionOf(rejectionTitle(12)), 12);
    assert.equal(rejectedVersionOf('Rejection (3)'), undefined);
    assert.equal(rejectedVersionOf('Risks'), undefined);
    assert.ok(isReviewHistoryTitle('Approval (v4)') && isReviewHistoryTitle('Rejection (v1)') && !isReviewHistoryTitle('Goal'));
    assert.ok(isRejectionHeadingLine('## Rejection (v2)\r') && isRejectionHeadingLine('## Rejection (v2)  ') && !isRejectionHeadingLine('### Rejection (v2)'));
  });

  it('the reviewed version: the one named, else the one shown (a saved editor), else the current', () => {
    const shown = '---\nid: PLAN-1a2b3c4d\nversion: 7\r\n---\n';
    assert.equal(reviewedVersion({ given: 5, shownText: shown, current: 9 }), 5);
    assert.equal(reviewedVersion({ shownText: shown, current: 9 }), 7);
    assert.equal(reviewedVersion({ shownText: 'no version here', current: 9 }), 9);
    assert.equal(reviewedVersion({ current: 9 }), 9);
  });

  it('only tools that read run in Restricted Mode: exactly pi_plan_get and pi_plan_list declare it', () => {
    assert.deepEqual(ALL_TOOLS.filter((t) => t.readOnly).map((t) => t.name).sort(), ['pi_plan_get', 'pi_plan_list']);
  });
});
