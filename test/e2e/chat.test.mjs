// `@plans` in VS Code's own chat view (code-server 4.139.1 = VS Code 1.139, Debian chromium, the
// .vsix installed). VS Code 1.139 sends no chat request without a language model, not even to an
// extension's participant, and its model picker hides other vendors' models while signed out of
// Copilot; a test-only extension (test/e2e/chat-driver) registers a scripted model and opens the
// chat with it the way `workbench.action.chat.open` allows (`modelSelector` and `query`). Every
// request below goes through the chat view to the participant, as a person's would.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { freshWorkspace } from '../harness/fixtures.mjs';
import { closeWorkbench, keepFailureShot, runCommand } from '../harness/workbench.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const DRIVER_DIR = path.join(ROOT, 'test', 'e2e', 'chat-driver');
const DRIVER_VSIX = path.join(ROOT, 'out', 'pi-plans-chat-driver-test.vsix');
const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;

describe('@plans in the chat view (code-server + chromium, a scripted test model)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  const file = (id) => path.join(ws, '.pi', 'plans', `${id}.md`);
  const text = (id) => fs.readFileSync(file(id), 'utf8');
  const statusOf = (id) => /^status: (\S+)$/m.exec(text(id))?.[1];

  /** The chat's rows (a request and its answer are one row each, numbered in order; rows out of view are not drawn). */
  const row = (n) => page.locator(`.interactive-session .monaco-list-row[data-index="${n}"]`);

  /** Sends `query` through the chat view; returns the row its answer will be drawn in. */
  async function send(query) {
    const shown = await page.locator('.interactive-session .monaco-list-row').evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-index'))));
    const last = shown.length ? Math.max(...shown) : -1;
    await runCommand(page, 'Pi Plans Test: Ask in Chat');
    await page.locator('.quick-input-widget input').fill(query);
    await page.keyboard.press('Enter');
    return row(last + 2);
  }

  /** Sends `query` and waits until its answer holds `expect`. */
  async function ask(query, expect) {
    const answer = await send(query);
    await answer.filter({ hasText: expect }).waitFor({ timeout: 30_000 });
    return answer;
  }

  /** The buttons of an answer. */
  const buttons = async (answer) => (await answer.locator('.monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean);

  const workItem = () => page.locator('.statusbar-item', { hasText: /Speed up the CI pipeline/ });

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', DRIVER_VSIX], { cwd: DRIVER_DIR, stdio: 'ignore' });
    ws = freshWorkspace('chat');
    server = await startCodeServer({
      vsix: [VSIX, DRIVER_VSIX],
      settings: { 'piPlans.notifications.proposed': false, 'piPlans.notifications.stalled': false, 'piPlans.editor.openPlansIn': 'text' },
    });
    browser = await startBrowser({ width: 1400, height: 1000 });
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: /6 plans/ }).waitFor({ timeout: 60_000 });
  });
  after(async () => {
    await closeWorkbench({ browser, server, folder: ws });
    fs.rmSync(DRIVER_VSIX, { force: true });
  });
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'chat');
  });

  it('/list lists every plan by status and changes nothing', async () => {
    const files = fs.readdirSync(path.join(ws, '.pi', 'plans')).filter((f) => f.endsWith('.md'));
    const before = files.map((f) => fs.readFileSync(path.join(ws, '.pi', 'plans', f), 'utf8'));
    const r = await ask('@plans /list', 'PLAN-e5d2b8a9');
    const shown = await r.innerText();
    for (const [id, title] of [
      ['PLAN-19ab77c0', 'Send invoice reminder to Acme Corp'],
      ['PLAN-7b2d4e61', 'Migrate the settings page to the new form components'],
      ['PLAN-3f9a1c2e', 'Add rate limiting to the public API'],
      ['PLAN-a04c9d13', 'Speed up the CI pipeline'],
      ['PLAN-c81e5f70', 'Rename the User model to Account'],
      ['PLAN-e5d2b8a9', 'Fix the flaky login test'],
    ]) {
      assert.ok(shown.includes(id) && shown.includes(title), `${id} listed`);
    }
    // In attention order: what awaits review first, finished last.
    assert.ok(shown.indexOf('PLAN-19ab77c0') < shown.indexOf('PLAN-a04c9d13') && shown.indexOf('PLAN-a04c9d13') < shown.indexOf('PLAN-e5d2b8a9'));
    assert.deepEqual(files.map((f) => fs.readFileSync(path.join(ws, '.pi', 'plans', f), 'utf8')), before);
  });

  it('/on PLAN-… starts plan work on it and shows its card; /show without an id shows that plan', async () => {
    assert.equal(await workItem().count(), 0);
    const r = await ask('@plans /on PLAN-a04c9d13', 'Plan work is on for PLAN-a04c9d13');
    await workItem().waitFor({ timeout: 20_000 });
    assert.match(await r.innerText(), /Speed up the CI pipeline[\s\S]*draft/);
    const shown = await ask('@plans /show', 'Speed up the CI pipeline');
    assert.match(await shown.innerText(), /PLAN-a04c9d13/);
    assert.ok((await buttons(shown)).includes('Open'), JSON.stringify(await buttons(shown)));
    // The plan's file, as a link in the card.
    await shown.locator('a', { hasText: 'PLAN-a04c9d13.md' }).first().waitFor({ timeout: 10_000 });
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `chat-show-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
  });

  it('/done ends plan work and remembers the plan; /reset forgets it', async () => {
    await ask('@plans /done', 'Plan work ended on PLAN-a04c9d13');
    await workItem().waitFor({ state: 'detached', timeout: 20_000 });
    await ask('@plans /show', 'Speed up the CI pipeline');
    await ask('@plans /reset', 'no plan is remembered');
    // Two plans await review, none is active or remembered: it asks which.
    await ask('@plans /show', 'Which plan?');
    assert.equal(await workItem().count(), 0);
    assert.equal(statusOf('PLAN-a04c9d13'), 'draft');
  });

  it('/reject sends the feedback as the rejection; /approve asks the person to confirm the version, then offers execution', async () => {
    await ask('@plans /reject PLAN-7b2d4e61 Split the migration per page', 'rejected');
    assert.equal(statusOf('PLAN-7b2d4e61'), 'rejected');
    assert.match(text('PLAN-7b2d4e61'), /^## Rejection \(v\d+\)\nSplit the migration per page$/m);
    // Approval goes through the same command as the explorer: a modal names the plan and version.
    const version = Number(/^version: (\d+)$/m.exec(text('PLAN-19ab77c0'))[1]);
    const answer = await send('@plans /approve PLAN-19ab77c0');
    await page.locator('.monaco-dialog-box', { hasText: `at version ${version}` }).getByRole('button', { name: 'Approve' }).click();
    await answer.filter({ hasText: 'approved' }).waitFor({ timeout: 30_000 });
    assert.equal(statusOf('PLAN-19ab77c0'), 'approved');
    assert.ok((await buttons(answer)).includes('Execute in Copilot'), JSON.stringify(await buttons(answer)));
    await page.locator('.interactive-session-followups', { hasText: 'Execute the approved plan' }).last().waitFor({ timeout: 10_000 });
  });

  it('free text drafts a plan with the plan tools (the scripted model calls pi_plan_create) and ends with its review card; its Approve button approves', async () => {
    const existing = new Set(fs.readdirSync(path.join(ws, '.pi', 'plans')));
    const r = await ask('@plans Add a health check endpoint', 'I drafted the plan');
    // The turn ends with the card: its buttons come last.
    await r.getByRole('button', { name: 'Reject…' }).waitFor({ timeout: 30_000 });
    const created = fs.readdirSync(path.join(ws, '.pi', 'plans')).filter((f) => /^PLAN-[0-9a-f]{8}\.md$/.test(f) && !existing.has(f));
    assert.equal(created.length, 1);
    const id = created[0].slice(0, -3);
    assert.match(text(id), /^title: "?Add a health check endpoint"?$/m);
    assert.equal(statusOf(id), 'proposed', 'the draft with steps is put up for review');
    assert.match(await r.innerText(), new RegExp(`${id}[\\s\\S]*proposed`));
    assert.deepEqual((await buttons(r)).filter((b) => ['Approve', 'Reject…'].includes(b)), ['Approve', 'Reject…']);
    await r.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.monaco-dialog-box', { hasText: id }).getByRole('button', { name: 'Approve' }).click();
    await page.locator('.notification-toast', { hasText: `${id} approved at v` }).waitFor({ timeout: 20_000 });
    assert.equal(statusOf(id), 'approved');
  });
});
