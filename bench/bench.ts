/**
 * `npm run bench`: prints figures, asserts nothing. Generates a corpus (default 10,000 plans x
 * 12 steps plus one 200-step plan) and measures, each as a ratio to its floor:
 *   in processes of their own (bench/child.ts; medians of three, each with its peak memory):
 *     read floor (every plan file's bytes, plain loop) | cold index build (the CLI's way; the
 *     extension host's, with and without its worker) | warm start
 *     step updates on 12-, 200- and 1,000-step plans (under the lock, the whole call; the next
 *     update in a process, and a process's first) beside a bare fsynced write of the same bytes
 *     through the same file API, interleaved with them; 100 step updates of one plan in flight at
 *     once on one store against the same 100 one after another
 *   in this process: re-scan | list | get | parse | the host's longest stall
 * Then, in a real VS Code (code-server + chromium): activation, the bundle's size, and the plan
 * explorer on the corpus (bench/explorer.mjs: first render, an outside change reaching the tree).
 * Then pathological Markdown (bench/markdown.ts, a process per family): the worst time to parse or
 * refuse and the peak memory per family, against the 100 ms and 50 MB targets.
 * Options: --plans N, --json, --keep (reuse bench/corpus), --no-vscode (none of the VS Code
 * figures), --no-explorer (no explorer figures), --no-markdown (no pathological Markdown),
 * --markdown-only (only that), --hook-only (only `pi-plans hook`: bench/hook.ts, p95 of a PreToolUse
 * against a bare `node -e 0`, in the generated folder), --evidence-only (only a step's evidence:
 * bench/evidence.ts, recording it in a 10,000-file git repository against `git status --porcelain`),
 * --no-evidence (none of it), --hosts-only (only the hooks as the real Claude Code, Codex and Copilot
 * CLI see them: bench/hosts.mjs, a scripted session with and without the hooks), --no-hosts (none of
 * it; also left out when the hosts are not installed: `npm run test:hosts` installs them),
 * --list-only (only `pi-plans list --json` on the mixed-status corpora of issue 40: bench/list.ts,
 * cold and warm against the read floor and the proposed-only folder; then the same corpora through
 * the MCP server's `pi_plan_list` and the explorer's index: bench/listFaces.ts, unless --no-faces;
 * and a 1,000-step plan read by a fresh process: bench/longPlan.ts),
 * --long-only (only the 1,000-step plan's `show` and `validate`: bench/longPlan.ts, with --cli as the
 * list's), --no-list (none of it), --cli label=path,… (the CLIs it runs, interleaved: e.g. before and after
 * a change; default the built dist/bin.js, the `pi-plans` command), --growth-only (only what a workspace
 * of 1,000 finished plans keeps, per kind, before and after `pi-plans gc`, with each kind's bound:
 * bench/growth.ts), --no-growth (none of it). PI_PLANS_BENCH_PLANS=N is --plans N.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import { contentDigest, createPlanText, parsePlan, setMetadata } from '../src/core';
import { nodePorts, OffThreadParser } from '../src/node';
import { PlanStore } from '../src/store';
import { LIMITS } from '../src/core';
import { PATHOLOGICAL_FAMILIES } from '../test/helpers/pathologicalMarkdown';
import { hookFigures, printHook } from './hook';

/** The hooks' cost as each real host sees it (bench/hosts.mjs), when the hosts are installed (.tools/hosts). */
async function hostsFigures(): Promise<Record<string, { runs: number; calls: number; withHooksMs: number; withoutMs: number; addedPerCallMs: number }> | undefined> {
  if (!fs.existsSync(path.resolve(__dirname, '..', '.tools', 'hosts', 'node_modules', '.bin', 'claude'))) {
    console.log('(the real hosts are not installed: `npm run test:hosts` installs them; their figures are left out)');
    return undefined;
  }
  return (await import('./hosts.mjs')).hostFigures();
}
import { evidenceFigures, printEvidence } from './evidence';
import { builtCli, clisOf, listFigures, printList } from './list';
import { growthFigures, printGrowth } from './growth';
import { facesFigures, printFaces } from './listFaces';
import { longFigures, printLong } from './longPlan';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = arg('--plans', Number(process.env.PI_PLANS_BENCH_PLANS) || 10_000);
const cliArg = args.includes('--cli') ? args[args.indexOf('--cli') + 1] : undefined;
const json = args.includes('--json');
const root = path.resolve(__dirname, 'corpus', String(N));
const plans = path.join(root, '.pi/plans');
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-cache-'));

/** bench/child.ts bundled for plain node (no loader in the measured process). */
async function buildChild(): Promise<string> {
  const out = path.join(cacheDir, 'child.js');
  await esbuild.build({ entryPoints: [path.resolve(__dirname, 'child.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
  return out;
}

/** Runs one measurement in a fresh process; its JSON line. */
function child<T>(script: string, argv: string[]): T & { peakMb: number } {
  const out = execFileSync(process.execPath, [script, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T & { peakMb: number };
}

/** Medians, field by field, of three fresh processes. */
function medianOf3<T extends Record<string, number>>(run: () => T): T {
  const runs = [run(), run(), run()];
  return Object.fromEntries(Object.keys(runs[0]).map((k) => [k, median(runs.map((r) => r[k]))])) as T;
}

/**
 * `pi-plans show` and `approve` on one plan of the corpus, each in a fresh process of the built
 * CLI: wall time and peak memory (the process's own maxRSS), medians of three. No index is built
 * for them, so neither should grow with the folder.
 */
function cliOnePlan(): { bareNodeMb: number; commands: { command: string; ms: number; peakMb: number }[] } {
  const cliJs = builtCli();
  const hook = path.join(cacheDir, 'rss-hook.cjs');
  fs.writeFileSync(hook, "const t0 = process.hrtime.bigint();\nprocess.on('exit', () => require('fs').writeSync(2, `\\nbench ${process.resourceUsage().maxRSS} ${Number(process.hrtime.bigint() - t0) / 1e6}\\n`));\n");
  const sample = (argv: string[]) => {
    const out = spawnSync(process.execPath, ['-r', hook, ...argv], { env: { ...process.env, PI_PLANS_CACHE_DIR: cacheDir }, encoding: 'utf8' });
    const m = /bench (\d+) ([\d.]+)/.exec(out.stderr ?? '');
    if (out.status !== 0 || !m) throw new Error(`${argv.join(' ')} failed: ${out.stderr}`);
    return { peakMb: Number(m[1]) / 1024, ms: Number(m[2]) };
  };
  const bare = [0, 1, 2].map(() => sample(['-e', '0']).peakMb);
  const proposed = fs.readdirSync(plans).filter((f) => /^PLAN-[0-9a-f]{8}\.md$/.test(f) && /^status: proposed$/m.test(fs.readFileSync(path.join(plans, f), 'utf8'))).slice(0, 6).map((f) => f.slice(0, -3));
  const commands = [
    { command: 'show', argv: (i: number) => [cliJs, '--root', root, 'show', proposed[i]] },
    // Without a terminal to ask the person, approve takes the digest of the text they reviewed.
    { command: 'approve', argv: (i: number) => [cliJs, '--root', root, 'approve', proposed[3 + i], '--digest', contentDigest(parsePlan(fs.readFileSync(path.join(plans, `${proposed[3 + i]}.md`), 'utf8')))] },
  ].map((c) => {
    const runs = [0, 1, 2].map((i) => sample(c.argv(i)));
    return { command: c.command, ms: median(runs.map((r) => r.ms)), peakMb: median(runs.map((r) => r.peakMb)) };
  });
  return { bareNodeMb: median(bare), commands };
}

/** The longest event-loop stall (ms) while `fn` runs. */
async function longestStall(fn: () => Promise<unknown>): Promise<number> {
  // The longest gap between ticks of a 1 ms timer, from before `fn` until a tick after it.
  let last = performance.now();
  let max = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last);
    last = now;
  }, 1);
  await fn();
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(tick);
  return max;
}

/** Medians of the longest stall during a first read of `text`, with and without the worker. */
async function hostStalls(text: string): Promise<{ onThread: number; offThread: number }> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-stall-'));
  const script = path.join(ws, 'outlineWorker.js');
  await esbuild.build({ entryPoints: [path.resolve(__dirname, '../src/node/ports/outlineWorker.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'error' });
  fs.mkdirSync(path.join(ws, '.pi', 'plans'), { recursive: true });
  const parser = new OffThreadParser(script);
  const file = path.join(ws, '.pi', 'plans', 'PLAN-ffffffff.md');
  const on: number[] = [];
  const off: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      for (const [ports, into] of [[{ ...nodePorts(ws, { indexCache: false }) }, on], [{ ...nodePorts(ws, { indexCache: false, blocking: false }), parser }, off]] as const) {
        // A body never parsed before (the outline cache is keyed by it).
        fs.writeFileSync(file, text.replace('x'.repeat(20), `${into === on ? 'a' : 'b'}${i}`.padEnd(20, 'x')));
        const store = await PlanStore.open(ws, ports);
        into.push(await longestStall(() => store.read('PLAN-ffffffff')));
      }
    }
  } finally {
    parser.dispose();
    fs.rmSync(ws, { recursive: true, force: true });
  }
  return { onThread: median(on), offThread: median(off) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
async function time(fn: () => Promise<unknown> | unknown, runs: number): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return median(out);
}

function hex(i: number) {
  return i.toString(16).padStart(8, '0');
}

function generate() {
  if (fs.existsSync(path.join(plans, `PLAN-${hex(N)}.md`))) return;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(plans, { recursive: true });
  const steps = Array.from({ length: 12 }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` }));
  const template = createPlanText({ id: 'PLAN-00000000', title: 'Generated plan TITLE', goal: 'A generated plan for the benchmark.', steps, risks: ['none'], context: 'Generated.' }, '2026-11-22T10:00:00.000Z');
  const statuses = ['draft', 'proposed', 'approved', 'executing', 'completed'];
  for (let i = 0; i < N; i++) {
    const t = template.replace(/PLAN-00000000/, `PLAN-${hex(i)}`).replace('TITLE', String(i)).replace('status: draft', `status: ${statuses[i % statuses.length]}`);
    fs.writeFileSync(path.join(plans, `PLAN-${hex(i)}.md`), t);
  }
  const big = Array.from({ length: 200 }, (_, i) => ({ text: `Big step ${i + 1}`, tool: 'edit', operation: 'update', target: `src/big${i}.ts` }));
  fs.writeFileSync(path.join(plans, `PLAN-${hex(N)}.md`), createPlanText({ id: `PLAN-${hex(N)}`, title: 'Big plan', goal: 'Two hundred steps.', steps: big }, '2026-11-22T10:00:00.000Z'));
}

/** One read of pathological Markdown: time, size, and what it gave (`parsed` or the refusing rule). */
interface MarkdownCase {
  variant: string;
  chars: number;
  ms: number;
  outcome: string;
}
interface MarkdownFamilyFigures {
  family: string;
  worst?: MarkdownCase;
  worstRefused?: MarkdownCase;
  worstParsed?: MarkdownCase;
  cases: number;
  /** Every case. */
  all?: MarkdownCase[];
  peakAboveMb: number;
}

/** Targets for any file under the size cap: parsed or refused within this time and memory above the baseline. */
const MARKDOWN_TARGET = { ms: 100, mb: 50 };

/** Every pathological family (bench/markdown.ts, a fresh process each), and ordinary plans for reference. */
async function markdownFigures(): Promise<{ families: MarkdownFamilyFigures[]; reference: MarkdownFamilyFigures }> {
  const out = path.join(cacheDir, 'markdown.js');
  await esbuild.build({ entryPoints: [path.resolve(__dirname, 'markdown.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error' });
  const run = (a: string) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', out, a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').at(-1)!) as MarkdownFamilyFigures;
  const families = [...new Set(PATHOLOGICAL_FAMILIES.map((f) => f.base))].map(run);
  return { families, reference: run('--reference') };
}

/** The pathological Markdown figures, as the other figures are printed. */
function printMarkdown(m: Awaited<ReturnType<typeof markdownFigures>>): void {
  const kb = (c?: MarkdownCase) => (c ? `${Math.round(c.chars / 1024)} KB` : '');
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('');
  console.log(`Pathological Markdown, each family with its nestings (list item, quote) at 4 KB to the ${LIMITS.fileBytes / 1024} KB cap and the largest size the pre-scan accepts (a process per family, warmed up; targets: parsed or refused <= ${MARKDOWN_TARGET.ms} ms, <= ${MARKDOWN_TARGET.mb} MB above the baseline; x plan/KB: the worst accepted read's cost per KB over an ordinary plan's of about its size):`);
  // What a character of ordinary plan text costs at about a case's size (the nearest ordinary plan, by ratio of sizes).
  const ordinary = (m.reference.all ?? []).filter((c) => c.variant.startsWith('ordinary plan'));
  const perChar = (c: MarkdownCase) => c.ms / c.chars;
  const relative = (c: MarkdownCase) => {
    const near = ordinary.reduce<MarkdownCase | undefined>((a, o) => (!a || Math.abs(Math.log(o.chars / c.chars)) < Math.abs(Math.log(a.chars / c.chars)) ? o : a), undefined);
    return near ? perChar(c) / perChar(near) : NaN;
  };
  console.log(`  ${'family'.padEnd(36)} ${'worst ms'.padStart(9)}  ${'worst case'.padEnd(34)} ${'refused in'.padStart(10)} ${'parsed in'.padStart(10)} ${'x plan/KB'.padStart(9)} ${'peak'.padStart(8)}`);
  let worstRelative = 0;
  for (const f of m.families) {
    const w = f.worst;
    const rel = Math.max(0, ...(f.all ?? []).filter((c) => c.outcome === 'parsed' && c.ms >= 20).map(relative));
    worstRelative = Math.max(worstRelative, rel);
    console.log(
      `  ${f.family.padEnd(36)} ${(w?.ms ?? 0).toFixed(1).padStart(9)}  ${`${w?.outcome ?? ''} ${kb(w)}`.padEnd(34)} ${f.worstRefused ? `${f.worstRefused.ms.toFixed(1)} ms`.padStart(10) : '-'.padStart(10)} ${f.worstParsed ? `${f.worstParsed.ms.toFixed(0)} ms`.padStart(10) : '-'.padStart(10)} ${(rel ? rel.toFixed(1) : '-').padStart(9)} ${`+${f.peakAboveMb.toFixed(0)} MB`.padStart(8)}  ${met((w?.ms ?? 0) <= MARKDOWN_TARGET.ms && f.peakAboveMb <= MARKDOWN_TARGET.mb)}`,
    );
  }
  const all = m.families;
  const max = (xs: number[]) => Math.max(0, ...xs);
  const refused = max(all.map((f) => f.worstRefused?.ms ?? 0));
  const parsed = max(all.map((f) => f.worstParsed?.ms ?? 0));
  const peak = max(all.map((f) => f.peakAboveMb));
  console.log(`  every refusal            ${refused.toFixed(1)} ms at most (target <= ${MARKDOWN_TARGET.ms} ms) ${met(refused <= MARKDOWN_TARGET.ms)}`);
  console.log(`  every accepted file      ${parsed.toFixed(0)} ms at most (target <= ${MARKDOWN_TARGET.ms} ms) ${met(parsed <= MARKDOWN_TARGET.ms)}`);
  console.log(`  peak memory              +${peak.toFixed(0)} MB at most (target <= ${MARKDOWN_TARGET.mb} MB) ${met(peak <= MARKDOWN_TARGET.mb)}`);
  console.log(`  accepted, per KB          ${worstRelative.toFixed(1)} x what an ordinary plan of that size costs at most (reads of 20 ms or more; the pre-scan's budget: about 2 x by its estimate)`);
  const ref = (m.reference.all ?? []).map((c) => `${c.variant} (${Math.round(c.chars / 1024)} KB) ${c.ms.toFixed(0)} ms`).join(', ');
  console.log(`  ordinary plans, the parse's own floor: ${ref}, peak +${m.reference.peakAboveMb.toFixed(0)} MB`);
}

async function main() {
  if (args.includes('--markdown-only')) {
    const m = await markdownFigures();
    if (json) process.stdout.write(JSON.stringify({ markdown: m }, null, 2) + '\n');
    else printMarkdown(m);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  if (args.includes('--long-only')) {
    const long = longFigures(clisOf(cliArg));
    if (json) process.stdout.write(JSON.stringify({ long }, null, 2) + '\n');
    else printLong(long);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  if (args.includes('--list-only')) {
    const l = await listFigures(N, clisOf(cliArg));
    const faces = args.includes('--no-faces') ? undefined : await facesFigures(N, builtCli());
    const long = longFigures(clisOf(cliArg));
    if (json) process.stdout.write(JSON.stringify({ list: l, ...(faces ? { faces } : {}), long }, null, 2) + '\n');
    else {
      printList(l);
      if (faces) printFaces(faces);
      printLong(long);
    }
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  if (args.includes('--growth-only')) {
    const g = await growthFigures();
    if (json) process.stdout.write(JSON.stringify({ growth: g }, null, 2) + '\n');
    else printGrowth(g);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  if (args.includes('--evidence-only')) {
    const e = await evidenceFigures();
    if (json) process.stdout.write(JSON.stringify({ evidence: e }, null, 2) + '\n');
    else printEvidence(e);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  const tg = performance.now();
  generate();
  const genMs = performance.now() - tg;
  // An executing plan of the corpus (every fifth is), its steps targeting src/m0.ts…
  const executing = `PLAN-${hex(3)}`;
  if (args.includes('--hosts-only')) {
    const f = await hostsFigures();
    if (json) process.stdout.write(JSON.stringify({ hosts: f }, null, 2) + '\n');
    else if (f) (await import('./hosts.mjs')).printHosts(f);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  if (args.includes('--hook-only')) {
    const h = await hookFigures(root, executing);
    if (json) process.stdout.write(JSON.stringify({ hook: h }, null, 2) + '\n');
    else printHook(h, N);
    fs.rmSync(cacheDir, { recursive: true, force: true });
    return;
  }
  const names = fs.readdirSync(plans).filter((n) => n.endsWith('.md'));
  const readFloor = async () => {
    let bytes = 0;
    for (const n of fs.readdirSync(plans)) if (n.endsWith('.md')) bytes += fs.readFileSync(path.join(plans, n)).length;
    return bytes;
  };
  await readFloor(); // warm the OS file cache

  const ports = () => ({ ...nodePorts(root, { indexCache: false }) });
  // Fresh processes: the read floor, the cold index, the warm start (each with its peak memory).
  const script = await buildChild();
  // The floor in a process that loads nothing of ours (bare Node reading every file): its time
  // is the time floor, its peak memory what a process doing no more than that needs.
  const floorScript = path.join(cacheDir, 'floor.js');
  fs.writeFileSync(
    floorScript,
    "const fs = require('fs'), path = require('path'); const dir = path.join(process.argv[2], '.pi', 'plans'); const t = performance.now(); let bytes = 0;\n" +
      "for (const n of fs.readdirSync(dir)) if (n.endsWith('.md')) bytes += fs.readFileSync(path.join(dir, n)).length;\n" +
      "process.stdout.write(JSON.stringify({ ms: performance.now() - t, bytes, peakMb: process.resourceUsage().maxRSS / 1024 }) + '\\n');\n",
  );
  const floorRun = medianOf3(() => child<{ ms: number }>(floorScript, [root]));
  const floor = floorRun.ms;
  const loadedRun = medianOf3(() => child<Record<string, never>>(script, ['loaded', root]));
  const coldRun = medianOf3(() => child<{ ms: number }>(script, ['index', root]));
  const cold = coldRun.ms;
  // The same in the extension host's configuration: no synchronous I/O on its thread, and its
  // worker (dist/outlineWorker.js) reading and summarizing the files; and without the worker.
  const workerScript = path.join(cacheDir, 'outlineWorker.js');
  await esbuild.build({ entryPoints: [path.resolve(__dirname, '../src/node/ports/outlineWorker.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: workerScript, logLevel: 'error' });
  const hostColdRun = medianOf3(() => child<{ ms: number }>(script, ['index', root, '-', workerScript, 'async']));
  const hostAloneRun = medianOf3(() => child<{ ms: number }>(script, ['index', root, '-', '-', 'async']));
  child(script, ['index', root, cacheDir]); // writes the warm index
  const warmRun = medianOf3(() => child<{ ms: number }>(script, ['index', root, cacheDir]));
  const warm = warmRun.ms;
  // Step updates in fresh processes that open the store for named plans only, on a plan another
  // process created (as an agent's earlier calls did): with the outline cache the CLI and the MCP
  // server keep (the figures of record), and without it (the first process to touch the plan
  // parses it once: its peak memory).
  const outlines = path.join(cacheDir, 'outlines');
  const updateRun = (n: number, cached: boolean) => {
    const { id } = child<{ id: string }>(script, ['setup', root, String(n), ...(cached ? [outlines] : [])]);
    return child<{ locked: number; whole: number; bare: number; bytes: number; firstLocked: number; firstWhole: number; earlyUsed: number; updates: number }>(script, ['update', root, id, '60', ...(cached ? [outlines] : [])]);
  };
  const updates = [12, 200, 1000].map((n) => ({ n, ...medianOf3(() => updateRun(n, true)), firstTouchPeakMb: medianOf3(() => updateRun(n, false)).peakMb }));
  // The bare write of a 12-step plan: the floor of the in-process rows below.
  const bare = updates[0].bare;
  // 100 step updates of one plan sent at once to one store (an MCP client that does not wait for
  // its answers), against the same 100 one after another (each a median of three rounds).
  const inflight = medianOf3(() => {
    const { id } = child<{ id: string }>(script, ['setup', root, '12', outlines]);
    return child<{ n: number; sequential: number; inflight: number; ratio: number; medianCall: number }>(script, ['inflight', root, id, '100', outlines]);
  });

  const store = await PlanStore.open(root, ports());
  // What the extension's re-scans cost (after loading, on focus, every 30 s): a listing and stats.
  const reconcile = await time(() => store.rescan(), 5);
  const touched = path.join(plans, `PLAN-${hex(3)}.md`);
  const reconcileOne = await time(async () => {
    fs.appendFileSync(touched, '\n');
    await store.rescan();
  }, 5);
  const list = await time(() => store.list(), 20);
  const listProposed = await time(() => store.list({ status: ['proposed'] }), 20);
  const get12 = await time(() => store.read(`PLAN-${hex(7)}`), 20);
  // A 200-step plan: the first read parses it with remark, later reads hit the outline cache.
  const bigId = `PLAN-${hex(N)}`;
  const t200 = performance.now();
  await store.read(bigId);
  const get200First = performance.now() - t200;
  const get200 = await time(() => store.read(bigId), 10);
  // One metadata update setting four sections of the 200-step plan (pure core: one parse of the result).
  const bigDoc = await store.read(bigId);
  const meta4 = await time(() => setMetadata(bigDoc, { goal: 'New goal.', risks: ['r1', 'r2'], verification: ['npm test'], context: 'More context.' }, {}, { now: new Date().toISOString(), actor: 'agent' }), 10);
  // A plan at the size limit: the Markdown parse the extension host would do on a first read.
  const limitText = createPlanText({ id: 'PLAN-ffffffff', title: 'At the limit', goal: 'x'.repeat(1000), steps: Array.from({ length: 200 }, (_, i) => ({ text: `Step ${i} ${'y'.repeat(200)}`, details: `${'z'.repeat(400)}` })), context: 'c'.repeat(40_000) }, '2026-11-22T10:00:00.000Z');
  const parseLimit = await time(() => parsePlan(limitText, undefined, { fresh: true }), 5);
  // What the extension host's thread goes through on the first read of that plan: its longest
  // stall, with the Markdown parse on this thread (the CLI's store) and on the worker (the host's).
  const stalls = await hostStalls(limitText);

  const cli = cliOnePlan();
  const listRun = args.includes('--no-list') ? undefined : await listFigures(N, clisOf(cliArg));
  const facesRun = args.includes('--no-list') || args.includes('--no-faces') ? undefined : await facesFigures(N, builtCli());
  const longRun = args.includes('--no-list') ? undefined : longFigures(clisOf(cliArg));
  const hook = await hookFigures(root, executing);
  const evidence = args.includes('--no-evidence') ? undefined : await evidenceFigures();
  const growth = args.includes('--no-growth') ? undefined : await growthFigures();
  const hosts = args.includes('--no-hosts') ? undefined : await hostsFigures();

  const rows = [
    { measure: 'read floor (all plan bytes, plain loop)', ms: floor, floor: floor },
    { measure: 'cold index build (no persisted index)', ms: cold, floor },
    { measure: 'cold index, extension host (its worker reads)', ms: hostColdRun.ms, floor },
    { measure: 'cold index, extension host, no worker', ms: hostAloneRun.ms, floor },
    { measure: 'warm start (persisted index)', ms: warm, floor },
    { measure: 're-scan, nothing changed (listing + stats)', ms: reconcile, floor },
    { measure: 're-scan, one file changed', ms: reconcileOne, floor },
    { measure: 'list (in memory, all)', ms: list, floor },
    { measure: 'list --status proposed (in memory)', ms: listProposed, floor },
    { measure: 'get (12 steps, full parse)', ms: get12, floor: bare },
    { measure: 'get (200 steps, first parse)', ms: get200First, floor: bare },
    { measure: 'get (200 steps, cached outline)', ms: get200, floor: bare },
    { measure: 'metadata update, 4 sections, 200-step plan', ms: meta4, floor: bare },
    { measure: `parse, plan of ${Math.round(limitText.length / 1024)} KB (fresh)`, ms: parseLimit, floor: bare },
    { measure: 'longest stall, first read of it, parse on this thread', ms: stalls.onThread, floor: bare },
    { measure: 'longest stall, first read of it, parse on a worker', ms: stalls.offThread, floor: bare },
    ...updates.flatMap((u) => [
      { measure: `bare fsynced write, ${u.n}-step plan (${Math.round(u.bytes / 1024)} KB)`, ms: u.bare, floor: u.bare },
      { measure: `step update, ${u.n} steps (under the lock)`, ms: u.locked, floor: u.bare },
      { measure: `step update, ${u.n} steps (whole store.update call)`, ms: u.whole, floor: u.bare },
      { measure: `  a process's first update (one CLI command), under the lock`, ms: u.firstLocked, floor: u.bare },
      { measure: `  a process's first update, whole call (no store to open)`, ms: u.firstWhole, floor: u.bare },
    ]),
  ];
  const out = {
    plans: names.length,
    corpusBytes: await readFloor(),
    generateMs: genMs,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    rows: rows.map((r) => ({ ...r, ratio: r.ms / r.floor })),
    cli,
    list: listRun,
    faces: facesRun,
    long: longRun,
    hook,
    evidence,
    growth,
    processes: { floor: floorRun, loaded: loadedRun, cold: coldRun, hostCold: hostColdRun, hostColdAlone: hostAloneRun, warm: warmRun, updates },
    inflight: { ...inflight, target: 2 },
    targets: {
      coldIndexVsFloor: { value: cold / floor, target: 3 },
      warmStartVsFloor: { value: warm / floor, target: 1 },
      ...Object.fromEntries(updates.flatMap((u) => [[`update${u.n}VsBareWrite`, { value: u.locked / u.bare, target: 2 }], [`update${u.n}WholeVsBare`, { value: u.whole / u.bare, target: 3 }]])),
    },
    memory: {
      coldIndexPeakMb: { value: coldRun.peakMb, target: 100 },
      ...Object.fromEntries(updates.map((u) => [`update${u.n}PeakMb`, { value: u.peakMb, target: 70 }])),
    },
  };
  if (!args.includes('--no-vscode')) (out as Record<string, unknown>).vscode = vscodeFigures();
  if (!args.includes('--no-vscode') && !args.includes('--no-explorer')) (out as Record<string, unknown>).explorer = explorerFigures();
  if (!args.includes('--no-vscode') && !args.includes('--no-editor')) (out as Record<string, unknown>).editor = editorFigures();
  const markdown = args.includes('--no-markdown') ? undefined : await markdownFigures();
  if (markdown) (out as Record<string, unknown>).markdown = markdown;
  if (json) {
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    console.log(`Corpus: ${out.plans} plan files, ${(out.corpusBytes / 1e6).toFixed(1)} MB (${out.machine})`);
    console.log('');
    console.log(`${'measure'.padEnd(52)} ${'ms'.padStart(10)}  ratio`);
    for (const r of out.rows) console.log(`${r.measure.padEnd(52)} ${r.ms.toFixed(2).padStart(10)}  ${r.ratio.toFixed(2)}x ${r.floor === floor ? 'floor' : 'bare write'}`);
    console.log('');
    console.log('');
    console.log(`pi-plans on one plan of the ${names.length}-plan folder (a process of its own; bare Node: ${cli.bareNodeMb.toFixed(0)} MB):`);
    for (const c of cli.commands) console.log(`  ${c.command.padEnd(8)} ${c.ms.toFixed(0).padStart(5)} ms, peak memory ${c.peakMb.toFixed(0)} MB (target <= 70 MB)`);
    if (listRun) printList(listRun);
    if (facesRun) printFaces(facesRun);
    if (longRun) printLong(longRun);
    printHook(hook, names.length);
    if (hosts) (await import('./hosts.mjs')).printHosts(hosts);
    if (evidence) printEvidence(evidence);
    if (growth) printGrowth(growth);
    const f = out.inflight;
    console.log(`100 updates in flight vs sequential: ${f.ratio.toFixed(2)}× (target <= ${f.target}x) ${f.ratio <= f.target ? 'met' : 'NOT met'}: ${f.inflight.toFixed(0)} ms sent at once to one store, ${f.sequential.toFixed(0)} ms one after another; each call's median ${f.medianCall.toFixed(0)} ms`);
    console.log(`Updates whose operation was worked out before the lock and written as such (the file still held what it was worked out from): ${updates.map((u) => `${u.n} steps ${u.earlyUsed} of ${u.updates}`).join(', ')}`);
    console.log(`Peak memory of each process: read floor (bare Node) ${floorRun.peakMb.toFixed(0)} MB, Node with our code loaded ${loadedRun.peakMb.toFixed(0)} MB, cold index ${coldRun.peakMb.toFixed(0)} MB (extension host's configuration: ${hostColdRun.peakMb.toFixed(0)} MB with its worker, ${hostAloneRun.peakMb.toFixed(0)} MB without), warm start ${warmRun.peakMb.toFixed(0)} MB; updates ${updates.map((u) => `${u.n} steps ${u.peakMb.toFixed(0)} MB (the first process to touch the plan, parsing it: ${u.firstTouchPeakMb.toFixed(0)} MB)`).join(', ')}`);
    for (const [k, v] of Object.entries(out.targets)) console.log(`${k.padEnd(24)} ${v.value.toFixed(2)}x (target <= ${v.target}x) ${v.value <= v.target ? 'met' : 'NOT met'}`);
    for (const [k, v] of Object.entries(out.memory)) console.log(`${k.padEnd(24)} ${v.value.toFixed(0)} MB (target <= ${v.target} MB) ${v.value <= v.target ? 'met' : 'NOT met'}`);
    const v = (out as { vscode?: ReturnType<typeof vscodeFigures> }).vscode;
    if (v) {
      console.log('');
      console.log(`VS Code ${v.vscode} (code-server), extension host, sample workspace:`);
      console.log(`  activation (activate() call)   ${v.activationMs === undefined ? 'n/a' : `${v.activationMs.toFixed(2)} ms`} (target < 50 ms)`);
      console.log(`  bundle dist/extension.js       ${(v.bundleBytes / 1024).toFixed(0)} KB minified (target < 500 KB) ${v.bundleBytes < 500 * 1024 ? 'met' : 'NOT met'}`);
    }
    const x = (out as { explorer?: ReturnType<typeof explorerFigures> }).explorer;
    if (x) {
      console.log('');
      const ms = (n: number | undefined, target: number) => (n === undefined ? 'n/a' : `${n.toFixed(0)} ms (target < ${target} ms) ${n < target ? 'met' : 'NOT met'}`);
      if ('error' in x) console.log(`Plan explorer in VS Code: failed (${x.error})`);
      else {
        console.log(`Plan explorer in VS Code (code-server + chromium, page clock), ${x.plans} plans:`);
        console.log(`  first render, clicked once the index loaded       ${ms(x.firstRenderMs, 300)}`);
        if (x.firstRenderIdleMs !== undefined) console.log(`  first render, clicked 10 s after the load         ${ms(x.firstRenderIdleMs, 300)}`);
        console.log(`  outside change on screen (median of ${x.changeRunsMs.length}, new row)   ${ms(x.changeMs, 500)}`);
        console.log(`  the same change in the status bar                 ${x.changeStatusMs?.toFixed(0)} ms`);
        console.log(`  longest page task: first render ${x.firstRenderLongestTaskMs.toFixed(0)} ms, changes ${x.changeLongestTaskMs?.toFixed(0)} ms; index loaded ${(x.indexLoadedMs / 1000).toFixed(1)} s after opening`);
        console.log(`  the extension host's cold index (its log: the store's load, the worker reading the files): ${x.hostIndexMs ?? 'n/a'} ms, ${x.hostIndexIdleMs ?? 'n/a'} ms in the second window`);
        const problems = [...new Set(x.logProblems.map((l) => l.replace(/^\S+ \S+ /, '')))];
        for (const l of problems) console.log(`  log: ${l}`);
      }
    }
    const ed = (out as { editor?: ReturnType<typeof editorFigures> }).editor;
    if (ed) {
      console.log('');
      if ('error' in ed) console.log(`Plan editor in VS Code: failed (${ed.error})`);
      else {
        const ms = (n: number | undefined, target: number) => (n === undefined ? 'n/a' : `${n.toFixed(0)} ms (target < ${target} ms) ${n < target ? 'met' : 'NOT met'}`);
        console.log(`Plan editor in VS Code (code-server + chromium), a ${ed.steps}-step plan:`);
        console.log(`  painted after the webview script starts           ${ms(ed.paintMs, 150)}`);
        console.log(`  opened, from Enter in Open a Plan… (VS Code's webview start included)   ${ed.openMs.toFixed(0)} ms`);
        console.log(`  outside step change on screen, from the host's document change (median of ${ed.changeRunsMs.length})   ${ms(ed.ourChangeMs, 50)}`);
        const parts = ed.ourChangeParts;
        console.log(`    of which: the state built ${parts.hostMs} ms, posted ${parts.postMs} ms, rendered ${parts.renderMs} ms`);
        console.log(`  the same from the file write (VS Code's watcher and reload of the document included)   ${ed.changeMs.toFixed(0)} ms`);
        console.log(`  webview bundle dist/webview.js                     ${(ed.bundleBytes / 1024).toFixed(0)} KB minified (target < 150 KB)`);
      }
    }
    if (markdown) printMarkdown(markdown);
  }
  fs.rmSync(cacheDir, { recursive: true, force: true });
}

/** Activation inside a real VS Code (the integration harness's "bench" suite) and the bundle size. */
function vscodeFigures() {
  const repo = path.resolve(__dirname, '..');
  const out = execFileSync(process.execPath, [path.join(repo, 'scripts/build.mjs'), '--production', '--meta'], { cwd: repo, encoding: 'utf8' });
  const bundleBytes = Number(/dist\/extension\.js (\d+) KB/.exec(out)?.[1] ?? 0) * 1024;
  execFileSync(process.execPath, [path.join(repo, 'scripts/build.mjs')], { cwd: repo, stdio: 'ignore' });
  const log = execFileSync(process.execPath, [path.join(repo, 'test/harness/runIntegration.mjs'), 'bench'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const m = /BENCH activation_ms=([\d.]+) ready_after_ms=(\d+)/.exec(log);
  return { vscode: '1.139.1', activationMs: m ? Number(m[1]) : undefined, readyMs: m ? Number(m[2]) : undefined, bundleBytes };
}

interface ExplorerFigures {
  plans: number;
  indexLoadedMs: number;
  hostIndexMs?: number;
  hostIndexIdleMs?: number;
  firstRenderMs: number;
  firstRenderLongestTaskMs: number;
  firstRenderIdleMs?: number;
  changeMs?: number;
  changeRunsMs: number[];
  changeStatusMs?: number;
  changeLongestTaskMs?: number;
  logProblems: string[];
  consoleErrors: string[];
}

interface EditorFigures {
  steps: number;
  openMs: number;
  paintMs?: number;
  changeMs: number;
  changeRunsMs: number[];
  ourChangeMs: number;
  ourChangeParts: { hostMs: number; postMs: number; renderMs: number };
  bundleBytes: number;
}

/** The plan editor on a 200-step plan in a real VS Code (bench/planEditor.mjs, which cleans up after itself). */
function editorFigures(): EditorFigures | { error: string } {
  const repo = path.resolve(__dirname, '..');
  try {
    const stdout = execFileSync(process.execPath, [path.join(__dirname, 'planEditor.mjs')], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000, killSignal: 'SIGTERM' });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as EditorFigures;
  } catch (e) {
    process.exitCode = 1;
    return { error: String((e as Error).message ?? e).split('\n')[0] };
  }
}

/** The plan explorer on this corpus in a real VS Code (bench/explorer.mjs, which cleans up after itself). */
function explorerFigures(): ExplorerFigures | { error: string } {
  const repo = path.resolve(__dirname, '..');
  try {
    const stdout = execFileSync(process.execPath, [path.join(__dirname, 'explorer.mjs'), root], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000, killSignal: 'SIGTERM' });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as ExplorerFigures;
  } catch (e) {
    process.exitCode = 1;
    return { error: String((e as Error).message ?? e).split('\n')[0] };
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
