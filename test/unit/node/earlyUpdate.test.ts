import { seenNow } from '../../helpers/approvals';
// A store that wrote a plan last works out its next update of that plan before taking the lock,
// from the document it wrote; under the lock the file's bytes must be exactly those of that write,
// or the work is done again from what the file holds. On the real disk, with the real lock: a
// writer that gets in between (another process) loses nothing, and what is written is what the
// work under the lock would have written.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, changeStatus, markStep, parsePlan, startExecution, submit, type OpContext, type OpResult, type PlanDocument } from '../../../src/core';
import { nodePorts } from '../../../src/node';
import { PlanStore, type LockPort } from '../../../src/store';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** A store on a fresh folder whose lock runs `beforeLock` (once, then cleared) just before it is taken. */
async function setup(opts: { clock?: () => Date } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-early-'));
  roots.push(root);
  const base = nodePorts(root, { indexCache: false });
  const hooks: { beforeLock?: () => Promise<void> } = {};
  const lock: LockPort = {
    acquire: async (p) => {
      const h = hooks.beforeLock;
      hooks.beforeLock = undefined;
      await h?.();
      return base.lock.acquire(p);
    },
  };
  const ports = { ...base, lock, ...(opts.clock ? { clock: { now: opts.clock } } : {}) };
  const store = await PlanStore.open(root, ports);
  const { fm } = await store.create({ title: 'Early', goal: 'G', steps: Array.from({ length: 30 }, (_, i) => ({ text: `step ${i + 1}` })) }, 'agent');
  await store.update(fm.id, 'agent', (d, c) => submit(d, c));
  await store.update(fm.id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
  await store.update(fm.id, 'agent', (d, c) => startExecution(d, c));
  const other = () => PlanStore.openForPlans(root, nodePorts(root, { indexCache: false }));
  return { root, store, id: fm.id, hooks, other, file: path.join(root, '.pi', 'plans', `${fm.id}.md`) };
}

/** An operation that counts its calls and records the versions it was given. */
function counted(op: (d: PlanDocument, c: OpContext) => OpResult) {
  const seen: number[] = [];
  return { seen, op: (d: PlanDocument, c: OpContext) => (seen.push(d.fm.version), op(d, c)) };
}

describe('an update worked out before the lock (real disk, real lock)', () => {
  it('is written when the file still holds our last write: the same bytes as the work done under the lock', async () => {
    const { store, id, file } = await setup({ clock: () => new Date('2026-11-24T12:00:00.000Z') });
    for (let i = 0; i < 12; i++) {
      const before = fs.readFileSync(file, 'utf8');
      const step = `S${String(1 + ((i * 7) % 30)).padStart(3, '0')}`;
      const op = (d: PlanDocument, c: OpContext) => markStep(d, step, i % 2 ? 'done' : 'in_progress', c, `note ${i}`);
      const { doc } = await store.update(id, 'agent', op);
      assert.equal(store.lastUpdateTimings.earlyUsed, true, `update ${i}: the early work was written`);
      // What a store with no early work (a fresh one, parsing the file) writes for the same step.
      const expected = markStep(parsePlan(before, undefined, { fresh: true }), step, i % 2 ? 'done' : 'in_progress', { now: '2026-11-24T12:00:00.000Z', actor: 'agent', approvals: { keyring: await store.keyring() } }, `note ${i}`).text;
      assert.equal(fs.readFileSync(file, 'utf8'), expected, `update ${i}`);
      assert.equal(doc.text, expected);
      assert.deepEqual(parsePlan(expected, undefined, { fresh: true }).steps, doc.steps);
      assert.equal(store.entry(id)?.version, doc.fm.version);
      assert.equal(store.entry(id)?.stepsDone, doc.steps.filter((s) => s.status === 'done' || s.status === 'skipped').length);
      assert.equal(store.entry(id)?.size, fs.statSync(file).size);
    }
  });

  it('is done again under the lock when another process wrote in between: both changes kept, the operation runs on the new version', async () => {
    const { store, id, hooks, other, file } = await setup();
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c));
    const v = store.entry(id)!.version!;
    hooks.beforeLock = async () => {
      await (await other()).update(id, 'cli', (d, c) => markStep(d, 'S010', 'done', c, 'theirs'));
    };
    const { seen, op } = counted((d, c) => markStep(d, 'S002', 'done', c, 'ours'));
    const { doc } = await store.update(id, 'agent', op);
    assert.equal(store.lastUpdateTimings.earlyUsed, false);
    assert.deepEqual(seen, [v, v + 1], 'early on our version, then on the other writer\'s');
    const onDisk = parsePlan(fs.readFileSync(file, 'utf8'), undefined, { fresh: true });
    assert.equal(onDisk.fm.version, v + 2);
    assert.equal(onDisk.steps.find((s) => s.id === 'S010')?.note, 'theirs', 'the other writer\'s change is kept');
    assert.equal(onDisk.steps.find((s) => s.id === 'S010')?.status, 'done');
    assert.equal(onDisk.steps.find((s) => s.id === 'S002')?.status, 'done');
    assert.equal(onDisk.steps.find((s) => s.id === 'S001')?.status, 'in_progress');
    assert.equal(doc.text, onDisk.text);
    // And the next update starts early again from this write.
    await store.update(id, 'agent', (d, c) => markStep(d, 'S003', 'done', c));
    assert.equal(store.lastUpdateTimings.earlyUsed, true);
  });

  it('a store that has not written the plan (one CLI command) reads it before the lock: worked out early, and a write in between is not lost', async () => {
    const { id, hooks, other, file, root } = await setup();
    const fresh = await PlanStore.openForPlans(root, nodePorts(root, { indexCache: false }));
    await fresh.update(id, 'cli', (d, c) => markStep(d, 'S004', 'done', c, 'first'));
    assert.equal(fresh.lastUpdateTimings.earlyUsed, true);
    assert.equal(parsePlan(fs.readFileSync(file, 'utf8')).steps.find((s) => s.id === 'S004')?.note, 'first');
    // Another store's process, its lock hooked: a third writer gets in between its early read and its lock.
    const base = nodePorts(root, { indexCache: false });
    const hooked = await PlanStore.openForPlans(root, { ...base, lock: { acquire: async (p) => (await hooks.beforeLock?.(), base.lock.acquire(p)) } });
    hooks.beforeLock = async () => {
      hooks.beforeLock = undefined;
      await (await other()).update(id, 'cli', (d, c) => markStep(d, 'S005', 'done', c, 'in between'));
    };
    const { seen, op } = counted((d, c) => markStep(d, 'S006', 'done', c, 'last'));
    await hooked.update(id, 'cli', op);
    assert.equal(hooked.lastUpdateTimings.earlyUsed, false);
    assert.equal(seen[1], seen[0] + 1);
    const steps = parsePlan(fs.readFileSync(file, 'utf8')).steps;
    assert.deepEqual(['S004', 'S005', 'S006'].map((s) => steps.find((x) => x.id === s)?.note), ['first', 'in between', 'last']);
  });

  it('a file changed in between to other bytes of the same version (an editor\'s save) is read, not overwritten', async () => {
    const { store, id, hooks, file } = await setup();
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c));
    // A person ticks S030 in the editor (execution state: the approval still holds).
    hooks.beforeLock = async () => {
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('[ ] S030 step 30', '[x] S030 step 30'));
    };
    await store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c));
    assert.equal(store.lastUpdateTimings.earlyUsed, false);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /\[x\] S030 step 30/);
    assert.equal(parsePlan(text).steps.find((s) => s.id === 'S002')?.status, 'done');
  });

  it('a step\'s text changed in between (the approved text, same version): the mark is refused under the lock and nothing is written', async () => {
    const { store, id, hooks, file } = await setup();
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c));
    hooks.beforeLock = async () => {
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('S030 step 30', 'S030 step 30, edited by hand'));
    };
    const before = () => fs.readFileSync(file, 'utf8');
    await assert.rejects(store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c)), /changed since Test Person approved/);
    assert.match(before(), /S030 step 30, edited by hand/);
    assert.equal(parsePlan(before()).steps.find((s) => s.id === 'S002')?.status, 'pending');
  });

  it('a stale expected version is refused against the file under the lock, and one made current in between is accepted', async () => {
    const { store, id, hooks, other } = await setup();
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c));
    const v = store.entry(id)!.version!;
    await assert.rejects(store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c), { expectedVersion: v - 1 }), (e: { code?: string }) => e.code === 'VERSION_CONFLICT');
    // The caller read the other writer's version; our early work (on v) is refused, the work under the lock is not.
    hooks.beforeLock = async () => {
      await (await other()).update(id, 'cli', (d, c) => markStep(d, 'S003', 'done', c));
    };
    await store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c), { expectedVersion: v + 1 });
    assert.equal(store.entry(id)?.version, v + 2);
  });

  it('updates at once from two stores in one process (the extension host\'s ports: no synchronous call) lose nothing', async () => {
    const { root, id, file } = await setup();
    const [a, b] = await Promise.all([0, 1].map(() => PlanStore.openForPlans(root, nodePorts(root, { indexCache: false, blocking: false }))));
    const v = parsePlan(fs.readFileSync(file, 'utf8')).fm.version;
    const ids = Array.from({ length: 24 }, (_, i) => `S${String(i + 1).padStart(3, '0')}`);
    const done = await Promise.all(ids.map((step, i) => (i % 2 ? a : b).update(id, 'agent', (d, c) => markStep(d, step, 'done', c, `by ${i % 2 ? 'a' : 'b'}`))));
    const onDisk = parsePlan(fs.readFileSync(file, 'utf8'), undefined, { fresh: true });
    assert.equal(onDisk.fm.version, v + ids.length);
    assert.deepEqual(done.map((d) => d.doc.fm.version).sort((x, y) => x - y), ids.map((_, i) => v + i + 1));
    for (const [i, step] of ids.entries()) {
      const s = onDisk.steps.find((x) => x.id === step);
      assert.deepEqual([s?.status, s?.note], ['done', `by ${i % 2 ? 'a' : 'b'}`], step);
    }
  });

  it('an operation the plan refuses is refused with its own error, and nothing is written', async () => {
    const { store, id, file } = await setup();
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'in_progress', c));
    const before = fs.readFileSync(file);
    const { seen, op } = counted((d, c) => markStep(d, 'S999', 'done', c));
    await assert.rejects(store.update(id, 'agent', op), (e: { code?: string }) => e.code === 'NOT_FOUND');
    assert.equal(seen.length, 2, 'refused early, then for real under the lock');
    assert.deepEqual(fs.readFileSync(file), before);
    await assert.rejects(store.update(id, 'agent', (d, c) => changeStatus(d, 'withdraw', c)), (e: { code?: string }) => typeof e.code === 'string');
    assert.deepEqual(fs.readFileSync(file), before);
  });
});
