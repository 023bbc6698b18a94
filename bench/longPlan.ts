/**
 * A long plan read in a fresh process (issue 40): a 1,000-step plan with a details line per step
 * (about 184 KB), `pi-plans show` and `pi-plans validate` on it, and `show` on the same plan with a
 * `verify:` check line per step (`show+checks`: show reads each step's check), each a process of the built
 * command, as a person at a terminal waits for them. Cold: the plan never read on this machine (no
 * outline kept; the CLI's own code cache is there, as after any earlier command); warm: read once
 * before, unchanged since (its outline kept in the user's cache). The floor: a bare Node process
 * reading the same file. Targets: cold ≤ 300 ms; warm ≤ 1.5× the floor. Three runs, interleaved
 * (and interleaved between CLIs when several are given, as for the list: `--cli before=…,after=…`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPlanText } from '../src/core';
import { median } from './list';

export const LONG_TARGETS = { coldMs: 300, warmVsFloor: 1.5 };
const ID = 'PLAN-0001f000';

export interface LongFigures {
  steps: number;
  bytes: number;
  runs: number;
  floor: number[];
  /** By CLI label: the command's start alone (`--version`, with its code cache), what every command pays before it reads a plan (ms). */
  start: Record<string, number[]>;
  /** By CLI label, then by command: cold and warm wall times (ms). */
  clis: Record<string, Record<string, { cold: number[]; warm: number[] }>>;
}

/** The plan: 1,000 steps, each with a details line naming its files, as an agent writes them (and, `checked`, a `verify:` line naming its check). */
export function longPlanText(checked = false): string {
  const steps = Array.from({ length: 1000 }, (_, i) => ({
    text: `Step ${i + 1}: move the parser of module ${i} to the new reader`,
    details: `Edit src/module${i}/reader.ts: replace the old parse call, keep the public names, and test an empty file.${checked ? `\nverify: npm test -- module${i}` : ''}`,
  }));
  return createPlanText({ id: ID, title: 'A long plan', goal: 'Move every module to the new reader.', steps, verification: ['npm test passes'], context: 'Generated for the benchmark.' }, '2026-11-22T10:00:00.000Z');
}

/** Measures each CLI (`clis`: label → path of the bin), `runs` times, interleaved. */
export function longFigures(clis: Record<string, string>, runs = 3): LongFigures {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-long-'));
  try {
    const root = path.join(work, 'ws');
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    const file = path.join(root, '.pi', 'plans', `${ID}.md`);
    const text = longPlanText();
    fs.writeFileSync(file, text);
    // The same plan with a check per step, in a folder of its own (show reads each step's check).
    const checkedRoot = path.join(work, 'ws-checked');
    fs.mkdirSync(path.join(checkedRoot, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(checkedRoot, '.pi', 'plans', `${ID}.md`), longPlanText(true));
    const floorScript = path.join(work, 'floor.js');
    fs.writeFileSync(floorScript, "require('fs').readFileSync(process.argv[2], 'utf8');\n");
    const time = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const t = performance.now();
      const r = spawnSync(process.execPath, argv, { env: { ...process.env, XDG_STATE_HOME: path.join(work, 'state'), XDG_CONFIG_HOME: path.join(work, 'config'), ...env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
      return ms;
    };
    // Each CLI's code cache, made once and copied into every cold cache folder of that CLI.
    const codeOnly = (label: string) => path.join(work, `code-only-${label}`);
    for (const [label, bin] of Object.entries(clis)) time([bin, '--version'], { PI_PLANS_CACHE_DIR: codeOnly(label) });
    const coldDir = (label: string) => {
      const dir = fs.mkdtempSync(path.join(work, 'cold-'));
      fs.cpSync(codeOnly(label), dir, { recursive: true });
      return dir;
    };
    const COMMANDS = ['show', 'validate', 'show+checks'];
    const figures: LongFigures['clis'] = Object.fromEntries(Object.keys(clis).map((label) => [label, Object.fromEntries(COMMANDS.map((c) => [c, { cold: [], warm: [] }]))]));
    const argsOf = (bin: string, c: string) => (c === 'show' ? [bin, '--root', root, 'show', ID] : c === 'validate' ? [bin, '--root', root, 'validate'] : [bin, '--root', checkedRoot, 'show', ID]);
    const warmDirs = new Map<string, string>();
    for (const [label, bin] of Object.entries(clis)) {
      for (const c of COMMANDS) {
        const dir = coldDir(label);
        time(argsOf(bin, c), { PI_PLANS_CACHE_DIR: dir });
        warmDirs.set(`${label}|${c}`, dir);
      }
    }
    const floor: number[] = [];
    const start: Record<string, number[]> = Object.fromEntries(Object.keys(clis).map((label) => [label, []]));
    for (let i = 0; i < runs; i++) {
      floor.push(time([floorScript, file]));
      for (const [label, bin] of Object.entries(clis)) start[label].push(time([bin, '--version'], { PI_PLANS_CACHE_DIR: codeOnly(label) }));
      for (const c of COMMANDS) {
        for (const [label, bin] of Object.entries(clis)) {
          const dir = coldDir(label);
          figures[label][c].cold.push(time(argsOf(bin, c), { PI_PLANS_CACHE_DIR: dir }));
          fs.rmSync(dir, { recursive: true, force: true });
          figures[label][c].warm.push(time(argsOf(bin, c), { PI_PLANS_CACHE_DIR: warmDirs.get(`${label}|${c}`)! }));
        }
      }
    }
    return { steps: 1000, bytes: Buffer.byteLength(text), runs, floor, start, clis: figures };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function printLong(l: LongFigures): void {
  const f0 = (x: number) => x.toFixed(0);
  const floor = median(l.floor);
  console.log('');
  console.log(`A ${l.steps.toLocaleString('en')}-step plan of ${(l.bytes / 1024).toFixed(0)} KB in a fresh process of pi-plans (wall ms, ${l.runs} runs interleaved; floor: a bare Node process reading the file, ${l.floor.map(f0).join(' / ')} -> ${f0(floor)}):`);
  for (const [label, commands] of Object.entries(l.clis)) {
    const start = l.start[label];
    console.log(`  ${label.padEnd(7)} ${'start'.padEnd(11)} ${start.map(f0).join(' / ')} -> ${f0(median(start))}, ${(median(start) / floor).toFixed(2)}x floor: the command alone (--version), before it reads any plan`);
    for (const [c, r] of Object.entries(commands)) {
      const cold = median(r.cold);
      const warm = median(r.warm);
      console.log(`  ${label.padEnd(7)} ${c.padEnd(11)} cold ${r.cold.map(f0).join(' / ')} -> ${f0(cold)} (target <= ${LONG_TARGETS.coldMs} ms ${cold <= LONG_TARGETS.coldMs ? 'met' : 'NOT met'})   warm ${r.warm.map(f0).join(' / ')} -> ${f0(warm)}, ${(warm / floor).toFixed(2)}x floor (target <= ${LONG_TARGETS.warmVsFloor}x ${warm / floor <= LONG_TARGETS.warmVsFloor ? 'met' : 'NOT met'})`);
    }
  }
}
