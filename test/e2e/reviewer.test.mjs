// The reviewer's side in the real VS Code (code-server + Debian chromium, the .vsix installed):
// the plan explorer, the CodeLens, Problems and the file badges, clicked as a person would.
// `npm run screenshots` also writes the README's pictures of them (light and dark).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../harness/codeServer.mjs';
import { closeWorkbench, keepFailureShot, runCommand } from '../harness/workbench.mjs';
import { freshMultiRoot, freshWorkspace } from '../harness/fixtures.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const VSIX = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;

async function picture(page, name, clip) {
  if (!PICTURES) return;
  fs.mkdirSync(PICTURES, { recursive: true });
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  await page.screenshot({ path: path.join(PICTURES, `${name}-${process.env.PI_PLANS_THEME ?? 'dark'}.png`), clip });
}

/** A group row's screen-reader label: "Drafts: 1 plan", "Awaiting review: 2 plans". */
const groupName = (label, count) => `${label}: ${count === 1 ? '1 plan' : `${count} plans`}`;

const plan = (id, title, status, version, body = '## Goal\nG\n\n## Steps\n1. [ ] S001 a\n') =>
  `---\nid: ${id}\ntitle: "${title}"\nstatus: ${status}\nversion: ${version}\ncreated_at: 2026-11-23T10:00:00.000Z\nupdated_at: 2026-11-23T10:00:00.000Z\n---\n\n${body}`;

describe('the reviewer side: plan explorer, CodeLens, Problems (code-server + chromium)', function () {
  this.timeout(180_000);
  let ws;
  let server;
  let browser;
  let page;
  const plansDir = () => path.join(ws, '.pi/plans');
  /** The explorer's tree rows. */
  const tree = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).locator('.monaco-list').first();
  const row = (name) => tree().getByRole('treeitem', { name });
  /** The group row's text, e.g. "Awaiting review2". */
  const group = (label, count) => tree().getByRole('treeitem', { name: groupName(label, count) });
  /** Waits until the activity bar's badge says `n` plans await review (no badge for none), in real plural forms. */
  const waitBadge = (n) =>
    n ? page.locator(`.activitybar a[aria-label="Pi Plans - ${n === 1 ? '1 plan' : `${n} plans`} awaiting your review"]`).waitFor({ timeout: 20_000 }) : page.locator('.activitybar a[aria-label="Pi Plans"]').waitFor({ timeout: 20_000 });
  /** The explorer's first-level rows (groups), by their screen-reader labels. */
  const topRows = () => tree().getByRole('treeitem').evaluateAll((rows) => rows.filter((r) => r.getAttribute('aria-level') === '1').map((r) => r.getAttribute('aria-label')));
  /** Waits (up to 20 s) until the explorer's groups are `expected`; fails naming what it showed. */
  const waitTopRows = async (expected) => {
    await page
      .waitForFunction(
        (want) => {
          const pane = [...document.querySelectorAll('.pane')].find((p) => /Plans/.test(p.querySelector('.pane-header')?.textContent ?? ''));
          const rows = [...(pane?.querySelector('.monaco-list')?.querySelectorAll('[role="treeitem"][aria-level="1"]') ?? [])];
          return JSON.stringify(rows.map((r) => r.getAttribute('aria-label'))) === want;
        },
        JSON.stringify(expected),
        { timeout: 20_000 },
      )
      .catch(() => undefined); // the assertion below names what was shown instead
    assert.deepEqual(await topRows(), expected);
  };
  /**
   * The plan rows (or, `level` 3, the step rows) as drawn: the screen-reader label, the icon's
   * codicon, whether the icon lies in the side bar, the label and description as given, and the
   * label's text up to where the row cuts it (the characters left of the label's clip, less the ellipsis).
   */
  const planRows = (level = 2) =>
    tree()
      .locator(`[role="treeitem"][aria-level="${level}"]`)
      .evaluateAll((rows) => {
        const side = document.querySelector('.part.sidebar').getBoundingClientRect();
        return rows.map((r) => {
          const name = r.querySelector('.label-name');
          const clip = (name.closest('.monaco-icon-label-container') ?? name).getBoundingClientRect();
          const right = Math.min(clip.right, side.right) - 12;
          const range = document.createRange();
          let visible = '';
          const walker = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
          outer: for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.data.length; i++) {
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              if (range.getBoundingClientRect().right > right) break outer;
              visible += node.data[i];
            }
          }
          const icon = r.querySelector('.custom-view-tree-node-item-icon');
          const box = icon?.getBoundingClientRect();
          return {
            aria: r.getAttribute('aria-label'),
            icon: [...(icon?.classList ?? [])].find((c) => c.startsWith('codicon-') && c !== 'codicon-colored'),
            iconInside: !!box && box.width > 0 && box.left >= side.left && box.right <= side.right,
            label: name.textContent,
            description: r.querySelector('.label-description')?.textContent ?? '',
            visible,
          };
        });
      });
  /** Drags the side bar's edge until it is `px` wide (VS Code's default is about that already). */
  const sideBarWidth = async (px) => {
    const bar = page.locator('.part.sidebar');
    for (let i = 0; i < 4; i++) {
      const box = await bar.boundingBox();
      if (Math.abs(box.width - px) <= 1) return;
      const sash = await page.evaluate((edge) => {
        const s = [...document.querySelectorAll('.monaco-sash.vertical')].map((e) => e.getBoundingClientRect()).find((b) => b.width > 0 && Math.abs(b.left + b.width / 2 - edge) <= 4);
        return s && { x: s.left + s.width / 2, y: s.top + s.height / 2 };
      }, box.x + box.width);
      assert.ok(sash, 'the side bar\'s sash');
      await page.mouse.move(sash.x, sash.y);
      await page.mouse.down();
      await page.mouse.move(sash.x + (px - box.width), sash.y, { steps: 5 });
      await page.mouse.up();
    }
    assert.ok(Math.abs((await bar.boundingBox()).width - px) <= 1, `the side bar is ${px} px wide`);
  };
  /** The text editor's lines (not the chat input's). */
  const editorLines = () => page.locator('.part.editor .monaco-editor .view-lines').first();

  before(async () => {
    if (!fs.existsSync(VSIX)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
    ws = freshWorkspace('reviewer');
    // The sample's stalled plan would greet every window with a notification: the tests want the tree unobstructed.
    // VS Code in a browser saves after a delay by default; the desktop default (off) lets a buffer stay unsaved.
    server = await startCodeServer({ vsix: VSIX, settings: { 'piPlans.notifications.stalled': false, 'editor.wordWrap': 'off', 'files.autoSave': 'off', 'piPlans.editor.openPlansIn': 'text' } });
    browser = await startBrowser();
    page = browser.page;
    await page.goto(server.url(ws));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: '6 plans, 2 to review, 1 stalled' }).waitFor({ timeout: 60_000 });
  });
  after(() => closeWorkbench({ browser, server, folder: ws }));
  afterEach(async function () {
    await keepFailureShot(this.currentTest, page, 'reviewer');
    // Whatever a test left open (a menu, an input, a dialog) is closed before the next.
    await page?.keyboard.press('Escape').catch(() => undefined);
  });

  it('groups the sample workspace the way a reviewer needs it, with the number awaiting review on the activity bar', async () => {
    await page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Pi Plans"]') }).click();
    await group('Awaiting review', 2).waitFor({ timeout: 20_000 });
    await waitBadge(2);
    assert.deepEqual(await topRows(), ['Awaiting review: 2 plans', 'Stalled: 1 plan', 'Drafts: 1 plan', 'Rejected: 1 plan', 'Finished: 1 plan']);
    // Each plan reads well in a screen reader: title, status, progress, when, id.
    await row(/^Add rate limiting to the public API, executing \(stalled\), 2 of 5 steps done, updated .+, PLAN-3f9a1c2e$/).waitFor();
    // Finished plans are one collapsed group.
    assert.equal(await group('Finished', 1).getAttribute('aria-expanded'), 'false');
    // A plan's steps load when it is expanded, with their status.
    await row(/^Add rate limiting/).locator('.monaco-tl-twistie').click();
    await row(/^Step S001, done: Add a token-bucket limiter module; note: bucket.ts added with 6 tests/).waitFor({ timeout: 10_000 });
    await row(/^Step S003, in progress: Return 429/).waitFor();
    await picture(page, 'explorer', { x: 0, y: 0, width: 700, height: 420 });
    await row(/^Add rate limiting/).locator('.monaco-tl-twistie').click();
  });

  it('reads well at the default side bar width (300 px): each row\'s label is whole (the title, cut at a word when it is longer), its progress and the rest in the description; plan work on a proposal is a mark, not the play icon', async () => {
    await sideBarWidth(300);
    // Plan work on a proposal (as an agent's pi_plan_create starts it): "active" in words, its status icon kept.
    await runCommand(page, 'Pi Plans: Start Work on a Plan…');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Migrate the settings page' }).first().click();
    await row(/^Migrate the settings page to the new form components, proposed \(active\)/).waitFor({ timeout: 20_000 });
    try {
      // A long title of the explorer's own (and the demo agent's title, which fits).
      fs.writeFileSync(path.join(plansDir(), 'PLAN-0e2e0300.md'), plan('PLAN-0e2e0300', 'Add a health-check endpoint', 'draft', 1, '## Goal\nG\n\n## Steps\n1. [ ] S001 Add a /healthz route that answers 200 with the build version and the commit it was built from\n2. [ ] S002 Return 429 with a Retry-After header\n'));
      fs.writeFileSync(path.join(plansDir(), 'PLAN-0e2e0301.md'), plan('PLAN-0e2e0301', 'Backfill the invoices table from the 2019–2024 exports, in batches of 10000 rows', 'draft', 1));
      await row(/^Backfill the invoices table from the 2019–2024 exports, in batches of 10000 rows, draft/).waitFor({ timeout: 20_000 });
      // The rows at rest, but for the one selected (a draft opened from its row): it shows its inline button (Start plan work).
      await row(/^Speed up the CI pipeline, draft/).locator('.label-name').click();
      await page.locator('.tab', { hasText: 'PLAN-a04c9d13.md' }).waitFor({ timeout: 10_000 });
      await page.mouse.move(900, 600);
      await row(/^Speed up the CI pipeline, draft/).locator('.actions .action-item').first().waitFor({ timeout: 10_000 });
      const rows = await planRows();
      const byTitle = (t) => rows.find((r) => r.aria.startsWith(t)) ?? assert.fail(`no row ${t} in ${JSON.stringify(rows)}`);
      // The icon of its status first.
      assert.deepEqual(
        ['Migrate the settings page', 'Send invoice reminder', 'Add rate limiting', 'Speed up the CI pipeline', 'Rename the User model'].map((t) => [t, byTitle(t).icon]),
        [
          ['Migrate the settings page', 'codicon-eye'],
          ['Send invoice reminder', 'codicon-eye'],
          ['Add rate limiting', 'codicon-debug-pause'],
          ['Speed up the CI pipeline', 'codicon-edit'],
          ['Rename the User model', 'codicon-circle-slash'],
        ],
      );
      for (const r of rows) {
        assert.ok(r.iconInside, `${r.aria}: the icon is inside the side bar`);
        // The label is shown whole: nothing of it past the row's edge.
        assert.equal(r.visible, r.label, `${r.aria}: its label "${r.label}" is cut by the row at "${r.visible}"`);
        // It is the title, or the title's start up to a whole word and "…": never cut inside a word.
        const title = /^(.*?), (draft|proposed|executing|approved|rejected|completed)/.exec(r.aria)[1];
        assert.ok(r.label === title || (r.label.endsWith('…') && new RegExp(`^${r.label.slice(0, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\s,;:–—-]`).test(title)), `${r.aria}: label "${r.label}"`);
        // Progress, marks, age and id follow in the description.
        assert.match(r.description, /^\d+\/\d+ · /, `${r.aria}: "${r.description}"`);
      }
      assert.equal(byTitle('Add a health-check endpoint').label, 'Add a health-check endpoint');
      assert.equal(byTitle('Backfill the invoices table').label, 'Backfill the invoices table…');
      assert.match(byTitle('Add rate limiting').description, /^2\/5 · stalled · /);
      assert.match(byTitle('Migrate the settings page').description, /^0\/3 · active · /);
      // The steps' rows too: the id, then the text up to a whole word.
      await row(/^Add a health-check endpoint, draft/).locator('.monaco-tl-twistie').click();
      await row(/^Step S002, pending: Return 429 with a Retry-After header/).waitFor({ timeout: 10_000 });
      await page.mouse.move(900, 600);
      const steps = await planRows(3);
      assert.deepEqual(steps.map((r) => r.label), ['S001 Add a /healthz route…', 'S002 Return 429…']);
      for (const r of steps) assert.equal(r.visible, r.label, `${r.aria}: its label is cut by the row at "${r.visible}"`);
      await row(/^Add a health-check endpoint, draft/).locator('.monaco-tl-twistie').click();
      await runCommand(page, 'View: Close All Editors');
    } finally {
      // Put things back for the next tests (a failure here never hides the test's own).
      for (const f of ['PLAN-0e2e0300.md', 'PLAN-0e2e0301.md']) fs.rmSync(path.join(plansDir(), f), { force: true });
      await page.keyboard.press('Escape');
      await runCommand(page, 'Pi Plans: End Plan Work').catch(() => undefined);
      await row(/^Migrate the settings page to the new form components, proposed, /).waitFor({ timeout: 20_000 }).catch(() => undefined);
      await page.locator('.statusbar-item', { hasText: '6 plans, 2 to review, 1 stalled' }).waitFor({ timeout: 20_000 }).catch(() => undefined);
    }
  });

  it('a step\'s tooltip is plain words that wrap between words: no number split over two lines', async () => {
    const id = 'PLAN-0e2e0302';
    // A long step whose words are mostly numbers, so a line break anywhere inside a word would split one.
    const text = 'Return 429 for 101 requests in 60 s per key; 1000 in 3600 s per account; 20000 in 86400 s per org; log 4290 4291 4292 4293 4294 4295 4296 4297 4298 4299 42910 42911 42912 42913 42914 42915 and 99 more';
    fs.writeFileSync(path.join(plansDir(), `${id}.md`), plan(id, 'Limits in numbers', 'draft', 1, `## Goal\nG\n\n## Steps\n1. [ ] S001 ${text}\n`));
    try {
      const planRow = row(/^Limits in numbers, draft/);
      await planRow.waitFor({ timeout: 20_000 });
      await planRow.locator('.monaco-tl-twistie').click();
      const stepRow = row(/^Step S001, pending: Return 429/);
      await stepRow.waitFor({ timeout: 10_000 });
      await stepRow.hover();
      const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: '42915' }).first();
      await tip.waitFor({ timeout: 20_000 });
      const lines = await tip.evaluate((h) => {
        // Each number's line boxes, and the characters between the words.
        const out = { split: [], wrapped: 0, spaces: 0, nbsp: 0 };
        const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
        const tops = new Set();
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (const m of n.data.matchAll(/\d+/g)) {
            const r = document.createRange();
            r.setStart(n, m.index);
            r.setEnd(n, m.index + m[0].length);
            const rows = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
            if (rows.size > 1) out.split.push(m[0]);
            for (const t of rows) tops.add(t);
          }
          out.spaces += (n.data.match(/ /g) ?? []).length;
          out.nbsp += (n.data.match(/\u00a0/g) ?? []).length;
        }
        out.wrapped = tops.size;
        return out;
      });
      assert.ok(lines.wrapped > 2, `the step's text wraps in the tooltip (${JSON.stringify(lines)})`);
      assert.deepEqual(lines.split, [], 'no number is split over two lines');
      assert.ok(lines.spaces > lines.nbsp, `words are separated by spaces a line may break at (${JSON.stringify(lines)})`);
      await page.mouse.move(900, 600);
      await planRow.locator('.monaco-tl-twistie').click();
    } finally {
      fs.rmSync(path.join(plansDir(), `${id}.md`), { force: true });
    }
  });

  it('selects the row of the plan open in the editor, badges plan files, and shows a tooltip read from the file', async () => {
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('PLAN-a04c9d13.md');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PLAN-a04c9d13.md' }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'PLAN-a04c9d13.md' }).waitFor({ timeout: 10_000 });
    // openPlansIn is "text": Quick Open, which is VS Code's and not ours, opens the text editor too,
    // through the association the extension wrote into the user's settings.
    await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'Speed up the CI pipeline' }).waitFor({ timeout: 10_000 });
    const user = JSON.parse(fs.readFileSync(path.join(server.dirs.userData, 'User', 'settings.json'), 'utf8'));
    assert.deepEqual(user['workbench.editorAssociations'], { '**/.pi/plans/PLAN-*.md': 'default' });
    const draft = row(/^Speed up the CI pipeline/);
    await draft.and(page.locator('[aria-selected="true"]')).waitFor({ timeout: 10_000 });
    assert.equal(await draft.getAttribute('aria-selected'), 'true', 'the row follows the active editor');
    // A proposal's file carries the "to review" badge (R) in its tab (and the file explorer); its
    // row here carries none (its icon says it, and the label keeps the room).
    // (VS Code draws a decoration's letter as the label's ::after content.)
    const rowLetters = await row(/^Migrate the settings page/).locator('.monaco-icon-label').evaluateAll((els) => els.map((e) => getComputedStyle(e, '::after').content).join(' '));
    assert.doesNotMatch(rowLetters, /"R"/, rowLetters);
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('PLAN-7b2d4e61.md');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PLAN-7b2d4e61.md' }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const tab = page.locator('.tab', { hasText: 'PLAN-7b2d4e61.md' });
    await tab.waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => [...document.querySelectorAll('.tab')].some((t) => /PLAN-7b2d4e61/.test(t.textContent) && [...t.querySelectorAll('.monaco-icon-label')].some((e) => /"R"/.test(getComputedStyle(e, '::after').content))), undefined, { timeout: 10_000 });
    await page.keyboard.press('Control+W');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
    await row(/^Add rate limiting/).hover();
    const tip = page.locator('.monaco-hover, .workbench-hover', { hasText: 'Protect the public API from bursts' }).first();
    await tip.waitFor({ timeout: 20_000 });
    assert.match(await tip.innerText(), /Approved\sby\sSam\s\(sample\sreviewer\)\sat\sv2/); // (the hover may keep spaces as no-break spaces)
    await page.mouse.move(900, 600);
  });

  it('follows outside writes: a plan created, changed and deleted; a git checkout of many plans lands in one update', async () => {
    const file = path.join(plansDir(), 'PLAN-0e2e0001.md');
    fs.writeFileSync(file, plan('PLAN-0e2e0001', 'Written by another agent', 'proposed', 1));
    await group('Awaiting review', 3).waitFor({ timeout: 20_000 });
    await row(/^Written by another agent, proposed/).waitFor();
    // Proposed from outside this window: a notification offers the review.
    const toast = page.locator('.notification-toast', { hasText: 'PLAN-0e2e0001 "Written by another agent" awaits your review' });
    await toast.waitFor({ timeout: 20_000 });
    for (const b of ['Open', 'Approve', 'Reject…']) assert.equal(await toast.getByRole('button', { name: b }).count(), 1, b);
    await toast.getByRole('button', { name: 'Open' }).click();
    await page.locator('.tab', { hasText: 'PLAN-0e2e0001.md' }).waitFor({ timeout: 10_000 });
    await waitBadge(3);
    fs.writeFileSync(file, plan('PLAN-0e2e0001', 'Renamed by another agent', 'proposed', 2));
    await row(/^Renamed by another agent, proposed/).waitFor({ timeout: 20_000 });
    fs.rmSync(file);
    await group('Awaiting review', 2).waitFor({ timeout: 20_000 });
    assert.equal(await row(/Renamed by another agent/).count(), 0);

    // A branch that adds 20 proposals: checking it out and back, the group goes 2 -> 22 -> 2 with nothing between.
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const git = (cwd, ...a) => execFileSync('git', a, { cwd, stdio: 'pipe', env });
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'plans');
    // The branch is made in a clone, so this folder's files change only with the checkouts below.
    const clone = fs.mkdtempSync(path.join(path.dirname(ws), 'pi-plans-clone-'));
    try {
      git(path.dirname(clone), 'clone', '-q', ws, clone);
      git(clone, 'checkout', '-q', '-b', 'many');
      for (let i = 0; i < 20; i++) {
        const id = `PLAN-0e2e1${String(i).padStart(3, '0')}`;
        fs.writeFileSync(path.join(clone, '.pi/plans', `${id}.md`), plan(id, `Branch plan ${i}`, 'proposed', 1));
      }
      git(clone, 'add', '.');
      git(clone, 'commit', '-q', '-m', 'many plans');
      git(ws, 'fetch', '-q', clone, 'many:many');
    } finally {
      fs.rmSync(clone, { recursive: true, force: true });
    }
    await group('Awaiting review', 2).waitFor({ timeout: 20_000 });
    await page.evaluate(() => {
      window.__reviewCounts = [];
      const seen = () => {
        const label = [...document.querySelectorAll('[role="treeitem"][aria-level="1"]')].map((r) => r.getAttribute('aria-label')).find((l) => l?.startsWith('Awaiting review'));
        if (label && window.__reviewCounts.at(-1) !== label) window.__reviewCounts.push(label);
      };
      window.__reviewObserver = new MutationObserver(seen);
      window.__reviewObserver.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
      seen();
    });
    git(ws, 'checkout', '-q', 'many');
    await group('Awaiting review', 22).waitFor({ timeout: 20_000 });
    git(ws, 'checkout', '-q', 'main');
    await group('Awaiting review', 2).waitFor({ timeout: 20_000 });
    const counts = await page.evaluate(() => (window.__reviewObserver.disconnect(), window.__reviewCounts));
    assert.deepEqual(counts, ['Awaiting review: 2 plans', 'Awaiting review: 22 plans', 'Awaiting review: 2 plans']);
  });

  it('approves through the CodeLens (clicked): the file, the tree, the badge and the CodeLens agree', async () => {
    const file = path.join(plansDir(), 'PLAN-7b2d4e61.md');
    await row(/^Migrate the settings page/).click();
    await page.locator('.tab', { hasText: 'PLAN-7b2d4e61.md' }).waitFor({ timeout: 10_000 });
    const lens = page.locator('.contentWidgets .codelens-decoration').first();
    await lens.locator('a', { hasText: 'Approve' }).waitFor({ timeout: 20_000 });
    assert.match(await lens.innerText(), /proposed · v2 · 0\/3/);
    // The injection grammar colours a step id apart from the step's text (the theme's colours).
    const colour = (text) => editorLines().locator('span > span', { hasText: text }).first().evaluate((e) => getComputedStyle(e).color);
    assert.notEqual(await colour(/^S001$/), await colour(/Inventory/));
    await picture(page, 'codelens', { x: 0, y: 0, width: 1100, height: 360 });
    await lens.locator('a', { hasText: 'Approve' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert.match(await dialog.innerText(), /Approve PLAN-7b2d4e61 "Migrate the settings page to the new form components" at version 2\?/);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await lens.locator('a', { hasText: 'Execute in Copilot' }).waitFor({ timeout: 20_000 });
    assert.match(await lens.innerText(), /approved · v3/);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /status: approved/);
    assert.match(text, /version: 3/);
    assert.match(text, /approved_version: 2/);
    await group('Awaiting review', 1).waitFor({ timeout: 20_000 });
    await group('Approved', 1).waitFor();
    await waitBadge(1);
    await page.locator('.statusbar-item', { hasText: '6 plans, 1 to review, 1 stalled' }).waitFor({ timeout: 20_000 });
  });

  it('offers "Save to approve" on an unsaved plan and approves nothing', async () => {
    const file = path.join(plansDir(), 'PLAN-19ab77c0.md');
    const before = fs.readFileSync(file, 'utf8');
    await row(/^Send invoice reminder/).click();
    await page.locator('.tab', { hasText: 'PLAN-19ab77c0.md' }).waitFor({ timeout: 10_000 });
    const lens = page.locator('.contentWidgets .codelens-decoration').first();
    await lens.locator('a', { hasText: 'Approve' }).waitFor({ timeout: 20_000 });
    await editorLines().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nA line typed but not saved.');
    await lens.locator('a', { hasText: 'Save to approve' }).waitFor({ timeout: 20_000 });
    assert.equal(await lens.locator('a', { hasText: /^Approve$/ }).count(), 0);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing written');
    // Undo the typing: the buffer is clean again and Approve comes back.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>File: Revert File');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Revert File' }).first().click();
    await lens.locator('a', { hasText: /^Approve$/ }).waitFor({ timeout: 20_000 });
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  it('rejects from the tree with feedback: the rejection section is written, the plan moves to Rejected', async () => {
    const file = path.join(plansDir(), 'PLAN-19ab77c0.md');
    const r = row(/^Send invoice reminder/);
    await r.hover();
    await r.locator('.action-label[aria-label="Reject Plan…"]').click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill('Ask before emailing a customer: add an approval step');
    await page.keyboard.press('Enter');
    await group('Rejected', 2).waitFor({ timeout: 20_000 });
    await group('Awaiting review', 0).waitFor({ state: 'detached', timeout: 20_000 });
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /status: rejected/);
    assert.match(text, /## Rejection \(v1\)\nAsk before emailing a customer: add an approval step\n/);
    await waitBadge(0);
  });

  it('puts a broken plan in Problems and in the explorer\'s invalid group; its row opens the broken line', async () => {
    fs.writeFileSync(path.join(plansDir(), 'PLAN-0bad0bad.md'), '---\nid: PLAN-0bad0bad\ntitle: "Broken"\nstatus: proposed\nversion: "3"\ncreated_at: 2026-11-23T10:00:00.000Z\nupdated_at: 2026-11-23T10:00:00.000Z\n---\n\n## Goal\nG\n');
    await group('Invalid files', 1).waitFor({ timeout: 20_000 });
    const bad = row(/^Invalid plan file PLAN-0bad0bad\.md: line 5: /);
    await bad.waitFor();
    await bad.click();
    await page.locator('.tab', { hasText: 'PLAN-0bad0bad.md' }).waitFor({ timeout: 10_000 });
    await page.locator('.statusbar-item', { hasText: 'Ln 5, Col 1' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>View: Focus Problems');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Focus Problems' }).first().click();
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: /version/ }).first();
    await problem.waitFor({ timeout: 20_000 });
    assert.match(await problem.innerText(), /\[Ln 5, Col 1\]/);
    await picture(page, 'problems');
  });

  it('keyboard only: reaches the explorer, walks to a proposal and approves it', async () => {
    fs.writeFileSync(path.join(plansDir(), 'PLAN-0e2e0002.md'), plan('PLAN-0e2e0002', 'Approve me from the keyboard', 'proposed', 1));
    await group('Awaiting review', 1).waitFor({ timeout: 20_000 });
    await runCommand(page, 'Pi Plans: Focus on Plans View');
    // Home: the first group ("Awaiting review"); then down the rows to the proposal.
    await page.keyboard.press('Home');
    const focused = tree().locator('.monaco-list-row.focused');
    await focused.waitFor({ timeout: 10_000 });
    for (let i = 0; i < 10 && !/^Approve me from the keyboard/.test((await focused.getAttribute('aria-label')) ?? ''); i++) await page.keyboard.press('ArrowDown');
    assert.match(await focused.getAttribute('aria-label'), /^Approve me from the keyboard, proposed/);
    await page.keyboard.press('Shift+F10');
    const menu = page.locator('.context-view .monaco-menu');
    await menu.waitFor({ timeout: 10_000 });
    // The menu offers what the transition table allows for a proposal, and nothing that runs it.
    const items = await menu.locator('.action-label').allInnerTexts();
    assert.ok(items.includes('Approve Plan') && items.includes('Reject Plan…'), items.join(' | '));
    assert.ok(!items.includes('Execute in Copilot') && !items.includes('Archive Plan'), items.join(' | '));
    for (let i = 0; i < items.length && !(await menu.locator('.action-item.focused', { hasText: 'Approve Plan' }).count()); i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert.match(await dialog.innerText(), /Approve PLAN-0e2e0002 "Approve me from the keyboard" at version 1\?/);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached', timeout: 20_000 });
    const text = fs.readFileSync(path.join(plansDir(), 'PLAN-0e2e0002.md'), 'utf8');
    await group('Approved', 2).waitFor({ timeout: 20_000 });
    assert.match(fs.readFileSync(path.join(plansDir(), 'PLAN-0e2e0002.md'), 'utf8'), /status: approved/, text);
  });

  it('withdraws an approval from the tree before execution starts: the plan is back in review', async () => {
    const file = path.join(plansDir(), 'PLAN-0e2e0002.md');
    const r = row(/^Approve me from the keyboard, approved/);
    await r.hover();
    await r.locator('.action-label[aria-label="Withdraw Approval"]').click();
    await row(/^Approve me from the keyboard, proposed/).waitFor({ timeout: 20_000 });
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /status: proposed/);
    assert.doesNotMatch(text, /approved_by/);
    await waitBadge(1);
  });

  it('filters the explorer by status, says so, and shows every plan again', async () => {
    await page.locator('.action-label[aria-label="Filter Plans by Status…"]:visible').first().click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10_000 });
    // Clicking a row of a multiple-choice pick ticks it; Enter (OK) applies the choice.
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'rejected' }).first().click();
    await page.locator('.quick-input-widget', { hasText: '1 Selected' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.locator('.pane-body', { hasText: 'Showing only: rejected' }).first().waitFor({ timeout: 10_000 });
    await waitTopRows(['Rejected: 2 plans']);
    await waitBadge(1); // the badge counts every plan awaiting review, filtered out or not
    await page.locator('.action-label[aria-label="Show All Plans"]:visible').first().click();
    await group('Awaiting review', 1).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.pane-body', { hasText: 'Showing only' }).count(), 0);
  });

  it('writes a new draft from the title bar: a title and a goal, then the file opens', async () => {
    await page.locator('.action-label[aria-label="New Plan…"]:visible').first().click();
    const input = page.locator('.quick-input-widget input');
    await input.fill('A plan made by hand');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'goal' }).waitFor({ timeout: 10_000 });
    await input.fill('Show that a person can start a plan too.');
    await page.keyboard.press('Enter');
    await row(/^A plan made by hand, draft/).waitFor({ timeout: 20_000 });
    const id = /PLAN-[0-9a-f]{8}$/.exec(await row(/^A plan made by hand, draft/).getAttribute('aria-label'))[0];
    await page.locator('.tab', { hasText: `${id}.md` }).waitFor({ timeout: 10_000 });
    assert.match(fs.readFileSync(path.join(plansDir(), `${id}.md`), 'utf8'), /## Goal\nShow that a person can start a plan too\./);
  });

  it('marks a step done from its CodeLens while the plan executes; the tree shows the progress', async () => {
    const file = path.join(plansDir(), 'PLAN-3f9a1c2e.md');
    await row(/^Add rate limiting/).click();
    await page.locator('.tab', { hasText: 'PLAN-3f9a1c2e.md' }).waitFor({ timeout: 10_000 });
    // CodeLens are drawn for visible lines only: room for the editor, then the steps in view.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>View: Hide Panel');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Hide Panel' }).first().click();
    await editorLines().click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':30');
    await page.keyboard.press('Enter');
    // The first open step with lenses is S003 (S001 and S002 are done).
    const s003 = page.locator('.contentWidgets .codelens-decoration', { hasText: 'Done' }).first();
    await s003.locator('a', { hasText: 'Done' }).waitFor({ timeout: 20_000 });
    await s003.locator('a', { hasText: 'Done' }).click();
    await row(/^Add rate limiting to the public API, executing.*, 3 of 5 steps done/).waitFor({ timeout: 20_000 });
    assert.match(fs.readFileSync(file, 'utf8'), /3\. \[x\] S003 Return 429/);
    // The new activity ends the stall: the plan moves to Executing (wait for it, so no later click lands on a row being redrawn).
    await group('Executing', 1).waitFor({ timeout: 20_000 });
    await row(/^Add rate limiting to the public API, executing, 3 of 5/).waitFor({ timeout: 20_000 });
  });

  it('"Execute in Copilot" hands the plan to the chat in agent mode with a prompt naming it and its tools', async () => {
    // The row's inline button: a mouse click on the context menu's item did not always register (the
    // menu stayed open with the item highlighted; seen twice in 8 runs); the keyboard test covers the menu.
    const r = row(/^Add rate limiting/);
    await r.hover();
    await r.locator('.action-label[aria-label="Execute in Copilot"]').click();
    // No Copilot is signed in here: what can be checked is the request the chat received.
    await page.locator('.interactive-session', { hasText: 'Execute the approved plan PLAN-3f9a1c2e' }).first().waitFor({ timeout: 20_000 });
    // ...and asks for a sign-in, which is as far as a machine without a Copilot account goes.
    const signIn = page.locator('.monaco-dialog-box', { hasText: 'Sign in to use GitHub Copilot' });
    await signIn.waitFor({ timeout: 20_000 });
    await signIn.locator('.dialog-close-action, .codicon-dialog-close').first().click();
    await signIn.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('archives a finished plan from its inline button: the file moves to .pi/plans/archive/, the group goes', async () => {
    const finished = group('Finished', 1);
    await finished.click();
    const done = tree().getByRole('treeitem', { name: /completed/ }).first();
    await done.waitFor({ timeout: 10_000 });
    const id = /PLAN-[0-9a-f]{8}$/.exec(await done.getAttribute('aria-label'))[0];
    await done.hover();
    await done.locator('.action-label[aria-label="Archive Plan"]').click();
    await finished.waitFor({ state: 'detached', timeout: 20_000 });
    assert.ok(fs.existsSync(path.join(plansDir(), 'archive', `${id}.md`)));
    assert.ok(!fs.existsSync(path.join(plansDir(), `${id}.md`)));
  });

  it('"Plan with Copilot" opens the chat in agent mode with the planning prompt to finish', async () => {
    await runCommand(page, 'Pi Plans: Plan with Copilot');
    await page.locator('.interactive-input-part .view-lines', { hasText: 'Make a plan for this task with the Pi Plans tools' }).waitFor({ timeout: 20_000 });
  });
});

describe('the plan explorer in a multi-root workspace (code-server + chromium)', function () {
  this.timeout(180_000);
  let multi;
  let server;
  let browser;
  after(() => closeWorkbench({ browser, server, folder: multi?.dir }));

  afterEach(async function () {
    await keepFailureShot(this.currentTest, browser?.page, 'reviewer-multi');
  });

  it('shows a level per workspace folder, each with its own groups', async () => {
    multi = freshMultiRoot('reviewer-multi');
    fs.writeFileSync(path.join(multi.dir, 'web/.pi/plans/PLAN-0e2e0003.md'), plan('PLAN-0e2e0003', 'A plan of the web folder', 'draft', 1));
    server = await startCodeServer({ vsix: VSIX, settings: { 'piPlans.notifications.stalled': false } });
    browser = await startBrowser();
    const page = browser.page;
    await page.goto(server.url(multi.file));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: /7 plans/ }).waitFor({ timeout: 60_000 });
    await page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Pi Plans"]') }).click();
    const tree = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) }).locator('.monaco-list').first();
    await tree.getByRole('treeitem', { name: 'web', exact: true }).waitFor({ timeout: 20_000 });
    const top = await tree.getByRole('treeitem').evaluateAll((rows) => rows.filter((r) => r.getAttribute('aria-level') === '1').map((r) => r.getAttribute('aria-label')));
    assert.deepEqual(top, ['api', 'web']);
    await tree.getByRole('treeitem', { name: /^A plan of the web folder, draft/ }).waitFor({ timeout: 20_000 });
    assert.equal(await tree.getByRole('treeitem', { name: 'Drafts: 1 plan' }).count(), 2, 'each folder has its Drafts group');
    assert.equal(await tree.getByRole('treeitem', { name: 'Awaiting review: 2 plans' }).count(), 1, 'the api folder keeps its own groups');
  });
});
