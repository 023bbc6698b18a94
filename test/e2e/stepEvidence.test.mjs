// What each step changed, in the real VS Code (code-server + chromium, the .vsix installed): the
// plan editor lists a step's files, View changes opens VS Code's multi-file diff of that step's
// trees, and a step done with nothing changed shows its "no evidence" flag (editor and explorer).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { closeWorkbench, keepFailureShot, runCommand, waitForFocus } from '../harness/workbench.mjs';
import { freshWorkspace, sampleRepo } from '../harness/fixtures.mjs';

const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const ID = 'PLAN-0e71dce0';

/** A snapshot of the working tree as a tree object, the way Pi Plans takes one (a temporary index). */
function snapshot(ws) {
  const index = path.join(os.tmpdir(), `pi-plans-e2e-index-${process.pid}`);
  fs.copyFileSync(path.join(ws, '.git', 'index'), index);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync('git', ['add', '-A'], { cwd: ws, env });
  const tree = execFileSync('git', ['write-tree'], { cwd: ws, env, encoding: 'utf8' }).trim();
  fs.rmSync(index);
  execFileSync('git', ['update-ref', `refs/pi-plans/evidence/${ID}/e2e/${tree.slice(0, 8)}`, tree], { cwd: ws });
  return tree;
}

describe('step evidence in the plan editor (code-server + chromium)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  const view = () => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  const plansPane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) });

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    ws = sampleRepo(freshWorkspace('evidence'));
    // S001 changed two files (one new) while another session's S002 ran; S002 was done with nothing changed and no note.
    const before = snapshot(ws);
    fs.writeFileSync(path.join(ws, 'src/routes-health.ts'), "export const health = () => 'ok';\n");
    fs.appendFileSync(path.join(ws, 'src/server.ts'), "import './routes-health';\n");
    const after = snapshot(ws);
    const b = before.slice(0, 10);
    const a = after.slice(0, 10);
    fs.writeFileSync(
      path.join(ws, '.pi/plans', `${ID}.md`),
      [
        '---', `id: ${ID}`, 'title: "Evidence on screen"', 'status: completed', 'version: 6', 'created_at: 2026-11-23T10:00:00.000Z', 'updated_at: 2026-11-23T10:00:00.000Z', '---', '',
        '## Goal', 'Show what each step changed.', '', '## Steps',
        '1. [x] S001 Add the health route',
        `   > Changed: src/routes-health.ts (new, +1 −0), src/server.ts (+1 −0) · 2 files +2 −0 · tree ${b}..${a} · ran alongside: S002`,
        '2. [x] S002 Run the tests',
        `   > Changed: nothing · tree ${a}..${a}`, '',
      ].join('\n'),
    );
    server = await startCodeServer({ vsix: VSIX, settings: { 'piPlans.notifications.stalled': false, 'piPlans.notifications.proposed': false } });
    browser = await startBrowser();
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Pi Plans"]') }).click();
  });
  after(() => closeWorkbench({ browser, server, folder: ws }));
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'step-evidence');
  });

  it('lists a step\'s changed files, flags the step with no evidence, and sums up the finished plan', async () => {
    // Finished plans are grouped, collapsed, at the end of the view: its twistie opens the group.
    // Once both finished plans are indexed (the group's count says 2), focus the group's row and
    // expand it by keyboard: the right arrow only ever expands (a click toggles, and a click on a
    // row the tree redraws meanwhile can toggle it twice).
    const finished = plansPane().getByRole('treeitem', { name: 'Finished: 2 plans' }).first();
    await finished.waitFor({ timeout: 30_000 });
    // The sample's stalled plan moves to its group once its flag is known, shifting the rows: wait
    // for that, and keep the pointer off the tree, so no row's tooltip lies over the one clicked.
    await plansPane().getByRole('treeitem', { name: 'Stalled: 1 plan' }).first().waitFor({ timeout: 30_000 });
    await page.mouse.move(900, 600);
    // The group is focused by the keyboard, never clicked: a click toggles it, and a row's state
    // read just after a click can still be the old one, so a second toggle could close it again.
    // Finished is the last row of the view (collapsed): End focuses it, the right arrow opens it.
    // Each key is pressed once the workbench has drawn what the one before did (two frames): a
    // key sent a few milliseconds after the view took the focus, or after End, was seen to reach
    // the tree and do nothing (1 run in 20), which no person typing meets.
    const drawn = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await runCommand(page, 'Pi Plans: Focus on Plans View');
    await waitForFocus(plansPane().locator('.monaco-list').first());
    await drawn();
    await page.keyboard.press('End');
    await plansPane().locator('.monaco-list-row.focused', { hasText: /^Finished/ }).waitFor({ timeout: 10_000 });
    await drawn();
    await page.keyboard.press('ArrowRight');
    await page.locator('.pane .monaco-list-row[aria-expanded="true"]', { hasText: /^Finished/ }).waitFor({ timeout: 20_000 });
    await plansPane().getByRole('treeitem', { name: /Evidence on screen/ }).first().click();
    const steps = view().locator('li.step');
    await steps.first().waitFor({ timeout: 30_000 });
    const first = await steps.nth(0).innerText();
    assert.match(first, /Changed: 2 files \+2 −0/);
    assert.match(first, /src\/routes-health\.ts \(new, \+1 −0\)/);
    // Another session's step ran meanwhile (no hooks told the files apart): said under the files.
    assert.match(first, /Another session worked on S002 while this step ran: some of these files may be that step's\./);
    assert.equal(await steps.nth(0).locator('.evidence-flag').count(), 0);
    assert.equal(await steps.nth(1).locator('.badge.evidence-flag.no-evidence', { hasText: 'no evidence' }).count(), 1);
    assert.equal(await steps.nth(1).getByRole('button', { name: 'View changes' }).count(), 0, 'nothing to show for a step that changed nothing');
    // The finished plan's summary in plain words, each number with its word.
    assert.equal(await view().locator('.evidence-summary').innerText(), 'The steps changed 2\u00a0files: 2\u00a0lines added, 0\u00a0removed. 1\u00a0step was marked done with no change recorded and no note saying why.');
    // View changes is on offer, not drawn as the page's primary action.
    const viewChanges = steps.nth(0).getByRole('button', { name: 'View changes' });
    assert.match(await viewChanges.getAttribute('class'), /\bsecondary\b/);
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `step-evidence-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
  });

  it('View changes opens the multi-file diff of exactly that step\'s files', async () => {
    await view().locator('li.step').nth(0).getByRole('button', { name: 'View changes' }).click();
    const tab = page.locator('.tab', { hasText: /S001: what the step changed/ });
    await tab.waitFor({ timeout: 30_000 });
    const editor = page.locator('.multiDiffEditor').first();
    await editor.waitFor({ timeout: 30_000 });
    await editor.locator('text=routes-health.ts').first().waitFor({ timeout: 30_000 });
    await editor.locator('text=server.ts').first().waitFor({ timeout: 30_000 });
    // The added line is the step's, read from its "after" tree.
    await editor.locator('.view-line', { hasText: "import './routes-health';" }).first().waitFor({ timeout: 30_000 });
  });

  it('the explorer\'s tooltips say what the steps changed in plain words', async () => {
    const planRow = plansPane().getByRole('treeitem', { name: /Evidence on screen/ }).first();
    await planRow.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'The steps changed' }).first();
    await tip.waitFor({ timeout: 20_000 });
    const said = (await tip.innerText()).replace(/\u00a0/g, ' ');
    assert.match(said, /The steps changed 2 files: 2 lines added, 0 removed\. 1 step was marked done with no change recorded and no note saying why\./);
    assert.doesNotMatch(said, /file changes|with no evidence|no change, explained|\+\d+ −\d+ ·/, said);
    await page.mouse.move(900, 600);
    await tip.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('the explorer\'s step row says "no evidence"', async () => {
    const planRow = plansPane().getByRole('treeitem', { name: /Evidence on screen/ }).first();
    await planRow.locator('.monaco-tl-twistie').click();
    // The row's name is its accessible label: the step, its status and its flag.
    const row = plansPane().getByRole('treeitem', { name: /^Step S002, done, no evidence: Run the tests/ }).first();
    await row.waitFor({ timeout: 20_000 });
    assert.match(await row.innerText(), /S002 Run the tests/);
    assert.equal(await plansPane().getByRole('treeitem', { name: /^Step S001, done: Add the health route/ }).count(), 1, 'a step with evidence has no flag');
  });
});
