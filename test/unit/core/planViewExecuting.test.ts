import { strict as assert } from 'node:assert';
import { approvalStanding, createPlanText, markStep, parsePlan, startExecution, submit } from '../../../src/core';
import { planView } from '../../../src/core/views/planView';
import type { PlanView } from '../../../src/protocol/planEditor';
import { ToWebviewSchema } from '../../../src/protocol/planEditor';
import { approveNow, TEST_APPROVALS, testKeyring } from '../../helpers/approvals';

const ctx = { now: '2026-11-27T10:00:00.000Z', actor: 'user' as const };
const agent = { ...ctx, actor: 'agent' as const, approvals: TEST_APPROVALS };
const P = 'PLAN-0000e0e0';
const proposed = submit(parsePlan(createPlanText({ id: P, title: 'Rate limits', goal: 'G', steps: [{ text: 'Limiter' }, { text: 'Wire it' }, { text: 'Docs' }] }, ctx.now)), agent).text;
const approved = approveNow(parsePlan(proposed), ctx).text;
/** Executing: S001 done with its claim, changes and note; S002 in progress, claimed (taken over); S003 pending. */
const executing = (() => {
  let t = startExecution(parsePlan(approved), agent).text;
  t = markStep(parsePlan(t), 'S001', 'done', agent, 'limiter added', {
    Claimed: 'vscode-d067455f at 2026-11-27T10:21:46.023Z',
    Changed: 'src/bucket.ts (new, +40 −0) · 1 file +40 −0 · tree 0123456789..abcdef0123',
    Check: 'passed · exit 0 · 3.2 s · tree abc1234 · 2026-11-27T10:25Z',
  }).text;
  return markStep(parsePlan(t), 'S002', 'in_progress', agent, undefined, { Claimed: 'mcp-2 at 2026-11-27T11:00:00.000Z (taken over from vscode-d067455f, claimed 2026-11-27T10:30:00.000Z)' }).text;
})();
const view = (text: string, c: Parameters<typeof planView>[1] = {}) => {
  const v = planView(text, c);
  assert.equal(v.kind, 'plan', v.kind === 'invalid' ? v.message : '');
  assert.ok(ToWebviewSchema.safeParse({ type: 'state', state: v }).success, 'the webview accepts the view');
  return v as PlanView;
};

describe('plan editor view: one primary action per state, records in words, the approver named once', () => {
  it('draws nothing as primary while the agent executes; Execute in Copilot stays on offer, and becomes the primary once the run stalls', () => {
    const live = view(executing, { standing: approvalStanding(parsePlan(executing), testKeyring()) });
    assert.equal(live.primary, undefined);
    assert.ok(live.commands.includes('execute'));
    const stalled = view(executing, { flag: 'stalled', standing: approvalStanding(parsePlan(executing), testKeyring()) });
    assert.equal(stalled.primary, 'execute');
    assert.equal(view(proposed).primary, 'approve');
    assert.equal(view(proposed, { dirty: true }).primary, 'saveToApprove', 'unsaved: saving is the step towards approving');
    assert.equal(view(approved).primary, 'execute');
    assert.equal(view(proposed, { readOnly: true }).primary, undefined);
  });

  it('offers End plan work, not Start plan work, on the active plan', () => {
    const active = view(executing, { active: true });
    assert.ok(active.marks.includes('active'));
    assert.ok(active.commands.includes('endWork') && !active.commands.includes('startWork'));
    const idle = view(executing);
    assert.ok(idle.commands.includes('startWork') && !idle.commands.includes('endWork'));
  });

  it('says a claim as its session and a time the editor writes in the reader\'s locale, a takeover too, a check\'s time likewise; the line as written stays its tooltip', () => {
    const v = view(executing);
    const [s1, s2] = v.steps;
    assert.deepEqual(s1.record?.find((r) => r.key === 'Claimed'), { key: 'Claimed', text: 'vscode-d067455f at 2026-11-27T10:21:46.023Z', words: ['Claimed by ', 'vscode-d067455f', ' · ', { at: '2026-11-27T10:21:46.023Z' }] });
    assert.deepEqual(s1.record?.find((r) => r.key === 'Check')?.words, ['Check passed · exit 0 · 3.2 s · tree abc1234 · ', { at: '2026-11-27T10:25Z' }]);
    assert.deepEqual(s2.record?.find((r) => r.key === 'Claimed')?.words, ['Claimed by ', 'mcp-2', ' · ', { at: '2026-11-27T11:00:00.000Z' }, ' (taken over from vscode-d067455f, claimed ', { at: '2026-11-27T10:30:00.000Z' }, ')']);
    // No ISO time is left in the words themselves.
    for (const r of [...(s1.record ?? []), ...(s2.record ?? [])]) for (const w of r.words ?? []) if (typeof w === 'string') assert.doesNotMatch(w, /\d{4}-\d\d-\d\dT/, w);
    // A line in no form the store writes is shown as written.
    const odd = view(executing.replace('> Claimed: mcp-2 at', '> Claimed: mcp-2 since'));
    assert.equal(odd.steps[1].record?.find((r) => r.key === 'Claimed')?.words, undefined);
  });

  it('names the approver in the timeline as the header does: a valid approval, a finished plan\'s, and without the keys at hand', () => {
    const checkpoints = [
      { type: 'submitted', plan: P, at: '2026-11-27T09:00:00.000Z', status: 'proposed', actor: 'agent', version: 2 },
      { type: 'status', plan: P, at: '2026-11-27T09:30:00.000Z', status: 'approved', actor: 'user', version: 3 },
      { type: 'status', plan: P, at: '2026-11-27T10:00:00.000Z', status: 'executing', actor: 'agent', version: 4 },
    ] as const;
    const approvedLine = (v: PlanView) => v.timeline.find((e) => e.text.startsWith('Approved'))?.text;
    const doc = parsePlan(executing);
    const valid = view(executing, { standing: approvalStanding(doc, testKeyring()), checkpoints: [...checkpoints] });
    assert.equal(valid.approvedBy, 'Test Person');
    assert.equal(approvedLine(valid), 'Approved v2 by Test Person');
    // Finished: the approval it ran on, its record verified, is still named in both places.
    let done = executing;
    for (const id of ['S002', 'S003']) done = markStep(parsePlan(done), id, 'done', agent, 'ok').text;
    const finished = parsePlan(done);
    assert.equal(finished.fm.status, 'completed');
    const f = view(done, { standing: approvalStanding(finished, testKeyring()), checkpoints: [...checkpoints] });
    assert.equal(f.approvedBy, 'Test Person');
    assert.equal(approvedLine(f), 'Approved v2 by Test Person');
    // Without the keys (no standing), as the file says, in both places; never the actor's code word ("user").
    const bare = view(executing, { checkpoints: [...checkpoints] });
    assert.equal(bare.approvedBy, 'Test Person');
    assert.equal(approvedLine(bare), 'Approved v2 by Test Person');
    // An approval that does not hold (signed by a key not trusted here) names nobody in either place.
    const foreign = view(executing, { standing: approvalStanding(doc, { ...testKeyring(), trust: () => undefined }), checkpoints: [...checkpoints] });
    assert.equal(foreign.approvedBy, undefined);
    assert.equal(approvedLine(foreign), 'Approved v2 by a person');
  });
});
