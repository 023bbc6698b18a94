// The agent tools called exactly as Copilot agent mode calls them: vscode.lm.invokeTool, through
// VS Code's own tool service, in the real extension host. The human side goes through the
// commands the CodeLens and the review notification run.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { contentDigest, parsePlan, readChangedLine } from '../../src/core';
import { counted, followNext, newTally } from '../helpers/scriptedAgent';
import { api, approveInTerminal, folder, say, until } from './helpers';

const pkg = JSON.parse(fs.readFileSync(path.join(vscode.extensions.getExtension('pi-plans.pi-plans')!.extensionPath, 'package.json'), 'utf8'));

async function invoke(name: string, input: Record<string, unknown>, token?: vscode.CancellationToken): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}
async function refusedWith(name: string, input: Record<string, unknown>, pattern: RegExp): Promise<void> {
  const err = await invoke(name, input).then(
    (r) => assert.fail(`${name} should have been refused, got:\n${r}`),
    (e: Error) => e,
  );
  assert.match(err.message, pattern);
}
const idOf = (t: string) => /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(t)![1];
const file = (id: string) => path.join(folder().uri.fsPath, '.pi', 'plans', `${id}.md`);
const onDisk = (id: string) => parsePlan(fs.readFileSync(file(id), 'utf8'));
const log = (id: string) =>
  fs
    .readFileSync(path.join(folder().uri.fsPath, '.pi', 'plans', 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** File, checkpoint log and index agree on version and status. */
async function agree(id: string) {
  const a = await api();
  const d = onDisk(id);
  const e = a.listPlans().find((x) => x.id === id)!;
  const last = log(id).at(-1);
  assert.equal(e.version, d.fm.version, 'index version = file version');
  assert.equal(e.status, d.fm.status, 'index status = file status');
  assert.equal(last.version, d.fm.version, 'last checkpoint = file version');
  // A mark logs the step's status; every other event the plan's.
  if (last.type === 'step') assert.equal(last.status, d.steps.find((s) => s.id === last.step)?.status, 'last mark\'s status = the step\'s status in the file');
  else assert.equal(last.status, d.fm.status, 'last checkpoint status = file status');
}

describe('agent tools through vscode.lm.invokeTool', function () {
  this.timeout(60_000);
  before(async () => {
    await api();
    await vscode.commands.executeCommand('piPlans.endWork');
  });

  it('contributes chat instructions for plan work mode (the compaction-safety reminder), verified in this VS Code', async () => {
    const listed = async () => JSON.stringify(await vscode.commands.executeCommand<unknown>('_listExtensionPromptFiles')).includes('plan-work.instructions.md');
    await vscode.commands.executeCommand('piPlans.startWork', { id: 'PLAN-3f9a1c2e' });
    await until('the instructions offered to chat while plan work is active', listed);
    await vscode.commands.executeCommand('piPlans.endWork');
    await until('the instructions withdrawn when plan work ends', async () => !(await listed()));
  });

  it('vscode.lm.tools lists every declared tool with the generated schema', () => {
    const byName = new Map(vscode.lm.tools.map((t) => [t.name, t]));
    for (const decl of pkg.contributes.languageModelTools) {
      const t = byName.get(decl.name);
      assert.ok(t, `${decl.name} is not in vscode.lm.tools`);
      assert.deepEqual(t.inputSchema, decl.inputSchema, decl.name);
      assert.equal(t.description, decl.modelDescription, decl.name);
    }
    say(`${pkg.contributes.languageModelTools.length} tools listed by vscode.lm.tools`);
  });

  it('a full session: create, add steps, submit (waits), a person approves (in a terminal), start, mark each step, complete', async () => {
    const a = await api();
    const statuses: string[] = [];
    const sub = a.onDidChangePlanStatus((e) => statuses.push(`${e.id}:${e.to}`));
    // The sample workspace's .pi/plans.json requires Goal and Verification before review.
    let r = await invoke('pi_plan_create', { title: 'Integration session', goal: 'Prove the loop', verification: ['both steps done'] });
    const id = idOf(r);
    await agree(id);
    r = await invoke('pi_plan_step', { op: 'add', text: 'First', tool: 'edit', operation: 'create', target: 'a.ts' });
    assert.match(r, /Added S001/);
    await agree(id);
    await invoke('pi_plan_step', { op: 'add', text: 'Second' });
    await agree(id);
    const submitted = invoke('pi_plan_submit', {});
    await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
    const version = onDisk(id).fm.version;
    assert.match(await approveInTerminal(id, version), new RegExp(`${id} approved at v${version}`));
    r = await submitted;
    assert.match(r, new RegExp(`Approved by .+ at v${version}\\.`));
    assert.match(r, /Next: pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"start"\}/);
    await agree(id);
    r = await invoke('pi_plan_execute', { op: 'start' });
    assert.match(r, /Next: do step S001/);
    await agree(id);
    r = await invoke('pi_plan_execute', { op: 'mark', step: 'S001', status: 'done', note: 'created a.ts' });
    assert.match(r, /Next: do step S002/);
    await agree(id);
    r = await invoke('pi_plan_execute', { op: 'mark', step: 'S002', status: 'done' });
    assert.match(r, /status: completed/);
    await agree(id);
    const d = onDisk(id);
    assert.equal(d.fm.approved_by, 'cli');
    assert.equal(d.fm.approved_version, version);
    // The mark that completes the plan is followed by the plan's own status line, completed.
    // Start hands the session S001 (a step event), the mark of S001 hands it S002 (another).
    assert.deepEqual(log(id).map((c) => c.type), ['created', 'edit', 'edit', 'submitted', 'status', 'status', 'step', 'step', 'step', 'step', 'status']);
    assert.equal(log(id).at(-1)?.status, 'completed');
    sub.dispose();
    assert.deepEqual(statuses.filter((x) => x.startsWith(id)).map((x) => x.slice(id.length + 1)), ['draft', 'proposed', 'approved', 'executing', 'completed']);
  });

  it('a scripted agent that makes only the calls the results name: 5 steps from create to completed in 8 calls and under 3,500 characters, each step\'s own file its evidence', async () => {
    // The workspace as a repository (the evidence is git's), its own files committed.
    const root = folder().uri.fsPath;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    if (!fs.existsSync(path.join(root, '.git'))) {
      git('init', '-q');
      git('add', '-A');
      git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'base');
    }
    const tally = newTally();
    const call = counted(async (name, args) => invoke(name, args).then((text) => ({ text, refused: false }), (e: Error) => ({ text: e.message, refused: true })), tally);
    const fileOf = (step: string) => `scripted/${step.toLowerCase()}.txt`;
    const work = (step: string) => {
      fs.mkdirSync(path.join(root, 'scripted'), { recursive: true });
      fs.writeFileSync(path.join(root, fileOf(step)), `${step}\n`);
    };
    const created = await call('pi_plan_create', { title: 'Scripted in VS Code', goal: 'Five files', verification: ['they exist'], steps: [1, 2, 3, 4, 5].map((i) => ({ text: `Write scripted/s00${i}.txt` })) });
    const id = idOf(created.text);
    // The person approves at a terminal once the agent's submit is waiting.
    const person = (async () => {
      await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
      await approveInTerminal(id, onDisk(id).fm.version);
    })();
    const last = await followNext(call, created.text, id, { work });
    await person;
    assert.match(last, /status: completed/);
    assert.deepEqual(tally.refused, []);
    assert.ok(tally.calls <= 8, tally.log.join('\n'));
    assert.ok(tally.chars <= 3500, `${tally.chars} characters`);
    for (const s of onDisk(id).steps) {
      const c = readChangedLine(s.record?.Changed ?? '');
      assert.deepEqual(c.shown.map((f) => f.path), [fileOf(s.id)], `${s.id}: ${s.record?.Changed}`);
    }
    say(`scripted agent in VS Code: ${tally.calls} calls, ${tally.chars} characters`);
  });

  it('an approved plan whose steps an agent edited as a file (version kept) is flagged and cannot be started', async () => {
    const r = await invoke('pi_plan_create', { title: 'Edited after approval', goal: 'G', verification: ['v'], steps: [{ text: 'Read the config' }] });
    const id = idOf(r);
    const submitted = invoke('pi_plan_submit', { id });
    await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
    await approveInTerminal(id, onDisk(id).fm.version);
    assert.match(await submitted, /Approved by .+ at v/);
    // The agent's file edit tool rewrites the step; the version stays what was approved.
    fs.writeFileSync(file(id), fs.readFileSync(file(id), 'utf8').replace('S001 Read the config', 'S001 Delete the config'));
    await until('the flag in pi_plan_get', async () => /Approval: .*changed since .* approved v\d+/.test(await invoke('pi_plan_get', { id })));
    await refusedWith('pi_plan_execute', { id, op: 'start' }, /changed since .* approved v\d+.*so it cannot be started.*Call pi_plan_submit/);
    assert.equal(onDisk(id).fm.status, 'approved', 'the refused start changed nothing');
    // Submitting again puts the current text in front of the person.
    const again = invoke('pi_plan_submit', { id });
    await until('the plan proposed again', () => onDisk(id).fm.status === 'proposed');
    assert.equal(onDisk(id).fm.approved_hash, undefined);
    await approveInTerminal(id, onDisk(id).fm.version);
    assert.match(await again, /Approved by .+ at v/);
    assert.match(await invoke('pi_plan_execute', { id, op: 'start' }), /Next: do step S001/);
    await invoke('pi_plan_execute', { id, op: 'fail', summary: 'test over' });
  });

  it('a scripted agent transcript: context lost halfway, one stale version, a rejection with feedback, a revision, done', async () => {
    // Turn 1: the model drafts a plan.
    let r = await invoke('pi_plan_create', { title: 'Rename User to Account', goal: 'Consistent naming', steps: [{ text: 'Rename the class' }, { text: 'Update imports' }] });
    const id = idOf(r);
    const v1 = Number(/version: (\d+)/.exec(r)![1]);
    await invoke('pi_plan_update', { verification: ['npm test passes'], version: v1 });
    // Turn 2: the model's context was compacted; it only knows to call pi_plan_get.
    r = await invoke('pi_plan_get', {});
    assert.match(r, new RegExp(`\\*\\*${id}\\*\\*`));
    assert.match(r, /1\. \[ \] S001 Rename the class/);
    // It sends the version it remembered from turn 1: refused, with the call to make.
    await refusedWith('pi_plan_step', { op: 'add', text: 'Run the tests', version: v1 }, new RegExp(`is at version ${v1 + 1}, you sent ${v1}.*Call pi_plan_get \\{"id":"${id}"\\}`));
    const v = Number(/version: (\d+)/.exec(await invoke('pi_plan_get', { id }))![1]);
    await invoke('pi_plan_step', { op: 'add', text: 'Run the tests', version: v });
    // Turn 3: submit; the reviewer rejects with feedback.
    const submitted = invoke('pi_plan_submit', {});
    await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
    await vscode.commands.executeCommand('piPlans.reject', { id, version: onDisk(id).fm.version, feedback: 'Keep a deprecated User alias for one release.' });
    r = await submitted;
    assert.match(r, /Rejected at v\d+\. Feedback:\n<feedback>Keep a deprecated User alias for one release\.<\/feedback>/);
    // Turn 4: revise and resubmit; approved this time.
    await invoke('pi_plan_step', { op: 'add', text: 'Add a deprecated User alias', after: 'S001' });
    assert.equal(onDisk(id).fm.status, 'draft');
    const again = invoke('pi_plan_submit', {});
    await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
    await approveInTerminal(id, onDisk(id).fm.version);
    assert.match(await again, /Approved by .+ at v/);
    await invoke('pi_plan_execute', { op: 'start' });
    for (const s of ['S001', 'S004', 'S002', 'S003']) await invoke('pi_plan_execute', { op: 'mark', step: s, status: 'done' });
    const d = onDisk(id);
    assert.equal(d.fm.status, 'completed');
    assert.deepEqual(
      d.steps.map((s) => `${s.id} ${s.status} ${s.text}`),
      ['S001 done Rename the class', 'S004 done Add a deprecated User alias', 'S002 done Update imports', 'S003 done Run the tests'],
    );
    assert.deepEqual(d.rejections.map((x) => x.feedback), ['Keep a deprecated User alias for one release.']);
    assert.match(fs.readFileSync(file(id), 'utf8'), /## Verification\n- npm test passes\n/);
  });

  it('the review gate ends when the chat request is cancelled, and the plan stays proposed', async () => {
    const id = idOf(await invoke('pi_plan_create', { title: 'Cancel me', goal: 'G', verification: ['v'], steps: [{ text: 'a' }] }));
    const cts = new vscode.CancellationTokenSource();
    const submitted = invoke('pi_plan_submit', { id }, cts.token);
    await until('the plan proposed on disk', () => onDisk(id).fm.status === 'proposed');
    // The gate put the plan in front of the person, in the plan editor (the default opener).
    await until('the plan open in the plan editor', () =>
      vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === 'piPlans.planEditor' && t.input.uri.fsPath === file(id))),
    );
    cts.cancel();
    const r = await submitted.catch((e: Error) => e.message);
    assert.match(r, /Stopped waiting|[Cc]ancel/);
    assert.equal(onDisk(id).fm.status, 'proposed');
  });

  it('every refusal path is refused with its message, and nothing changes on disk', async () => {
    const id = idOf(await invoke('pi_plan_create', { title: 'Refusals', goal: 'G', steps: [{ text: 'a' }] }));
    const before = fs.readFileSync(file(id), 'utf8');
    await refusedWith('pi_plan_get', { id: 'PLAN-00000bad' }, /not in any workspace folder.*pi_plan_list/);
    await refusedWith('pi_plan_get', { id: '../../etc/passwd' }, /id: .*fix the arguments and call again/);
    await refusedWith('pi_plan_execute', { id, op: 'start' }, /is draft: "start" is not possible now/);
    await refusedWith('pi_plan_step', { id, op: 'add', text: 'b', version: 99 }, /is at version 1, you sent 99/);
    await refusedWith('pi_plan_approve', { id, digest: `sha256:${'0'.repeat(64)}` }, /agent approval is off|approving a plan is/i);
    await refusedWith('pi_plan_step', { id, op: 'add', text: 'x'.repeat(600) }, /text: .*fix the arguments and call again/);
    await vscode.workspace.getConfiguration('piPlans').update('tools.gating', 'activePlan', vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('piPlans.endWork');
      await refusedWith('pi_plan_step', { op: 'add', text: 'b' }, /Plan work mode is not active/);
    } finally {
      await vscode.workspace.getConfiguration('piPlans').update('tools.gating', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(fs.readFileSync(file(id), 'utf8'), before);
  });

  it('a workspace settings file cannot turn on agent approval', async () => {
    const r = await invoke('pi_plan_create', { title: 'Sneaky', goal: 'G', steps: [{ text: 'a' }], propose: true });
    assert.match(r, /Created as a draft, not proposed: add a "## Verification" section/);
    const id = idOf(r);
    await invoke('pi_plan_update', { id, verification: ['v'] });
    await invoke('pi_plan_submit', { id, wait: false });
    // What a cloned repository could ship: its .vscode/settings.json turns agent approval on. A
    // window-scoped setting in the same file shows when VS Code has read it.
    const dir = path.join(folder().uri.fsPath, '.vscode');
    const settings = path.join(dir, 'settings.json');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ 'piPlans.agentApproval.enabled': true, 'piPlans.review.wait': false }));
    try {
      await until('VS Code to read the workspace settings file', () => vscode.workspace.getConfiguration('piPlans').get('review.wait') === false);
      // The setting is application-scoped: a workspace value never counts.
      assert.equal(vscode.workspace.getConfiguration('piPlans').get('agentApproval.enabled'), false);
      await refusedWith('pi_plan_approve', { id, digest: contentDigest(onDisk(id)) }, /agent approval is off/i);
      assert.equal(onDisk(id).fm.status, 'proposed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await until('the workspace settings gone', () => vscode.workspace.getConfiguration('piPlans').get('review.wait') === true);
    }
  });
});
