// Updates of one plan in flight at once on one store (an MCP client that does not wait for its
// answers) take their turns in the store, in call order, and only the one whose turn it is waits
// on the cross-process lock. Real disk, real lock: every update lands, in order, each worked out
// once; a second store (another process's) writing meanwhile loses nothing either.
import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, markStep, parsePlan, startExecution, submit, type OpContext, type PlanDocument } from '../../../src/core';
import { nodePorts } from '../../../src/node';
import { PlanStore } from '../../../src/store';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

const stepId = (i: number) => `S${String(i + 1).padStart(3, '0')}`;

/** A store on a fresh folder and an executing plan of `n` steps, approved by the person (signed). */
async function executing(n: number) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-inflight-'));
  roots.push(root);
  const store = await PlanStore.openForPlans(root, nodePorts(root, { indexCache: false }));
  const { fm } = await store.create({ title: 'In flight', goal: 'G', steps: Array.from({ length: n }, (_, i) => ({ text: `step ${i + 1}` })) }, 'agent');
  await store.update(fm.id, 'agent', (d, c) => submit(d, c));
  await store.update(fm.id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
  const { doc } = await store.update(fm.id, 'agent', (d, c) => startExecution(d, c));
  return { root, store, id: fm.id, version: doc.fm.version, file: path.join(root, '.pi', 'plans', `${fm.id}.md`) };
}

/** The checkpoint log's versions, in the order written. */
/** The versions of the log's lines of one type (a mark's `step` lines by default). */
function loggedVersions(root: string, id: string, type = 'step'): number[] {
  return fs
    .readFileSync(path.join(root, '.pi', 'plans', 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; version: number })
    .filter((c) => c.type === type)
    .map((c) => c.version);
}

describe('store: updates of one plan in flight at once (real disk, real lock)', () => {
  it('100 step marks at once on one store all land, in call order, versions consecutive, each worked out once', async () => {
    const { root, store, id, version, file } = await executing(100);
    let runs = 0;
    const done = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        store.update(id, 'agent', (d: PlanDocument, c: OpContext) => {
          runs++;
          return markStep(d, stepId(i), 'done', c, `mark ${i}`);
        }),
      ),
    );
    assert.deepEqual(
      done.map((r) => r.doc.fm.version),
      Array.from({ length: 100 }, (_, i) => version + i + 1),
      'each call wrote the next version, in the order of the calls',
    );
    // Worked out in its turn, from the write before it: never worked out again under the lock.
    assert.equal(runs, 100);
    const onDisk = parsePlan(fs.readFileSync(file, 'utf8'), undefined, { fresh: true });
    assert.equal(onDisk.fm.version, version + 100);
    assert.deepEqual(
      onDisk.steps.map((s) => [s.id, s.status, s.note]),
      Array.from({ length: 100 }, (_, i) => [stepId(i), 'done', `mark ${i}`]),
    );
    assert.equal(onDisk.fm.status, 'completed', 'the last mark finished the plan');
    assert.deepEqual(loggedVersions(root, id).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => version + i + 1));
    assert.deepEqual(loggedVersions(root, id, 'status').at(-1), version + 100, 'the completion is logged at the last mark\'s version');
    assert.equal(store.entry(id)?.version, version + 100);
  });

  it('a refused call in the line is refused alone: the calls after it still land', async () => {
    const { store, id, version, file } = await executing(10);
    const calls = Array.from({ length: 10 }, (_, i) => store.update(id, 'agent', (d, c) => markStep(d, i === 4 ? 'S999' : stepId(i), 'in_progress', c)));
    const settled = await Promise.allSettled(calls);
    assert.deepEqual(
      settled.map((s) => s.status),
      settled.map((_, i) => (i === 4 ? 'rejected' : 'fulfilled')),
    );
    assert.equal(((settled[4] as PromiseRejectedResult).reason as { code?: string }).code, 'NOT_FOUND');
    assert.deepEqual(
      settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.doc.fm.version] : [])),
      Array.from({ length: 9 }, (_, i) => version + i + 1),
      'the calls after it still land, in their order',
    );
    const onDisk = parsePlan(fs.readFileSync(file, 'utf8'));
    assert.equal(onDisk.fm.version, version + 9);
    assert.deepEqual(
      onDisk.steps.map((s) => s.status),
      onDisk.steps.map((_, i) => (i === 4 ? 'pending' : 'in_progress')),
    );
  });

  it('with another store (another process) writing the plan meanwhile, nothing is lost: each store\'s calls land in order', async () => {
    const { root, store, id, version, file } = await executing(60);
    const other = await PlanStore.openForPlans(root, nodePorts(root, { indexCache: false }));
    const ours = Array.from({ length: 50 }, (_, i) => store.update(id, 'agent', (d, c) => markStep(d, stepId(i), 'in_progress', c, `ours ${i}`)));
    const theirs = Array.from({ length: 10 }, (_, i) => other.update(id, 'cli', (d, c) => markStep(d, stepId(50 + i), 'blocked', c, `theirs ${i}`)));
    const [a, b] = await Promise.all([Promise.all(ours), Promise.all(theirs)]);
    const increasing = (vs: number[]) => vs.every((v, i) => !i || v > vs[i - 1]);
    assert.ok(increasing(a.map((r) => r.doc.fm.version)), 'ours in call order');
    assert.ok(increasing(b.map((r) => r.doc.fm.version)), 'theirs in call order');
    assert.deepEqual(
      [...a, ...b].map((r) => r.doc.fm.version).sort((x, y) => x - y),
      Array.from({ length: 60 }, (_, i) => version + i + 1),
    );
    const onDisk = parsePlan(fs.readFileSync(file, 'utf8'), undefined, { fresh: true });
    assert.deepEqual(
      onDisk.steps.map((s) => [s.status, s.note]),
      Array.from({ length: 60 }, (_, i) => (i < 50 ? ['in_progress', `ours ${i}`] : ['blocked', `theirs ${i - 50}`])),
    );
  });

  it('an archive called after updates still in flight takes its turn after them: it archives the completed plan', async () => {
    const { root, store, id, version } = await executing(5);
    const marks = Array.from({ length: 5 }, (_, i) => store.update(id, 'agent', (d, c) => markStep(d, stepId(i), 'done', c)));
    const [target] = await Promise.all([store.archive(id, 'user'), ...marks]);
    const text = fs.readFileSync(target, 'utf8');
    assert.equal(parsePlan(text).fm.version, version + 5);
    assert.equal(parsePlan(text).fm.status, 'completed');
    assert.equal(fs.existsSync(path.join(root, '.pi', 'plans', `${id}.md`)), false);
  });
});
