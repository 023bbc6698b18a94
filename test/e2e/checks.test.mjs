// Run checks and drift in the real VS Code (code-server + Debian chromium, the .vsix installed), as
// a person clicks them (issue 30): the plan editor's Run checks, after the person approved the plan
// there, runs the approved commands in a terminal the person sees and shows each step's result; an
// executing plan drifted by a pulled commit says so, and Withdraw approval, confirmed in a modal,
// sends it back to review.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { closeWorkbench, keepFailureShot } from '../harness/workbench.mjs';
import { approveAndStart, freshWorkspace, sampleRepo } from '../harness/fixtures.mjs';

const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const ID = 'PLAN-c4ec2e01';
const DRIFTING = 'PLAN-d41f0002';
const DRIFTING_PLAN = `---\nid: ${DRIFTING}\ntitle: "Drifting plan"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 2\n---\n\n## Goal\nA route on the server\n\n## Steps\n1. [x] S001 Read the server (read: review → src/server.ts)\n2. [ ] S002 Add the route (edit: modify → src/server.ts)\n`;
const PLAN = `---\nid: ${ID}\ntitle: "Checks to run"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 2\n---\n\n## Goal\nRun the approved checks\n\n## Steps\n1. [ ] S001 A check that passes\n   verify: echo all good\n2. [ ] S002 A check that fails\n   verify: echo not yet; exit 4\n\n## Verification\n- the checks\n`;

describe('Run checks (code-server + chromium)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  const view = () => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    ws = sampleRepo(freshWorkspace('checks'));
    fs.writeFileSync(path.join(ws, '.pi/plans', `${ID}.md`), PLAN);
    const drifting = path.join(ws, '.pi/plans', `${DRIFTING}.md`);
    fs.writeFileSync(drifting, DRIFTING_PLAN);
    server = await startCodeServer({ vsix: VSIX, settings: { 'piPlans.notifications.stalled': false, 'piPlans.notifications.proposed': false, 'files.autoSave': 'off' } });
    // The person approves the drifting plan from a terminal, which takes its drift base, and the
    // run begins. Then a commit from elsewhere changes its target.
    approveAndStart(server, ws, DRIFTING);
    fs.appendFileSync(path.join(ws, 'src/server.ts'), "routes.set('/pulled', () => 'from a teammate');\n");
    const git = (...args) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
    git('-c', 'user.email=ana@example.com', '-c', 'user.name=Ana', 'commit', '-q', '-m', 'A teammate\'s route', '--', 'src/server.ts');
    browser = await startBrowser();
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: /8 plans/ }).waitFor({ timeout: 60_000 });
    await page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Pi Plans"]') }).click();
  });
  after(() => closeWorkbench({ browser, server, folder: ws }));
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'checks');
  });

  it('approved in the editor, Run checks runs the checks in a visible terminal and the editor shows each result', async () => {
    await page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).getByRole('treeitem', { name: /^Checks to run/ }).first().click();
    // Not approved yet: nothing to run.
    await view().getByRole('button', { name: 'Approve v1' }).waitFor({ timeout: 30_000 });
    assert.equal(await view().getByRole('button', { name: 'Run checks' }).count(), 0);
    await view().getByRole('button', { name: 'Approve v1' }).click();
    const run = view().getByRole('button', { name: 'Run checks' });
    await run.waitFor({ timeout: 20_000 });
    await run.click();
    // The task's terminal, which the person sees, with the commands' output.
    // (one terminal: its title beside the panel's tabs; several: an entry of the terminal list)
    await page.locator('.single-terminal-tab, .terminal-tabs-entry', { hasText: `Checks of ${ID}` }).first().waitFor({ timeout: 30_000 });
    const steps = view().locator('li.step');
    await steps.nth(0).locator('.check.passed').waitFor({ timeout: 30_000 });
    await steps.nth(1).locator('.check.failed').waitFor({ timeout: 30_000 });
    assert.match(await steps.nth(0).locator('.check').innerText(), /check passed: echo all good/);
    assert.match(await steps.nth(1).locator('.check').innerText(), /check failed: echo not yet; exit 4/);
    // Its last output lines, kept beside the plan.
    assert.match(await steps.nth(1).locator('.check pre').textContent(), /not yet/);
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `run-checks-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
  });

  it('hovering a step in the explorer reads its check against the files now: stale once a file changed after it ran', async () => {
    // Its check ran on the whole tree (the step names no target file): any change makes it stale.
    fs.writeFileSync(path.join(ws, 'src', 'later.ts'), 'export const later = 1;\n');
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) });
    await pane.getByRole('treeitem', { name: /^Checks to run/ }).first().locator('.monaco-tl-twistie').click();
    const row = pane.getByRole('treeitem', { name: /^Step S001, pending: A check that passes/ }).first();
    await row.waitFor({ timeout: 20_000 });
    await row.hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'echo all good' }).first();
    await tip.waitFor({ timeout: 20_000 });
    // In words, when it ran in local time (no ISO time).
    const said = (await tip.innerText()).replace(/\s+/g, ' ');
    assert.match(said, /Check stale: echo all good \(passed, exit 0, [^)]*\d:\d\d[^)]*\)/);
    assert.doesNotMatch(said, /\d{4}-\d\d-\d\dT\d/);
    await page.mouse.move(900, 600);
  });

  it('an executing plan drifted by a pulled commit says so; Withdraw approval asks, then sends it back to review with its progress', async () => {
    await page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).getByRole('treeitem', { name: /^Drifting plan/ }).first().click();
    const header = view().locator('header');
    await header.locator('.approval.drifted').waitFor({ timeout: 30_000 });
    assert.match(await header.innerText(), /executing/);
    assert.match(await header.locator('.approval.drifted').innerText(), /src\/server\.ts/);
    await view().getByRole('button', { name: 'Withdraw approval' }).click();
    // It stops the agent's work: the person is asked first, in a modal that names the plan.
    const dialog = page.locator('.monaco-dialog-box', { hasText: `${DRIFTING} is executing` });
    await dialog.waitFor({ timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Send Back to Review' }).click();
    await view().getByRole('button', { name: /^Approve v\d+$/ }).waitFor({ timeout: 30_000 });
    assert.match(await header.innerText(), /proposed/);
    assert.equal(await header.locator('.approval.drifted').count(), 0, 'drift is watched only while approved or executing');
    const text = fs.readFileSync(path.join(ws, '.pi/plans', `${DRIFTING}.md`), 'utf8');
    assert.match(text, /^status: proposed$/m);
    assert.doesNotMatch(text, /^approved_hash:/m);
    assert.match(text, /^1\. \[x\] S001 /m, 'the progress stays');
  });
});
