// Reviewing a plan the way pull requests are reviewed, in the real VS Code (code-server + Debian
// chromium, the .vsix installed): comments on steps and sections from the editor's gutter, kept as
// a draft across a reload, sent with "Reject…" as one rejection section by step id; the waiting
// tool call of an agent (the demo's sample agent, driving the real tools through
// vscode.lm.invokeTool) gets them, revises one step and submits again; the diff with the reviewed
// version and the plan editor show what changed and which comments the revision addressed.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { closeWorkbench, keepFailureShot, runCommand } from '../harness/workbench.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const AGENT_DIR = path.join(ROOT, 'demo', 'sample-agent');
const AGENT_VSIX = path.join(ROOT, 'out', 'pi-plans-sample-agent-review-test.vsix');
const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;

/** Lines of `b` that are not in a longest common subsequence with `a` (what a line diff marks inserted). */
function insertedLines(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (j < m) {
    if (i < n && x[i] === y[j]) {
      i++;
      j++;
    } else if (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else out.push(y[j++]);
  }
  return out;
}

describe('reviewing a plan with comments (code-server + chromium, the sample agent on the other side)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  let transcript;
  let id;
  const file = () => path.join(ws, '.pi', 'plans', `${id}.md`);
  const text = () => fs.readFileSync(file(), 'utf8');

  /**
   * Waits until `fn` returns a truthy value, checking it again whenever a file changes in the plans
   * folder or beside the agent's transcript (the two places it reads), or fails naming `what`.
   */
  async function until(what, fn, ms = 30_000) {
    let changed;
    let wake;
    const watchers = [path.join(ws, '.pi', 'plans'), path.dirname(transcript)].map((d) =>
      fs.watch(d, () => {
        changed = true;
        wake?.();
      }),
    );
    let deadline;
    const timedOut = new Promise((r) => (deadline = setTimeout(r, ms, 'timeout')));
    try {
      for (;;) {
        changed = false;
        const v = await fn();
        if (v) return v;
        if (changed) continue;
        if ((await Promise.race([new Promise((r) => (wake = r)), timedOut])) === 'timeout') throw new Error(`timed out waiting for ${what}`);
      }
    } finally {
      clearTimeout(deadline);
      for (const w of watchers) w.close();
    }
  }

  /** Moves the active text editor's cursor, and its view, to the first line (the editor draws only the lines in view). */
  async function toTop() {
    await page.locator('.editor-instance .monaco-editor .view-lines').filter({ visible: true }).first().click();
    await page.keyboard.press('Control+Home');
    await page.locator('.editor-instance .line-numbers', { hasText: /^1$/ }).filter({ visible: true }).first().waitFor({ timeout: 10_000 });
  }

  /**
   * Waits until the editor in front (its first line in view) shows `plan` as it is on disk with
   * its CodeLens drawn: the status lens, computed from the editor's text, names the version on
   * disk. Until then the editor may still load a write (the agent's last ones) or insert the lens
   * above line 1, and either moves every line between a hover and a click.
   */
  async function showsOnDisk(plan) {
    const version = /^version: (\d+)$/m.exec(fs.readFileSync(plan, 'utf8'))[1];
    await page.locator('.editor-instance .contentWidgets .codelens-decoration', { hasText: ` · v${version} · ` }).filter({ visible: true }).first().waitFor({ timeout: 20_000 });
  }

  /** Comments on the line that shows `lineText`, through the gutter's "+" as a person does. */
  async function commentOn(lineText, body) {
    // In the editor in front (a diff editor's hidden sides stay in the page).
    const line = page.locator('.editor-instance .view-line', { hasText: lineText }).filter({ visible: true }).first();
    await line.waitFor({ timeout: 20_000 });
    // Hover the gutter beside the line once the layout holds still (CodeLens and comment widgets
    // that arrive late move the lines), and check that the "+" shows on that row.
    const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined)))));
    const stableBox = async () => {
      for (;;) {
        const a = await line.boundingBox();
        await frames();
        const b = await line.boundingBox();
        if (a && b && a.y === b.y) return b;
      }
    };
    // The comment column: where VS Code draws the commentable ranges (left of the folding controls).
    // (The glyphs are drawn again as the editor re-renders: a box is taken from one that stays.)
    const glyphs = page.locator('.editor-instance .comment-range-glyph').filter({ visible: true });
    let column = null;
    for (let tries = 0; !column; tries++) {
      assert.ok(tries < 100, 'the comment column of the editor in front');
      await glyphs.first().waitFor({ timeout: 20_000 });
      column = await glyphs.first().boundingBox();
      if (!column) await frames();
    }
    let glyph;
    for (let tries = 0; !glyph && tries < 10; tries++) {
      const box = await stableBox();
      await page.mouse.move(column.x + column.width / 2, box.y + box.height / 2);
      await frames();
      const g = await page.locator('.editor-instance .comment-range-glyph.line-hover').first().boundingBox().catch(() => null);
      const now = await line.boundingBox();
      if (g && Math.abs(g.y - now.y) < 3) glyph = g;
      else await page.mouse.move(column.x + 300, 5); // off the editor, so the next hover is a new one
    }
    assert.ok(glyph, `the "+" of the line "${lineText}"`);
    // A click where the mouse is (the "+" is redrawn as the mouse moves, so it is not re-found).
    await page.mouse.click(glyph.x + glyph.width / 2, glyph.y + glyph.height / 2);
    // The new thread's widget has the focus: type, then its "Add Comment" button.
    const widget = page.locator('.review-widget', { has: page.locator('.monaco-editor.focused') });
    await widget.waitFor({ timeout: 10_000 });
    await page.keyboard.type(body);
    await widget.locator('.monaco-button', { hasText: 'Add Comment' }).click();
    // Posted: shown as a comment (the extension shows it once it is kept), not the text still in the reply box.
    await page.locator('.review-widget .comment-body', { hasText: body }).first().waitFor({ timeout: 10_000 });
  }

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', AGENT_VSIX], { cwd: AGENT_DIR, stdio: 'ignore' });
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-ws-review-'));
    fs.mkdirSync(path.join(ws, '.pi', 'plans'), { recursive: true });
    transcript = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-transcript-')), 'agent.txt');
    server = await startCodeServer({
      vsix: [VSIX, AGENT_VSIX],
      settings: {
        'piPlans.editor.openPlansIn': 'text',
        'files.autoSave': 'off',
        'piPlansDemo.autoStart': true,
        'piPlansDemo.stepDelayMs': 100,
        'piPlansDemo.transcriptFile': transcript,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        // Side by side even in a narrow group, so the two versions can be read apart.
        'diffEditor.useInlineViewWhenSpaceIsLimited': false,
        'diffEditor.wordWrap': 'off',
      },
    });
    // Tall enough for the whole plan in the diff editor (it draws only the lines in view).
    browser = await startBrowser({ width: 1600, height: 1400 });
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The agent drafts and submits its plan, and waits for the review.
    id = await until('the agent\'s plan proposed', () => {
      const name = fs.readdirSync(path.join(ws, '.pi', 'plans')).find((n) => /^PLAN-[0-9a-f]{8}\.md$/.test(n));
      return name && /status: proposed/.test(fs.readFileSync(path.join(ws, '.pi', 'plans', name), 'utf8')) && name.slice(0, -3);
    }, 60_000);
    await page.locator('.tab', { hasText: `${id}.md` }).waitFor({ timeout: 20_000 });
  });
  after(async () => {
    await closeWorkbench({ browser, server, folder: ws });
    fs.rmSync(path.dirname(transcript), { recursive: true, force: true });
    fs.rmSync(AGENT_VSIX, { force: true });
  });
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'review');
  });

  let reviewedVersion;

  it('comments on two steps and a section from the gutter; the plan editor counts the threads and comments at a step', async () => {
    const before = text();
    await showsOnDisk(file());
    await commentOn('S002 Register the route', 'Say why before auth: a health check must not need a token.');
    await commentOn('S003 Test the route', 'Also test a HEAD request.');
    await commentOn('## Risks', 'What if the build info is missing?');
    assert.equal(text(), before, 'a draft writes nothing into the plan');
    assert.match(await page.locator('.review-widget', { hasText: 'Also test a HEAD request.' }).first().innerText(), /S003 · draft/);
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `review-comments-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
    // The plan editor shows each step's and section's thread count.
    await runCommand(page, 'Pi Plans: Open Preview');
    const view = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await view.locator('li.step[data-step="S002"] .threads', { hasText: '1' }).waitFor({ timeout: 20_000 });
    await view.locator('li.step[data-step="S003"] .threads', { hasText: '1' }).waitFor({ timeout: 20_000 });
    assert.equal(await view.locator('li.step[data-step="S001"] .threads').count(), 0);
    await view.locator('section[aria-label="Risks"] .threads', { hasText: '1' }).waitFor({ timeout: 20_000 });
    // Its "Comment" opens the text editor beside, at that step, with a new comment box.
    await view.getByRole('button', { name: 'Comment on S001' }).click();
    const box = page.locator('.review-widget', { hasText: 'Start discussion' });
    await box.first().waitFor({ timeout: 20_000 });
    await box.first().locator('.review-thread-reply-button, .monaco-editor').first().click();
    await page.keyboard.type('Which build info: the git sha?');
    await box.first().locator('.monaco-button', { hasText: 'Add Comment' }).click();
    const s001 = page.locator('.review-widget', { hasText: 'S001 · draft' }).first();
    await s001.waitFor({ timeout: 20_000 });
    assert.match(await s001.innerText(), /Which build info: the git sha\?/);
    await view.locator('li.step[data-step="S001"] .threads', { hasText: '1' }).waitFor({ timeout: 20_000 });
    // Resolved: kept in the draft, not sent (the rejection below carries three comments).
    await s001.locator('.action-label[aria-label="Resolve"]').click();
    await view.locator('li.step[data-step="S001"] .threads').waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('"Reject…" sends them as one rejection section by id; the waiting agent gets each with its call, revises one step and submits again', async () => {
    const reviewed = text();
    reviewedVersion = Number(/^version: (\d+)$/m.exec(reviewed)[1]);
    // From the plan's text editor (beside the plan editor, where "Comment" opened it).
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await runCommand(page, 'Pi Plans: Reject Plan…');
    await page.locator('.quick-input-widget', { hasText: 'with 3 comments' }).waitFor({ timeout: 20_000 });
    await page.locator('.quick-input-widget input').fill('Close. Three things.');
    await page.keyboard.press('Enter');
    const rejected = await until('the rejection on disk', () => text().includes(`## Rejection (v${reviewedVersion})`) && text());
    assert.match(
      rejected,
      new RegExp(`## Rejection \\(v${reviewedVersion}\\)\\nClose\\. Three things\\.\\n\\n- S002: Say why before auth: a health check must not need a token\\.\\n- S003: Also test a HEAD request\\.\\n- Risks: What if the build info is missing\\?\\n`),
    );
    // The agent's waiting pi_plan_submit returned them by step and section, with the call for each.
    const said = await until('the comments in the agent\'s tool result', () => fs.existsSync(transcript) && fs.readFileSync(transcript, 'utf8').includes('Comments by step and section') && fs.readFileSync(transcript, 'utf8'));
    assert.match(said, /- S002 "Register the route before the auth middleware": Say why before auth: a health check must not need a token\. → pi_plan_step/);
    assert.match(said, /- ## Risks: What if the build info is missing\? → pi_plan_update/);
    // It revises S002 (only) and submits again; the sent draft is gone from the editor.
    await until('the revision proposed again', () => /status: proposed/.test(text()) && /S002 Register the route before the auth middleware, as the review asked/.test(text()));
    await page.locator('.review-widget', { hasText: 'Also test a HEAD request.' }).waitFor({ state: 'detached', timeout: 20_000 });
    // Kept outside the workspace (the user's state folder): nothing in the repository to rewrite.
    assert.equal(fs.existsSync(path.join(ws, '.pi', 'plans', 'reviews')), false);
    const kept = path.join(server.reviewCopies(ws), id);
    // The copy and its signed record (its digest: a rewritten copy is never compared with).
    assert.deepEqual(fs.readdirSync(kept).sort(), [`v${reviewedVersion}.json`, `v${reviewedVersion}.md`]);
    assert.equal(fs.readFileSync(path.join(kept, `v${reviewedVersion}.md`), 'utf8'), reviewed, 'the reviewed version, byte for byte');
  });

  it('"Compare with the Last Reviewed Version" shows exactly the revision; the plan editor marks one comment revised and two not', async () => {
    const reviewed = fs.readFileSync(path.join(server.reviewCopies(ws), id, `v${reviewedVersion}.md`), 'utf8');
    const now = text();
    // From the plan's text editor, with one editor group and no panel: the diff gets the window.
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await runCommand(page, 'View: Single Column Editor Layout');
    await runCommand(page, 'View: Hide Panel');
    await runCommand(page, 'Pi Plans: Compare with the Last Reviewed Version');
    const diffTab = page.locator('.tab', { hasText: `${id}: v${reviewedVersion} (reviewed) ↔ now` });
    await diffTab.waitFor({ timeout: 20_000 });
    const modified = page.locator('.monaco-diff-editor .editor.modified');
    await modified.locator('.view-line', { hasText: 'as the review asked' }).first().waitFor({ timeout: 20_000 });
    await page.locator('.monaco-diff-editor .editor.original .view-line', { hasText: 'S002 Register the route before the auth middleware (edit' }).first().waitFor({ timeout: 20_000 });
    // The lines marked inserted are those a line diff finds: the revised step, the version
    // bookkeeping and the rejection section; of the steps, S002 only.
    const expected = insertedLines(reviewed, now);
    assert.deepEqual(expected.filter((l) => /^\d+\. \[.\] S\d{3}/.test(l)).map((l) => /S\d{3}/.exec(l)[0]), ['S002']);
    await page.waitForFunction((n) => document.querySelectorAll('.monaco-diff-editor .editor.modified .line-insert').length === n, expected.length, { timeout: 30_000 });
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `review-diff-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
    // The plan editor (opened from the diff's plan side): what changed since, each comment revised or not.
    await runCommand(page, 'Pi Plans: Open Preview');
    const view = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await view.locator('li.step[data-step="S002"] .badge.since.changed').waitFor({ timeout: 20_000 });
    assert.equal(await view.locator('li.step .badge.since').count(), 1, 'one step changed since the review');
    await view.locator('.review-comments li.addressed[data-anchor="S002"]').waitFor({ timeout: 20_000 });
    assert.equal(await view.locator('.review-comments li.unaddressed[data-anchor="S003"]').count(), 1);
    assert.equal(await view.locator('.review-comments li.unaddressed[data-anchor="Risks"]').count(), 1);
    if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `review-since-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
    // Its "Compare with vN" button brings the diff back to the front.
    await view.getByRole('button', { name: `Compare with v${reviewedVersion}` }).click();
    await page.locator('.tab.active', { hasText: `${id}: v${reviewedVersion} (reviewed) ↔ now` }).waitFor({ timeout: 20_000 });
    // Approved (from the diff's plan side, confirmed in the modal): the agent's waiting submit says
    // which comments it left untouched.
    await modified.locator('.view-lines').click();
    await runCommand(page, 'Pi Plans: Approve Plan');
    const version = Number(/^version: (\d+)$/m.exec(now)[1]);
    await page.locator('.monaco-dialog-box', { hasText: `at version ${version}` }).getByRole('button', { name: 'Approve' }).click();
    const said = await until('the approval in the agent\'s result', () => fs.readFileSync(transcript, 'utf8').includes(`Approved by Ana at v${version}.`) && fs.readFileSync(transcript, 'utf8'));
    assert.match(said, /Not changed since the rejection \(the reviewer may ask again\):\n- S003 "Test the route: 200, JSON body, no auth needed": Also test a HEAD request\./);
  });

  it('keeps a draft across a window reload (workspace state), on the step it was written on', async () => {
    // The agent executes the approved plan (its notes add lines): comment once its run has ended,
    // so the line under the mouse is the line the comment is meant for.
    await until('the agent\'s run of the plan ended', () => /^status: completed$/m.test(text()));
    // The plan editor's "Open as Text" (the plan editor is in front since the approval).
    await runCommand(page, 'Pi Plans: Open Preview');
    const view = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await view.getByRole('button', { name: 'Open as Text' }).click();
    // The text editor keeps where it was last scrolled (the diff's side): back to the top, where the steps are.
    await toTop();
    await showsOnDisk(file());
    await page.locator('.editor-instance .view-line', { hasText: 'S004 Run the test suite' }).filter({ visible: true }).first().waitFor({ timeout: 20_000 });
    await commentOn('S004 Run the test suite', 'Run the linter too.');
    // VS Code's own reload (its shutdown writes the state out, as a person's reload does).
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForEvent('load', { timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.tab', { hasText: `${id}.md` }).first().waitFor({ timeout: 60_000 });
    // Back in the plan's text, opened as a person would from Quick Open (plans open as text in this
    // test's settings); the palette's plan commands depend on which editor the reload restored first.
    await runCommand(page, 'Go to File...');
    await page.keyboard.type(`${id}.md`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: `${id}.md` }).first().click();
    await toTop();
    const thread = page.locator('.review-widget', { has: page.locator('.comment-body', { hasText: 'Run the linter too.' }) }).first();
    await thread.waitFor({ timeout: 30_000 });
    // Its label (a property of its own, drawn when it arrives): on the step it was written on, still a draft.
    await thread.filter({ hasText: /S004 · draft/ }).waitFor({ timeout: 10_000 });
  });

  // A plan of the test's own (proposed, no agent waits on it), for the comment widget's own actions.
  const own = 'PLAN-0e2e0a60';
  const ownFile = () => path.join(ws, '.pi', 'plans', `${own}.md`);
  let ownText;

  it('replies to a draft thread, edits a comment with its Edit action, deletes the reply and a thread; nothing is written to the plan', async () => {
    ownText = `---\nid: ${own}\ntitle: "Backfill the orders table"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-23T10:00:00.000Z\nupdated_at: 2026-11-23T10:00:00.000Z\n---\n\n## Goal\nEvery order has a region.\n\n## Steps\n1. [ ] S001 Add the region column\n2. [ ] S002 Backfill the region of old orders\n3. [ ] S003 Drop the legacy country column\n\n## Verification\n- every order has a region\n`;
    fs.writeFileSync(ownFile(), ownText);
    const unchanged = (when) => assert.equal(fs.readFileSync(ownFile(), 'utf8'), ownText, `nothing is written to the plan ${when}`);
    // Its text, from the Plans view (plans open as text in this test's settings; Quick Open's
    // file list may not know a file this new yet).
    // (Focused by its command: a click on the activity bar's icon would hide the view if it is the one shown.)
    await runCommand(page, 'Pi Plans: Focus on Plans View');
    await page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).getByRole('treeitem', { name: /^Backfill the orders table/ }).first().click();
    await page.locator('.tab.active', { hasText: `${own}.md` }).waitFor({ timeout: 20_000 });
    await toTop();
    await showsOnDisk(ownFile());
    await commentOn('S002 Backfill the region', 'Backfill in batches.');
    const thread = page.locator('.review-widget').filter({ visible: true }).filter({ hasText: /S002 · draft/ }).first();
    await thread.waitFor({ timeout: 20_000 });
    const comments = thread.locator('.review-comment');
    // Reply: the thread's reply box, then its "Add Comment".
    await thread.locator('.review-thread-reply-button').click();
    await thread.locator('.monaco-editor.focused').waitFor({ timeout: 10_000 });
    await page.keyboard.type('And log the progress.');
    await thread.locator('.monaco-button', { hasText: 'Add Comment' }).click();
    await thread.locator('.review-comment .comment-body', { hasText: 'And log the progress.' }).waitFor({ timeout: 10_000 });
    assert.equal(await comments.count(), 2, 'the reply is the thread\'s second comment');
    assert.match(await comments.nth(0).innerText(), /Backfill in batches\./, 'the first comment stays first');
    unchanged('after a reply');
    // Edit the first comment: its "Edit Comment" action (shown on hover), new text, Save.
    const first = comments.nth(0);
    await first.hover();
    await first.locator('.comment-actions .action-label[aria-label="Edit Comment"]').click();
    const edit = first.locator('.edit-container');
    await edit.locator('.monaco-editor').waitFor({ timeout: 10_000 });
    await edit.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Backfill in batches of 1000 rows.');
    await edit.locator('.monaco-button', { hasText: 'Save' }).click();
    await edit.waitFor({ state: 'detached', timeout: 10_000 });
    await first.locator('.comment-body', { hasText: 'Backfill in batches of 1000 rows.' }).waitFor({ timeout: 10_000 });
    assert.equal(await comments.count(), 2);
    assert.doesNotMatch(await thread.innerText(), /Backfill in batches\.(?! of)/, 'the old text is gone');
    unchanged('after an edit');
    // Delete the reply: its "Delete Comment" action; the thread keeps the edited comment.
    const reply = comments.filter({ hasText: 'And log the progress.' });
    await reply.hover();
    await reply.locator('.comment-actions .action-label[aria-label="Delete Comment"]').click();
    await reply.waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await comments.count(), 1, 'one comment left in the thread');
    assert.match(await comments.first().innerText(), /Backfill in batches of 1000 rows\./);
    unchanged('after deleting a comment');
    // A second thread, deleted whole with the thread's "Delete Thread" action.
    await commentOn('S003 Drop the legacy', 'Keep the country column one more release.');
    const other = page.locator('.review-widget').filter({ visible: true }).filter({ hasText: /S003 · draft/ }).first();
    await other.waitFor({ timeout: 20_000 });
    await other.locator('.head .action-label[aria-label="Delete Thread"]').click();
    await page.locator('.review-widget .comment-body', { hasText: 'Keep the country column one more release.' }).waitFor({ state: 'detached', timeout: 10_000 });
    await thread.waitFor({ timeout: 10_000 });
    unchanged('after deleting a thread');
    assert.equal(fs.existsSync(path.join(ws, '.pi', 'plans', 'reviews', own)), false, 'no reviewed version kept before a submission');
  });

  it('"Reject…" sends the edited comment as it was saved, and neither the deleted reply nor the deleted thread', async () => {
    await page.locator('.tab', { hasText: `${own}.md` }).first().click();
    await page.locator('.tab.active', { hasText: `${own}.md` }).waitFor({ timeout: 20_000 });
    // The click focuses the plan's editor only once the workbench has opened it again, a moment
    // later: under load, F1 pressed before that opened the palette, and the editor's focus closed
    // it 90 ms after (a focus log of a failed run: F1, palette focused, palette blurred, editor focused).
    await page.locator('.part.editor .monaco-editor.focused', { hasText: 'Every order has a region.' }).waitFor({ timeout: 20_000 });
    await runCommand(page, 'Pi Plans: Reject Plan…');
    // One thread left in the draft, with one comment.
    await page.locator('.quick-input-widget', { hasText: 'with 1 comment' }).waitFor({ timeout: 20_000 });
    await page.locator('.quick-input-widget input').fill('One thing.');
    await page.keyboard.press('Enter');
    const rejected = await until('the rejection of the test\'s plan on disk', () => {
      const t = fs.readFileSync(ownFile(), 'utf8');
      return t.includes('## Rejection (v1)') && t;
    });
    assert.match(rejected, /## Rejection \(v1\)\nOne thing\.\n\n- S002: Backfill in batches of 1000 rows\.\n/);
    assert.doesNotMatch(rejected, /And log the progress|Keep the country column|Backfill in batches\.\n/, 'only the edited comment went with the review');
    // The sent draft is gone from the editor.
    await page.locator('.review-widget .comment-body', { hasText: 'Backfill in batches of 1000 rows.' }).waitFor({ state: 'detached', timeout: 20_000 });
  });
});
