// What the agent is told of a step's evidence: the mark's result and pi_plan_get (real tool
// handlers, the plans in memory, the evidence port on a real repository in a temporary folder).
import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve } from '../../../src/core';
import { NodeEvidence } from '../../../src/node';
import { PlanStore } from '../../../src/store';
import { ALL_TOOLS, ToolContext, waitForDecision } from '../../../src/tools';
import { memoryPorts } from '../../helpers/memoryPorts';

describe('agent tools: what a step changed (mark result, pi_plan_get)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tool-evidence-'));
    for (const args of [['init', '-q'], ['commit', '-q', '--allow-empty', '-m', 'base']]) spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: dir });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the files a step changed, and for a step done with nothing changed the call that explains it', async () => {
    const m = memoryPorts();
    const evidence = new NodeEvidence(dir);
    const store = await PlanStore.open('/work/ws', { ...m.ports, evidence });
    const items: { id: string; folder: string }[] = [];
    const ctx: ToolContext = {
      stores: { folders: () => [{ name: 'ws', store }] },
      active: { list: () => items, set: (id, folder) => void items.splice(0, items.length, { id, folder }), clear: () => void items.splice(0) },
      settings: { agentMayApprove: false, gating: 'always', waitForReview: false },
      review: { awaitDecision: (st, id, signal) => waitForDecision(st, id, signal) },
    };
    const call = async (name: string, input: Record<string, unknown>) => {
      const r = await ALL_TOOLS.find((t) => t.name === name)!.run(input, ctx);
      return typeof r === 'string' ? r : JSON.stringify(r);
    };
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(await call('pi_plan_create', { title: 'Health', goal: 'G', steps: [{ text: 'Add the route' }, { text: 'Run the tests' }, { text: 'Tidy up' }], propose: true }))![1];
    await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await call('pi_plan_execute', { id, op: 'start' });
    await call('pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress' });
    fs.writeFileSync(path.join(dir, 'health.ts'), 'export const ok = 1;\n');
    const first = await call('pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    assert.match(first, /Changed: health\.ts \(new, \+1 −0\) · 1 file \+1 −0 · tree [0-9a-f]{10}\.\.[0-9a-f]{10}/);
    assert.doesNotMatch(first, /no evidence/);
    await call('pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'in_progress' });
    const second = await call('pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done' });
    assert.ok(second.includes(`S002 is done with no recorded change ("no evidence"): if nothing had to change, say why: call pi_plan_execute {"id":"${id}","op":"mark","step":"S002","status":"done","note":"<why nothing had to change>"}`), second);
    const got = await call('pi_plan_get', { id });
    assert.match(got, /Evidence: S001 done: 1 file \+1 −0; S002 done: nothing changed \(no evidence\)\.\n/);
    const explained = await call('pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done', note: 'the tests already passed' });
    assert.match(explained, /S002: no change, explained/);
    assert.match(await call('pi_plan_get', { id }), /S002 done: nothing changed \(no change, explained\)/);
    // The last step done with nothing changed completes the plan: no mark can explain it any more.
    await call('pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'in_progress' });
    const last = await call('pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'done' });
    assert.match(last, /status: completed/);
    assert.match(last, /S003 is done with no recorded change \("no evidence"\), and the plan is finished, so the flag stays for the reviewer/);
    assert.match(await call('pi_plan_get', { id }), /Summary: 1 file change \+1 −0, 1 step with no evidence\./);
    await evidence.settled();
  });
});
