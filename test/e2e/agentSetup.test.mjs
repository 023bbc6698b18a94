// "Pi Plans: Set Up an Agent…" clicked through in the real workbench (code-server + chromium, the
// .vsix installed): Claude Code, this workspace, "Sealed (recommended)"; the seal written where
// Claude Code reads it; then a session the real hook binds shows in the explorer as sealed.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { closeWorkbench, keepFailureShot, runCommand } from '../harness/workbench.mjs';
import { freshWorkspace } from '../harness/fixtures.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const EXECUTING = 'PLAN-3f9a1c2e';

describe('Set Up an Agent…, sealed (code-server + chromium)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  let bin;
  const pick = async (label) => {
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ timeout: 10_000 });
    await row.click();
  };

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    ws = freshWorkspace('setup');
    // The two programs Claude Code's sandbox needs on Linux, on the extension host's PATH (setup
    // checks that they are there; it never runs them).
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-sandbox-bin-'));
    for (const p of ['bwrap', 'socat']) fs.writeFileSync(path.join(bin, p), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    server = await startCodeServer({ vsix: VSIX, env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` }, settings: { 'piPlans.notifications.stalled': false, 'piPlans.notifications.proposed': false } });
    browser = await startBrowser();
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Pi Plans"]') }).click();
    await page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).getByRole('treeitem', { name: /^Add rate limiting/ }).first().waitFor({ timeout: 60_000 });
  });
  after(async () => {
    await closeWorkbench({ browser, server, folder: ws });
    if (bin) fs.rmSync(bin, { recursive: true, force: true });
  });
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'agent-setup');
  });

  it('offers Sealed first for Claude Code and writes its sandbox settings: the key\'s folder unreadable, .pi/ unwritable, no way out', async () => {
    await runCommand(page, 'Pi Plans: Set Up an Agent');
    await pick('Claude Code');
    await pick('This workspace');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.quick-input-widget input').getAttribute('placeholder'), 'How should Claude Code be held to its plan?');
    assert.match(await rows.nth(0).innerText(), /Sealed \(recommended\)/);
    assert.match(await rows.nth(1).innerText(), /Hooks only/);
    await rows.nth(0).click();
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Set up Claude Code' });
    await toast.waitFor({ timeout: 20_000 });
    assert.match(await toast.innerText(), /\.claude\/settings\.local\.json/);
    assert.match(await toast.innerText(), /Sealed: Claude Code runs the agent's commands in its sandbox/);
    const local = JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.local.json'), 'utf8'));
    assert.equal(local.sandbox.enabled, true);
    assert.equal(local.sandbox.failIfUnavailable, true);
    assert.equal(local.sandbox.allowUnsandboxedCommands, false);
    assert.ok(local.sandbox.filesystem.denyRead.includes(path.join(server.env.XDG_CONFIG_HOME, 'pi-plans')), JSON.stringify(local.sandbox.filesystem.denyRead));
    assert.ok(local.sandbox.filesystem.denyWrite.includes(path.join(fs.realpathSync(ws), '.pi')), JSON.stringify(local.sandbox.filesystem.denyWrite));
    assert.ok(local.permissions.deny.some((r) => r.startsWith('Read(/') && r.includes('pi-plans')), JSON.stringify(local.permissions.deny));
    await toast.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
  });

  it('a Claude Code session the real hook binds to a plan reads as sealed in the explorer\'s tooltip', async () => {
    // The hook command setup wrote, run as Claude Code runs it after a plan tool call naming the plan.
    const hooks = JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')).hooks;
    const command = hooks.PostToolUse[0].hooks[0].command;
    const m = /^node (\S+) hook /.exec(command);
    assert.ok(m, command);
    const payload = { session_id: '5ea1ed00-0000-4000-8000-00000000c1a0', hook_event_name: 'PostToolUse', tool_name: 'mcp__pi-plans__pi_plan_get', tool_input: { id: EXECUTING }, tool_response: `${EXECUTING} (executing, v7)`, cwd: ws };
    const r = spawnSync(process.execPath, [m[1].replace(/^'|'$/g, ''), 'hook', '--agent', 'claude', '--event', 'PostToolUse'], { input: JSON.stringify(payload), encoding: 'utf8', env: server.env });
    assert.equal(r.status, 0, r.stderr);
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) });
    const row = pane.getByRole('treeitem', { name: /^Add rate limiting.*1 agent/ }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'Bound to 1 agent session' }).first();
    await tip.waitFor({ timeout: 20_000 });
    const text = (await tip.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /- Claude Code 5ea1ed00…, last active just now: sealed \(its host's sandbox keeps the agent from the approval key and from writing \.pi\/\)/);
    assert.match(text, /Enforced by hooks for Claude Code\./);
    await page.mouse.move(900, 600);
  });

  it('a warning stays in the status bar while agents may approve plans (config.json\'s agentMayApprove), and goes when it is off', async () => {
    const config = path.join(server.env.XDG_CONFIG_HOME, 'pi-plans', 'config.json');
    const before = fs.readFileSync(config, 'utf8');
    const warning = page.locator('.statusbar-item', { hasText: 'Agents may approve plans' });
    assert.equal(await warning.count(), 0, 'off: no warning');
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(before), agentMayApprove: true }));
    await warning.waitFor({ timeout: 30_000 });
    await warning.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'an agent can approve its own plan' }).first();
    await tip.waitFor({ timeout: 20_000 });
    assert.match((await tip.innerText()).replace(/\s+/g, ' '), /"agentMayApprove": true in \S+config\.json\)/);
    await page.mouse.move(900, 600);
    fs.writeFileSync(config, before);
    await warning.waitFor({ state: 'detached', timeout: 30_000 });
  });
});
