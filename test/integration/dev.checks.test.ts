// Run Checks in the real extension host (issue 30): the command the plan editor, a step's CodeLens
// and the explorer run. Refused while the plan is not approved; once a person approved it (in a
// terminal), it runs `pi-plans verify` as a task in a terminal the person sees, and each result is
// recorded on its step. pi_plan_get then carries the checks, as the agent reads them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parsePlan } from '../../src/core';
import { api, approveInTerminal, folder, until } from './helpers';

const ID = 'PLAN-c4ec1001';
async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}
const get = () => invoke('pi_plan_get', { id: ID });
const file = () => path.join(folder().uri.fsPath, '.pi', 'plans', `${ID}.md`);
const PLAN = `---\nid: ${ID}\ntitle: "Checks in VS Code"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 2\n---\n\n## Goal\nRun the approved checks\n\n## Steps\n1. [ ] S001 A check that passes\n   verify: echo all good\n2. [ ] S002 A check that fails\n   verify: echo not yet; exit 4\n`;

describe('Run Checks (real VS Code)', function () {
  this.timeout(120_000);
  // The suites after this one count the sample plans: this one leaves none behind.
  after(async () => {
    const a = await api();
    fs.rmSync(file(), { force: true });
    fs.rmSync(path.join(folder().uri.fsPath, '.pi', 'plans', 'checks'), { recursive: true, force: true });
    await until('the plan gone from the index', () => !a.listPlans().some((p) => p.id === ID));
  });

  it('runs nothing for an unapproved plan; once approved, runs the checks in a visible task terminal and records each result on its step', async () => {
    const a = await api();
    fs.writeFileSync(file(), PLAN);
    await until('the plan indexed', () => a.listPlans().some((p) => p.id === ID));
    assert.equal(await vscode.commands.executeCommand('piPlans.runChecks', { id: ID }), undefined);
    assert.doesNotMatch(fs.readFileSync(file(), 'utf8'), /> Check:/);

    await approveInTerminal(ID, 1);
    const all = await vscode.commands.executeCommand<{ exitCode: number | undefined }>('piPlans.runChecks', { id: ID });
    assert.equal(all?.exitCode, 1, 'one check fails, so the task fails');
    assert.ok(vscode.window.terminals.some((t) => t.name.includes(`Checks of ${ID}`)), `a terminal shows the run: ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    // The steps are not worked on yet: their results are kept beside the plan, and the agent reads them.
    assert.doesNotMatch(fs.readFileSync(file(), 'utf8'), /> Check:/);
    let text = await get();
    assert.match(text, /S001 check passed \(passed · exit 0 /);
    assert.match(text, /S002 check failed \(failed · exit 4 /);

    // Once a step is worked on, its check's result is its record line.
    await invoke('pi_plan_execute', { id: ID, op: 'start' });
    await invoke('pi_plan_execute', { id: ID, op: 'mark', step: 'S001', status: 'in_progress' });
    const one = await vscode.commands.executeCommand<{ exitCode: number | undefined }>('piPlans.runChecks', { id: ID, step: 'S001' });
    assert.equal(one?.exitCode, 0);
    assert.match(parsePlan(fs.readFileSync(file(), 'utf8')).steps[0].record?.Check ?? '', /^passed · exit 0 · /);
    // S002 marked done with its check failed: allowed, and the mark result says unverified.
    assert.match(await invoke('pi_plan_execute', { id: ID, op: 'mark', step: 'S002', status: 'done' }), /S002 is unverified: its check `echo not yet; exit 4` has failed/);
    text = await get();
    assert.match(text, /S002 check failed, unverified/);
  });
});
