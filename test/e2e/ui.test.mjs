// UI end to end: the extension installed from its .vsix into a real VS Code (code-server),
// driven by Debian chromium through playwright-core, as a user sees it. Screenshots of failures
// go to test-results/; `npm run screenshots` also writes the README's pictures to docs/images/.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { freshWorkspace } from '../harness/fixtures.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
// A test-only extension that calls Pi Plans' commands with arguments, as any extension could.
const CALLER_DIR = path.join(ROOT, 'test', 'e2e', 'command-caller');
const CALLER_VSIX = path.join(ROOT, 'out', 'pi-plans-command-caller.vsix');
const RESULTS = path.join(ROOT, 'test-results');
const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;

async function shot(page, name) {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, `${name}.png`) }).catch(() => undefined);
}
async function picture(page, name, clip) {
  if (!PICTURES) return;
  fs.mkdirSync(PICTURES, { recursive: true });
  await page.screenshot({ path: path.join(PICTURES, `${name}-${process.env.PI_PLANS_THEME ?? 'dark'}.png`), clip });
}

/** The status bar item of Pi Plans. */
const statusItem = (page) => page.locator('.statusbar-item').filter({ hasText: /\d+ plans/ }).first();

/** Whether the item is drawn in the theme's status bar warning colour (statusBarItem.warningBackground), as a person sees it. */
async function warningColoured(item) {
  // Not under the pointer: a hovered item takes the hover colour instead.
  await item.page().mouse.move(700, 300);
  await item.page().waitForFunction(() => !document.querySelector('.statusbar-item:hover'));
  return item.evaluate((e) => {
    const probe = document.createElement('div');
    probe.style.background = 'var(--vscode-statusBarItem-warningBackground)';
    document.querySelector('.monaco-workbench').append(probe);
    const warning = getComputedStyle(probe).backgroundColor;
    probe.remove();
    if (!warning || warning === 'rgba(0, 0, 0, 0)') throw new Error('the theme has no status bar warning colour');
    return [e, ...e.querySelectorAll('*')].some((x) => getComputedStyle(x).backgroundColor === warning);
  });
}

/** A fresh copy of examples/ open in a new code-server + chromium; `close()` removes it all. */
async function openWorkbench(name, { trust = false } = {}) {
  const ws = freshWorkspace(name);
  // These tests read plans as text: the plan editor has tests of its own.
  const server = await startCodeServer({ vsix: [VSIX, CALLER_VSIX], trust, settings: { 'piPlans.editor.openPlansIn': 'text' } });
  const browser = await startBrowser();
  // Records every text the Pi Plans status bar item shows, from the first frame on.
  await browser.page.addInitScript(() => {
    window.__piPlansStatus = [];
    const seen = () => {
      for (const el of document.querySelectorAll('.statusbar-item')) {
        const t = el.textContent ?? '';
        if (/plans|Pi Plans/.test(t) && window.__piPlansStatus.at(-1) !== t) window.__piPlansStatus.push(t);
      }
    };
    new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await browser.page.goto(server.url(ws));
  await browser.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return {
    ws,
    server,
    browser,
    async close() {
      await browser.stop();
      await server.stop();
      fs.rmSync(ws, { recursive: true, force: true });
    },
  };
}

describe('Pi Plans in the VS Code UI (code-server + chromium)', function () {
  this.timeout(180_000);
  let wb;
  let browser;
  let ws;

  before(function () {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', CALLER_VSIX], { cwd: CALLER_DIR, stdio: 'ignore' });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser) await shot(browser.page, this.currentTest.title.replace(/\W+/g, '-'));
  });

  describe('a trusted workspace', () => {
    before(async () => {
      wb = await openWorkbench('e2e');
      ({ ws, browser } = wb);
    });
    after(() => wb?.close());

    it('shows the plans in the status bar once the index has loaded, and never a count before that: each plan once (the stalled run is not also running), no warning colour for a review or a stall', async () => {
      const page = browser.page;
      const item = page.locator('.statusbar-item', { hasText: '6 plans, 2 to review, 1 stalled' });
      await item.waitFor({ timeout: 60_000 });
      const shown = await page.evaluate(() => window.__piPlansStatus);
      console.log(`      status bar texts in order: ${JSON.stringify(shown)}`);
      const counts = shown.filter((t) => /\d+ plans/.test(t));
      assert.deepEqual([...new Set(counts.map((t) => t.trim()))], ['6 plans, 2 to review, 1 stalled'], `the status bar showed: ${JSON.stringify(shown)}`);
      assert.equal(await warningColoured(item), false, 'two proposals and a stalled run are decisions, not an alarm');
      // A screen reader hears the counts and the explanation as plain words, not the tooltip's Markdown.
      const aria = await item.getAttribute('aria-label');
      assert.match(aria, /^Pi Plans: 6 plans, 2 to review, 1 stalled\. Click to open a plan\./);
      assert.doesNotMatch(aria, /\\|\*\*/, aria);
      // Its tooltip says how it counts, in words.
      await item.hover();
      const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'counted once' }).first();
      await tip.waitFor({ timeout: 10_000 });
      assert.match(await tip.innerText(), /2\sto\sreview: waiting for your decision\s+1\sstalled: executing with no activity for a while/);
      await page.mouse.move(700, 300);
      await tip.waitFor({ state: 'hidden', timeout: 10_000 });
      const box = await page.locator('.part.statusbar').boundingBox();
      await picture(page, 'status-bar', box ? { x: 0, y: box.y - 4, width: 700, height: box.height + 8 } : undefined);
    });

    it('opens a plan from the status bar with the keyboard', async () => {
      const page = browser.page;
      await statusItem(page).click();
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10_000 });
      const rows = page.locator('.quick-input-list .monaco-list-row');
      await rows.nth(5).waitFor();
      assert.equal(await rows.count(), 6);
      // What needs attention first: the two proposals (newest first), each with its status icon.
      assert.match(await rows.nth(0).innerText(), /Migrate the settings page/);
      assert.match(await rows.nth(1).innerText(), /Send invoice reminder/);
      assert.equal(await rows.nth(0).locator('.codicon-eye').count(), 1);
      assert.match(await rows.nth(2).innerText(), /Add rate limiting[\s\S]*stalled/);
      // Animations are off (workbench.reduceMotion); still, take the picture only once the widget is fully opaque.
      await page.waitForFunction(() => {
        const w = document.querySelector('.quick-input-widget');
        return w && getComputedStyle(w).opacity === '1' && w.getAnimations({ subtree: true }).every((a) => a.playState !== 'running');
      });
      await picture(page, 'open-a-plan', { x: 300, y: 0, width: 800, height: 330 });
      await input.fill('rate limiting');
      await page.keyboard.press('Enter');
      await page.locator('.tab', { hasText: 'PLAN-3f9a1c2e.md' }).waitFor({ timeout: 10_000 });
      await page.locator('.view-lines', { hasText: 'Add a token-bucket limiter module' }).waitFor({ timeout: 10_000 });
      await picture(page, 'plan-in-editor');
    });

    it('follows a plan written from outside (as git or another agent would)', async () => {
      const id = 'PLAN-0e2e0e2e';
      fs.writeFileSync(
        path.join(ws, '.pi/plans', `${id}.md`),
        `---\nid: ${id}\ntitle: "Written by another agent"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-22T10:00:00.000Z\nupdated_at: 2026-11-22T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 a\n`,
      );
      // The demo's first screen: three proposals and the sample's stalled run, nothing wrong.
      const item = browser.page.locator('.statusbar-item', { hasText: '7 plans, 3 to review, 1 stalled' });
      await item.waitFor({ timeout: 20_000 });
      assert.equal(await warningColoured(item), false);
    });

    it('flags an invalid plan in the status bar', async () => {
      fs.writeFileSync(path.join(ws, '.pi/plans', 'PLAN-0bad0bad.md'), '---\nid: PLAN-0bad0bad\nversion: "3"\n---\n');
      // A file no agent can read waits for a person: warning-coloured.
      const item = browser.page.locator('.statusbar-item', { hasText: '8 plans, 3 to review, 1 stalled, 1 invalid' });
      await item.waitFor({ timeout: 20_000 });
      assert.equal(await warningColoured(item), true);
    });

    /** Runs the fixture's command, which calls `piPlans.approve` with `{ id, version }`; returns the modal. */
    async function approveByCommand(page, idAtVersion) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.fill('>Pi Plans Test: Call the Approve Command');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Call the Approve Command' }).first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'PLAN-<id>@<version>' }).waitFor({ timeout: 10_000 });
      await input.fill(idAtVersion);
      await page.keyboard.press('Enter');
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 20_000 });
      return dialog;
    }

    it('approves nothing that a command call asks for until a person confirms the plan and version in a modal', async () => {
      const page = browser.page;
      const id = 'PLAN-0e2e0e2e';
      const file = path.join(ws, '.pi/plans', `${id}.md`);
      const dialog = await approveByCommand(page, `${id}@1`);
      assert.match(await dialog.innerText(), /Approve PLAN-0e2e0e2e "Written by another agent" at version 1\?/);
      assert.match(await dialog.innerText(), /requested through a command/);
      assert.match(fs.readFileSync(file, 'utf8'), /status: proposed/, 'nothing is approved while the modal is open');
      await page.waitForFunction(() => document.querySelector('.monaco-dialog-box')?.getAnimations({ subtree: true }).every((a) => a.playState !== 'running'));
      await picture(page, 'approve-confirmation');
      await page.keyboard.press('Escape');
      await page.locator('.notification-toast', { hasText: 'approve command returned: nothing' }).waitFor({ timeout: 20_000 });
      assert.match(fs.readFileSync(file, 'utf8'), /status: proposed/, 'a dismissed modal approves nothing');
      // Confirmed: approved at that version, with the digest of what was approved.
      const again = await approveByCommand(page, `${id}@1`);
      await again.getByRole('button', { name: 'Approve' }).click();
      await page.locator('.notification-toast', { hasText: 'approve command returned: approved' }).waitFor({ timeout: 20_000 });
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /status: approved/);
      assert.match(text, /approved_version: 1/);
      assert.match(text, /approved_hash: sha256:[0-9a-f]{64}\napprover: "?Ana"?\napproval_key: ed25519:/);
      await page.locator('.statusbar-item', { hasText: '8 plans, 2 to review, 1 stalled, 1 invalid' }).waitFor({ timeout: 20_000 });
      // The broken file mended: nothing is wrong, the colour goes.
      fs.writeFileSync(path.join(ws, '.pi/plans', 'PLAN-0bad0bad.md'), fs.readFileSync(path.join(ws, '.pi/plans', 'PLAN-a04c9d13.md'), 'utf8').replace(/PLAN-a04c9d13/g, 'PLAN-0bad0bad'));
      const mended = page.locator('.statusbar-item', { hasText: /^\s*8 plans, 2 to review, 1 stalled\s*$/ });
      await mended.waitFor({ timeout: 20_000 });
      assert.equal(await warningColoured(mended), false);
    });

    it('flags an approved plan whose steps were edited outside the store afterwards', async () => {
      const file = path.join(ws, '.pi/plans', 'PLAN-0e2e0e2e.md');
      // An agent's plain file edit: the step changes, the version does not.
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('1. [ ] S001 a', '1. [ ] S001 a, and also delete the database'));
      // Counted once, under what it needs (not also as approved or running), and warning-coloured: its approval no longer covers its text.
      const item = browser.page.locator('.statusbar-item', { hasText: '8 plans, 2 to review, 1 stalled, 1 changed since approval' });
      await item.waitFor({ timeout: 20_000 });
      assert.equal(await warningColoured(item), true);
    });
  });

  describe('Restricted Mode', () => {
    before(async () => {
      wb = await openWorkbench('e2e-untrusted', { trust: true });
      ({ ws, browser } = wb);
    });
    after(() => wb?.close());

    it('says plainly that plans are read-only until the workspace is trusted', async () => {
      const page = browser.page;
      // Depending on the version, VS Code asks first or opens the folder in Restricted Mode directly.
      const no = page.getByRole('button', { name: /No, I don.t trust/i });
      await no.click({ timeout: 5_000 }).catch(() => undefined); // absent when VS Code opens in Restricted Mode at once
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).waitFor({ timeout: 60_000 });
      const item = page.locator('.statusbar-item', { hasText: /6 plans, 2 to review, 1 stalled\s*\(read-only\)/ });
      await item.waitFor({ timeout: 60_000 });
      await item.hover();
      await page.locator('.monaco-hover, .workbench-hover', { hasText: 'read-only in Restricted Mode' }).first().waitFor({ timeout: 10_000 });
      await picture(page, 'restricted-mode', { x: 0, y: 800, width: 800, height: 100 });
    });
  });
});
