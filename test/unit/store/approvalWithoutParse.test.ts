// Issue 40: a list of plans without approval records (pi-planner's approved, executing and failed
// plans, a status written by hand) judges their approvals from the frontmatter the index keeps: no
// plan body is read or parsed for it. The parses are counted where the store reports them (its
// parser port is told before every parse of a plan it reads) and in the core's outline cache (a
// body parsed in this process has its outline there).
import { strict as assert } from 'node:assert';
import { approve, bodyOf, knownOutline } from '../../../src/core';
import { PlanStore } from '../../../src/store';
import { seenNow } from '../../helpers/approvals';
import { memoryPorts } from '../../helpers/memoryPorts';

/** A plan as pi-planner writes it (marcfargas/pi-planner, serializePlan): no approval record, steps without ids. */
function piPlannerPlan(i: number, status: string): string {
  const id = `PLAN-${(0xa000 + i).toString(16).padStart(8, '0')}`;
  const version = { proposed: 1, approved: 2, executing: 3, completed: 4, failed: 4 }[status] ?? 1;
  const lines = ['---', `id: ${id}`, `title: "Plan ${i}"`, `status: ${status}`, `version: ${version}`, 'created_at: 2026-11-20T10:00:00.000Z', 'updated_at: 2026-11-22T09:00:00.000Z', 'tools_required:', '  - odoo-toolbox'];
  if (status !== 'proposed' && status !== 'approved') lines.push('execution_started_at: 2026-11-22T09:00:00.000Z');
  if (status === 'completed' || status === 'failed') lines.push('execution_ended_at: 2026-11-22T09:30:00.000Z', 'result_summary: "done"');
  lines.push('---', '', '## Steps');
  for (let s = 0; s < 12; s++) lines.push(`${s + 1}. Change module ${s} of plan ${i} (edit: update → src/m${s}.ts)`);
  lines.push('', '## Context', `Plan ${i}, written by pi-planner.`, '');
  return lines.join('\n');
}

const STATUSES = ['proposed', 'approved', 'executing', 'completed', 'failed'];

describe('a list of plans without approval records parses no plan body (issue 40)', () => {
  it("pi-planner's approved, executing and failed plans: not valid, judged from the index, no body read or parsed", async () => {
    const { ports, fs } = memoryPorts();
    const texts = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const text = piPlannerPlan(i, STATUSES[i % STATUSES.length]);
      const id = /^id: (\S+)$/m.exec(text)![1];
      texts.set(id, text);
      fs.put(`/w/.pi/plans/${id}.md`, text);
    }
    const parsed: string[] = [];
    const store = await PlanStore.open('/w', { ...ports, parser: { prepare: async (text) => void parsed.push(text) } });
    const readsBefore = fs.reads;
    const rows = store.list();
    assert.equal(rows.length, 40);
    // As `pi-plans list`, `pi_plan_list` and the explorer ask: all of them at once.
    const flags = await store.attentionOfAll(rows);
    assert.deepEqual(parsed, [], 'no plan parsed through the store');
    assert.equal(fs.reads, readsBefore, 'no plan file read for its approval');
    for (const text of texts.values()) assert.equal(knownOutline(bodyOf(text)!), undefined, 'no body parsed in this process');
    // The verdicts are the ones a full check gives: a status an approval governs, without a record, is not valid.
    const byStatus = new Map(rows.map((r, i) => [r.status, flags[i]]));
    assert.deepEqual(Object.fromEntries(byStatus), { proposed: undefined, approved: 'unapproved', executing: 'unapproved', completed: undefined, failed: 'unapproved' });
    // As the whole check says, once the plan is read.
    const approvedRow = rows.find((r) => r.status === 'approved')!;
    assert.equal((await store.approvalStanding(await store.read(approvedRow.id))).state, 'invalid');
  });

  it('a plan with a record is still read and checked (its text changed since approval: "changed")', async () => {
    const { ports, fs } = memoryPorts();
    const parsed: string[] = [];
    const store = await PlanStore.open('/w', { ...ports, parser: { prepare: async (text) => void parsed.push(text) } });
    const doc = await store.create({ title: 'T', goal: 'G', steps: [{ text: 'a' }], status: 'proposed' }, 'agent');
    await store.update(doc.fm.id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    const file = `/w/.pi/plans/${doc.fm.id}.md`;
    fs.put(file, fs.text(file)!.replace('S001 a', 'S001 a, and also delete the database'));
    await store.fileChanged(file);
    parsed.length = 0;
    assert.equal(await store.attention(store.entry(doc.fm.id)!), 'changed');
    assert.equal(parsed.length, 1, 'one parse for the plan with a record');
  });

  it("the flags of many plans at once are each plan's own, in the list's order (a changed plan among unsigned ones)", async () => {
    const { ports, fs } = memoryPorts();
    for (let i = 0; i < 40; i++) {
      const text = piPlannerPlan(i, STATUSES[i % STATUSES.length]);
      fs.put(`/w/.pi/plans/${/^id: (\S+)$/m.exec(text)![1]}.md`, text);
    }
    const store = await PlanStore.open('/w', ports);
    const doc = await store.create({ title: 'T', goal: 'G', steps: [{ text: 'a' }], status: 'proposed' }, 'agent');
    await store.update(doc.fm.id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    const file = `/w/.pi/plans/${doc.fm.id}.md`;
    fs.put(file, fs.text(file)!.replace('S001 a', 'S001 a, and also delete the database'));
    await store.fileChanged(file);
    const rows = store.list();
    const one: unknown[] = [];
    for (const r of rows) one.push(await store.attention(r));
    assert.deepEqual(await store.attentionOfAll(rows), one);
    assert.equal(one[rows.findIndex((r) => r.id === doc.fm.id)], 'changed');
    assert.equal(one.filter((f) => f === 'unapproved').length, 24);
    assert.deepEqual(await store.attentionOfAll([]), []);
  });
});
