import { seenNow, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { approve, createPlanText, markStep, parsePlan, PlanDocument, startExecution } from '../../../src/core';

/** A full garbage collection (V8's, exposed for this test). */
function collect(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('memory: a long run of step updates on a large plan keeps no old versions alive', function () {
  this.timeout(60_000);

  it('300 step marks on a 1,000-step plan: the live heap grows by far less than the versions written (each ~190 KB in memory)', () => {
    const ctx = { now: '2026-11-24T10:00:00.000Z', actor: 'agent' as const, approvals: TEST_APPROVALS };
    const steps = Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` }));
    let doc: PlanDocument = parsePlan(createPlanText({ id: 'PLAN-0000beef', title: 'Big', goal: 'G', steps, verification: ['v'], status: 'proposed' }, ctx.now));
    doc = parsePlan(approve(doc, seenNow(doc), { ...ctx, actor: 'user' }).text);
    doc = parsePlan(startExecution(doc, ctx).text);
    const step = (i: number) => `S${String(1 + ((i * 37) % 1000)).padStart(3, '0')}`;
    // Warm: the caches fill to their bounds.
    for (let i = 0; i < 20; i++) doc = parsePlan(markStep(doc, step(i), i % 2 ? 'blocked' : 'in_progress', ctx, `note ${i}`).text);
    collect();
    const before = process.memoryUsage().heapUsed;
    for (let i = 20; i < 320; i++) doc = parsePlan(markStep(doc, step(i), i % 2 ? 'blocked' : 'in_progress', ctx, `note ${i}`).text);
    collect();
    const grown = (process.memoryUsage().heapUsed - before) / 1e6;
    const version = doc.text.length * 2 / 1e6;
    // Holding each version would be 300 x ~0.19 MB = ~57 MB; a bounded cache holds a few.
    assert.ok(grown < 15, `the live heap grew by ${grown.toFixed(1)} MB over 300 updates (one version is ${version.toFixed(2)} MB)`);
  });
});
