// The extension in the real extension host of VS Code 1.139 (code-server), in development mode,
// on a fresh copy of the sample workspace. Outside writes use plain fs, as git or another agent would.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { editStep, isPlanError, markStep, startExecution } from '../../src/core';
import { hooksSetUp } from '../../src/hosts/install/apply';
import { listBindings, removeBinding } from '../../src/hosts/hook/sessions';
import { api, approveInTerminal, EXTENSION_ID, folder, personAtTerminal, runCli, say, until } from './helpers';

const plansDir = () => path.join(folder().uri.fsPath, '.pi', 'plans');
const planFile = (id: string) => path.join(plansDir(), `${id}.md`);
const NEW_PLAN = (id: string, title: string) =>
  `---\nid: ${id}\ntitle: "${title}"\nstatus: draft\nversion: 1\ncreated_at: 2026-11-22T10:00:00.000Z\nupdated_at: 2026-11-22T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 first\n`;

describe('Pi Plans in a real VS Code', function () {
  this.timeout(60_000);

  it('activates on a workspace with .pi/plans and indexes the sample plans', async () => {
    const a = await api();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    const ids = a.listPlans().map((e) => e.id).sort();
    assert.deepEqual(ids, ['PLAN-19ab77c0', 'PLAN-3f9a1c2e', 'PLAN-7b2d4e61', 'PLAN-a04c9d13', 'PLAN-c81e5f70', 'PLAN-e5d2b8a9']);
    const exec = a.listPlans().find((e) => e.id === 'PLAN-3f9a1c2e')!;
    assert.equal(exec.status, 'executing');
    assert.equal(exec.stepsDone, 2);
    assert.equal(exec.steps, 5);
    const doc = await a.readPlan('PLAN-19ab77c0');
    assert.equal(doc.steps.length, 3, 'the pi-planner plan is read as it is');
    say(`activation: ${a.activationMs.toFixed(1)} ms`);
  });

  it('reflects a plan created, edited and deleted from outside within one debounce interval', async () => {
    const a = await api();
    const events: string[] = [];
    const sub = a.onDidChangePlans((e) => events.push(...e.added.map((f) => `+${f}`), ...e.changed.map((f) => `~${f}`), ...e.removed.map((f) => `-${f}`)));
    try {
      const id = 'PLAN-0e0e0e0e';
      let t = Date.now();
      fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Created outside'));
      await until('the created plan in the index', () => a.listPlans().find((e) => e.id === id));
      const created = Date.now() - t;
      t = Date.now();
      fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Edited outside').replace('version: 1', 'version: 2'));
      await until('the edit in the index', () => a.listPlans().find((e) => e.id === id && e.title === 'Edited outside' && e.version === 2));
      const edited = Date.now() - t;
      t = Date.now();
      fs.unlinkSync(planFile(id));
      await until('the deletion in the index', () => !a.listPlans().some((e) => e.id === id));
      const deleted = Date.now() - t;
      say(`outside create ${created} ms, edit ${edited} ms, delete ${deleted} ms`);
      assert.ok(events.includes(`+${id}.md`) && events.includes(`~${id}.md`) && events.includes(`-${id}.md`), events.join(' '));
    } finally {
      sub.dispose();
    }
  });

  it('lists an invalid file written from outside with its reason, and never rewrites it', async () => {
    const a = await api();
    const id = 'PLAN-0bad0bad';
    const bad = '---\nid: PLAN-0bad0bad\ntitle: "Broken"\ntitle: "twice"\n---\n';
    fs.writeFileSync(planFile(id), bad);
    const e = await until('the invalid entry', () => a.listPlans().find((x) => x.id === id));
    assert.equal(e.valid, false);
    assert.match(e.error!.message, /duplicate/);
    assert.equal(e.error!.line, 4);
    const store = a._storeFor(folder().uri)!;
    await assert.rejects(store.update(id, 'agent', (d, c) => editStep(d, { op: 'add', text: 'x' }, c)), (err: unknown) => isPlanError(err, 'INVALID_FILE'));
    assert.equal(fs.readFileSync(planFile(id), 'utf8'), bad);
    fs.unlinkSync(planFile(id));
  });

  it('lists a FIFO, a socket and a folder named like plans as invalid, and the extension host stays responsive', async () => {
    const a = await api();
    const fifo = planFile('PLAN-f1f0f1f0');
    execFileSync('mkfifo', [fifo]);
    fs.mkdirSync(planFile('PLAN-d1d1d1d1'));
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(planFile('PLAN-50c50c50'), r));
    try {
      for (const [id, what] of [['PLAN-f1f0f1f0', 'a named pipe'], ['PLAN-d1d1d1d1', 'a folder'], ['PLAN-50c50c50', 'a socket']]) {
        const e = await until(`${id} listed`, () => a.listPlans().find((x) => x.id === id));
        assert.equal(e.valid, false);
        assert.match(e.error!.message, new RegExp(`is ${what}, not a file`));
      }
      // Responsive: a command and a read of a real plan answer while the FIFO is there.
      await vscode.commands.executeCommand('piPlans.refresh');
      assert.equal((await a.readPlan('PLAN-3f9a1c2e')).fm.id, 'PLAN-3f9a1c2e');
      await assert.rejects(a.readPlan('PLAN-f1f0f1f0'), /is a named pipe, not a file/);
    } finally {
      server.close();
      fs.rmSync(fifo, { force: true });
      fs.rmSync(planFile('PLAN-d1d1d1d1'), { recursive: true, force: true });
      fs.rmSync(planFile('PLAN-50c50c50'), { force: true });
      await until('the special files gone from the index', () => !a.listPlans().some((x) => ['PLAN-f1f0f1f0', 'PLAN-d1d1d1d1', 'PLAN-50c50c50'].includes(x.id)));
    }
  });

  it('our own writes cause one change event each, and no reload loop', async () => {
    const a = await api();
    const store = a._storeFor(folder().uri)!;
    const id = 'PLAN-a04c9d13';
    await a._settled(); // events of earlier tests applied
    let events = 0;
    const sub = a.onDidChangePlans((e) => {
      if (e.changed.includes(`${id}.md`)) events++;
    });
    try {
      const before = (await store.read(id)).fm.version;
      for (let i = 0; i < 3; i++) await store.update(id, 'agent', (d, c) => editStep(d, { op: 'add', text: `own write ${i}` }, c));
      // A barrier instead of a sleep: a plan written from outside after our writes is seen only
      // after the watchers delivered what came before it (our echoes); then let the re-scan run.
      const sentinel = 'PLAN-5e5e5e5e';
      fs.writeFileSync(planFile(sentinel), NEW_PLAN(sentinel, 'Barrier'));
      await until('the barrier plan in the index', () => a.listPlans().find((e) => e.id === sentinel));
      await a._settled();
      assert.equal((await store.read(id)).fm.version, before + 3);
      assert.equal(events, 3, 'one event per write: the watcher echoes were recognised');
    } finally {
      sub.dispose();
      fs.rmSync(planFile('PLAN-5e5e5e5e'), { force: true });
      await until('the barrier plan removed', () => !a.listPlans().some((e) => e.id === 'PLAN-5e5e5e5e'));
    }
  });

  it('refuses to write a plan whose editor has unsaved changes, leaves the buffer untouched, logs the error', async () => {
    const a = await api();
    const store = a._storeFor(folder().uri)!;
    const id = 'PLAN-3f9a1c2e';
    const uri = vscode.Uri.file(planFile(id));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(doc.lineCount - 1, 0), 'An unsaved note by the user.\n'));
    const buffer = doc.getText();
    assert.equal(doc.isDirty, true);
    const onDisk = fs.readFileSync(planFile(id), 'utf8');
    const err = await store.update(id, 'agent', (d, c) => markStep(d, 'S003', 'done', c)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isPlanError(err, 'EDIT_CONFLICT'), String(err));
    assert.match((err as Error).message, /unsaved changes/);
    assert.equal(doc.getText(), buffer, 'the buffer is untouched');
    assert.equal(doc.isDirty, true);
    assert.equal(fs.readFileSync(planFile(id), 'utf8'), onDisk, 'nothing written');
    assert.ok(a._recentErrors().some((l) => l.includes(`update ${id}`) && l.includes('unsaved changes')), a._recentErrors().join('\n'));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('a clean open document follows a store write', async () => {
    const a = await api();
    const store = a._storeFor(folder().uri)!;
    // A plan of its own: the test before reverted and closed an editor of the sample plan, and
    // VS Code may still be reverting that model when a new write lands (seen once in the soak).
    const id = 'PLAN-0f0f0f0f';
    // Executing on a person's approval (made in a terminal), as every running plan is.
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Followed in the editor').replace('status: draft', 'status: proposed'));
    await until('the plan in the index', () => store.entry(id)?.status === 'proposed');
    await approveInTerminal(id, 1);
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    await until('the plan in the index', () => store.entry(id)?.status === 'executing');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(planFile(id)));
    await vscode.window.showTextDocument(doc);
    assert.equal(doc.isDirty, false);
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c, 'done from the test'));
    await until('the document to reload', () => doc.getText().includes('done from the test'), 10_000);
    assert.equal(doc.isDirty, false);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    fs.unlinkSync(planFile(id));
  });

  it('flags an approval that arrives as an outside file change (a forged status line)', async () => {
    const a = await api();
    const id = 'PLAN-7b2d4e61';
    const text = fs.readFileSync(planFile(id), 'utf8');
    fs.writeFileSync(planFile(id), text.replace('status: proposed', 'status: approved').replace(/version: (\d+)/, (_m, v) => `version: ${Number(v) + 1}`));
    await until('the warning', () => a._recentErrors().some((l) => l.includes(`${id} became approved through an outside file change`)));
  });

  it('a plan marked approved by a file edit is "approval not valid": in Problems at its status line, flagged for the explorer, and nothing runs on it', async () => {
    const a = await api();
    const id = 'PLAN-0f0f1f1f';
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Forged approval').replace('status: draft', 'status: approved'));
    const uri = vscode.Uri.file(planFile(id));
    const diagnostic = await until('the Problems entry', () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'approval-invalid'));
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(diagnostic.range.start.line, 3, 'on the status line');
    assert.match(diagnostic.message, /approval is not valid: it is approved but carries no approval record/);
    await until('the explorer\'s flag', () => a._attention(folder().uri, `${id}.md`) === 'unapproved');
    const r = await vscode.lm.invokeTool('pi_plan_execute', { input: { id, op: 'start' }, toolInvocationToken: undefined }).then(
      () => 'ran',
      (e: Error) => e.message,
    );
    assert.match(r, /approval is not valid.*pi_plan_submit/);
    assert.match(fs.readFileSync(planFile(id), 'utf8'), /^status: approved$/m, 'the refused start wrote nothing');
    fs.unlinkSync(planFile(id));
  });

  it('flags a plan that appears already approved in a new file', async () => {
    const a = await api();
    const id = 'PLAN-0a990a99';
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Approved elsewhere').replace('status: draft', 'status: approved\napproved_by: user\napproved_version: 1'));
    await until('the warning', () => a._recentErrors().some((l) => l.includes(`${id} appeared already approved (approved_by: user) through an outside file change`)));
    fs.unlinkSync(planFile(id));
  });

  it('the approve command, called by code with an id and a version, approves nothing without a modal confirmation', async () => {
    const a = await api();
    const id = 'PLAN-0c0d0c0d';
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Approve me by code').replace('status: draft', 'status: proposed'));
    await until('the plan in the index', () => a.listPlans().some((e) => e.id === id && e.status === 'proposed'));
    // What another extension (or an agent that can run commands) would do. VS Code's test mode
    // refuses to show dialogs, so the modal that asks the person surfaces here as that refusal.
    const outcome = await vscode.commands.executeCommand<unknown>('piPlans.approve', { id, version: 1 }).then(
      (r) => `returned ${JSON.stringify(r)}`,
      (e: Error) => e.message,
    );
    assert.match(outcome, /refused to show dialog in tests\. Contents: Approve PLAN-0c0d0c0d "Approve me by code" at version 1\?/);
    await a._settled();
    assert.match(fs.readFileSync(planFile(id), 'utf8'), /status: proposed/);
    assert.equal(a.listPlans().find((e) => e.id === id)?.status, 'proposed');
    fs.unlinkSync(planFile(id));
  });

  it('Problems: a broken closed file at its line; a draft as it is typed, with a quick fix that adds the missing section', async () => {
    await api();
    const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Pi Plans');
    // A closed, broken file (as git or another agent would leave it): the error at its line, from the index.
    const broken = 'PLAN-0b0b0b0b';
    fs.writeFileSync(planFile(broken), NEW_PLAN(broken, 'Broken').replace('version: 1', 'version: "one"'));
    const brokenUri = vscode.Uri.file(planFile(broken));
    const [err] = await until('the broken file in Problems', () => ours(brokenUri).length > 0 && ours(brokenUri));
    assert.equal(err.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(err.range.start.line, 4, 'line 5: version');
    assert.equal(err.code, 'frontmatter-field');
    assert.match(err.message, /the field "version" is invalid/);
    // Fixed from outside: the entry goes.
    fs.writeFileSync(planFile(broken), NEW_PLAN(broken, 'Broken'));
    // Fixed: no error left; what keeps this draft from review in this workspace (its .pi/plans.json
    // requires Verification) is a warning.
    const left = await until('the error gone once the file is fixed', () => !ours(brokenUri).some((d) => d.severity === vscode.DiagnosticSeverity.Error) && ours(brokenUri));
    assert.deepEqual(left.map((d) => [d.severity, d.code, d.message]), [[vscode.DiagnosticSeverity.Warning, 'missing-section', 'add a "## Verification" section before submitting for review']]);
    fs.unlinkSync(planFile(broken));

    // An open draft without a goal: judged as the buffer shows it.
    const id = 'PLAN-0d0d0d0d';
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Needs a goal'));
    const uri = vscode.Uri.file(planFile(id));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const goalWarning = () => ours(uri).find((d) => d.code === 'missing-section' && /## Goal/.test(d.message));
    await until('the draft checked: only Verification missing', () => ours(uri).some((d) => /## Verification/.test(d.message)) && !goalWarning());
    const goal = doc.getText().indexOf('## Goal\nG\n\n');
    await editor.edit((b) => b.delete(new vscode.Range(doc.positionAt(goal), doc.positionAt(goal + '## Goal\nG\n\n'.length))));
    const warn = await until('the missing goal as the buffer shows it (unsaved)', goalWarning);
    assert.ok(doc.isDirty);
    assert.equal(warn.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(warn.message, /add a "## Goal" section saying what the plan achieves before submitting for review/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, warn.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((a) => a.title === 'Add a "## Goal" section');
    assert.ok(fix?.edit, `quick fixes offered: ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.match(doc.getText(), /\n## Goal\nWhat this plan achieves, in one or two sentences\.\n\n## Steps\n1\. \[ \] S001 first\n/);
    await until('the warning gone after the fix', () => !goalWarning());
    // One undo takes the whole fix back.
    await vscode.commands.executeCommand('undo');
    await until('the warning back after undo', goalWarning);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    fs.unlinkSync(planFile(id));
    await until('no problems for a removed file', () => ours(uri).length === 0);
  });

  it('contributes its commands; Re-scan Plans picks up a change', async () => {
    const cmds = await vscode.commands.getCommands(true);
    for (const c of ['piPlans.showPlans', 'piPlans.refresh', 'piPlans.showLog', 'piPlans.approve', 'piPlans.reject', 'piPlans.startWork', 'piPlans.endWork']) assert.ok(cmds.includes(c), c);
    const a = await api();
    const id = 'PLAN-4e4e4e4e';
    fs.writeFileSync(planFile(id), NEW_PLAN(id, 'Seen by the re-scan'));
    await vscode.commands.executeCommand('piPlans.refresh');
    assert.ok(a.listPlans().some((e) => e.id === id), 'the command resolves after the re-scan has indexed the new plan');
    fs.unlinkSync(planFile(id));
    await vscode.commands.executeCommand('piPlans.refresh');
    assert.ok(!a.listPlans().some((e) => e.id === id));
  });

  it('Copy MCP Configuration puts a working server command on the clipboard, at a path that survives extension updates', async () => {
    await api();
    const text = (await vscode.commands.executeCommand<string>('piPlans.copyMcpConfig', 'claude', folder().uri))!;
    assert.equal(await vscode.env.clipboard.readText(), text);
    const m = /^claude mcp add pi-plans -- node (\S+) --root (\S+) mcp$/.exec(text);
    assert.ok(m, text);
    const [cli, root] = [m[1].replace(/^'|'$/g, ''), m[2].replace(/^'|'$/g, '')];
    assert.equal(root, folder().uri.fsPath);
    assert.ok(!cli.includes(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath), 'not inside the versioned extension folder');
    // The copy runs: the same store, from another process.
    const listed = execFileSync(process.execPath, [cli, '--root', root, 'list'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    assert.match(listed, /PLAN-7b2d4e61/);
    const cursor = JSON.parse((await vscode.commands.executeCommand<string>('piPlans.copyMcpConfig', 'cursor', folder().uri))!);
    assert.deepEqual(cursor.mcpServers['pi-plans'], { command: 'node', args: [cli, '--root', root, 'mcp'] });
  });

  it('Set Up an Agent writes Claude Code\'s hooks and MCP server at the stable copy; its hook runs from the small bundle and answers a tool call', async () => {
    await api();
    const root = folder().uri.fsPath;
    const settings = path.join(root, '.claude', 'settings.json');
    const mcp = path.join(root, '.mcp.json');
    assert.ok(!fs.existsSync(settings) && !fs.existsSync(mcp), 'the sample workspace has no Claude configuration');
    try {
      const report = await vscode.commands.executeCommand<{ files: { shown: string; status: string }[] }>('piPlans.setUpAgent', 'claude', 'workspace', folder().uri);
      assert.deepEqual(report!.files.map((f) => [f.shown, f.status]), [['.claude/settings.json', 'created'], ['.mcp.json', 'created']]);
      const hooks = JSON.parse(fs.readFileSync(settings, 'utf8')).hooks;
      const m = /^node (\S+) hook --agent claude --event PreToolUse$/.exec(hooks.PreToolUse[0].hooks[0].command);
      assert.ok(m, hooks.PreToolUse[0].hooks[0].command);
      const bin = m[1].replace(/^'|'$/g, '');
      assert.ok(!bin.includes(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath), 'not inside the versioned extension folder');
      assert.ok(fs.statSync(bin).size < 4096, 'the command is the bin, which sends hook to the small bundle');
      for (const f of ['hook.js', 'hook-shell.js', 'cli.js']) assert.ok(fs.existsSync(path.join(path.dirname(bin), f)), `${f} beside the bin`);
      // A tool call of a session bound to no plan: allowed, nothing printed, exit 0.
      const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
      const payload = { session_id: 'it-setup', hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(root, 'x.ts') }, cwd: root, permission_mode: 'default', transcript_path: '/tmp/t.jsonl' };
      assert.equal(execFileSync(process.execPath, [bin, 'hook', '--agent', 'claude', '--event', 'PreToolUse'], { encoding: 'utf8', env, input: JSON.stringify(payload) }), '');
      // The same bin serves every other command from cli.js beside it.
      assert.match(execFileSync(process.execPath, [bin, '--root', root, 'list'], { encoding: 'utf8', env }), /PLAN-7b2d4e61/);
      assert.deepEqual(JSON.parse(fs.readFileSync(mcp, 'utf8')).mcpServers['pi-plans'], { type: 'stdio', command: 'node', args: [bin, '--root', root, 'mcp'] });
      // Again: nothing to change.
      const again = await vscode.commands.executeCommand<{ files: { status: string }[] }>('piPlans.setUpAgent', 'claude', 'workspace', folder().uri);
      assert.ok(again!.files.every((f) => f.status === 'unchanged'), JSON.stringify(again));
    } finally {
      fs.rmSync(path.join(root, '.claude'), { recursive: true, force: true });
      fs.rmSync(mcp, { force: true });
    }
  });

  it('plan work mode tells the agent hooks: while it is on, a VS Code agent session no plan tool bound is held to that plan (an edit denied), for good; a session that starts after it ends is free', async () => {
    await api();
    const root = folder().uri.fsPath;
    const modeFile = path.join(root, '.pi', 'plans', 'hooks', 'work-mode.json');
    const bin = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'bin.js');
    const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    const edit = (session: string, n: number) => ({ hook_event_name: 'PreToolUse', session_id: session, tool_name: 'replace_string_in_file', tool_input: { filePath: path.join(root, 'src', 'x.ts'), oldString: 'a', newString: 'b' }, tool_use_id: `t${n}`, transcript_path: '/tmp/t.jsonl', cwd: root, timestamp: new Date().toISOString() });
    const hook = (session: string, n: number) => execFileSync(process.execPath, [bin, 'hook', '--event', 'preToolUse'], { encoding: 'utf8', env, input: JSON.stringify(edit(session, n)) });
    assert.equal(hook('it-work-mode', 1), '', 'no plan work: the session is free');
    await vscode.commands.executeCommand('piPlans.startWork', { id: 'PLAN-7b2d4e61' });
    try {
      await until('the hooks file names the plan', () => fs.existsSync(modeFile) && JSON.parse(fs.readFileSync(modeFile, 'utf8')).plan === 'PLAN-7b2d4e61', 10_000);
      const answer = JSON.parse(hook('it-work-mode-2', 2));
      assert.equal(answer.hookSpecificOutput.permissionDecision, 'deny');
      // (An earlier test wrote `status: approved` into it by hand: planned, or an approval that is not valid.)
      assert.match(answer.hookSpecificOutput.permissionDecisionReason, /^pi-plans: replace_string_in_file on src\/x\.ts is not run: PLAN-7b2d4e61 "Migrate the settings page to the new form components" is not approved/);
    } finally {
      await vscode.commands.executeCommand('piPlans.endWork');
    }
    await until('the hooks file is gone', () => !fs.existsSync(modeFile), 10_000);
    assert.equal(JSON.parse(hook('it-work-mode-2', 3)).hookSpecificOutput.permissionDecision, 'deny', 'the session the mode bound stays bound: only a person frees it');
    assert.equal(hook('it-work-mode-3', 4), '', 'a session that starts after the mode ended is free');
    removeBinding('copilot', 'it-work-mode-2');
  });

  it('registers the Planner agent and the planning prompt files with VS Code; the agent file passes VS Code\'s own checks', async () => {
    await api();
    type Listed = { uri: { path: string }; type: string; extensionId: string };
    const ours = async () => ((await vscode.commands.executeCommand<Listed[]>('_listExtensionPromptFiles')) ?? []).filter((f) => f.extensionId.toLowerCase() === EXTENSION_ID.toLowerCase()).map((f) => `${f.type} ${f.uri.path.split('/dist/chat/')[1]}`).sort();
    const fixed = ['agent planner.agent.md', 'prompt plan-collect.prompt.md', 'prompt plan-goal-decompose-route-synthesise.prompt.md', 'prompt plan-plan-act-reflect.prompt.md', 'prompt plan-react.prompt.md'];
    const listed = async (expected: string[]) => {
      // On a timeout, the list as VS Code has it, against the one expected.
      await until('the /plan prompt listed', async () => JSON.stringify(await ours()) === JSON.stringify(expected.sort()), 15_000).catch(async () => assert.deepEqual(await ours(), expected));
    };
    await listed([...fixed, 'prompt react/plan.prompt.md']);
    // The setting picks which /plan prompt VS Code offers.
    const cfg = vscode.workspace.getConfiguration('piPlans');
    await cfg.update('planning.strategy', 'plan-act-reflect', vscode.ConfigurationTarget.Global);
    try {
      await listed([...fixed, 'prompt plan-act-reflect/plan.prompt.md']);
    } finally {
      await cfg.update('planning.strategy', undefined, vscode.ConfigurationTarget.Global);
    }
    // VS Code checks agent files it opens (unknown tools, bad keys). Our text plus one tool that
    // does not exist: once VS Code reports that one, it has checked the rest, and found nothing.
    const agentText = fs.readFileSync(path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'chat', 'planner.agent.md'), 'utf8');
    assert.match(agentText, /^tools: \[.*\]$/m);
    const probe = path.join(folder().uri.fsPath, '.github', 'agents', 'planner-probe.agent.md');
    fs.mkdirSync(path.dirname(probe), { recursive: true });
    fs.writeFileSync(probe, agentText.replace(/^(tools: \[.*)\]$/m, "$1, 'noSuchTool']"));
    try {
      const uri = vscode.Uri.file(probe);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      const problems = await until('VS Code has checked the agent file', () => {
        const d = vscode.languages.getDiagnostics(uri);
        return d.length ? d.map((x) => `${x.range.start.line + 1}: ${x.message}`) : undefined;
      }, 20_000);
      assert.deepEqual(problems, ["4: Unknown tool 'noSuchTool' will be ignored."]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      fs.rmSync(path.dirname(path.dirname(probe)), { recursive: true, force: true });
    }
  });

  it('the explorer redraws every row only when what every row shows changes: work started again on the same plan redraws nothing', async () => {
    const a = await api();
    const id = 'PLAN-3f9a1c2e';
    const draft = planFile('PLAN-a04c9d13');
    const text = fs.readFileSync(draft, 'utf8');
    const redrawn = async (what: string, since: number) => {
      await until(what, () => a._explorerTimings().rebuilds > since);
      return a._explorerTimings();
    };
    try {
      // Work starts: the active plan's row is marked, so every row is redrawn, once.
      let t = a._explorerTimings();
      await vscode.commands.executeCommand('piPlans.startWork', { id });
      const started = await redrawn('the redraw for the work started', t.rebuilds);
      assert.equal(started.allRedraws, t.allRedraws + 1, 'the active plan changed: every row');
      // Started again on the same plan, then a plan edited from outside (a redraw of its group):
      // nothing every row shows has changed, so no redraw of every row. (Such a redraw is not
      // harmless: VS Code closes again a group the person opens while it runs.)
      t = started;
      await vscode.commands.executeCommand('piPlans.startWork', { id });
      fs.writeFileSync(draft, text.replace(/^title: "(.*)"$/m, 'title: "$1, edited from outside"'));
      const edited = await redrawn('the redraw for the outside edit', t.rebuilds);
      assert.equal(edited.allRedraws, t.allRedraws, 'only the draft\'s group is redrawn');
    } finally {
      fs.writeFileSync(draft, text);
      await vscode.commands.executeCommand('piPlans.endWork');
    }
  });

  it('the explorer shows the agent session the hook bound to a plan, and whether hooks enforce it; the session gone, so is the mark', async () => {
    const a = await api();
    const id = 'PLAN-3f9a1c2e';
    const session = '7e57b1d0-5e55-4a11-9d00-0000000000b1';
    // The real `pi-plans hook`, as Claude Code runs it after a plan tool call that names the plan.
    const hook = (p: Record<string, unknown>) => {
      const bin = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'bin.js');
      const r = spawnSync(process.execPath, [bin, 'hook'], { input: JSON.stringify({ session_id: session, cwd: folder().uri.fsPath, ...p }), encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', CLAUDE_PROJECT_DIR: '' } });
      assert.equal(r.status, 0, r.stderr);
    };
    const row = () => a._explorerRow(folder().uri, id);
    assert.doesNotMatch((await row())!.description, /agent/, 'no session bound yet');
    hook({ hook_event_name: 'PostToolUse', tool_name: 'mcp__pi-plans__pi_plan_get', tool_input: { id }, tool_response: `${id} (executing, v3)` });
    let t = Date.now();
    const bound = await until('the bound session on the plan\'s row', async () => {
      const r = await row();
      return r && /\b1 agent\b/.test(r.description) ? r : undefined;
    });
    say(`binding seen by the explorer in ${Date.now() - t} ms`);
    assert.match(bound.label, /1 agent/, 'said to a screen reader too');
    assert.match(bound.tooltip, /Bound to 1 agent session/);
    assert.match(bound.tooltip, /Claude Code 7e57b1d0/);
    // Hooks the person set up in their home count too: on a machine with none, the tooltip says so.
    if (!hooksSetUp(folder().uri.fsPath).length) {
      assert.match(bound.tooltip, /No agent hooks set up: run Pi Plans: Set Up an Agent/);
      assert.match(bound.tooltip, /Claude Code 7e57b1d0[^\n]*: unprotected \(no Pi Plans hook set up for its host\)/);
    }
    // Set up Claude Code's hooks in the workspace: the tooltip says the plan is enforced, by hooks only.
    await runCli('setup', '--agent', 'claude', '--no-mcp');
    try {
      const tip = (await row())!.tooltip;
      assert.match(tip, /Enforced by hooks for [^.]*Claude Code/);
      assert.match(tip, /Claude Code 7e57b1d0[^\n]*: hooks only \(the hook checks each call\)/);
    } finally {
      await personAtTerminal('setup', '--agent', 'claude', '--no-mcp', '--remove');
    }
    // The session ends: its binding stays (a resumed session is the same session), and so does the mark.
    hook({ hook_event_name: 'SessionEnd', reason: 'exit' });
    assert.equal(listBindings(Date.now()).filter((b) => b.session === session).length, 1, 'SessionEnd ends no binding');
    // A person frees it (what Free an Agent Session… does after its modal): the row's mark goes.
    removeBinding('claude', session);
    t = Date.now();
    const gone = await until('the mark gone from the row', async () => {
      const r = await row();
      return r && !/agent/.test(r.description) ? r : undefined;
    });
    say(`end of the session seen in ${Date.now() - t} ms`);
    assert.doesNotMatch(gone.tooltip, /Bound to/);
    assert.ok(a.listPlans().every((e) => !e.file.includes('hooks')), 'a binding file is never listed as a plan');
  });
});
