// An approval judged from the frontmatter alone (issue 40): `standingByHead` answers only where
// `approvalStanding` on the whole plan says `invalid` whatever the body, and never anything looser.
// Random plans: every status, any subset of the approval record's fields, the record's own or one
// copied from another plan, with and without a keyring, a keyring that trusts no approval.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { APPROVAL_FIELDS, APPROVAL_GOVERNS, applyEdits, approvalStanding, createPlanText, OpContext, parsePlan, PLAN_STATUSES, standingByHead, submit } from '../../../src/core';
import { approveNow, TEST_APPROVALS, testKeyring } from '../../helpers/approvals';

const ctx = (actor: OpContext['actor'] = 'user'): OpContext => ({ now: '2026-02-01T00:00:00.000Z', actor, approvals: TEST_APPROVALS });

/** An approved plan of the test person, by its goal. */
function approved(goal: string, id = 'PLAN-0000abcd') {
  const text = createPlanText({ id, title: 'T', goal, steps: [{ text: 'a' }, { text: 'b' }] }, ctx().now);
  return parsePlan(approveNow(parsePlan(submit(parsePlan(text), ctx('agent')).text), ctx()).text);
}

describe('an approval judged by its frontmatter alone (standingByHead)', () => {
  it('answers only "invalid", and only where the whole plan is invalid too, whatever its body', () => {
    const base = approved('Do it');
    const other = approved('Something else', 'PLAN-0000beef');
    fc.assert(
      fc.property(
        fc.constantFrom(...PLAN_STATUSES),
        fc.subarray([...APPROVAL_FIELDS]),
        fc.boolean(),
        fc.constantFrom('none', 'own', 'problem', 'stranger'),
        fc.boolean(),
        (status, dropped, copied, ring, edited) => {
          // The record as written, or copied from another plan; some of its fields removed; the body edited or not.
          const record = Object.fromEntries(APPROVAL_FIELDS.map((k) => [k, (copied ? other : base).fm[k] as string | number | undefined]));
          for (const k of dropped) record[k] = undefined;
          let doc = parsePlan(applyEdits(base, { ...record, status }).text);
          if (edited) doc = parsePlan(doc.text.replace('1. [ ] S001 a', '1. [ ] S001 a, and more'));
          const keyring = ring === 'none' ? undefined : ring === 'problem' ? testKeyring({ problem: 'the configuration folder is inside the workspace' }) : ring === 'own' ? testKeyring() : { ...testKeyring(), trust: () => undefined };
          const head = standingByHead(doc.fm, keyring);
          const whole = approvalStanding(doc, keyring).state;
          assert.ok(head === undefined || head === 'invalid', `never looser than invalid: ${head}`);
          if (head === 'invalid') assert.equal(whole, 'invalid', `${status} without ${dropped.join(', ') || 'nothing'}: the head says invalid, the plan says ${whole}`);
          // It decides every governed plan the index can tell has no record.
          if (APPROVAL_GOVERNS.has(status) && (!doc.fm.approved_hash || !doc.fm.approved_by || doc.fm.approved_version === undefined)) assert.equal(head, 'invalid');
        },
      ),
      { numRuns: 300 },
    );
  });

  it("decides a plan pi-planner approved or runs (no record at all) from the fields an index keeps; leaves a plan with a record to the whole check", () => {
    for (const status of ['approved', 'executing', 'stalled', 'failed']) assert.equal(standingByHead({ status }, testKeyring()), 'invalid');
    for (const status of ['draft', 'proposed', 'completed', 'cancelled', 'superseded', 'rejected']) assert.equal(standingByHead({ status }, testKeyring()), undefined);
    const doc = approved('Do it');
    assert.equal(standingByHead(doc.fm, testKeyring()), undefined);
    assert.equal(standingByHead({ status: 'approved', approved_hash: doc.fm.approved_hash, approved_by: 'user' }, testKeyring()), 'invalid', 'no version approved');
  });
});
