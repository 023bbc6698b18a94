/**
 * `pi-plans list --json` on folders of mixed statuses (issue 40): each a fresh process of the built
 * CLI, its whole wall time as the person at the terminal waits for it, against the read floor (a
 * bare Node process reading every plan file of the same folder) and against the same folder with
 * only proposed plans. Cold: an empty cache folder (no index kept, no verdicts); warm: the cache
 * folder a first run left. Three runs of each, interleaved (and interleaved between CLIs when
 * several are given: `--cli before=/path/cli.js,after=dist/cli.js`), each with its peak memory.
 * Corpora (generated once under bench/corpus, N from --plans or PI_PLANS_BENCH_PLANS):
 *   mixed     N plans of 12 steps as pi-planner writes them: a quarter each proposed, approved,
 *             executing, completed (pi-planner approves without a record: a status, a version)
 *   proposed  the same files, every one proposed
 *   signed    N plans of Pi Plans' own, a quarter each proposed, approved, executing, completed,
 *             the last three with the record of a person's signed approval (keys in a
 *             configuration folder beside the corpus): the approvals this project checks
 * Targets (issue 40): mixed ≤ 1.1× proposed, cold ≤ 5× the floor, warm ≤ 1.5×, peak ≤ 2× the floor's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPlanText, parsePlan } from '../src/core';
import { NodeApprovalKeys } from '../src/node';
import { sealApproval } from '../test/helpers/approvals';

export const LIST_TARGETS = { mixedVsProposed: 1.1, coldVsFloor: 5, warmVsFloor: 1.5, peakVsFloor: 2 };
const KINDS = ['mixed', 'proposed', 'signed'] as const;
type Kind = (typeof KINDS)[number];

/** One process: its wall time (spawn to exit, ms), its CPU time (user and system, ms: less moved by other processes on a busy machine) and peak memory (MB). */
interface Sample {
  ms: number;
  cpuMs: number;
  peakMb: number;
}
export interface ListFigures {
  plans: number;
  runs: number;
  /** By corpus: the floor's runs, and by CLI label the cold and warm runs. */
  corpora: Record<Kind, { floor: Sample[]; clis: Record<string, { cold: Sample[]; warm: Sample[]; flagged: Record<string, number> }> }>;
  load: { before: number[]; after: number[] };
}

const hex = (i: number) => i.toString(16).padStart(8, '0');
const STATUSES = ['proposed', 'approved', 'executing', 'completed'] as const;

/** A plan as pi-planner writes it (marcfargas/pi-planner serializePlan; approve, markExecuting and markCompleted each add a version). */
function piPlannerText(i: number, status: (typeof STATUSES)[number]): string {
  const version = STATUSES.indexOf(status) + 1;
  const at = '2026-11-22T10:00:00.000Z';
  const lines = ['---', `id: PLAN-${hex(i)}`, `title: "Generated plan ${i}"`, `status: ${status}`, `version: ${version}`, `created_at: ${at}`, `updated_at: ${at}`, 'planner_model: claude-sonnet-4-5', 'tools_required:', '  - edit', 'executor_model: claude-haiku-4-5'];
  if (version >= 3) lines.push(`execution_started_at: ${at}`);
  if (version >= 4) lines.push(`execution_ended_at: ${at}`, 'result_summary: "Every step done."');
  lines.push('---', '', '## Steps');
  for (let s = 0; s < 12; s++) lines.push(`${s + 1}. Step ${s + 1}: change module ${s} (edit: update → src/m${s}.ts)`);
  lines.push('', '## Context', 'A generated plan for the benchmark: pi-planner wrote it.', '');
  return lines.join('\n');
}

/** The folder of one corpus (and, for `signed`, the configuration folder with the approving person's key, outside it). */
export function corpusRoot(kind: Kind, n: number): { root: string; configHome: string } {
  const root = path.resolve(__dirname, 'corpus', `${kind}-${n}`);
  return { root, configHome: `${root}-config` };
}

/** Generates a corpus unless it is there already (its last file written last). */
async function generate(kind: Kind, n: number): Promise<void> {
  const { root, configHome } = corpusRoot(kind, n);
  const plans = path.join(root, '.pi', 'plans');
  if (fs.existsSync(path.join(plans, `PLAN-${hex(n - 1)}.md`))) return;
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(configHome, { recursive: true, force: true });
  fs.mkdirSync(plans, { recursive: true });
  if (kind !== 'signed') {
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(plans, `PLAN-${hex(i)}.md`), piPlannerText(i, kind === 'proposed' ? 'proposed' : STATUSES[i % 4]));
    return;
  }
  const configDir = path.join(configHome, 'pi-plans');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ name: 'Bench Person' }));
  const signer = await new NodeApprovalKeys(configDir, () => [root], true).signer();
  const steps = Array.from({ length: 12 }, (_, s) => ({ text: `Step ${s + 1}: change module ${s}`, tool: 'edit', operation: 'update', target: `src/m${s}.ts` }));
  for (let i = 0; i < n; i++) {
    const status = STATUSES[i % 4];
    const base = createPlanText({ id: `PLAN-${hex(i)}`, title: `Generated plan ${i}`, goal: 'A generated plan for the benchmark.', steps, risks: ['none'], context: 'Generated.' }, '2026-11-22T10:00:00.000Z');
    let text = base.replace('status: draft', `status: ${status}`);
    if (status !== 'proposed') {
      text = sealApproval(parsePlan(text.replace('version: 1', 'version: 2')), signer, '2026-11-22T10:00:00.000Z').text;
      // The steps an executing plan has done, every step of a completed one: execution state, outside the approved digest.
      const done = status === 'completed' ? 12 : status === 'executing' ? 4 : 0;
      for (let s = 1; s <= done; s++) text = text.replace(`[ ] S${String(s).padStart(3, '0')}`, `[x] S${String(s).padStart(3, '0')}`);
    }
    fs.writeFileSync(path.join(plans, `PLAN-${hex(i)}.md`), text);
  }
}

/** The machine's one-minute load, as `uptime` says it. */
const load = () => os.loadavg()[0];

/**
 * Measures every corpus with each CLI (`clis`: label → path of the bin, or of a cli.js), `runs` times, interleaved:
 * each round takes the floor, then each CLI's cold run and warm run, corpus after corpus.
 */
export async function listFigures(n: number, clis: Record<string, string>, runs = 3): Promise<ListFigures> {
  for (const kind of KINDS) await generate(kind, n);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-list-'));
  try {
    const hook = path.join(work, 'rss-hook.cjs');
    fs.writeFileSync(hook, "process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeSync(2, `\\nbench-peak ${u.maxRSS} ${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`); });\n");
    const floorScript = path.join(work, 'floor.js');
    fs.writeFileSync(floorScript, "const fs = require('fs'), path = require('path'); const dir = path.join(process.argv[2], '.pi', 'plans'); let bytes = 0;\nfor (const n of fs.readdirSync(dir)) if (n.endsWith('.md')) bytes += fs.readFileSync(path.join(dir, n)).length;\n");
    const out = path.join(work, 'out.json');
    /** One process, timed from the spawn to its exit. */
    const run = (argv: string[], env: NodeJS.ProcessEnv): Sample => {
      const fd = fs.openSync(out, 'w');
      const t = performance.now();
      const r = spawnSync(process.execPath, ['-r', hook, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      const ms = performance.now() - t;
      fs.closeSync(fd);
      const m = /bench-peak (\d+) ([\d.]+)/.exec(r.stderr ?? '');
      if (r.status !== 0 || !m) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
      return { ms, cpuMs: Number(m[2]), peakMb: Number(m[1]) / 1024 };
    };
    const figures = { plans: n, runs, corpora: {} as ListFigures['corpora'], load: { before: [load()], after: [] as number[] } };
    for (const kind of KINDS) figures.corpora[kind] = { floor: [], clis: Object.fromEntries(Object.keys(clis).map((c) => [c, { cold: [], warm: [], flagged: {} }])) };
    // Each CLI's warm cache folder per corpus, made by a first run.
    const warmDirs = new Map<string, string>();
    const envOf = (kind: Kind, cacheDir: string): NodeJS.ProcessEnv => {
      const { configHome } = corpusRoot(kind, n);
      const stateHome = path.join(work, `state-${kind}`);
      return { PI_PLANS_CACHE_DIR: cacheDir, XDG_CONFIG_HOME: kind === 'signed' ? configHome : path.join(work, 'config'), XDG_STATE_HOME: stateHome, PI_PLANS_STATE_DIR: '' };
    };
    const listArgs = (cli: string, kind: Kind) => [cli, '--root', corpusRoot(kind, n).root, 'list', '--json'];
    for (const kind of KINDS) {
      for (const [label, cli] of Object.entries(clis)) {
        const dir = fs.mkdtempSync(path.join(work, `warm-${label}-${kind}-`));
        run(listArgs(cli, kind), envOf(kind, dir));
        warmDirs.set(`${label}|${kind}`, dir);
        // What it listed: how many of each attention flag (the same for every CLI, or a CLI is wrong).
        const rows = JSON.parse(fs.readFileSync(out, 'utf8')) as { attention?: string }[];
        const flagged: Record<string, number> = { plans: rows.length };
        for (const r of rows) if (r.attention) flagged[r.attention] = (flagged[r.attention] ?? 0) + 1;
        figures.corpora[kind].clis[label].flagged = flagged;
      }
    }
    for (let i = 0; i < runs; i++) {
      for (const kind of KINDS) {
        figures.corpora[kind].floor.push(run([floorScript, corpusRoot(kind, n).root], {}));
        for (const [label, cli] of Object.entries(clis)) {
          const cold = fs.mkdtempSync(path.join(work, `cold-${label}-${kind}-`));
          figures.corpora[kind].clis[label].cold.push(run(listArgs(cli, kind), envOf(kind, cold)));
          fs.rmSync(cold, { recursive: true, force: true });
          figures.corpora[kind].clis[label].warm.push(run(listArgs(cli, kind), envOf(kind, warmDirs.get(`${label}|${kind}`)!)));
        }
      }
    }
    figures.load.after.push(load());
    return figures;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The middle of an odd number of runs. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f0 = (x: number) => x.toFixed(0);
const f2 = (x: number) => x.toFixed(2);

/** The list figures as a table: each run's time, the median, the ratios to the floor and to the proposed-only folder (wall and CPU time), against the targets. */
export function printList(l: ListFigures): void {
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const med = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
  console.log('');
  console.log(`pi-plans list --json, ${l.plans} plans of 12 steps, a process each (wall time from spawn to exit, and CPU time; ${l.runs} runs interleaved; load ${l.load.before.map(f2).join()} before, ${l.load.after.map(f2).join()} after):`);
  console.log(`  ${'corpus'.padEnd(9)} ${'cli'.padEnd(7)} ${'run'.padEnd(5)} ${'wall ms, each run'.padEnd(20)} ${'median'.padStart(6)} ${'x floor'.padStart(8)} ${'x prop.'.padStart(8)} ${'cpu ms'.padStart(7)} ${'x floor'.padStart(8)} ${'x prop.'.padStart(8)} ${'peak MB'.padStart(8)}  targets (wall: floor, proposed; peak)`);
  for (const kind of KINDS) {
    const c = l.corpora[kind];
    const floor = med(c.floor, 'ms');
    const floorCpu = med(c.floor, 'cpuMs');
    const floorPeak = med(c.floor, 'peakMb');
    console.log(`  ${kind.padEnd(9)} ${'floor'.padEnd(7)} ${''.padEnd(5)} ${c.floor.map((x) => f0(x.ms)).join(' / ').padEnd(20)} ${f0(floor).padStart(6)} ${'1.00x'.padStart(8)} ${''.padStart(8)} ${f0(floorCpu).padStart(7)} ${'1.00x'.padStart(8)} ${''.padStart(8)} ${f0(floorPeak).padStart(8)}`);
    for (const [label, r] of Object.entries(c.clis)) {
      for (const phase of ['cold', 'warm'] as const) {
        const ms = med(r[phase], 'ms');
        const cpu = med(r[phase], 'cpuMs');
        const peak = med(r[phase], 'peakMb');
        const prop = l.corpora.proposed.clis[label][phase];
        const target = phase === 'cold' ? LIST_TARGETS.coldVsFloor : LIST_TARGETS.warmVsFloor;
        const vs = (x: number) => (kind === 'proposed' ? '' : `${f2(x)}x`);
        const targets = [`floor <= ${target}x ${met(ms / floor <= target)}`, ...(kind === 'mixed' ? [`proposed <= ${LIST_TARGETS.mixedVsProposed}x ${met(ms / med(prop, 'ms') <= LIST_TARGETS.mixedVsProposed)}`] : []), `peak <= ${LIST_TARGETS.peakVsFloor}x ${met(peak / floorPeak <= LIST_TARGETS.peakVsFloor)}`].join(', ');
        console.log(
          `  ${kind.padEnd(9)} ${label.padEnd(7)} ${phase.padEnd(5)} ${r[phase].map((x) => f0(x.ms)).join(' / ').padEnd(20)} ${f0(ms).padStart(6)} ${`${f2(ms / floor)}x`.padStart(8)} ${vs(ms / med(prop, 'ms')).padStart(8)} ${f0(cpu).padStart(7)} ${`${f2(cpu / floorCpu)}x`.padStart(8)} ${vs(cpu / med(prop, 'cpuMs')).padStart(8)} ${f0(peak).padStart(8)}  ${targets}`,
        );
      }
    }
  }
  const flags = Object.entries(l.corpora).map(([kind, c]) => `${kind}: ${Object.entries(c.clis).map(([label, r]) => `${label} ${Object.entries(r.flagged).map(([k, v]) => `${k} ${v}`).join(', ')}`).join('; ')}`);
  console.log(`  what each listed (plans, then the attention flags): ${flags.join(' | ')}`);
}

/** The built `pi-plans` command (dist/bin.js, which loads dist/cli.js), built when missing. */
export function builtCli(): string {
  const cliJs = path.resolve(__dirname, '..', 'dist', 'bin.js');
  if (!fs.existsSync(cliJs)) execFileSync(process.execPath, [path.resolve(__dirname, '..', 'scripts', 'build.mjs')], { cwd: path.resolve(__dirname, '..'), stdio: 'ignore' });
  return cliJs;
}

/** `--cli label=path,label=path` (default: this tree's built CLI as "cli"). */
export function clisOf(arg: string | undefined): Record<string, string> {
  if (!arg) return { cli: builtCli() };
  return Object.fromEntries(arg.split(',').map((p, i) => (p.includes('=') ? [p.slice(0, p.indexOf('=')), path.resolve(p.slice(p.indexOf('=') + 1))] : [`cli${i + 1}`, path.resolve(p)])));
}
