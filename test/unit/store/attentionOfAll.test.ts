// Issue 40: the attention of many plans at once (`pi-plans list`, `pi_plan_list`, the explorer's
// pass) decides what the index decides without a wait per plan, and lists the sessions folder once
// instead of opening a checkpoint log that is not there for every executing plan.
import { strict as assert } from 'node:assert';
import { approve, startExecution, submit } from '../../../src/core';
import { PlanStore } from '../../../src/store';
import { seenNow } from '../../helpers/approvals';
import { memoryPorts } from '../../helpers/memoryPorts';

const ROOT = '/ws';
const SESSIONS = `${ROOT}/.pi/plans/sessions`;
const MIN = 60_000;
const NEW_PLAN = { title: 'Ship the feature', goal: 'Ship it', steps: [{ text: 'write code' }] };

async function toExecuting(store: PlanStore, id: string): Promise<void> {
  await store.update(id, 'agent', (d, ctx) => submit(d, ctx));
  await store.update(id, 'user', (d, ctx) => approve(d, seenNow(d), ctx), { sign: true });
  await store.update(id, 'agent', (d, ctx) => startExecution(d, ctx));
}

describe('attention of many plans at once (issue 40)', () => {
  it('an executing plan without a checkpoint log has none opened (the sessions folder is listed once); the flags are those of one plan at a time', async () => {
    const mp = memoryPorts();
    const first = await PlanStore.open(ROOT, mp.ports);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = (await first.create(NEW_PLAN, 'agent')).fm.id;
      await toExecuting(first, id);
      ids.push(id);
    }
    const proposed = (await first.create(NEW_PLAN, 'agent')).fm.id;
    await first.update(proposed, 'agent', (d, ctx) => submit(d, ctx));
    // Half of them as plans arrive by git: without the log this machine would have written.
    for (const id of ids.slice(0, 3)) mp.fs.files.delete(`${SESSIONS}/${id}.jsonl`);
    mp.advance(31 * MIN);
    const store = await PlanStore.open(ROOT, mp.ports);
    const rows = store.list();
    const one: unknown[] = [];
    for (const r of rows) one.push(await store.attention(r));
    const opened: string[] = [];
    const readFile = mp.fs.readFile.bind(mp.fs);
    mp.fs.readFile = (p: string) => (opened.push(p), readFile(p));
    const flags = await store.attentionOfAll(rows);
    assert.deepEqual(flags, one);
    assert.deepEqual(Object.fromEntries(rows.map((r, i) => [r.id, flags[i]])), Object.fromEntries([...ids.map((id) => [id, 'stalled']), [proposed, undefined]]));
    assert.deepEqual(opened.filter((p) => p.endsWith('.jsonl')).sort(), ids.slice(3).map((id) => `${SESSIONS}/${id}.jsonl`).sort(), 'only the logs that are there are read');
  });
});
