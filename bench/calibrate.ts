/**
 * The pre-scan's cost model against remark's real cost. For ordinary plans and each pathological
 * family (with its nestings) at several sizes: what the scan counts (each weight of the model's
 * work alone), and the CPU time of the parse the store runs (remark + GFM, the outline) after a
 * full GC, as a read in a long-lived process meets it (the least of three). Then a non-negative
 * least-squares fit of the weights to each case's cost per character relative to an ordinary
 * plan's of its size, and that relative cost as measured, as the weights in force estimate it and
 * as the fitted ones do. Prints figures, asserts nothing. Run it with
 *   node --single-threaded --expose-gc --import tsx bench/calibrate.ts [--filter text] [--sizes 4,16,64] [--save f.json | --load f.json] [--fix '{"char":1}']
 * `--single-threaded`: no GC or compiler threads, so CPU time is the parse's own, on a busy machine too.
 * Every family at 64 KB takes long (the quadratic ones, seconds per parse): `--sizes 16,32` and
 * `--save` first, then `--load` to fit again after a change to the scan (its counts are taken anew).
 * The weights in force (src/core/markdown/markdownGuard.ts) came from such a fit, rounded, with a few set
 * by hand (see their comments).
 */
import * as fs from 'node:fs';
import { bodyOf, computeOutline, createPlanText, inspectMarkdown, MARKDOWN_WEIGHTS, type MarkdownWeights } from '../src/core';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from '../test/helpers/pathologicalMarkdown';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const filter = opt('--filter') ?? '';
const sizes = (opt('--sizes') ?? '4,16,64').split(',').map((k) => Number(k) * 1024);
const AT = '2026-11-22T10:00:00.000Z';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc && !opt('--load')) throw new Error('run with node --single-threaded --expose-gc');

const KEYS = Object.keys(MARKDOWN_WEIGHTS) as (keyof MarkdownWeights)[];
const ZERO = Object.fromEntries(KEYS.map((k) => [k, 0])) as MarkdownWeights;

interface Row {
  name: string;
  ordinary: boolean;
  size: number;
  chars: number;
  /** What each weight counts in this text. */
  f: number[];
  /** Parse CPU time, ms. */
  ms: number;
}

/** What each weight counts in `body`, or undefined when a cap other than the work budget refuses it. */
function features(body: string): number[] | undefined {
  if (inspectMarkdown(body, { sections: true, work: Infinity }).refusal) return undefined;
  return KEYS.map((k) => inspectMarkdown(body, { sections: true, work: Infinity, weights: { ...ZERO, [k]: 1 } }).counts.work);
}

/** The least CPU time of three parses of `body`, each after a full GC, in ms. */
function parseMs(body: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    gc!();
    const t = process.cpuUsage();
    computeOutline(body);
    const d = process.cpuUsage(t);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return best;
}

/** Ordinary plans of about `chars` characters, of three kinds. */
const ORDINARY: [string, (chars: number) => string][] = [
  [
    'ordinary: steps with details',
    (chars) => {
      const n = Math.max(2, Math.min(1000, Math.round(chars / 188)));
      return createPlanText({ id: 'PLAN-00001001', title: 'Big', goal: 'g', steps: Array.from({ length: n }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })) }, AT);
    },
  ],
  [
    'ordinary: steps only',
    (chars) => {
      const n = Math.max(2, Math.min(1000, Math.round(chars / 70)));
      return createPlanText({ id: 'PLAN-00001000', title: 'Big', goal: 'g', steps: Array.from({ length: n }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` })) }, AT);
    },
  ],
  [
    'ordinary: prose, lists and context',
    (chars) => {
      const n = Math.max(1, Math.round(chars / 2400));
      const para = `${'Background that matters, with `code`, a [link](https://x.y/z) and *emphasis*. '.repeat(8)}\n\n- a point to keep in mind\n- another one, longer than the first\n\n`;
      return createPlanText({ id: 'PLAN-00001002', title: 'Prose', goal: 'A goal sentence. '.repeat(20), steps: Array.from({ length: 5 * n }, (_, i) => ({ text: `Step ${i} ${'word '.repeat(12)}`, details: 'Some detail text here. '.repeat(6) })), context: para.repeat(Math.min(20, 2 * n)) }, AT);
    },
  ],
];

function measure(): Row[] {
  const rows: Row[] = [];
  const add = (name: string, ordinary: boolean, size: number, body: string) => {
    const f = features(body);
    if (!f) return console.log(`${name.padEnd(60)} refused by a cap`);
    const ms = parseMs(body);
    rows.push({ name, ordinary, size, chars: body.length, f, ms });
    console.log(`${name.padEnd(60)} ${String(body.length).padStart(7)} ${ms.toFixed(1).padStart(8)} ms`);
  };
  const warm = bodyOf(ORDINARY[0][1](8000))!;
  for (let i = 0; i < 20; i++) computeOutline(warm);
  for (const n of sizes) for (const [name, make] of ORDINARY) add(`${name} @${n / 1024}K`, true, n, bodyOf(make(n))!);
  for (const fam of PATHOLOGICAL_FAMILIES) {
    if (filter && !fam.name.includes(filter)) continue;
    for (const n of sizes) add(`${fam.name} @${n / 1024}K`, false, n, bodyOf(planWithMarkdown(fam.make(n)))!);
  }
  return rows;
}


/**
 * Non-negative least squares (coordinate descent) of the relative error: weights for KEYS such
 * that each case's work is `PER_CHAR` times its characters times its cost per character relative
 * to the ordinary plan of its size (steps with details). So a work unit is a fixed share of what a
 * character of ordinary plan text costs, at any size: the budget per character then holds every
 * accepted text to about an ordinary plan's cost per character, whatever the parse's fixed costs.
 */
function fit(rows: Row[], rel: (r: Row) => number, fixed: Partial<Record<keyof MarkdownWeights, number>>, weight: readonly number[]): number[] {
  const free = KEYS.map((k) => fixed[k] === undefined);
  const target = rows.map((r) => PER_CHAR * rel(r) * r.chars);
  // Rows scaled by their target: the error is relative. What the fixed weights count is moved to the target side.
  const A = rows.map((r, i) => r.f.map((x, k) => (free[k] ? (Math.sqrt(weight[i]) * x) / target[i] : 0)));
  const y = rows.map((r, i) => Math.sqrt(weight[i]) * (1 - r.f.reduce((a, x, k) => a + (free[k] ? 0 : x * fixed[KEYS[k]]!), 0) / target[i]));
  const m = KEYS.length;
  const w = KEYS.map((k) => fixed[k] ?? 0);
  const res = y.map((v) => -v); // A w - y, the fixed weights' columns being zero
  for (let it = 0; it < 20000; it++) {
    let moved = 0;
    for (let k = 0; k < m; k++) {
      if (!free[k]) continue;
      let num = 0;
      let den = 0;
      for (let i = 0; i < A.length; i++) {
        num += A[i][k] * res[i];
        den += A[i][k] * A[i][k];
      }
      if (den === 0) continue;
      const next = Math.max(0, w[k] - num / den);
      const d = next - w[k];
      if (d === 0) continue;
      moved = Math.max(moved, Math.abs(d) / Math.max(1e-9, Math.abs(next)));
      w[k] = next;
      for (let i = 0; i < A.length; i++) res[i] += A[i][k] * d;
    }
    if (moved < 1e-7) break;
  }
  return w;
}

/** Work units per character of the ordinary plan (steps with details) the fit scales to. */
const PER_CHAR = 6;

/** The body a row was measured on, made again from its name. */
function bodyOfRow(r: Row): string {
  const name = r.name.replace(/ @\d+K$/, '');
  const ordinary = ORDINARY.find(([n]) => n === name);
  if (ordinary) return bodyOf(ordinary[1](r.size))!;
  return bodyOf(planWithMarkdown(PATHOLOGICAL_FAMILIES.find((f) => f.name === name)!.make(r.size)))!;
}

// Loaded rows: their times as measured, what the scan counts now (the scan may have changed since).
const rows: Row[] = opt('--load')
  ? (JSON.parse(fs.readFileSync(opt('--load')!, 'utf8')) as Row[]).flatMap((r) => {
      const f = features(bodyOfRow(r));
      return f ? [{ ...r, f }] : [];
    })
  : measure();
if (opt('--save')) fs.writeFileSync(opt('--save')!, JSON.stringify(rows));

const model = (r: Row, w: readonly number[]) => r.f.reduce((a, x, k) => a + x * w[k], 0);
const current = KEYS.map((k) => MARKDOWN_WEIGHTS[k]);
// The ordinary plan of steps with details at each size: the reference cost per character.
const ref = new Map<number, Row>();
for (const r of rows) if (r.name.startsWith('ordinary: steps with details')) ref.set(r.size, r);
const rel = (r: Row) => r.ms / r.chars / (ref.get(r.size)!.ms / ref.get(r.size)!.chars);
const fixed: Partial<Record<keyof MarkdownWeights, number>> = JSON.parse(opt('--fix') ?? '{}');
// Under-estimates weigh more, a few rounds: the weights lean to an upper envelope of the costs (a
// text the model under-estimates is one the budget lets in at more than an ordinary plan's cost).
const UNDER = Number(opt('--under') ?? 4);
let weight = rows.map(() => 1);
let w = fit(rows, rel, fixed, weight);
for (let round = 0; round < 6; round++) {
  weight = rows.map((r) => (model(r, w) < PER_CHAR * rel(r) * r.chars ? UNDER : 1));
  w = fit(rows, rel, fixed, weight);
}
console.log(`\nWeights, work units (in force, then fitted so that a character of the ordinary plan costs about ${PER_CHAR})`);
for (let k = 0; k < KEYS.length; k++) console.log(`  ${KEYS[k].padEnd(20)} ${String(current[k]).padStart(8)} ${w[k].toFixed(3).padStart(10)}${fixed[KEYS[k]] !== undefined ? ' (fixed)' : ''}`);

// Cost per character against the ordinary plan's of the same size: measured, as the weights in force and the fitted ones estimate it.
const relWork = (r: Row, weights: readonly number[]) => model(r, weights) / r.chars / (model(ref.get(r.size)!, weights) / ref.get(r.size)!.chars);
console.log(`\n${'outcome now'.padEnd(20)} ${'case'.padEnd(60)} ${'chars'.padStart(7)} ${'ms'.padStart(8)}  ${'cost/ch'.padStart(8)} ${'in force'.padStart(8)} ${'fitted'.padStart(8)} ${'w/ch'.padStart(7)}   (per character, relative to the ordinary plan of that size)`);
let accepted = 0;
let over = 0;
const verdict = (r: Row) => inspectMarkdown(bodyOfRow(r), { sections: true }).refusal?.rule ?? 'parsed';
for (const r of rows) {
  const v = verdict(r);
  if (v === 'parsed') {
    accepted++;
    if (rel(r) > 1.5) over++;
  }
  console.log(`${v.padEnd(20)} ${r.name.padEnd(60)} ${String(r.chars).padStart(7)} ${r.ms.toFixed(1).padStart(8)}  ${rel(r).toFixed(2).padStart(8)} ${relWork(r, current).toFixed(2).padStart(8)} ${relWork(r, w).toFixed(2).padStart(8)} ${(model(r, w) / r.chars).toFixed(1).padStart(7)}`);
}
console.log(`\n${accepted} of ${rows.length} cases accepted by the scan in force; ${over} of those cost more than 1.5 x an ordinary plan per character`);
