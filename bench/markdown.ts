/**
 * Pathological Markdown, one base family per process (bundled by bench.ts, run with plain node
 * --expose-gc): the family and its variants nested in a list item and in a quote, each at several
 * sizes up to the file cap and at the largest size the pre-scan accepts, read with parsePlan as a
 * store's read would (the pre-scan, then the Markdown parse, or the refusal). Prints one JSON line:
 * the worst time to parse or refuse, the worst refusal and the worst parse, every case, and the
 * process's peak memory above its baseline (Node with our code loaded and warmed up on an ordinary
 * plan).
 *   node markdown.js <base family name>
 *   node markdown.js --reference      ordinary plans (4 KB to a 1,000-step plan): the floor, per size
 */
import { performance } from 'node:perf_hooks';
import { bodyOf, createPlanText, inspectMarkdown, isPlanError, LIMITS, parsePlan } from '../src/core';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from '../test/helpers/pathologicalMarkdown';

const arg = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const AT = '2026-11-22T10:00:00.000Z';
const NEAR_CAP = LIMITS.fileBytes - 2048;

/** One read: its time, and what it gave (`parsed` or the rule that refused it). */
function read(text: string): { ms: number; outcome: string } {
  const t = performance.now();
  let outcome = 'parsed';
  try {
    parsePlan(text);
  } catch (e) {
    if (!isPlanError(e)) throw e;
    outcome = e.details.rule ?? e.code;
  }
  return { ms: performance.now() - t, outcome };
}

/** The largest size (characters of Markdown) whose body, made by `body`, the pre-scan accepts, by bisection; 0 when it accepts none. */
function largestAccepted(body: (n: number) => string): number {
  const ok = (n: number) => !inspectMarkdown(body(n), { sections: true }).refusal;
  if (ok(NEAR_CAP)) return NEAR_CAP;
  let lo = 0;
  let hi = NEAR_CAP;
  while (hi - lo > Math.max(64, lo / 32)) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Warm up on an ordinary plan (the JIT of a long-lived process), then take the baseline.
const warm = createPlanText({ id: 'PLAN-0000aaaa', title: 'Warm', goal: 'Warm *up* `the` [parser](x).', steps: Array.from({ length: 40 }, (_, i) => ({ text: `Step ${i} with *em*`, details: '- a\n- b\n\n> q\n\n| a | b |\n|---|---|\n| 1 | 2 |' })) }, AT);
for (let i = 0; i < 5; i++) parsePlan(warm.replace('Warm *up*', `Warm ${i} *up*`));
gc();
const baseMb = process.memoryUsage().rss / 2 ** 20;

interface Case {
  variant: string;
  chars: number;
  ms: number;
  outcome: string;
}
const cases: Case[] = [];

if (arg === '--reference') {
  // Ordinary plans of steps with details at the families' sizes: what a character of plan text costs at each.
  const ordinary = (n: number) => createPlanText({ id: 'PLAN-00001003', title: 'Ordinary', goal: 'g', steps: Array.from({ length: n }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })) }, AT);
  for (const steps of [20, 170, 680]) {
    const text = ordinary(steps);
    cases.push({ variant: `ordinary plan, ${steps} steps`, chars: text.length, ...read(text.replace('\n## Goal\n', '\n## Goal\nFresh. ')) });
    gc();
  }
  const steps1000 = createPlanText({ id: 'PLAN-00001000', title: 'Big', goal: 'g', steps: Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` })) }, AT);
  const details = createPlanText({ id: 'PLAN-00001001', title: 'Big', goal: 'g', steps: Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })) }, AT);
  for (const [variant, text] of [
    ['a 1,000-step plan', steps1000],
    ['a 1,000-step plan with details', details],
  ] as const) {
    // A body never parsed in this process (creating the text parsed it once).
    const r = read(text.replace('\n## Goal\n', '\n## Goal\nFresh. '));
    cases.push({ variant, chars: text.length, ...r });
  }
} else {
  for (const f of PATHOLOGICAL_FAMILIES.filter((x) => x.base === arg)) {
    const max = largestAccepted((n) => bodyOf(planWithMarkdown(f.make(n)))!);
    const sizes = [...new Set([4096, 32 * 1024, 128 * 1024, NEAR_CAP, max].filter((n) => n > 0))];
    for (const n of sizes) {
      // A body of its own per read: nothing remembered from another helps.
      const text = planWithMarkdown(f.make(n)).replace('Read or refuse fast.', `Read or refuse fast (${n}).`);
      cases.push({ variant: f.name, chars: text.length, ...read(text) });
      gc();
    }
  }
}

const peakMb = process.resourceUsage().maxRSS / 1024;
const worst = (xs: Case[]) => xs.reduce<Case | undefined>((w, c) => (!w || c.ms > w.ms ? c : w), undefined);
process.stdout.write(
  JSON.stringify({
    family: arg,
    worst: worst(cases),
    worstRefused: worst(cases.filter((c) => c.outcome !== 'parsed')),
    worstParsed: worst(cases.filter((c) => c.outcome === 'parsed')),
    cases: cases.length,
    all: cases,
    peakAboveMb: Math.max(0, peakMb - baseMb),
  }) + '\n',
);
