/**
 * What a workspace keeps as plans pile up (issue 40, "nothing grows without bound"): a git
 * repository with 1,000 finished plans of 12 steps (and 20 executing, 20 proposed that gc must
 * leave), every record of theirs as the real code writes it, then the sizes of each kind before
 * and after `pi-plans gc` (the command's own listing and removal), with each kind's stated bound.
 *
 * A few plans of each status run their whole life through the service and the store, as the faces
 * run them: submitted, approved by the person (signed, a review copy kept, the decision recorded),
 * started, each step in progress then done with its git snapshots pinned as evidence refs, the
 * checkpoint log appended at each event; the hook's code records the bound session's edits to the
 * step (step reports), its verdict of each approval, the versions seen and the session's binding
 * (idle for two days: expired). The other plans are theirs repeated under new ids, byte for byte
 * but the id (their review copies' signatures then name the first plan: gc does not read them),
 * and their evidence refs pin the same trees (packed, as git's gc leaves refs; the real plans' loose). Temporary folders for the workspace and the user's
 * configuration, state and cache; nothing of the person's own is read or written.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface GrowthRow {
  kind: string;
  policy: string;
  bound: string;
  before: { count: number; bytes: number };
  after: { count: number; bytes: number };
}

export interface GrowthFigures {
  finished: number;
  unfinished: number;
  steps: number;
  rows: GrowthRow[];
  /** git's objects (loose and packed, KB): before gc, after it, and after `git gc --prune=now` drops the trees no ref pins. */
  gitObjectsKb: { before: number; afterGc: number; afterGitGc: number };
  ms: { generate: number; list: number; remove: number };
  left: number;
}

const STEPS = 12;

/** Runs the lifecycle and the repetition, with the user's folders in `home` (the environment is restored after). */
export async function growthFigures(finished = 1000, unfinished = 20): Promise<GrowthFigures> {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-growth-')));
  const saved = { ...process.env };
  Object.assign(process.env, { PI_PLANS_CACHE_DIR: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_STATE_DIR: path.join(home, 'state'), PI_PLANS_NO_CODE_CACHE: '1' });
  const root = path.join(home, 'ws');
  try {
    const t0 = performance.now();
    await generate(root, finished, unfinished);
    const generate_ = performance.now() - t0;
    const { gcPlan, gcRemove } = await import('../src/cli/commands/gc');
    const objects = () => {
      const out = execFileSync('git', ['count-objects', '-v'], { cwd: root, encoding: 'utf8' });
      const kb = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
      return kb('size') + kb('size-pack');
    };
    const objectsBefore = objects();
    const t1 = performance.now();
    const before = await gcPlan(root, Date.now());
    const list = performance.now() - t1;
    const t2 = performance.now();
    const removed = await gcRemove(before);
    const remove = performance.now() - t2;
    const after = await gcPlan(root, Date.now());
    const afterGc = objects();
    execFileSync('git', ['gc', '-q', '--prune=now'], { cwd: root });
    const rows = before.rows.map((r, i) => ({ kind: r.kind, policy: r.policy, bound: r.bound, before: { count: r.count, bytes: r.bytes }, after: { count: after.rows[i].count, bytes: after.rows[i].bytes } }));
    return { finished: before.finished.length, unfinished: before.planFiles - before.finished.length, steps: STEPS, rows, gitObjectsKb: { before: objectsBefore, afterGc, afterGitGc: objects() }, ms: { generate: generate_, list, remove }, left: removed.left.length };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The workspace: a few plans through their real lifecycle, then the rest as copies of theirs under new ids. */
async function generate(root: string, finished: number, unfinished: number): Promise<void> {
  const { contentDigest } = await import('../src/core');
  const { openNodeStore, reviewCopiesDir } = await import('../src/node');
  const { writePlanState } = await import('../src/node/work/planChecks');
  const { recordStepEvent } = await import('../src/node/work/stepReports');
  const { decisionLedgerFile } = await import('../src/node/ports/decisionLedger');
  const { writeBinding, writeSeenVersion } = await import('../src/hosts/hook/sessions');
  const { verdictCache } = await import('../src/hosts/hook/verdict');
  const svc = await import('../src/service');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  git('init', '-q');
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, 'src', `m${i}.ts`), `export const m${i} = ${i};\n`);
  git('add', '-A');
  git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'base');
  const store = await openNodeStore(root);
  const place = { store };
  const verdicts = () => {
    const v = verdictCache(root, process.env);
    if (typeof v === 'string') throw new Error(v);
    return v;
  };
  const old = new Date(Date.now() - 2 * 86_400_000).toISOString();

  /** One plan's whole life; `upTo` steps done (all: it completes). The hook's records as its session would leave them. */
  async function live(upTo: number): Promise<string> {
    const { fm } = await store.create({ title: 'A plan of twelve steps', goal: 'Change the modules one by one', steps: Array.from({ length: STEPS }, (_, i) => ({ text: `Change src/m${i}.ts`, details: `target: src/m${i}.ts` })) }, 'agent');
    const id = fm.id;
    await svc.submitPlan(place, id, { actor: 'agent' });
    await svc.approvePlan(place, id, { actor: 'user', seen: { digest: contentDigest(await store.read(id)) } });
    verdicts().put(id, 'a'.repeat(64), { state: 'changed' });
    await svc.startPlan(place, id, { actor: 'agent' }, `claude-${id}`);
    for (let s = 1; s <= upTo; s++) {
      const step = `S${String(s).padStart(3, '0')}`;
      await svc.markPlanStep(place, id, step, 'in_progress', undefined, { actor: 'agent' });
      fs.appendFileSync(path.join(root, 'src', `m${s}.ts`), `// ${id} ${step}\n`);
      // The bound session's edit tool, reported by its PostToolUse hook (a read and a test run too).
      for (const kind of ['edit', 'edit', 'command'] as const) recordStepEvent(root, 'claude', id, { plan: id, step, kind, ...(kind === 'edit' ? { paths: [`src/m${s}.ts`] } : {}), at: new Date().toISOString() });
      await svc.markPlanStep(place, id, step, 'done', 'changed as planned', { actor: 'agent' });
    }
    writePlanState(root, { v: 1, plan: id, checks: { S001: { command: 'npm test', tail: Array.from({ length: 20 }, (_, i) => `line ${i} of the test output`), at: new Date().toISOString() } } });
    writeSeenVersion(root, id, (await store.read(id)).fm.version);
    writeBinding({ v: 2, host: 'claude', session: id, root, plans: [id], boundAt: old, seenAt: old });
    await (store.evidence as { settled?: () => Promise<void> }).settled?.();
    return id;
  }

  const done = [await live(STEPS)];
  const executing = [await live(STEPS / 2)];
  const proposed: string[] = [];
  for (let i = 0; i < 1; i++) {
    const { fm } = await store.create({ title: 'A proposal', goal: 'G', steps: Array.from({ length: STEPS }, (_, s) => ({ text: `Step ${s + 1}` })) }, 'agent');
    await svc.submitPlan(place, fm.id, { actor: 'agent' });
    proposed.push(fm.id);
  }

  // The rest: the real plans' records under new ids, as each would have written its own.
  const plans = path.join(root, '.pi', 'plans');
  const reviews = reviewCopiesDir(root);
  const ledger = decisionLedgerFile(root, process.env.PI_PLANS_STATE_DIR!);
  const reportsDir = path.dirname(fs.readdirSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'step-reports'), { recursive: true, withFileTypes: true }).map((d) => path.join(d.parentPath, d.name)).find((f) => f.endsWith('.steps.jsonl'))!);
  const refLines = git('for-each-ref', '--format=%(objectname) %(refname)', 'refs/pi-plans/evidence/').split('\n').filter(Boolean);
  const ledgerLines = fs.readFileSync(ledger, 'utf8').split('\n').filter(Boolean);
  const reportOf = (id: string) => fs.readdirSync(reportsDir).map((n) => path.join(reportsDir, n)).find((f) => fs.readFileSync(f, 'utf8').includes(id))!;
  let n = 0;
  const newId = () => `PLAN-${(0xb0000000 + n++).toString(16)}`;
  const copy = (from: string, to: string, src: string, dst: string) => {
    if (!fs.existsSync(src)) return;
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.writeFileSync(dst, fs.readFileSync(src, 'utf8').replaceAll(from, to));
  };
  const packed: string[] = [];
  const extraLedger: string[] = [];
  const repeat = (from: string, count: number) => {
    const report = fs.readFileSync(reportOf(from), 'utf8');
    for (let i = 0; i < count; i++) {
      const id = newId();
      copy(from, id, path.join(plans, `${from}.md`), path.join(plans, `${id}.md`));
      copy(from, id, path.join(plans, 'sessions', `${from}.jsonl`), path.join(plans, 'sessions', `${id}.jsonl`));
      copy(from, id, path.join(plans, 'checks', `${from}.json`), path.join(plans, 'checks', `${id}.json`));
      for (const f of fs.readdirSync(path.join(reviews, from))) copy(from, id, path.join(reviews, from, f), path.join(reviews, id, f));
      for (const l of refLines.filter((x) => x.includes(`/${from}/`))) packed.push(`${l.split(' ')[0]} ${l.split(' ')[1].replace(from, id)}`);
      extraLedger.push(...ledgerLines.filter((l) => l.includes(from)).map((l) => l.replaceAll(from, id)));
      recordStepEvent(root, 'claude', id, { plan: id, step: 'S001', kind: 'edit', paths: ['src/m1.ts'], at: new Date().toISOString() });
      fs.writeFileSync(reportOf(id), report.replaceAll(from, id));
      verdicts().put(id, 'a'.repeat(64), { state: 'changed' });
      writeSeenVersion(root, id, 40);
      writeBinding({ v: 2, host: 'claude', session: id, root, plans: [id], boundAt: old, seenAt: old });
    }
  };
  for (let i = 0; i < finished - done.length; i++) repeat(done[i % done.length], 1);
  for (let i = 0; i < unfinished - executing.length; i++) repeat(executing[i % executing.length], 1);
  for (let i = 0; i < unfinished - proposed.length; i++) {
    const id = newId();
    copy(proposed[0], id, path.join(plans, `${proposed[0]}.md`), path.join(plans, `${id}.md`));
    copy(proposed[0], id, path.join(plans, 'sessions', `${proposed[0]}.jsonl`), path.join(plans, 'sessions', `${id}.jsonl`));
  }
  // The copies' refs as git keeps them once its gc has packed refs (one file: the real plans' stay loose, as the code left them).
  const packedRefs = path.join(root, '.git', 'packed-refs');
  const had = fs.existsSync(packedRefs) ? fs.readFileSync(packedRefs, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')) : [];
  const byName = (l: string) => l.slice(41);
  fs.writeFileSync(packedRefs, `# pack-refs with: peeled fully-peeled sorted \n${[...had, ...packed].sort((a, b) => (byName(a) < byName(b) ? -1 : 1)).join('\n')}\n`);
  fs.appendFileSync(ledger, extraLedger.map((l) => `${l}\n`).join(''));
  // The hook's call records a session leaves (each pruned by the hook 60 s on, when another call comes).
  const calls = path.join(process.env.PI_PLANS_STATE_DIR!, 'hook-calls');
  fs.mkdirSync(calls, { recursive: true });
  const then = new Date(Date.now() - 120_000);
  for (let i = 0; i < 32; i++) {
    const f = path.join(calls, `${i.toString(16).padStart(40, '0')}.${i % 2 ? 'json' : 'claim'}`);
    fs.writeFileSync(f, i % 2 ? '{"kind":"allow"}' : `${process.pid}\n`);
    fs.utimesSync(f, then, then);
  }
}

const size = (b: number) => (b < 1024 ? `${b} B` : b < 1024 * 1024 ? `${(b / 1024).toFixed(1)} KB` : `${(b / 1024 / 1024).toFixed(1)} MB`);

export function printGrowth(g: GrowthFigures): void {
  console.log('');
  console.log(`What a workspace keeps (issue 40, nothing grows without bound): ${g.finished.toLocaleString('en')} finished plans of ${g.steps} steps and ${g.unfinished} unfinished, every record as the code writes it; before and after \`pi-plans gc\` (generated in ${(g.ms.generate / 1000).toFixed(1)} s; gc listed in ${g.ms.list.toFixed(0)} ms, removed in ${g.ms.remove.toFixed(0)} ms, ${g.left} left as changed):`);
  console.log(`  ${'kind'.padEnd(20)} ${'before'.padStart(18)} ${'after gc'.padStart(18)}   bound`);
  const cell = (c: { count: number; bytes: number }) => `${c.count.toLocaleString('en').padStart(7)} ${size(c.bytes).padStart(10)}`;
  for (const r of g.rows) console.log(`  ${r.kind.padEnd(20)} ${cell(r.before)} ${cell(r.after)}   ${r.policy === 'kept' ? '(never removed) ' : ''}${r.bound}`);
  const sum = (k: 'before' | 'after') => g.rows.reduce((a, r) => ({ count: a.count + r[k].count, bytes: a.bytes + r[k].bytes }), { count: 0, bytes: 0 });
  console.log(`  ${'all'.padEnd(20)} ${cell(sum('before'))} ${cell(sum('after'))}`);
  const o = g.gitObjectsKb;
  console.log(`  git objects: ${o.before.toLocaleString('en')} KB before gc, ${o.afterGc.toLocaleString('en')} KB after (the trees stay until git prunes them), ${o.afterGitGc.toLocaleString('en')} KB after \`git gc --prune=now\``);
}

if (require.main === module) {
  const n = Number(process.argv[process.argv.indexOf('--plans') + 1]) || 1000;
  void growthFigures(process.argv.includes('--plans') ? n : 1000).then((g) => (process.argv.includes('--json') ? process.stdout.write(`${JSON.stringify(g, null, 2)}\n`) : printGrowth(g)));
}
