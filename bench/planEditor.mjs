// The plan editor in a real VS Code, for `npm run bench`: the extension's .vsix installed into
// code-server, driven by Debian chromium (the UI tests' harness), on a copy of examples/ plus a
// 200-step plan. Prints one JSON object on stdout (progress on stderr):
//   openMs         from Enter in Open a Plan… until the plan's title is in the webview (VS Code's own
//                  webview start included)
//   paintMs        from the webview script's start to its first render (performance marks in the frame)
//   changeMs       from fs.writeFileSync of one step's new status until the webview shows it
//                  (median of 5; VS Code's reload of the document from disk included)
//   ourChangeMs    the same change from the host's document-change event until on screen: what this
//                  extension controls (ourChangeParts: building the state, posting it, rendering it)
//   bundleBytes    dist/webview.js, minified
// Everything it starts or creates is removed on exit, failure, SIGINT and SIGTERM.
/* global document, window, MutationObserver */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, startBrowser, startCodeServer } from '../test/harness/codeServer.mjs';

const progress = (m) => process.stderr.write(`[plan editor bench] ${m}\n`);
const undo = [];
const cleanup = async () => {
  for (const f of undo.splice(0).reverse()) await Promise.resolve().then(f).catch(() => undefined);
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void cleanup().then(() => process.exit(130)));

const ID = 'PLAN-0be0c200';
function bigPlan(marked = -1) {
  const steps = Array.from({ length: 200 }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    return `${i + 1}. [${i === marked ? 'x' : ' '}] S${n} Step ${i + 1}: change module ${i} and its tests (edit: update → src/module${i}.ts)`;
  }).join('\n');
  return `---\nid: ${ID}\ntitle: "A 200-step plan"\nstatus: executing\nversion: ${marked + 3}\ncreated_at: 2026-11-23T10:00:00.000Z\nupdated_at: 2026-11-23T10:00:00.000Z\nstep_seq: 200\napproved_by: user\napproved_version: 1\n---\n\n## Goal\nMeasure the plan editor.\n\n## Steps\n${steps}\n\n## Verification\n- The figures print.\n`;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const vsix = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
  if (!process.argv.includes('--no-package')) {
    progress('packaging the extension (node scripts/package.mjs)');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const bundleBytes = fs.statSync(path.join(ROOT, 'dist', 'webview.js')).size;
  if (!process.argv.includes('--no-package')) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-editor-'));
  undo.push(() => fs.rmSync(ws, { recursive: true, force: true }));
  fs.cpSync(path.join(ROOT, 'examples'), ws, { recursive: true });
  const file = path.join(ws, '.pi', 'plans', `${ID}.md`);
  fs.writeFileSync(file, bigPlan());
  const server = await startCodeServer({ vsix, settings: { 'piPlans.notifications.stalled': false, 'piPlans.notifications.execution': false } });
  undo.push(() => server.stop());
  const browser = await startBrowser();
  undo.push(() => browser.stop());
  const page = browser.page;
  await page.goto(server.url(ws));
  await page.locator('.statusbar-item', { hasText: /\d+ plans/ }).waitFor({ timeout: 120_000 });
  progress('index loaded; opening the 200-step plan');
  // Through Pi Plans' own opener (Open a Plan…), which opens plans in the plan editor.
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Pi Plans: Open a Plan');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Open a Plan' }).first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget input').fill('A 200-step plan');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'A 200-step plan' }).first().waitFor({ timeout: 20_000 });
  const t0 = Date.now();
  await page.keyboard.press('Enter');
  const frame = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  await frame.locator('h1', { hasText: 'A 200-step plan' }).waitFor({ timeout: 60_000 });
  const openMs = Date.now() - t0;
  await frame.locator('li.step').nth(199).waitFor();
  const paintMs = await frame.locator('body').evaluate(() => {
    const start = performance.getEntriesByName('pi-plans-script-start')[0]?.startTime;
    const end = performance.getEntriesByName('pi-plans-first-render')[0]?.startTime;
    return start !== undefined && end !== undefined ? end - start : undefined;
  });
  progress(`open ${openMs} ms, paint ${paintMs?.toFixed(1)} ms after the script started`);
  const changes = [];
  const ours = [];
  for (let i = 0; i < 5; i++) {
    const step = 10 + i * 20;
    // The frame watches for the step's new status; the time is read from its clock (epoch ms, as this process's).
    await frame.locator('body').evaluate((_, s) => {
      window.__hit = 0;
      const li = () => document.querySelector(`li.step[data-step="S${String(s + 1).padStart(3, '0')}"]`);
      const obs = new MutationObserver(() => {
        if (!window.__hit && li()?.classList.contains('done')) {
          window.__hit = Date.now();
          obs.disconnect();
        }
      });
      obs.observe(document.body, { subtree: true, childList: true, attributes: true });
    }, step);
    const w = Date.now();
    fs.writeFileSync(file, bigPlan(step));
    await frame.locator(`li.step.done[data-step="S${String(step + 1).padStart(3, '0')}"]`).waitFor({ timeout: 20_000 });
    const hit = await frame.locator('body').evaluate(() => window.__hit);
    changes.push(hit - w);
    // The first state that arrived after the write: its times from the host's change event on.
    const t = await frame.locator('body').evaluate((_, after) => window.piPlansTimings.find((x) => x.received >= after), w);
    if (t) ours.push({ host: t.sent - t.changed, post: t.received - t.sent, render: t.shown - t.received, total: t.shown - t.changed });
    await page.waitForTimeout(300);
  }
  progress(`outside step change on screen: ${changes.join(', ')} ms after the write`);
  progress(`of which ours (the host's change event to on screen): ${ours.map((o) => `${o.total} (host ${o.host}, post ${o.post}, render ${o.render})`).join('; ')}`);
  const m = (k) => median(ours.map((o) => o[k]));
  return {
    steps: 200,
    openMs,
    paintMs,
    changeMs: median(changes),
    changeRunsMs: changes,
    ourChangeMs: m('total'),
    ourChangeParts: { hostMs: m('host'), postMs: m('post'), renderMs: m('render') },
    bundleBytes,
  };
}

main()
  .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
  .catch((e) => {
    progress(`failed: ${e?.stack ?? e}`);
    process.exitCode = 1;
  })
  .finally(cleanup);
