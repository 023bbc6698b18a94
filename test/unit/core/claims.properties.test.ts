// Claims as properties, through the core's own operations (issue 31): random plans of random
// DAGs, executed by random sessions in random orders with claimNext and markStep. A claimed step
// never has an open dependency, no step ever has two owners, a mark of a step another session
// holds is refused, and the plan completes with every step done once.
import { sealApproval, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { claimNext, createPlanText, isFinished, isPlanError, markStep, NoRunnableStep, OpContext, parseClaim, parsePlan, PlanDocument, planGraph } from '../../../src/core';

const id = (n: number) => `S${String(n).padStart(3, '0')}`;
const ctx = (n: number): OpContext => ({ now: new Date(Date.UTC(2026, 5, 1, 10, 0, n)).toISOString(), actor: 'agent', approvals: TEST_APPROVALS });

/** An executing plan of n steps, each waiting for a random set of earlier ones (or, without after:, the one before it). */
const plans = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc
    .tuple(...Array.from({ length: n }, (_, i) => fc.record({ implicit: fc.boolean(), deps: fc.subarray(Array.from({ length: i }, (_, j) => id(j + 1))) })))
    .map((specs) => {
      const text = createPlanText({ id: 'PLAN-0d1ff3e0', title: 'Random', goal: 'G', steps: specs.map((sp, i) => ({ text: `step ${i + 1}`, ...(sp.implicit ? {} : { dependsOn: sp.deps }) })) }, ctx(0).now);
      return sealApproval(parsePlan(text.replace('status: draft', 'status: executing')));
    }),
);

describe('claims, as properties of the operations', () => {
  it('random sessions claiming and finishing in random orders: dependencies first, one owner per step, others refused', () => {
    fc.assert(
      fc.property(plans, fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.nat()), { minLength: 200, maxLength: 200 }), (start, moves) => {
        let doc: PlanDocument = start;
        const graph = planGraph(doc.steps);
        const owner = new Map<string, string>();
        let t = 1;
        for (const [who, pick] of moves) {
          if (doc.fm.status === 'completed') break;
          const session = `agent-${who}`;
          const mine = doc.steps.filter((s) => s.status === 'in_progress' && owner.get(s.id) === session);
          const theirs = doc.steps.filter((s) => s.status === 'in_progress' && owner.get(s.id) !== session);
          if (pick % 4 === 0 && theirs.length) {
            // Someone else's step: refused, naming the holder; the plan does not change.
            const s = theirs[pick % theirs.length];
            assert.throws(() => markStep(doc, s.id, 'done', ctx(t++), undefined, undefined, { session }), (e: unknown) => isPlanError(e) && e.code === 'STEP_CLAIMED' && e.message.includes(owner.get(s.id)!));
            continue;
          }
          if (mine.length && pick % 2 === 0) {
            doc = markStep(doc, mine[pick % mine.length].id, 'done', ctx(t++), undefined, undefined, { session }).doc!;
            continue;
          }
          try {
            const r = claimNext(doc, { session }, ctx(t++));
            const s = r.step!;
            assert.ok(!owner.has(s), `${s} claimed twice`);
            for (const d of graph.deps.get(s)!) assert.ok(isFinished(doc.steps.find((x) => x.id === d)!.status), `${s} claimed while ${d} is open`);
            owner.set(s, session);
            doc = r.doc!;
            assert.equal(parseClaim(doc.steps.find((x) => x.id === s)!.record?.Claimed)?.session, session);
          } catch (e) {
            if (!(e instanceof NoRunnableStep)) throw e;
            assert.ok(doc.steps.some((s) => s.status === 'in_progress'), `nothing runnable and nothing running: ${e.why}`);
          }
        }
        // Whatever is left, its owners finish in turn: the plan completes with every step done once.
        for (let guard = 0; doc.fm.status !== 'completed' && guard < 100; guard++) {
          const running = doc.steps.find((s) => s.status === 'in_progress');
          if (running) doc = markStep(doc, running.id, 'done', ctx(t++), undefined, undefined, { session: owner.get(running.id)! }).doc!;
          else {
            const r = claimNext(doc, { session: 'agent-0' }, ctx(t++));
            owner.set(r.step!, 'agent-0');
            doc = r.doc!;
          }
        }
        assert.equal(doc.fm.status, 'completed');
        assert.equal(owner.size, doc.steps.length);
        for (const s of doc.steps) assert.equal(parseClaim(s.record?.Claimed)?.session, owner.get(s.id), `${s.id} records who did it`);
      }),
      { numRuns: 60 },
    );
  });
});
