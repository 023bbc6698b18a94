// `npm run demo` as a newcomer meets it: the workbench opens on the sample agent's plan with the
// review waiting (no Welcome tab); rejecting makes the agent revise and resubmit, approving makes
// it execute to the end. And however the demo is stopped (SIGINT, SIGTERM, SIGHUP, its parent
// killed, or a signal during setup), nothing is left: no code-server process, no port, no temp folder.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, startBrowser } from '../harness/codeServer.mjs';

const DEMO = path.join(ROOT, 'scripts/demo.mjs');
const RESULTS = path.join(ROOT, 'test-results');
const PICTURES = process.env.PI_PLANS_SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : undefined;

/** Waits for a condition (never a fixed time); fails after `ms`. */
async function until(what, check, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The demos started here get a temp folder of their own, so what they leave behind is told apart
// from what other processes on the machine (a unit test run, another suite) create meanwhile.
const DEMO_TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-test-tmp-'));
after(() => fs.rmSync(DEMO_TMP, { recursive: true, force: true }));
const ourTemps = () => new Set(fs.readdirSync(DEMO_TMP).filter((n) => n.startsWith('pi-plans-')));
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const answers = (url) => fetch(url).then(
  (r) => r.ok,
  () => false,
);

/**
 * Every process that inherited the environment variable PI_PLANS_DEMO_TEST_MARK=`mark`: the demo
 * and all it started (setup steps, code-server, its extension hosts and language servers), wherever
 * they were re-parented to. Read from /proc.
 */
function marked(mark) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`PI_PLANS_DEMO_TEST_MARK=${mark}`)) out.push(Number(name));
    } catch {
      /* ended meanwhile, or not ours to read */
    }
  }
  return out;
}

/**
 * Starts the demo (or a parent that starts it) and waits until it printed its URL. Returns what
 * it printed: the URL, code-server's process group, the temp folders, and the process.
 */
async function startDemo({ via, env = {} } = {}) {
  const mark = randomUUID();
  const demoEnv = { ...process.env, PI_PLANS_DEMO_PORT: '0', PI_PLANS_DEMO_AUTOSTART: '0', PI_PLANS_DEMO_TEST_MARK: mark, TMPDIR: DEMO_TMP, ...env };
  const stdio = ['ignore', 'pipe', 'pipe'];
  const proc =
    via === 'node'
      ? spawn(process.execPath, ['-e', `require('child_process').spawn(process.execPath,[${JSON.stringify(DEMO)},'--no-setup'],{stdio:'inherit'});setInterval(()=>{},1e9)`], { env: demoEnv, stdio })
      : via === 'npm'
        ? spawn('npm', ['run', 'demo', '--', '--no-setup'], { cwd: ROOT, env: demoEnv, stdio }) // npm -> (sh -c exec) node
        : spawn(process.execPath, [DEMO, '--no-setup'], { env: demoEnv, stdio });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  await until(
    'the demo to print its URL',
    () => {
      if (proc.exitCode !== null) throw new Error(`the demo exited (${proc.exitCode}):\n${out}`);
      return /Open:\s+http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+/.test(out);
    },
    90_000,
  );
  const url = /Open:\s+(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out)[1];
  const pid = Number(/code-server pid (\d+)/.exec(out)[1]);
  const temps = /temporary folders: (.*)/.exec(out)[1].trim().split(' ');
  assert.ok(marked(mark).length >= 3, 'the demo, code-server and its processes are seen');
  return { proc, url, pid, temps, exited, mark, out: () => out };
}

/** Everything the demo made is gone: its process, code-server's whole group, every process it started, the port, the folders. */
async function assertCleanedUp(d, before) {
  await until('code-server and its group to end', () => !alive(-d.pid), 20_000);
  await until('every process the demo started to end', () => marked(d.mark).length === 0, 20_000);
  assert.equal(await answers(d.url), false, 'the port no longer answers');
  for (const t of d.temps) assert.equal(fs.existsSync(t), false, `${t} was removed`);
  const left = [...ourTemps()].filter((n) => !before.has(n));
  assert.deepEqual(left, [], 'no new pi-plans-* folder is left in the temp folder');
}

describe('npm run demo', function () {
  this.timeout(300_000);

  it('--check starts VS Code with the extension on the sample workspace, answers at the URL and leaves nothing', async () => {
    const before = ourTemps();
    const mark = randomUUID();
    const out = execFileSync(process.execPath, [DEMO, '--check', '--no-setup'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PI_PLANS_DEMO_PORT: '0', PI_PLANS_DEMO_TEST_MARK: mark, TMPDIR: DEMO_TMP } });
    assert.match(out, /\[demo\] ok: the workbench answered at http:\/\/127\.0\.0\.1:\d+\/\?folder=/);
    await until('every process of the demo to end', () => marked(mark).length === 0, 20_000);
    assert.deepEqual([...ourTemps()].filter((n) => !before.has(n)), []);
  });

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    it(`${sig} to the demo process stops VS Code and removes every temporary folder`, async () => {
      const before = ourTemps();
      const d = await startDemo();
      assert.equal(await answers(d.url), true);
      d.proc.kill(sig);
      const { code } = await d.exited;
      assert.equal(code, { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[sig], `the demo exited by itself after cleaning up:\n${d.out()}`);
      await assertCleanedUp(d, before);
    });
  }

  it('SIGINT to npm\'s own pid (`npm run demo`, the signal to npm alone, not its process group) stops VS Code and removes every temporary folder', async () => {
    const before = ourTemps();
    const d = await startDemo({ via: 'npm' });
    assert.equal(await answers(d.url), true);
    // npm passes the signal on to the script it runs, which is the demo itself (`exec`: no shell between them).
    process.kill(d.proc.pid, 'SIGINT');
    const { code } = await d.exited;
    assert.equal(code, 130, `npm ended with the demo's own exit status:\n${d.out()}`);
    assert.match(d.out(), /\[demo\] SIGINT: stopping VS Code and removing its temporary folders/);
    await assertCleanedUp(d, before);
  });

  for (const via of ['node', 'npm']) {
    it(`its parent dying (${via === 'npm' ? '`npm run demo`, npm SIGKILLed' : 'a small node parent SIGKILLed'}) stops it all the same`, async () => {
      const before = ourTemps();
      const d = await startDemo({ via });
      d.proc.kill('SIGKILL');
      await d.exited;
      await assertCleanedUp(d, before);
      assert.match(d.out(), /the process that started the demo is gone: stopping/);
    });
  }

  it('a signal during setup stops the setup script and all it started, with nothing left', async () => {
    const before = ourTemps();
    const mark = randomUUID();
    // Without --no-setup: the demo runs scripts/setup-vscode.sh first (a few checks when all is there).
    const proc = spawn(process.execPath, [DEMO], { env: { ...process.env, PI_PLANS_DEMO_PORT: '0', PI_PLANS_DEMO_TEST_MARK: mark, TMPDIR: DEMO_TMP }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let during;
    const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    proc.stderr.on('data', (d) => (out += d));
    proc.stdout.on('data', (d) => {
      out += d;
      // The setup script printed its first line: it is running (with more to do). Signal now,
      // noting which of the demo's processes exist at that moment.
      if (during === undefined && out.includes('[setup] ')) {
        during = marked(mark).filter((p) => p !== proc.pid);
        proc.kill('SIGTERM');
      }
    });
    assert.equal(await exited, 143, out);
    assert.ok(during?.length > 0, `the setup script was running when the signal came:\n${out}`);
    assert.doesNotMatch(out, /starting VS Code/);
    await until('every process of the setup to end', () => marked(mark).length === 0, 20_000);
    assert.deepEqual([...ourTemps()].filter((n) => !before.has(n)), [], 'no pi-plans-* folder (the setup\'s own temp folder included) is left');
  });

  it('a signal while the sample agent is packaged kills the packager and leaves the old .vsix whole', async () => {
    const agentVsix = path.join(ROOT, 'out', 'pi-plans-sample-agent.vsix');
    const old = fs.readFileSync(agentVsix);
    fs.utimesSync(agentVsix, new Date(0), new Date(0)); // older than its sources: --no-setup packages it again
    const before = ourTemps();
    const mark = randomUUID();
    const proc = spawn(process.execPath, [DEMO, '--no-setup'], { env: { ...process.env, PI_PLANS_DEMO_PORT: '0', PI_PLANS_DEMO_TEST_MARK: mark, TMPDIR: DEMO_TMP }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    try {
      await until('vsce packaging the sample agent', () => out.includes('[demo] packaging the sample agent') && marked(mark).some((p) => p !== proc.pid));
      proc.kill('SIGINT');
      assert.equal(await exited, 130, out);
      await until('every process of the demo to end', () => marked(mark).length === 0, 20_000);
      assert.deepEqual(fs.readdirSync(path.join(ROOT, 'out')).filter((f) => f.endsWith('.part')), [], 'no half-written package is left');
      assert.ok(fs.readFileSync(agentVsix).equals(old), 'the previous .vsix is untouched');
      assert.deepEqual([...ourTemps()].filter((n) => !before.has(n)), []);
    } finally {
      proc.kill('SIGKILL');
      fs.utimesSync(agentVsix, new Date(0), new Date(0)); // packaged again by the next start
    }
  });

  describe('the review loop with the sample agent', () => {
    let d;
    let browser;
    before(async () => {
      d = await startDemo({ env: { PI_PLANS_DEMO_AUTOSTART: '1', PI_PLANS_DEMO_STEP_MS: '150' } });
      browser = await startBrowser();
      // Every notification toast shown, with its severity, from the first frame on.
      await browser.page.addInitScript(() => {
        window.__piPlansToasts = [];
        const seen = () => {
          for (const item of document.querySelectorAll('.notifications-toasts .notification-list-item')) {
            const text = item.querySelector('.notification-list-item-message')?.textContent ?? '';
            const icon = item.querySelector('.notification-list-item-icon');
            const severity = ['error', 'warning', 'info'].find((s) => icon?.classList.contains(`codicon-${s}`)) ?? 'unknown';
            if (text && !window.__piPlansToasts.some((t) => t.text === text)) window.__piPlansToasts.push({ text, severity });
          }
        };
        new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await browser.page.goto(d.url);
      await browser.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    });
    after(async () => {
      await browser?.stop();
      d?.proc.kill('SIGTERM');
      await d?.exited;
    });
    afterEach(async function () {
      if (this.currentTest?.state === 'failed' && browser) {
        fs.mkdirSync(RESULTS, { recursive: true });
        await browser.page.screenshot({ path: path.join(RESULTS, `demo-${this.currentTest.title.replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
      }
    });

    const ws = () => decodeURIComponent(/folder=([^&]+)/.exec(d.url)[1]);
    /** The sample agent's plans on disk, oldest first. */
    const agentPlans = () =>
      fs
        .readdirSync(path.join(ws(), '.pi/plans'))
        .filter((n) => n.endsWith('.md'))
        .map((n) => ({ id: n.slice(0, -3), text: fs.readFileSync(path.join(ws(), '.pi/plans', n), 'utf8') }))
        .filter((p) => p.text.includes('Add a health-check endpoint'))
        .sort((a, b) => /created_at: (\S+)/.exec(a.text)[1].localeCompare(/created_at: (\S+)/.exec(b.text)[1]));
    const agentPlan = () => agentPlans()[0];

    /** Runs a command from the palette. */
    async function palette(page, command) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 20_000 });
      await input.fill(`>${command}`);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: command.replace(/^[^:]*: /, '') }).first().waitFor({ timeout: 20_000 });
      await page.keyboard.press('Enter');
    }
    /**
     * The newest notification with this text, expanded (its buttons shown), found in the
     * notification center. Not among the toasts: VS Code shows at most three toasts added within
     * 800 ms and sends the rest to the center only (its spam guard), and the agent's progress, a
     * plan's "completed" and the sample's stalled plan often come together.
     */
    async function notification(page, text, timeout = 20_000) {
      const center = page.locator('.notifications-center');
      // The bell in the status bar: a click, whatever has the keyboard focus (after a reload, F1 can go unheard).
      if (!(await center.isVisible())) await page.locator('[id="status.notifications"]').click();
      await center.waitFor({ timeout: 20_000 });
      const item = center.locator('.notification-list-item', { hasText: text }).first();
      await item.waitFor({ timeout });
      if (!(await item.evaluate((e) => e.classList.contains('expanded')))) await item.locator('.codicon-notifications-expand').click();
      return item;
    }
    async function hideNotifications(page) {
      const center = page.locator('.notifications-center');
      if (await center.isVisible()) await page.locator('[id="status.notifications"]').click();
      await center.waitFor({ state: 'hidden', timeout: 20_000 });
    }
    const reviewOf = (id) => `${id} "Add a health-check endpoint" is ready for your review`;

    it('opens on the agent\'s plan with the review request in a toast: no warning toast, no error, no panel over it, the agent\'s log one click away', async () => {
      const page = browser.page;
      const plan = await until('the agent\'s plan proposed on disk', () => {
        const p = agentPlan();
        return p && /status: proposed/.test(p.text) && p;
      }, 60_000);
      // The review request as a toast (not only in the notification center), with its buttons.
      const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: reviewOf(plan.id) });
      await toast.waitFor({ timeout: 20_000 });
      for (const b of ['Approve', 'Reject…']) assert.equal(await toast.locator('.monaco-button', { hasText: b }).count(), 1, b);
      // The agent's plan in the plan editor, in front, its Approve naming the version on screen.
      await page.locator('.tab.active', { hasText: `${plan.id}.md` }).waitFor({ timeout: 20_000 });
      const view = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
      await view.locator('h1', { hasText: 'Add a health-check endpoint' }).waitFor({ timeout: 20_000 });
      await view.getByRole('button', { name: /^Approve v\d+$/ }).waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('.tab', { hasText: 'Welcome' }).count(), 0);
      // Pi Plans' explorer beside it: what awaits review first, the agent's plan among it.
      const tree = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Plans/ }) });
      await tree.getByRole('treeitem', { name: /^Add a health-check endpoint, proposed/ }).waitFor({ timeout: 20_000 });
      assert.match(await tree.getByRole('treeitem').first().getAttribute('aria-label'), /^Awaiting review: \d+ plans$/);
      // Nothing greets with a warning: the sample's stalled plan is shown in its group, not raised.
      const toasts = await page.evaluate(() => window.__piPlansToasts);
      assert.deepEqual(toasts.filter((t) => t.severity !== 'info'), [], JSON.stringify(toasts));
      assert.ok(toasts.some((t) => t.text.includes(reviewOf(plan.id))), JSON.stringify(toasts));
      // The status bar counts each plan once (the sample's stalled run is not also "running") and
      // raises no alarm for proposals and a stalled run: no warning colour.
      const status = page.locator('.statusbar-item', { hasText: /\d+ plans/ }).first();
      await page.locator('.statusbar-item', { hasText: '7 plans, 3 to review, 1 stalled' }).waitFor({ timeout: 20_000 });
      assert.equal(
        await status.evaluate((e) => {
          const probe = document.createElement('div');
          probe.style.background = 'var(--vscode-statusBarItem-warningBackground)';
          document.querySelector('.monaco-workbench').append(probe);
          const warning = getComputedStyle(probe).backgroundColor;
          probe.remove();
          return [e, ...e.querySelectorAll('*')].some((x) => getComputedStyle(x).backgroundColor === warning);
        }),
        false,
        'the first screen is not warning-coloured',
      );
      // No error in the status bar (the sample's pi-planner plan has warnings only), no panel open.
      assert.match(await page.locator('[id="status.problems"]').innerText(), /^\s*0\s+[1-9]/);
      assert.equal(await page.locator('.part.panel').isVisible(), false, 'no panel over the editor');
      if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `demo-review-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
      // The agent's log: one click on its status bar item.
      await page.locator('.statusbar-item', { hasText: 'Sample agent: waiting for your review' }).click();
      await page.locator('.part.panel .view-lines', { hasText: 'pi_plan_submit' }).first().waitFor({ timeout: 20_000 });
      await palette(page, 'View: Hide Panel');
      await page.locator('.part.panel').waitFor({ state: 'hidden', timeout: 20_000 });
    });

    it('Reject… with feedback: the agent revises the plan and submits it again', async () => {
      const page = browser.page;
      const first = agentPlan();
      await (await notification(page, reviewOf(first.id))).locator('.monaco-button', { hasText: 'Reject' }).click();
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 20_000 });
      await input.fill('Also document the endpoint in the API guide');
      await page.keyboard.press('Enter');
      // The agent's revision: a step from the feedback, then a second submit (a new notification).
      await until('the revised plan proposed again', () => {
        const p = agentPlan();
        return p && /status: proposed/.test(p.text) && p.text.includes('Address the review: Also document the endpoint in the API guide') && p.text.includes('## Rejection (v');
      });
    });

    it('Approve: the agent executes every step to the end, with its changes and notes', async () => {
      const page = browser.page;
      const plan = agentPlan();
      // The revised version's notification (the first one closed when its button was used).
      await (await notification(page, reviewOf(plan.id))).locator('.monaco-button', { hasText: 'Approve' }).click();
      const done = await until('the plan completed on disk', () => {
        const p = agentPlan();
        return p && /status: completed/.test(p.text) && p;
      }, 60_000);
      assert.equal((done.text.match(/^\d+\. \[x\] S\d{3}/gm) ?? []).length, 5, done.text);
      // Each step's change, for real, in the workspace's git repository; the test run changes nothing
      // and is marked done without a note: the one "no evidence" step.
      assert.equal((done.text.match(/> Note: done by the sample agent/g) ?? []).length, 4);
      assert.equal((done.text.match(/> Changed: \S.* · \d+ files? \+\d+ −\d+ · tree [0-9a-f]{10}\.\.[0-9a-f]{10}$/gm) ?? []).length, 4, done.text);
      assert.equal((done.text.match(/> Changed: nothing · tree/g) ?? []).length, 1, done.text);
      assert.match(done.text, /approved_by: user/);
      await notification(page, `${done.id} "Add a health-check endpoint" completed.`);
      await hideNotifications(page);
    });

    it('runs again from the command palette, and a reload does not start another plan', async () => {
      const page = browser.page;
      await palette(page, 'Pi Plans Demo: Run the Sample Agent');
      const second = await until('a second plan of the agent, proposed', () => {
        const ps = agentPlans();
        return ps.length === 2 && /status: proposed/.test(ps[1].text) && ps[1];
      });
      await notification(page, reviewOf(second.id));
      await hideNotifications(page);
      // The automatic run happened once for this workspace: a reload says where the agent left off.
      await page.reload();
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.statusbar-item', { hasText: /\d+ plans/ }).waitFor({ timeout: 60_000 });
      await notification(page, `The sample agent stopped when its window closed: ${second.id} is proposed`, 60_000);
      assert.equal(agentPlans().length, 2, 'no new plan after the reload');
    });
  });
});
