import { strict as assert } from 'node:assert';
import { planView } from '../../../src/core/planView';
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
  it('shows the checkpoint log as a timeline, in its order, each event with who, the step, the status, the version and the note', () => {
    const v = planView(PLAN, {
      checkpoints: [
        { type: 'step_updated', plan: 'PLAN-0000c0de', at: '2026-11-20T11:00:00.000Z', step: 'S002', status: 'done', actor: 'agent', version: 7, note: 'cache warm' },
        { type: 'completed', plan: 'PLAN-0000c0de', at: '2026-11-20T12:00:00.000Z', status: 'completed', actor: 'agent', version: 9 },
      ],
    }) as PlanView;
    assert.deepEqual(v.timeline, [
      { at: '2026-11-20T11:00:00.000Z', text: 'step updated S002 → done by agent v7: cache warm' },
      { at: '2026-11-20T12:00:00.000Z', text: 'completed → completed by agent v9' },
    ]);
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
