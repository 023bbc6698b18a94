// `npm run demo` as a newcomer meets it: the workbench opens on the sample agent's plan with the
// review waiting (no Welcome tab); rejecting makes the agent revise and resubmit, approving makes
// it execute to the end. And however the demo is stopped (SIGINT, SIGTERM, SIGHUP, its parent
// killed, or a signal during setup), nothing is left: no code-server process, no port, no temp folder.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
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

const ourTemps = () => new Set(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('pi-plans-')));
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
 * Starts the demo (or a parent that starts it) and waits until it printed its URL. Returns what
 * it printed: the URL, code-server's process group, the temp folders, and the process.
 */
async function startDemo({ viaParent = false, env = {} } = {}) {
  const demoEnv = { ...process.env, PI_PLANS_DEMO_PORT: '0', PI_PLANS_DEMO_AUTOSTART: '0', ...env };
  const proc = viaParent
    ? spawn(process.execPath, ['-e', `const c=require('child_process').spawn(process.execPath,[${JSON.stringify(DEMO)},'--no-setup'],{stdio:'inherit'});setInterval(()=>{},1e9)`], { env: demoEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [DEMO, '--no-setup'], { env: demoEnv, stdio: ['ignore', 'pipe', 'pipe'] });
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
  return { proc, url, pid, temps, exited, out: () => out };
}

/** Everything the demo made is gone: its process, code-server's whole group, the port, the folders. */
async function assertCleanedUp(d, before) {
  await until('code-server and its group to end', () => !alive(-d.pid), 20_000);
  assert.equal(await answers(d.url), false, 'the port no longer answers');
  for (const t of d.temps) assert.equal(fs.existsSync(t), false, `${t} was removed`);
  const left = [...ourTemps()].filter((n) => !before.has(n));
  assert.deepEqual(left, [], 'no new pi-plans-* folder is left in the temp folder');
}

describe('npm run demo', function () {
  this.timeout(300_000);

  before(function () {
    this.timeout(600_000);
    // The UI run packages the extension; the demo's own setup adds the sample agent's package.
    execFileSync(process.execPath, [DEMO, '--check'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, PI_PLANS_DEMO_PORT: '0' } });
  });

  it('--check starts VS Code with the extension on the sample workspace and answers at the URL', () => {
    const out = execFileSync(process.execPath, [DEMO, '--check', '--no-setup'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PI_PLANS_DEMO_PORT: '0' } });
    assert.match(out, /\[demo\] ok: the workbench answered at http:\/\/127\.0\.0\.1:\d+\/\?folder=/);
  });

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    it(`${sig} to the demo process stops VS Code and removes every temporary folder`, async () => {
      const before = ourTemps();
      const d = await startDemo();
      assert.equal(await answers(d.url), true);
      d.proc.kill(sig);
      const { code } = await d.exited;
      assert.notEqual(code, null, 'the demo exited by itself after cleaning up');
      await assertCleanedUp(d, before);
    });
  }

  it('its parent dying (SIGKILL, no signal for the demo) stops it all the same', async () => {
    const before = ourTemps();
    const d = await startDemo({ viaParent: true });
    d.proc.kill('SIGKILL');
    await d.exited;
    await assertCleanedUp(d, before);
  });

  it('a signal during setup stops it at once, with nothing started', async () => {
    const before = ourTemps();
    const proc = spawn(process.execPath, [DEMO], { env: { ...process.env, PI_PLANS_DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
    await until('setup to begin', () => out.includes('[demo] setting up'), 60_000);
    proc.kill('SIGTERM');
    assert.equal(await exited, 143);
    assert.doesNotMatch(out, /starting VS Code/);
    assert.deepEqual([...ourTemps()].filter((n) => !before.has(n)), []);
  });

  describe('the review loop with the sample agent', () => {
    let d;
    let browser;
    before(async () => {
      d = await startDemo({ env: { PI_PLANS_DEMO_AUTOSTART: '1', PI_PLANS_DEMO_STEP_MS: '150' } });
      browser = await startBrowser();
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
    const agentPlan = () => {
      for (const n of fs.readdirSync(path.join(ws(), '.pi/plans'))) {
        if (!n.endsWith('.md')) continue;
        const text = fs.readFileSync(path.join(ws(), '.pi/plans', n), 'utf8');
        if (text.includes('Add a health-check endpoint')) return { id: n.slice(0, -3), text };
      }
      return undefined;
    };
    const review = (page) => page.locator('.notifications-toasts .notification-list-item', { hasText: 'is ready for your review' });

    it('opens on the agent\'s proposed plan with the review waiting, and no Welcome tab', async () => {
      const page = browser.page;
      await review(page).first().waitFor({ timeout: 60_000 });
      const plan = await until('the agent\'s plan on disk', () => agentPlan());
      assert.match(plan.text, /status: proposed/);
      await page.locator('.tab', { hasText: `${plan.id}.md` }).waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('.tab', { hasText: 'Welcome' }).count(), 0);
      if (PICTURES) await page.screenshot({ path: path.join(PICTURES, `demo-review-${process.env.PI_PLANS_THEME ?? 'dark'}.png`) });
    });

    it('Reject… with feedback: the agent revises the plan and submits it again', async () => {
      const page = browser.page;
      await review(page).first().locator('.monaco-button', { hasText: 'Reject' }).click();
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 20_000 });
      await input.fill('Also document the endpoint in the API guide');
      await page.keyboard.press('Enter');
      // The agent's revision: a step from the feedback, then a second submit (a new notification).
      await until('the revised plan proposed again', () => {
        const p = agentPlan();
        return p && /status: proposed/.test(p.text) && p.text.includes('Address the review: Also document the endpoint in the API guide') && p.text.includes('## Rejection (v');
      });
      await review(page).first().waitFor({ timeout: 20_000 });
    });

    it('Approve: the agent executes every step to the end, with notes', async () => {
      const page = browser.page;
      await until('a review notification for the revised version', async () => (await review(page).count()) > 0);
      await review(page).last().locator('.monaco-button', { hasText: 'Approve' }).click();
      const done = await until('the plan completed on disk', () => {
        const p = agentPlan();
        return p && /status: completed/.test(p.text) && p;
      }, 60_000);
      assert.equal((done.text.match(/^\d+\. \[x\] S\d{3}/gm) ?? []).length, 5, done.text);
      assert.equal((done.text.match(/> Note: done by the sample agent/g) ?? []).length, 5);
      assert.match(done.text, /approved_by: user/);
    });
  });
});
