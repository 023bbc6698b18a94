// The plan explorer in a real VS Code, for `npm run bench`: the extension installed from its .vsix
// into code-server, driven by Debian chromium (the UI tests' harness), on a copy of a bench corpus.
// Measures, in the page's clock (performance.timeOrigin + performance.now(), so epoch ms, which the
// bench process shares for the file write):
//   first render   from the pointerdown on the activity-bar item until plan rows are in the
//                  explorer's tree; clicked as soon as the index has loaded (the status bar shows
//                  "N plans"), when the work that follows a load (problems, decorations of every
//                  plan) is still running; then again in a second window, clicked 10 s after its
//                  load, when that work is over (--no-idle skips this one)
//   outside change from fs.writeFileSync of a new proposed plan until its row is in the tree, and
//                  until the status bar counts it (medians of --changes writes; first window)
// Rows count once they are in the DOM (MutationObserver); the frame that paints them follows.
// Also reports the longest main-thread task of the page during each (a frozen window shows there)
// and the errors the Pi Plans log and the page's console recorded.
// Usage: node bench/explorer.mjs <corpus root (holds .pi/plans)> [--changes 5] [--no-package] [--no-idle]
// Prints one JSON object on stdout; progress goes to stderr. Everything it starts or creates is
// removed on exit, failure, SIGINT and SIGTERM.
// Functions handed to the browser (addInitScript, page.evaluate) use its globals:
/* global window, document, CSS, MutationObserver */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NOISE, ROOT, consoleText, startBrowser, startCodeServer } from '../test/harness/codeServer.mjs';

const args = process.argv.slice(2);
const corpus = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--changes'));
const changes = args.includes('--changes') ? Number(args[args.indexOf('--changes') + 1]) : 5;
if (!corpus || !fs.existsSync(path.join(corpus, '.pi', 'plans'))) {
  console.error('usage: node bench/explorer.mjs <corpus root with .pi/plans> [--changes 5] [--no-package] [--no-idle]');
  process.exit(2);
}
const progress = (m) => process.stderr.write(`[explorer bench] ${m}\n`);
const now = () => performance.timeOrigin + performance.now();

// Cleanup: whatever a session has started, in reverse order; on any exit path (a signal too).
const abort = new AbortController();
const undoStack = [];
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    abort.abort();
    for (const undo of undoStack) for (const f of undo.splice(0).reverse()) await Promise.resolve().then(f).catch(() => undefined);
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void cleanup().then(() => process.exit(130)));

/** Page-side helpers: pointerdown times, a watcher for rows, long tasks. */
function instrument() {
  const b = (window.__bench = { down: 0, hit: 0, longest: 0, watch: undefined });
  const t = () => performance.timeOrigin + performance.now();
  document.addEventListener('pointerdown', () => (b.down = t()), true);
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) b.longest = Math.max(b.longest, e.duration);
    }).observe({ type: 'longtask', buffered: false });
  } catch {
    /* no long task timing */
  }
  /** Plan rows in the sidebar's trees (a plan row's label ends with its id); cheap: no layout. */
  b.planRows = (prefix = '') => document.querySelectorAll(`.part.sidebar .monaco-list-row[aria-label*=", PLAN-"]${prefix ? `[aria-label^="${CSS.escape(prefix)}"]` : ''}`);
  /** Records in `hit` the first time `test()` holds and in `statusHit` when `status()` does, checked on each DOM change. */
  b.watchFor = (test, status = () => false) => {
    b.hit = b.statusHit = 0;
    b.longest = 0;
    b.watch?.disconnect();
    const check = () => {
      if (!b.statusHit && status()) b.statusHit = t();
      if (!b.hit && test()) b.hit = t();
      if (b.hit && b.statusHit) b.watch?.disconnect();
    };
    b.watch = new MutationObserver(check);
    b.watch.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-label'] });
    check();
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * What the logs of this run hold about the extension: the error and warning lines of its own log,
 * and the extension host's lines naming it (a capped event, an unresponsive host).
 */
function extensionLogProblems(userData) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'Pi Plans.log' || e.name === 'remoteexthost.log') {
        for (const l of fs.readFileSync(p, 'utf8').split('\n')) {
          if (/\[(error|warning)\]/.test(l) && (e.name === 'Pi Plans.log' || /pi-plans|unresponsive/i.test(l))) found.push(l.trim());
        }
      }
    }
  };
  try {
    walk(path.join(userData, 'logs'));
  } catch {
    /* no logs */
  }
  return found;
}

/** What the extension logged of its first load: "<folder>: N plan(s) indexed in M ms" (the store's load in the extension host). */
function hostIndexMs(userData) {
  let ms;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'Pi Plans.log') ms ??= Number(/plan\(s\) indexed in (\d+) ms/.exec(fs.readFileSync(p, 'utf8'))?.[1] ?? NaN);
    }
  };
  try {
    walk(path.join(userData, 'logs'));
  } catch {
    /* no logs */
  }
  return Number.isNaN(ms) ? undefined : ms;
}

async function main() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const vsix = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
  if (!args.includes('--no-package')) {
    progress('packaging the extension (node scripts/package.mjs)');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    // The package step leaves a production build in dist/; put the development build back.
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  }
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run node scripts/package.mjs`);
  const atLoad = await session(vsix, { settleMs: 0, changes });
  if (args.includes('--no-idle')) return atLoad;
  const idle = await session(vsix, { settleMs: 10_000, changes: 0 });
  return { ...atLoad, firstRenderIdleMs: idle.firstRenderMs, firstRenderIdleLongestTaskMs: idle.firstRenderLongestTaskMs, hostIndexIdleMs: idle.hostIndexMs, logProblems: [...new Set([...atLoad.logProblems, ...idle.logProblems])] };
}

/** One window on a fresh copy of the corpus: the first render (clicked `settleMs` after the load), then `changes` outside changes. Removes all it made. */
async function session(vsix, { settleMs, changes }) {
  const undo = [];
  undoStack.push(undo);
  try {
    return await sessionIn(vsix, { settleMs, changes }, undo);
  } finally {
    for (const f of undo.splice(0).reverse()) await Promise.resolve().then(f).catch(() => undefined);
  }
}

async function sessionIn(vsix, { settleMs, changes }, undo) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-explorer-'));
  undo.push(() => fs.rmSync(ws, { recursive: true, force: true }));
  fs.cpSync(path.join(corpus, '.pi'), path.join(ws, '.pi'), { recursive: true });
  const plansDir = path.join(ws, '.pi', 'plans');
  const planCount = fs.readdirSync(plansDir).filter((n) => n.endsWith('.md')).length;

  progress(`starting code-server and chromium on a copy of ${planCount} plans`);
  const server = await startCodeServer({ vsix: [vsix], signal: abort.signal });
  undo.push(() => server.stop());
  const browser = await startBrowser();
  undo.push(() => browser.stop());
  const page = browser.page;
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !NOISE.test(consoleText(m))) consoleErrors.push(consoleText(m));
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e?.message ?? e)));
  await page.addInitScript(instrument);
  const tOpen = now();
  await page.goto(server.url(ws));
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  const status = page.locator('.statusbar-item').filter({ hasText: /\d+ plans/ }).first();
  await status.waitFor({ timeout: 120_000 });
  const indexLoadedMs = now() - tOpen;
  const statusText = (await status.innerText()).trim();
  progress(`index loaded: "${statusText}" ${(indexLoadedMs / 1000).toFixed(1)} s after opening the page`);
  if (settleMs) await page.waitForTimeout(settleMs);

  // 1. First render: the activity-bar item (the <a> is covered by the badge: click its item).
  const item = page.locator('.activitybar .action-item').filter({ has: page.locator('a[aria-label^="Pi Plans"]') }).first();
  const already = await page.evaluate(() => window.__bench.planRows().length);
  if (already) throw new Error('the plan explorer is visible before the click: the measure would be wrong');
  await page.evaluate((n) => window.__bench.watchFor(() => window.__bench.planRows().length >= n), Math.min(10, planCount));
  await item.click();
  await page.waitForFunction(() => window.__bench.hit, undefined, { timeout: 60_000 });
  const first = await page.evaluate(() => ({ down: window.__bench.down, hit: window.__bench.hit, longest: window.__bench.longest, rows: window.__bench.planRows().length }));
  const firstRenderMs = first.hit - first.down;
  progress(`first render${settleMs ? `, ${settleMs / 1000} s after the load` : ''}: ${firstRenderMs.toFixed(0)} ms (${first.rows} plan rows on screen; longest page task ${first.longest.toFixed(0)} ms)`);
  // What the tree shows: groups with their counts, and the first group ends in "Show more".
  const groups = await page.evaluate(() => [...document.querySelectorAll('.part.sidebar .monaco-list-row')].map((r) => r.getAttribute('aria-label')).filter((l) => /plan\(s\)$|plans?$/.test(l ?? '') && !/PLAN-/.test(l)));
  // The work that follows a load (problems of every draft and proposal, decorations) takes a few
  // seconds on 10,000 plans: let it end, so the changes are measured on their own.
  if (changes) await page.waitForTimeout(5000);

  // 2. Outside changes: a new proposed plan (the newest, so the top row of "Awaiting review").
  const changeMs = [];
  const changeStatusMs = [];
  const changeLongest = [];
  const count = (t) => Number(/(\d+) plans/.exec(t)?.[1]);
  const before = count((await status.innerText()).trim());
  for (let k = 1; k <= changes; k++) {
    const id = `PLAN-be0c${String(k).padStart(4, '0')}`;
    const title = `Outside change ${k} ${process.pid}`;
    await page.evaluate(
      ([t, n]) =>
        window.__bench.watchFor(
          () => window.__bench.planRows(`${t},`).length > 0,
          () => [...document.querySelectorAll('.statusbar-item')].some((el) => el.textContent.includes(`${n} plans`)),
        ),
      [title, before + k],
    );
    const at = new Date().toISOString();
    const t0 = now();
    fs.writeFileSync(
      path.join(plansDir, `${id}.md`),
      `---\nid: ${id}\ntitle: "${title}"\nstatus: proposed\nversion: 1\ncreated_at: ${at}\nupdated_at: ${at}\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 a\n`,
    );
    await page.waitForFunction(() => window.__bench.hit && window.__bench.statusHit, undefined, { timeout: 30_000 });
    const r = await page.evaluate(() => ({ hit: window.__bench.hit, statusHit: window.__bench.statusHit, longest: window.__bench.longest }));
    changeMs.push(r.hit - t0);
    changeStatusMs.push(r.statusHit - t0);
    changeLongest.push(r.longest);
    progress(`outside change ${k}: row ${(r.hit - t0).toFixed(0)} ms, status bar ${(r.statusHit - t0).toFixed(0)} ms (longest page task ${r.longest.toFixed(0)} ms)`);
    // Past the store's settle re-scan (300 ms after a change), so each change is measured on its own.
    await page.waitForTimeout(1500);
  }
  const status2 = (await status.innerText()).trim();
  return {
    plans: planCount,
    statusText,
    statusAfter: status2,
    indexLoadedMs,
    hostIndexMs: hostIndexMs(server.dirs.userData),
    firstRenderMs,
    firstRenderRows: first.rows,
    firstRenderLongestTaskMs: first.longest,
    groups,
    changeMs: changes ? median(changeMs) : undefined,
    changeRunsMs: changeMs,
    changeStatusMs: changes ? median(changeStatusMs) : undefined,
    changeLongestTaskMs: changes ? Math.max(...changeLongest) : undefined,
    logProblems: extensionLogProblems(server.dirs.userData),
    consoleErrors,
  };
}

let code = 0;
try {
  const out = await main();
  process.stdout.write(JSON.stringify(out) + '\n');
} catch (e) {
  console.error(`[explorer bench] failed: ${e?.stack ?? e}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
