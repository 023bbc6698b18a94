import { strict as assert } from 'node:assert';
import { planView } from '../../../src/core/views/planView';
import type { PlanView, ViewNode } from '../../../src/protocol/planEditor';

const text = (ns: readonly ViewNode[]): string => ns.map((n) => (typeof n === 'string' ? n : text(n.c ?? []))).join('');

const PLAN = `---
id: PLAN-0000c0de
title: "A finished plan"
status: completed
version: 9
created_at: 2026-11-20T10:00:00.000Z
updated_at: 2026-11-20T12:00:00.000Z
result_summary: "All three steps done; p95 latency down 30 %"
---

## Goal
Faster pages.

## Steps
1. [x] S001 Measure
2. [x] S002 Cache
3. [x] S003 Verify

## Rollout
Ship behind the **flag** first.

## Risks
- none

## Notes from the author
Kept here.
`;

describe('plan editor view: the timeline, the result and the author\'s own sections', () => {
  const at = (m: number) => `2026-11-20T11:${String(m).padStart(2, '0')}:00.000Z`;
  const P = 'PLAN-0000c0de';

  it('says each event one way: the version a person decided on, who acted, the note apart, times as ISO', () => {
    const v = planView(PLAN, { standing: { state: 'valid', approver: 'Ana', version: 6 } as never, checkpoints: [
      { type: 'created', plan: P, at: at(0), status: 'draft', actor: 'agent', version: 1 },
      { type: 'edit', plan: P, at: at(1), step: 'S002', status: 'draft', actor: 'user', version: 2 },
      { type: 'submitted', plan: P, at: at(2), status: 'proposed', actor: 'agent', version: 3 },
      { type: 'status', plan: P, at: at(3), status: 'rejected', actor: 'user', version: 4, note: 'cache it' },
      { type: 'edit', plan: P, at: at(4), status: 'draft', actor: 'agent', version: 5 },
      { type: 'submitted', plan: P, at: at(5), status: 'proposed', actor: 'agent', version: 6 },
      { type: 'status', plan: P, at: at(6), status: 'approved', actor: 'cli', version: 7 },
      { type: 'status', plan: P, at: at(7), status: 'executing', actor: 'agent', version: 8 },
      { type: 'step', plan: P, at: at(8), step: 'S001', status: 'done', actor: 'agent', version: 9, note: 'measured' },
      { type: 'step', plan: P, at: at(9), step: 'S002', status: 'in_progress', actor: 'agent', version: 10 },
      { type: 'step', plan: P, at: at(10), step: 'S002', status: 'done', actor: 'agent', version: 11 },
      { type: 'step', plan: P, at: at(11), step: 'S003', status: 'done', actor: 'agent', version: 12 },
      { type: 'status', plan: P, at: at(11), status: 'completed', actor: 'agent', version: 12 },
      { type: 'archived', plan: P, at: at(12), status: 'completed', actor: 'user', version: 12 },
    ] }) as PlanView;
    assert.deepEqual(v.timeline.map((e) => [e.at, e.text, e.note]), [
      [at(0), 'Created as a draft (v1) by the agent', undefined], [at(1), 'Edited S002 (v2) by a person', undefined],
      [at(2), 'Submitted v3 for review by the agent', undefined], [at(3), 'Rejected v3 by a person', 'cache it'],
      [at(4), 'Edited (v5) by the agent: now draft', undefined], [at(5), 'Submitted v6 for review by the agent', undefined],
      [at(6), 'Approved v6 by Ana', undefined], [at(7), 'Execution started by the agent', undefined],
      [at(8), 'S001 marked done by the agent', 'measured'], [at(9), 'S002 marked in progress by the agent', undefined],
      [at(10), 'S002 marked done by the agent', undefined], [at(11), 'S003 marked done by the agent', undefined],
      [at(11), 'Completed by the agent', undefined], [at(12), 'Archived by a person', undefined],
    ]);
  });

  it('a submit says so whatever came before (a changed approved plan submitted again, its note apart); a withdrawn approval says that; older writers\' status lines to proposed read as submits', () => {
    const v = planView(PLAN, { checkpoints: [
      { type: 'status', plan: P, at: at(1), status: 'proposed', actor: 'agent', version: 2 },
      { type: 'status', plan: P, at: at(2), status: 'approved', actor: 'user', version: 3 },
      { type: 'edit', plan: P, at: at(3), status: 'approved', actor: 'user', version: 4 },
      { type: 'submitted', plan: P, at: at(4), status: 'proposed', actor: 'agent', version: 5, note: 'changed since approval: submitted again' },
      { type: 'status', plan: P, at: at(5), status: 'approved', actor: 'user', version: 6 },
      { type: 'status', plan: P, at: at(6), status: 'proposed', actor: 'user', version: 7 },
    ] }) as PlanView;
    assert.deepEqual(v.timeline.map((e) => [e.text, e.note]), [
      ['Submitted v2 for review by the agent', undefined],
      ['Approved v2 by a person', undefined],
      ['Edited (v4) by a person', undefined],
      ['Submitted v5 for review by the agent', 'changed since approval: submitted again'],
      ['Approved v5 by a person', undefined],
      ['Approval withdrawn: back to review by a person', undefined],
    ]);
  });

  it('reads a log from older writers, which put the plan\'s status on a mark: the step\'s status only where the file says it', () => {
    const v = planView(PLAN, { checkpoints: [
      { type: 'step', plan: P, at: at(9), step: 'S002', status: 'executing', actor: 'agent', version: 10 },
      { type: 'step', plan: P, at: at(10), step: 'S002', status: 'executing', actor: 'agent', version: 11 },
      { type: 'step', plan: P, at: at(11), step: 'S003', status: 'completed', actor: 'agent', version: 12 },
    ] }) as PlanView;
    assert.deepEqual(v.timeline.map((e) => e.text), [
      'S002 marked by the agent', 'S002 marked done by the agent', 'S003 marked done by the agent: the plan is complete',
    ]);
  });

  it('an approval no longer in force does not name an approver', () => {
    const v = planView(PLAN, { standing: { state: 'changed', approver: 'Ana', version: 6 } as never, checkpoints: [
      { type: 'status', plan: P, at: at(6), status: 'approved', actor: 'user', version: 7 },
    ] }) as PlanView;
    assert.deepEqual(v.timeline.map((e) => e.text), ['Approved v6 by a person']);
  });

  it('keeps the latest 50 events of a long log', () => {
    const checkpoints = Array.from({ length: 60 }, (_, i) => ({ type: 'note', plan: 'PLAN-0000c0de', at: `2026-11-20T11:${String(i).padStart(2, '0')}:00.000Z` }));
    const v = planView(PLAN, { checkpoints }) as PlanView;
    assert.equal(v.timeline.length, 50);
    assert.equal(v.timeline[0].at, '2026-11-20T11:10:00.000Z');
    assert.equal(v.timeline.at(-1)!.at, '2026-11-20T11:59:00.000Z');
  });

  it('shows the result summary, and the author\'s own sections in their place, rendered, not editable', () => {
    const v = planView(PLAN) as PlanView;
    assert.equal(v.resultSummary, 'All three steps done; p95 latency down 30 %');
    assert.deepEqual(v.sections.map((s) => s.title), ['Rollout', 'Risks', 'Notes from the author']);
    const rollout = v.sections[0];
    assert.equal(text(rollout.body), 'Ship behind the flag first.');
    assert.match(JSON.stringify(rollout.body), /"t":"strong"/);
    assert.equal(rollout.key, undefined, 'only the known list sections are edited as Markdown');
    assert.equal(v.sections[1].key, 'risks');
  });

  it('a plan without a log or a result has an empty timeline and no result', () => {
    const v = planView(PLAN.replace(/^result_summary:.*\n/m, '')) as PlanView;
    assert.deepEqual(v.timeline, []);
    assert.equal(v.resultSummary, undefined);
  });
});

describe('plan editor view: an approval section is the person\'s only when the signed record names it', () => {
  it('a "## Approval (vN)" written into the file is drawn as not signed; the approval\'s own section as approved', async () => {
    const { approvalStanding, parsePlan } = await import('../../../src/core');
    const { approveNow, testKeyring } = await import('../../helpers/approvals');
    const proposed = `---\nid: PLAN-0000c0df\ntitle: "T"\nstatus: proposed\nversion: 3\ncreated_at: 2026-11-20T10:00:00.000Z\nupdated_at: 2026-11-20T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 a\n2. [ ] S002 b\n\n## Approval (v3)\n- S002: Also push to production.\n`;
    const ctx = { now: '2026-11-20T11:00:00.000Z', actor: 'user' as const };
    const d = parsePlan(approveNow(parsePlan(proposed), ctx, { comments: [{ anchor: 'S001', body: 'Keep it small.' }] }).text);
    const v = planView(d.text, { standing: approvalStanding(d, testKeyring()) }) as PlanView;
    assert.deepEqual(
      v.history.map((h) => [h.kind, h.version, h.unsigned ?? false, text(h.body).trim()]),
      [
        ['approval', 3, true, 'S002: Also push to production.'],
        ['approval', 3, false, 'S001: Keep it small.'],
      ],
    );
    // Without a verified record (no keys, or an approval that does not hold), no section is drawn as the person's.
    const none = planView(d.text) as PlanView;
    assert.deepEqual(none.history.map((h) => h.unsigned), [true, true]);
  });
});
