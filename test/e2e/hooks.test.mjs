// Plans that bind, in the real VS Code (code-server 4.139.1 = VS Code 1.139 with its built-in
// GitHub Copilot Chat 0.67, Debian chromium, offline, signed out of GitHub): the hooks
// `pi-plans setup --agent copilot` writes to .github/hooks/pi-plans.json run in VS Code's agent
// mode (the Local agent of Copilot Chat) around its own file-editing tool, create_file.
//
// Two things make an offline agent turn possible:
// - VS Code disables its built-in Copilot Chat extension on a first start whose chat setup is not
//   completed (ensureChatExtensionInitialDisabledState in the workbench: the profile storage keys
//   builtinChatExtensionEnablementMigration, chat.setupContext and extensionsIdentifiers/disabled);
//   its placeholder agent then answers every request with "Sign in to use GitHub Copilot". The test
//   marks the setup completed in the browser's profile storage (IndexedDB) and reloads: the
//   extension activates, with no sign-in.
// - A test-only extension (test/e2e/hook-driver) registers a scripted model; Copilot's agent loop
//   sends it the request with its tools and runs the calls it answers with, the hooks included.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { freshWorkspace } from '../harness/fixtures.mjs';
import { chooseFromContextMenu, closeWorkbench, keepFailureShot, runCommand } from '../harness/workbench.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const DRIVER_DIR = path.join(ROOT, 'test', 'e2e', 'hook-driver');
const DRIVER_VSIX = path.join(ROOT, 'out', 'pi-plans-hook-driver-test.vsix');
const PLAN = 'PLAN-7b2d4e61'; // proposed; S003 creates src/settings/SettingsPage.test.tsx
const TARGET = 'src/settings/SettingsPage.test.tsx';

/** Marks VS Code's chat setup completed in the workbench's profile storage, so its built-in Copilot Chat stays enabled. */
/** In the workbench's page: whether it has stored its built-in Copilot Chat as disabled (what completeChatSetup undoes). */
async function chatDisabledStored() {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open('vscode-web-state-db-global');
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('ItemTable')) return false;
    const value = await new Promise((res) => {
      const r = db.transaction('ItemTable').objectStore('ItemTable').get('extensionsIdentifiers/disabled');
      r.onsuccess = () => res(r.result);
      r.onerror = () => res(undefined);
    });
    return JSON.parse(value ?? '[]').some((e) => e.id.toLowerCase() === 'github.copilot-chat');
  } finally {
    db.close();
  }
}

async function completeChatSetup(page, port) {
  await page.goto(`http://127.0.0.1:${port}/healthz`); // same origin, no workbench writing the storage
  await page.evaluate(async () => {
    const db = await new Promise((res, rej) => {
      const r = indexedDB.open('vscode-web-state-db-global');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const tx = db.transaction('ItemTable', 'readwrite');
    const items = tx.objectStore('ItemTable');
    const get = (k) => new Promise((res) => { const r = items.get(k); r.onsuccess = () => res(r.result); });
    const context = JSON.parse((await get('chat.setupContext')) ?? '{"entitlement":1}');
    items.put(JSON.stringify({ ...context, installed: true, completed: true, disabled: false }), 'chat.setupContext');
    items.put('true', 'chat.setupContext.migrated.v1');
    items.put('true', 'builtinChatExtensionEnablementMigration');
    const disabled = JSON.parse((await get('extensionsIdentifiers/disabled')) ?? '[]');
    items.put(JSON.stringify(disabled.filter((e) => e.id.toLowerCase() !== 'github.copilot-chat')), 'extensionsIdentifiers/disabled');
    await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
    db.close();
  });
}

describe('Plans that bind: hooks in VS Code agent mode (code-server + chromium, Copilot Chat offline, a scripted model)', function () {
  this.timeout(240_000);
  let ws;
  let server;
  let browser;
  let page;
  let scratch;
  const statusOf = () => /^status: (\S+)$/m.exec(fs.readFileSync(path.join(ws, '.pi', 'plans', `${PLAN}.md`), 'utf8'))?.[1];
  /** Every hook run: its arguments, the payload, what it answered. */
  const hookRuns = () =>
    fs.existsSync(path.join(scratch, 'hook.jsonl'))
      ? fs.readFileSync(path.join(scratch, 'hook.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      : [];
  /** Every request the scripted model received. */
  const modelRequests = () => fs.readFileSync(path.join(scratch, 'driver.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

  /** Sends a query to the agent (the Local agent, agent mode, the scripted model); waits for `expect` in the chat. */
  async function askAgent(query, expect) {
    await runCommand(page, 'Pi Plans Test: Ask the Agent');
    await page.locator('.quick-input-widget input').fill(query);
    await page.keyboard.press('Enter');
    await page.locator('.interactive-session .monaco-list-row', { hasText: expect }).last().waitFor({ timeout: 60_000 });
  }

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', DRIVER_VSIX], { cwd: DRIVER_DIR, stdio: 'ignore' });
    ws = freshWorkspace('hooks');
    scratch = fs.mkdtempSync(path.join(path.dirname(ws), 'pi-plans-hooklog-'));
    // The hook command: a wrapper that records each run, then is the real `pi-plans hook`.
    const wrapper = path.join(scratch, 'pi-plans');
    const record = `const fs=require('fs');const [log,a,i,o,rc]=process.argv.slice(1);fs.appendFileSync(log,JSON.stringify({args:a,input:JSON.parse(i||'null'),output:o,rc:Number(rc)})+'\\n')`;
    fs.writeFileSync(
      wrapper,
      `#!/bin/bash\nin=$(cat)\nout=$(printf '%s' "$in" | '${process.execPath}' '${path.join(ROOT, 'dist', 'bin.js')}' "$@")\nrc=$?\n'${process.execPath}' -e "${record.replace(/"/g, '\\"')}" '${path.join(scratch, 'hook.jsonl')}' "$*" "$in" "$out" "$rc"\nprintf '%s' "$out"\nexit $rc\n`,
      { mode: 0o755 },
    );
    execFileSync(process.execPath, [path.join(ROOT, 'dist', 'bin.js'), 'setup', '--agent', 'copilot', '--no-mcp', '--command', wrapper], { cwd: ws, stdio: 'ignore' });
    assert.ok(fs.existsSync(path.join(ws, '.github', 'hooks', 'pi-plans.json')));
    process.env.PI_PLANS_DRIVER_LOG = path.join(scratch, 'driver.jsonl');
    server = await startCodeServer({
      vsix: [VSIX, DRIVER_VSIX],
      settings: {
        'piPlans.notifications.proposed': false,
        'piPlans.notifications.stalled': false,
        'piPlans.editor.openPlansIn': 'text',
        'chat.useHooks': true,
        // The agent's tool calls run without a confirmation (ours, pi_plan_execute, included): the hooks decide.
        'chat.tools.global.autoApprove': true,
      },
    });
    delete process.env.PI_PLANS_DRIVER_LOG;
    browser = await startBrowser({ width: 1400, height: 1000 });
    page = browser.page;
    // First start: VS Code disables its Copilot Chat (chat setup not completed); complete it and reload.
    await page.goto(server.url(ws));
    await page.locator('.statusbar-item', { hasText: /6 plans/ }).waitFor({ timeout: 60_000 });
    await page.waitForFunction(chatDisabledStored, undefined, { timeout: 60_000, polling: 250 }); // the workbench has stored what it disabled
    // The first workbench is closed before the storage is changed: a page still unloading can write
    // its state back after ours (then Copilot Chat starts disabled again, asking to sign in).
    const context = page.context();
    await page.close({ runBeforeUnload: true });
    page = await context.newPage();
    await completeChatSetup(page, server.port);
    await page.goto(server.url(ws));
    await page.locator('.statusbar-item', { hasText: /6 plans/ }).waitFor({ timeout: 60_000 });
  });
  after(async () => {
    await closeWorkbench({ browser, server, folder: ws });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(DRIVER_VSIX, { force: true });
  });
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'hooks');
  });

  it('while the plan is proposed, a turn calling create_file (VS Code\'s own tool) is denied and the file is not written', async () => {
    assert.equal(statusOf(), 'proposed');
    await askAgent(`${PLAN} create_file ${path.join(ws, TARGET)}`, 'The edit tool answered');
    // The model was offered VS Code's file-editing tools and ours, in agent mode.
    const offered = modelRequests()[0].offered;
    for (const name of ['create_file', 'replace_string_in_file', 'pi_plan_get']) assert.ok(offered.includes(name), `${name} offered: ${offered.join(', ')}`);
    const pre = hookRuns().filter((r) => r.input?.hook_event_name === 'PreToolUse' && r.input.tool_name === 'create_file');
    assert.equal(pre.length, 1);
    const answer = JSON.parse(pre[0].output).hookSpecificOutput;
    assert.equal(answer.permissionDecision, 'deny');
    assert.match(answer.permissionDecisionReason, new RegExp(`${PLAN}[\\s\\S]*proposed`));
    // The model saw the denial as the tool's result; the file was never written.
    const last = modelRequests().at(-1).results.find((r) => r.callId.startsWith('create_file-'));
    assert.match(last.text, /denied[\s\S]*PLAN-7b2d4e61/i);
    assert.ok(!fs.existsSync(path.join(ws, TARGET)));
    assert.equal(statusOf(), 'proposed');
  });

  /**
   * Sends a `PLAN call <tool> <input>` turn; when the hook asks, VS Code puts a confirmation in the
   * chat, which the test answers as a person who does not allow it (Skip). Resolves with the hook's
   * PreToolUse answer for that tool and what the model was told.
   */
  let turns = 0;
  async function tryTool(tool, input) {
    const before = hookRuns().length;
    await runCommand(page, 'Pi Plans Test: Ask the Agent');
    const tag = `#t${++turns}`;
    await page.locator('.quick-input-widget input').fill(`${tag} ${PLAN} call ${tool} ${JSON.stringify(input)}`);
    await page.keyboard.press('Enter');
    const answered = page.locator('.interactive-session .monaco-list-row', { hasText: `The tool answered ${tag}:` }).last();
    // VS Code's confirmation of a tool the hook asks about: Allow Once / Skip, at the foot of the chat.
    const skip = page.locator('.monaco-button', { hasText: /^\s*Skip\s*$/ }).last();
    const which = await Promise.race([answered.waitFor({ timeout: 60_000 }).then(() => 'answered'), skip.waitFor({ timeout: 60_000 }).then(() => 'confirm')]);
    if (which === 'confirm') {
      await keepShot('hooks-ask-confirmation');
      await skip.click();
      await answered.waitFor({ timeout: 60_000 });
    }
    const pre = hookRuns().slice(before).filter((r) => r.input?.hook_event_name === 'PreToolUse' && r.input.tool_name === tool);
    assert.equal(pre.length, 1, `one PreToolUse for ${tool}: ${JSON.stringify(hookRuns().slice(before).map((r) => r.input?.tool_name))}; the model saw ${JSON.stringify(modelRequests().at(-1))}`);
    return { answer: JSON.parse(pre[0].output || '{}').hookSpecificOutput ?? {}, asked: which === 'confirm' };
  }
  async function keepShot(name) {
    if (process.env.PI_PLANS_SCREENSHOTS) await page.screenshot({ path: path.join(ROOT, 'docs', 'images', `${name}-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
  }

  it('while the plan is proposed, VS Code\'s tools of unknown effect (create_and_run_task, run_vscode_command) are asked and, not allowed, run nothing', async () => {
    const marker = path.join(ws, 'task-ran.txt');
    const task = await tryTool('create_and_run_task', { workspaceFolder: ws, task: { label: 'escape', type: 'shell', command: `touch ${marker}` } });
    assert.ok(['ask', 'deny'].includes(task.answer.permissionDecision), JSON.stringify(task.answer));
    assert.match(task.answer.permissionDecisionReason, /create_and_run_task is a tool the hook does not know/);
    assert.ok(!fs.existsSync(marker), 'the task never ran');
    const command = await tryTool('run_vscode_command', { commandId: 'piPlans.approve', name: 'Approve', args: [PLAN] });
    assert.ok(['ask', 'deny'].includes(command.answer.permissionDecision), JSON.stringify(command.answer));
    assert.equal(statusOf(), 'proposed');
  });

  it('while the plan is proposed, approve in the agent\'s terminal is denied in the spellings a shell reads as approve', async () => {
    for (const command of [`pi-p'la'ns approve ${PLAN} --digest sha256:x`, `cd /tmp && npx pi-plans --root ${ws} approve ${PLAN}`, `bash -c "pi-plans approve ${PLAN}"`]) {
      const r = await tryTool('run_in_terminal', { command, explanation: 'approve', isBackground: false });
      assert.equal(r.answer.permissionDecision, 'deny', `${command}: ${JSON.stringify(r.answer)}`);
      assert.match(r.answer.permissionDecisionReason, /approving a plan is the person's act/);
    }
    assert.equal(statusOf(), 'proposed');
  });

  it('a reload of the window, and a second chat, are new sessions to VS Code: each is held to the plan as soon as it names it, and the first stays bound', async () => {
    const first = hookRuns().find((r) => r.input?.session_id)?.input.session_id;
    await page.goto(server.url(ws));
    await page.locator('.statusbar-item', { hasText: /6 plans/ }).waitFor({ timeout: 60_000 });
    const again = await tryTool('create_file', { filePath: path.join(ws, TARGET), content: 'x' });
    assert.equal(again.answer.permissionDecision, 'deny', JSON.stringify(again.answer));
    await runCommand(page, 'Chat: New Chat');
    const second = await tryTool('create_file', { filePath: path.join(ws, TARGET), content: 'x' });
    assert.equal(second.answer.permissionDecision, 'deny', JSON.stringify(second.answer));
    const sessions = new Set(hookRuns().filter((r) => r.input?.tool_name === 'create_file').map((r) => r.input.session_id));
    assert.ok(sessions.size >= 2, `new chat sessions: ${[...sessions].join(', ')}`);
    assert.ok(!fs.existsSync(path.join(ws, TARGET)));
    // The first session's binding is still there: a reload, which only a person (or a call the person allowed) makes, frees nothing.
    const bindings = fs.readdirSync(path.join(server.env.XDG_STATE_HOME, 'pi-plans', 'sessions')).map((f) => JSON.parse(fs.readFileSync(path.join(server.env.XDG_STATE_HOME, 'pi-plans', 'sessions', f), 'utf8')).session);
    assert.ok(bindings.includes(first), `${first} still bound: ${bindings.join(', ')}`);
  });

  it('the person frees a session from the plan\'s row (Free an Agent Session…, a modal): its binding goes, the row says one agent less', async () => {
    const tree = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).locator('.monaco-list').first();
    await runCommand(page, 'Pi Plans: Focus on Plans View');
    const sessionsDir = path.join(server.env.XDG_STATE_HOME, 'pi-plans', 'sessions');
    const bound = () => fs.readdirSync(sessionsDir).filter((f) => f.endsWith('.json')).length;
    const n = bound();
    assert.ok(n >= 2, `${n} sessions bound`);
    const planRow = (agents) => tree.getByRole('treeitem', { name: new RegExp(`^Migrate the settings page to the new form components, proposed \\(.*\\b${agents} agents?\\b.*\\)`) });
    await planRow(n).waitFor({ timeout: 20_000 });
    // By the keyboard, as the reviewer tests choose from the row's menu.
    await chooseFromContextMenu(page, planRow(n), 'Free an Agent Session…');
    // Several sessions are bound to the plan: the person picks one.
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'GitHub Copilot in VS Code' }).first();
    await pick.waitFor({ timeout: 10_000 });
    await keepShot('hooks-free-session-pick');
    await pick.click();
    const dialog = page.locator('.monaco-dialog-box', { hasText: /Free the GitHub Copilot in VS Code session .* from its plans\?/ });
    await dialog.waitFor({ timeout: 10_000 });
    assert.match(await dialog.innerText(), /Once freed, it may edit files and run commands that no approved plan covers/);
    await keepShot('hooks-free-session');
    await dialog.getByRole('button', { name: 'Free Session' }).click();
    await planRow(n - 1).waitFor({ timeout: 20_000 });
    assert.equal(bound(), n - 1);
  });

  it('after the person approves (in the chat) and the agent starts the plan, the same create_file on a step\'s target goes through', async () => {
    const version = Number(/^version: (\d+)$/m.exec(fs.readFileSync(path.join(ws, '.pi', 'plans', `${PLAN}.md`), 'utf8'))[1]);
    await runCommand(page, 'Pi Plans Test: Ask the Agent');
    await page.locator('.quick-input-widget input').fill(`@plans /approve ${PLAN}`);
    await page.keyboard.press('Enter');
    await page.locator('.monaco-dialog-box', { hasText: `at version ${version}` }).getByRole('button', { name: 'Approve' }).click();
    // The plan file's status (a chat row naming "approved" could be an earlier denial's "is not approved").
    for (const end = Date.now() + 30_000; statusOf() !== 'approved' && Date.now() < end; ) await page.waitForTimeout(100);
    assert.equal(statusOf(), 'approved');
    const before = hookRuns().length;
    await askAgent(`${PLAN} create_file ${path.join(ws, TARGET)} start`, 'Noted');
    assert.equal(statusOf(), 'executing');
    const runs = hookRuns().slice(before);
    const pre = runs.filter((r) => r.input?.hook_event_name === 'PreToolUse' && r.input.tool_name === 'create_file');
    assert.equal(pre.length, 1);
    assert.notEqual(JSON.parse(pre[0].output || '{}').hookSpecificOutput?.permissionDecision, 'deny');
    assert.equal(fs.readFileSync(path.join(ws, TARGET), 'utf8'), 'export const answer = 42;\n');
  });

  it('ending that turn with steps still open is blocked once with the next step, then let go', async () => {
    const stops = () => hookRuns().filter((r) => r.input?.hook_event_name === 'Stop');
    // The planning turn ended freely.
    assert.equal(stops()[0].output, '');
    // The executing turn: its first Stop blocked with the next step, its second (once the model has answered the reason) let go.
    const blocked = stops().findIndex((r) => r.output && JSON.parse(r.output).decision === 'block');
    assert.ok(blocked > 0, JSON.stringify(stops()));
    const first = JSON.parse(stops()[blocked].output);
    assert.match(first.reason, /PLAN-7b2d4e61[\s\S]*next is S001/);
    assert.ok(modelRequests().some((r) => r.last.includes('next is S001')), 'the block reason reached the model');
    const end = Date.now() + 30_000;
    while (stops().length < blocked + 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
    const second = stops()[blocked + 1];
    assert.ok(second, 'the turn tried to end a second time');
    assert.equal(second.input.stop_hook_active, true);
    assert.ok(!second.output || JSON.parse(second.output).decision !== 'block', second.output);
    assert.equal(stops().length, blocked + 2, 'the turn ended');
  });
});
