// The merge driver and pi-planner's reader on plans several agents execute (issue 31): `after:`
// lines and `> Claimed:` record lines round-trip, two branches claiming different steps merge
// cleanly, the same step claimed on both sides is a conflict at that step.
import { sealApproval, TEST_APPROVALS, unsealed } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { createPlanText, markStep, mergePlanTexts, OpContext, parseClaim, parsePlan, planGraph } from '../../../src/core';
import { errorOf } from '../../helpers/assertions';

const ID = 'PLAN-0d1ff3e0';
const at = (n: number) => `2026-06-${String(n).padStart(2, '0')}T10:00:00.000Z`;
const agent = (n: number): OpContext => ({ now: at(n), actor: 'agent', approvals: TEST_APPROVALS });

/** An executing plan: S001 and S002 run together, S003 waits for both. */
function base(): string {
  const text = createPlanText(
    {
      id: ID,
      title: 'Parallel',
      goal: 'Two at once.',
      steps: [
        { text: 'Parser', details: 'after: none' },
        { text: 'Printer', details: 'Keep it small.', dependsOn: [] },
        { text: 'Round trip', dependsOn: ['S001', 'S002'] },
      ],
    },
    at(1),
  );
  return text.replace('status: draft', 'status: executing');
}
/** A mark by a session, as the store writes it (the approval sealed for the op, removed again so both sides share the base's). */
const claim = (text: string, step: string, session: string, n: number) => unsealed(markStep(sealApproval(parsePlan(text)), step, 'in_progress', agent(n), undefined, undefined, { session }).text);

describe('merging plans several agents execute: after: lines and claims', () => {
  it('after: lines are written by dependsOn and read back as the graph', () => {
    const d = parsePlan(base());
    assert.match(d.text, /2\. \[ \] S002 Printer\n {3}Keep it small\.\n {3}after: none\n3\. \[ \] S003 Round trip\n {3}after: S001, S002\n/);
    assert.deepEqual(planGraph(d.steps).deps.get('S003'), ['S001', 'S002']);
  });

  it('two branches claiming different steps merge cleanly, each claim and every after: line kept', () => {
    const b = base();
    const ours = claim(b, 'S001', 'agent-a', 2);
    const theirs = claim(b, 'S002', 'agent-b', 3);
    assert.match(ours, /S001 \*in progress\* Parser\n {3}after: none\n {3}> Claimed: agent-a at 2026-06-02T10:00:00\.000Z\n/);
    const r = mergePlanTexts(b, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const m = parsePlan(r.text);
    assert.deepEqual(
      m.steps.map((s) => [s.id, s.status, parseClaim(s.record?.Claimed)?.session, s.details]),
      [
        ['S001', 'in_progress', 'agent-a', 'after: none'],
        ['S002', 'in_progress', 'agent-b', 'Keep it small.\nafter: none'],
        ['S003', 'pending', undefined, 'after: S001, S002'],
      ],
    );
  });

  it('the same step claimed on both sides is a conflict located at that step', () => {
    const b = base();
    const r = mergePlanTexts(b, claim(b, 'S001', 'agent-a', 2), claim(b, 'S001', 'agent-b', 3), { ours: 'HEAD', theirs: 'feature' });
    assert.deepEqual(r.conflicts.map((c) => c.what), ['step S001']);
    const lines = r.text.split('\n');
    assert.equal(lines[r.conflicts[0].line - 1], '<<<<<<< HEAD');
    const block = lines.slice(r.conflicts[0].line - 1, lines.indexOf('>>>>>>> feature') + 1).join('\n');
    assert.match(block, /> Claimed: agent-a at [^\n]+\n=======\n[^]*> Claimed: agent-b at /);
    const e = errorOf(() => parsePlan(r.text));
    assert.equal(e.details.line, r.conflicts[0].line);
  });
});
