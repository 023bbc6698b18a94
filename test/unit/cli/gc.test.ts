// `pi-plans gc` on a real workspace (a temporary git repository, the user's folders in temporary
// folders): plans run through their lifecycle by the service and the store as every face runs
// them, the hook's records written by the hook's own code. gc removes exactly the finished plans'
// records and what has expired; a dry run removes nothing; an executing, rejected or unreadable
// plan keeps everything; a link planted where a record goes is neither followed nor removed.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gcPlan, gcRemove } from '../../../src/cli/commands/gc';
import { runCli } from '../../../src/cli/main';
import { contentDigest } from '../../../src/core';
import { writeBinding, writeSeenVersion } from '../../../src/hosts/hook/sessions';
import { verdictCache } from '../../../src/hosts/hook/verdict';
import { openNodeStore, reviewCopiesDir } from '../../../src/node';
import { writePlanState } from '../../../src/node/work/planChecks';
import { recordStepEvent } from '../../../src/node/work/stepReports';
import { approvePlan, changePlanStatus, markPlanStep, rejectPlan, startPlan, submitPlan } from '../../../src/service';
import type { PlanStore } from '../../../src/store';
import { newRepo, repoTools } from '../../helpers/gitRepo';
import { freshStatePerTest } from '../../helpers/hookContract';

/** What a folder holds, without following a link: each path's kind, and a file's bytes' digest or a link's target. */
function tree(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st || (rel && skip(rel))) return;
    if (st.isSymbolicLink()) out.set(rel, `link ${fs.readlinkSync(abs)}`);
    else if (st.isFile()) out.set(rel, `file ${createHash('sha256').update(fs.readFileSync(abs)).digest('hex')}`);
    else if (st.isDirectory()) {
      if (rel) out.set(rel, 'folder');
      for (const n of fs.readdirSync(abs)) walk(path.join(rel, n));
    }
  };
  walk('');
  return out;
}

/** The paths only in `a`, and those in both whose content differs. */
function changes(a: Map<string, string>, b: Map<string, string>): { gone: string[]; changed: string[]; added: string[] } {
  return {
    gone: [...a.keys()].filter((k) => !b.has(k)).sort(),
    changed: [...a.keys()].filter((k) => b.has(k) && a.get(k) !== b.get(k)).sort(),
    added: [...b.keys()].filter((k) => !a.has(k)).sort(),
  };
}

describe('pi-plans gc (real workspace, real git, the user\'s folders)', function () {
  this.timeout(60_000);
  freshStatePerTest();
  let root: string;
  let cache: string;
  let outside: string;
  let savedCache: string | undefined;
  let store: PlanStore;
  const { git, write } = repoTools(() => root);
  const ids: Record<'completed' | 'executing' | 'rejected' | 'cancelled' | 'archived' | 'unreadable', string> = {} as never;
  const state = () => process.env.PI_PLANS_STATE_DIR!;
  const hex40 = (c: string) => c.repeat(40);

  /** Everything gc may look at: the workspace (its git folder but its refs left out), the state and cache folders, the place links point to. */
  const everything = () => {
    const all = new Map<string, string>();
    for (const [name, dir] of [['ws', root], ['state', state()], ['cache', cache], ['outside', outside]] as const) {
      for (const [k, v] of tree(dir, (rel) => name === 'ws' && rel === '.git')) all.set(`${name}/${k}`, v);
    }
    for (const line of git('for-each-ref', '--format=%(refname) %(objectname)').split('\n').filter(Boolean)) all.set(`ref/${line.split(' ')[0]}`, line.split(' ')[1]);
    return all;
  };

  /** A plan run by the service: created, submitted, then `to` (approved and executed step by step, rejected, cancelled). */
  async function plan(to: 'completed' | 'executing' | 'rejected' | 'cancelled'): Promise<string> {
    const place = { store };
    const { fm } = await store.create({ title: `A ${to} plan`, goal: 'G', steps: [{ text: 'One' }, { text: 'Two' }] }, 'agent');
    const id = fm.id;
    await submitPlan(place, id, { actor: 'agent' });
    if (to === 'rejected') {
      await rejectPlan(place, id, { actor: 'user', feedback: 'Not yet', seen: { digest: contentDigest(await store.read(id)) } });
      return id;
    }
    if (to === 'cancelled') {
      await changePlanStatus(place, id, 'cancel', { actor: 'agent' });
      return id;
    }
    await approvePlan(place, id, { actor: 'user', seen: { digest: contentDigest(await store.read(id)) } });
    await startPlan(place, id, { actor: 'agent' });
    await markPlanStep(place, id, 'S001', 'in_progress', undefined, { actor: 'agent' });
    write(`src/${id}.ts`, 'export const one = 1;\n');
    await markPlanStep(place, id, 'S001', 'done', undefined, { actor: 'agent' });
    if (to === 'completed') await markPlanStep(place, id, 'S002', 'done', undefined, { actor: 'agent' });
    assert.equal((await store.read(id)).fm.status, to);
    return id;
  }

  beforeEach(async () => {
    savedCache = process.env.PI_PLANS_CACHE_DIR;
    cache = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-gc-cache-')));
    process.env.PI_PLANS_CACHE_DIR = cache;
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-gc-outside-')));
    root = fs.realpathSync(newRepo('pi-plans-gc-'));
    write('src/base.ts', 'export const base = 0;\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    store = await openNodeStore(root);
    ids.completed = await plan('completed');
    ids.executing = await plan('executing');
    ids.rejected = await plan('rejected');
    ids.cancelled = await plan('cancelled');
    ids.archived = await plan('completed');
    await store.archive(ids.archived, 'cli');
    // A plan file that does not read (its frontmatter cut), with records of its own.
    ids.unreadable = 'PLAN-0bad0bad';
    write(`.pi/plans/${ids.unreadable}.md`, '---\nid: PLAN-0bad0bad\nstatus: completed\n');
    write(`.pi/plans/sessions/${ids.unreadable}.jsonl`, '{"type":"created","plan":"PLAN-0bad0bad","at":"2026-01-01T00:00:00.000Z"}\n');
    await (store.evidence as { settled?: () => Promise<void> }).settled?.();
    // The check state beside the plans, as verify and drift write it.
    for (const id of [ids.completed, ids.executing, ids.unreadable]) writePlanState(root, { v: 1, plan: id, checks: { S001: { command: 'npm test', tail: ['ok'], at: '2026-01-01T00:00:00.000Z' } } });
    // The hooks' step reports: a session that worked on the completed and the executing plan, one on the completed plan only.
    const at = new Date().toISOString();
    recordStepEvent(root, 'claude', 'both', { plan: ids.completed, step: 'S001', kind: 'edit', paths: ['src/a.ts'], at });
    recordStepEvent(root, 'claude', 'both', { plan: ids.executing, step: 'S002', kind: 'command', at });
    recordStepEvent(root, 'claude', 'done', { plan: ids.completed, step: 'S002', kind: 'edit', paths: ['src/b.ts'], at });
    // The hook's verdicts (its own cache code), call records and bindings.
    const verdicts = verdictCache(root, process.env);
    assert.equal(typeof verdicts, 'object', String(verdicts));
    for (const id of [ids.completed, ids.executing, ids.archived]) (verdicts as Exclude<typeof verdicts, string>).put(id, 'a'.repeat(64), { state: 'changed' });
    const calls = path.join(state(), 'hook-calls');
    fs.mkdirSync(calls, { recursive: true });
    for (const [name, ageMs] of [[`${hex40('1')}.claim`, 120_000], [`${hex40('1')}.json`, 120_000], [`${hex40('2')}.claim`, 0]] as const) {
      fs.writeFileSync(path.join(calls, name), '{"kind":"allow"}');
      const t = new Date(Date.now() - ageMs);
      fs.utimesSync(path.join(calls, name), t, t);
    }
    const old = new Date(Date.now() - 2 * 86_400_000).toISOString();
    writeBinding({ v: 2, host: 'claude', session: 'idle-for-days', root, plans: [ids.completed], boundAt: old, seenAt: old });
    writeBinding({ v: 2, host: 'claude', session: 'working-now', root, plans: [ids.executing], boundAt: at, seenAt: at });
    // Not a binding Pi Plans wrote, under a binding's name: the hook holds its session as bound and broken.
    fs.writeFileSync(path.join(state(), 'sessions', `${hex40('3')}.json`), 'garbage');
    writeSeenVersion(root, ids.completed, 9);
    // Caches of a workspace that is gone, and of one that is still there.
    fs.mkdirSync(path.join(cache, 'approval-verdicts'), { recursive: true });
    fs.writeFileSync(path.join(cache, 'approval-verdicts', 'ffffffffffffffff.json'), JSON.stringify({ v: 1, root: path.join(outside, 'gone'), entries: {} }));
    fs.writeFileSync(path.join(cache, 'eeeeeeeeeeeeeeee.json'), JSON.stringify({ format: 3, dir: path.join(outside, 'gone', '.pi', 'plans'), entries: [] }));
    fs.writeFileSync(path.join(cache, 'dddddddddddddddd.json'), JSON.stringify({ format: 3, dir: path.join(root, '.pi', 'plans'), entries: [] }));
    // Links planted where a finished plan's records go: to a folder and a file outside.
    fs.mkdirSync(path.join(outside, 'precious'));
    fs.writeFileSync(path.join(outside, 'precious', 'v1.md'), 'not a review copy');
    fs.writeFileSync(path.join(outside, 'precious.json'), '{}');
    fs.symlinkSync(path.join(outside, 'precious'), path.join(reviewCopiesDir(root), ids.cancelled));
    fs.symlinkSync(path.join(outside, 'precious.json'), path.join(root, '.pi', 'plans', 'checks', `${ids.cancelled}.json`));
  });

  afterEach(() => {
    process.exitCode = 0;
    if (savedCache === undefined) delete process.env.PI_PLANS_CACHE_DIR;
    else process.env.PI_PLANS_CACHE_DIR = savedCache;
    for (const d of [root, cache, outside]) fs.rmSync(d, { recursive: true, force: true });
  });

  const run = async (args: string[], ask?: string) => {
    let out = '';
    const code = await runCli(['--root', root, 'gc', ...args], { out: (s) => (out += s), err: (s) => (out += s), ...(ask !== undefined ? { ask: () => Promise.resolve(ask) } : {}) });
    return { code, out };
  };

  /** What gc must remove here, as paths of `everything()`. */
  function finishedRecords(before: Map<string, string>): string[] {
    const reviews = path.relative(state(), reviewCopiesDir(root));
    const ofPlan = (id: string) => (k: string) =>
      k.startsWith(`state/${reviews}/${id}`) || k === `ws/.pi/plans/sessions/${id}.jsonl` || k === `ws/.pi/plans/checks/${id}.json` || k.startsWith(`ref/refs/pi-plans/evidence/${id}/`);
    const hookVerdict = (id: string) => `cache/hook-verdicts/${createHash('sha256').update(`${root}\0${id}`).digest('hex').slice(0, 40)}.json`;
    const done = [ids.completed, ids.archived, ids.cancelled];
    return [
      ...[...before.keys()].filter((k) => done.some((id) => ofPlan(id)(k)) && !before.get(k)!.startsWith('link')),
      ...done.map(hookVerdict).filter((k) => before.has(k)),
      ...[...before.keys()].filter((k) => k.startsWith('state/step-reports/') && k.endsWith('.steps.jsonl') && fs.readFileSync(path.join(state(), k.slice('state/'.length)), 'utf8').split('\n').filter(Boolean).every((l) => JSON.parse(l).plan === ids.completed)),
      `state/hook-calls/${hex40('1')}.claim`,
      `state/hook-calls/${hex40('1')}.json`,
      `state/sessions/${createHash('sha256').update('claude\0idle-for-days').digest('hex').slice(0, 40)}.json`,
      'cache/approval-verdicts/ffffffffffffffff.json',
      'cache/eeeeeeeeeeeeeeee.json',
    ].sort();
  }

  it('--dry-run prints each kind with its size, what gc would remove and its bound, and removes nothing', async () => {
    const before = everything();
    const r = await run(['--dry-run']);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /3 finished plans/);
    assert.match(r.out, /^review copies +\d+ +[\d.]+ K?B +\d+ +[\d.]+ K?B +the 10 latest decided versions per plan/m);
    assert.match(r.out, /^evidence refs +(\d+) .* 2 per step and 1 per plan/m);
    assert.match(r.out, /^decision ledger +1 +[\d.]+ K?B +never +<= 8 MB/m);
    assert.match(r.out, /Nothing was removed \(--dry-run\)\.\n$/);
    assert.match(r.out, /a link or a file where a plan's review copies go: left, never followed/);
    const json = await run(['--dry-run', '--json']);
    const plan = JSON.parse(json.out) as { finished: string[]; remove: { name: string }[] };
    assert.deepEqual(plan.finished, [ids.completed, ids.archived, ids.cancelled].sort());
    assert.ok(plan.remove.length > 20, json.out);
    assert.deepEqual(changes(before, everything()), { gone: [], changed: [], added: [] }, 'a dry run changes nothing');
  });

  it("removes exactly the finished plans' records and the expired ones: the executing, rejected and unreadable plans', every plan file, the ledger and the versions seen stay; links are left, their targets untouched", async () => {
    const before = everything();
    const want = finishedRecords(before);
    // The run removes something of every kind that has a finished plan's record here.
    for (const kind of ['sessions/', 'checks/', 'ref/refs/pi-plans/evidence/', 'reviews/', 'hook-verdicts/', 'step-reports/']) assert.ok(want.some((k) => k.includes(kind)), `${kind} in ${want.join('\n')}`);
    const r = await run([], 'y');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /Removed \d+ records \([\d.]+ KB\)\./);
    const after = everything();
    const diff = changes(before, after);
    const reviews = path.relative(state(), reviewCopiesDir(root));
    // (A finished plan's review copies go with their folder.)
    assert.deepEqual(diff.gone, want);
    // The report of the session that worked on both plans keeps the executing plan's line only.
    const both = [...before.keys()].find((k) => k.startsWith('state/step-reports/') && k.endsWith('.steps.jsonl') && fs.existsSync(path.join(state(), k.slice(6))) && fs.readFileSync(path.join(state(), k.slice(6)), 'utf8').includes(ids.executing))!;
    assert.deepEqual(diff.changed, [both]);
    assert.deepEqual(fs.readFileSync(path.join(state(), both.slice(6)), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).plan), [ids.executing]);
    assert.deepEqual(diff.added, []);
    // What must stay, said plainly.
    for (const id of [ids.executing, ids.rejected, ids.unreadable]) assert.ok(after.has(`ws/.pi/plans/sessions/${id}.jsonl`), `${id}'s log`);
    assert.ok([...after.keys()].some((k) => k.startsWith(`ref/refs/pi-plans/evidence/${ids.executing}/`)), "the executing plan's evidence refs");
    assert.ok(after.has(`state/${reviews}/${ids.rejected}/v2.md`), "the rejected plan's review copy, the next round's comparison");
    assert.equal(after.get(`state/${reviews}/${ids.cancelled}`), `link ${path.join(outside, 'precious')}`);
    assert.equal(after.get(`ws/.pi/plans/checks/${ids.cancelled}.json`), `link ${path.join(outside, 'precious.json')}`);
    assert.equal(fs.readFileSync(path.join(outside, 'precious', 'v1.md'), 'utf8'), 'not a review copy');
    for (const k of before.keys()) if (/\/PLAN-[0-9a-f]{8}\.md$/.test(k) && k.startsWith('ws/')) assert.equal(after.get(k), before.get(k), `${k}: a plan file is never touched`);
    for (const k of before.keys()) if (k.startsWith('state/decisions/') || k.startsWith('state/plan-versions/')) assert.equal(after.get(k), before.get(k), k);
    // A second run finds nothing left to remove.
    const again = await run(['--dry-run', '--json']);
    assert.deepEqual((JSON.parse(again.out) as { remove: unknown[] }).remove, []);
  });

  it('without a terminal, or when the person says no, nothing is removed, and the message says who runs it', async () => {
    const before = everything();
    const r = await run([]);
    assert.equal(r.code, 1);
    assert.match(r.out, /Nothing was removed: gc is a person's decision.*The person runs `pi-plans gc` in their own terminal/s);
    const no = await run([], 'n');
    assert.equal(no.code, 1);
    assert.match(no.out, /Nothing was removed\.\n$/);
    assert.deepEqual(changes(before, everything()), { gone: [], changed: [], added: [] });
  });

  it('a record that changed after it was listed is left: a report a session appended to meanwhile, a ref pinned again, a file rewritten', async () => {
    const p = await gcPlan(root, Date.now());
    const report = p.remove.find((r) => r.kind === 'step reports' && r.name.includes('#'))!;
    const file = report.name.slice(0, report.name.indexOf('#'));
    const others = p.remove.filter((r) => r.kind === 'step reports' && r.name.startsWith(file));
    fs.appendFileSync(file, `${JSON.stringify({ v: 1, plan: ids.completed, step: 'S002', kind: 'command', at: new Date().toISOString() })}\n`);
    const ref = p.remove.find((r) => r.kind === 'evidence refs')!;
    git('update-ref', ref.name, git('rev-parse', 'HEAD^{tree}').trim());
    const log = path.join(root, '.pi', 'plans', 'sessions', `${ids.completed}.jsonl`);
    fs.appendFileSync(log, '\n');
    const text = fs.readFileSync(file, 'utf8');
    const done = await gcRemove(p);
    assert.equal(fs.readFileSync(file, 'utf8'), text, 'the report is as the session left it');
    assert.ok(git('for-each-ref', '--format=%(refname)', ref.name).includes(ref.name), 'the ref pinned again stays');
    assert.ok(fs.existsSync(log), 'the log written since stays');
    assert.ok(done.left.some((l) => l.startsWith(file)) && done.left.some((l) => l.startsWith(ref.name)) && done.left.some((l) => l.startsWith(log)), done.left.join('\n'));
    assert.ok(others.length >= 1);
  });
});
