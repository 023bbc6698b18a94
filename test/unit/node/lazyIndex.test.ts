import { seenNow } from '../../helpers/approvals';
// A store opened lazily (the MCP server's): it knows the plans it is asked about, wrote or heard
// of, re-scans only those, and indexes the whole folder when something lists it. Real disk.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPlanError, markStep, approve, startExecution } from '../../../src/core';
import { fileIndexCache, nodePorts } from '../../../src/node';
import { PlanStore } from '../../../src/store';

const PLAN = (id: string, status = 'proposed') =>
  `---\nid: ${id}\ntitle: "Plan ${id}"\nstatus: ${status}\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 one\n2. [ ] S002 two\n`;

describe('a lazily indexed store (real disk)', () => {
  let root: string;
  let plans: string;
  let cacheDir: string;
  const ids = Array.from({ length: 40 }, (_, i) => `PLAN-${(0xa0000000 + i).toString(16)}`);
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-lazy-'));
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-lazy-cache-'));
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    for (const id of ids) fs.writeFileSync(path.join(plans, `${id}.md`), PLAN(id));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });
  const open = () => PlanStore.openLazily(root, { ...nodePorts(root), indexCache: fileIndexCache(root, cacheDir) });

  it('tracks a named plan, updates it, re-scans only what it knows; list waits for loadIndex, which indexes everything once', async () => {
    const store = await open();
    assert.equal(store.indexed, false);
    assert.throws(() => store.list(), (e: unknown) => isPlanError(e) && /no index yet: await loadIndex\(\) first/.test((e as Error).message));
    const id = ids[7];
    assert.equal((await store.track(id))?.title, `Plan ${id}`);
    assert.equal(store.entry(ids[8]), undefined, 'a plan it was not asked about is unknown');
    await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    await store.update(id, 'agent', (d, c) => markStep(d, 'S001', 'done', c));
    assert.equal(store.entry(id)?.stepsDone, 1);
    // An outside edit of a known plan is seen by a re-scan; an unknown plan stays unknown, and nothing is saved.
    fs.writeFileSync(path.join(plans, `${ids[3]}.md`), PLAN(ids[3], 'draft'));
    await store.track(ids[3]);
    fs.writeFileSync(path.join(plans, `${ids[3]}.md`), PLAN(ids[3], 'proposed').replace('"Plan', '"Renamed plan'));
    const ev = await store.rescan();
    assert.deepEqual(ev, { added: [], changed: [], removed: [] });
    assert.equal(store.entry(ids[3])?.title, `Renamed plan ${ids[3]}`);
    assert.equal(store.entry(ids[9]), undefined);
    assert.deepEqual(fs.readdirSync(cacheDir), [], 'no index built, none saved');
    // Listing: the whole folder, once, even when asked twice at the same time.
    await Promise.all([store.loadIndex(), store.loadIndex()]);
    assert.equal(store.indexed, true);
    assert.equal(store.list().length, 40);
    assert.equal(store.entry(id)?.status, 'executing');
    assert.equal(fs.readdirSync(cacheDir).length, 1, 'the index was saved for the next start');
  });

  it('the entry of an update (made from the text written and the stat under the lock) is what a fresh scan of the disk finds', async () => {
    const store = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
    const id = ids[2];
    await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    for (const [step, status] of [['S001', 'done'], ['S002', 'blocked'], ['S002', 'done']] as const) {
      await store.update(id, 'agent', (d, c) => markStep(d, step, status, c, `note on ${step}`));
      const fresh = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
      assert.deepEqual(store.entry(id), fresh.entry(id), `after ${step} ${status}`);
    }
    assert.equal(store.entry(id)?.status, 'completed');
    // Another writer after ours: the stat we kept no longer matches, so the next look reads the file.
    fs.writeFileSync(path.join(plans, `${id}.md`), PLAN(id, 'draft'));
    await store.rescan();
    assert.equal(store.entry(id)?.status, 'draft');
  });

  it("an update sees exactly the file's text: our own last write (no decode) and one with a lone surrogate, which the file holds as U+FFFD", async () => {
    const store = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
    const id = ids[4];
    const file = path.join(plans, `${id}.md`);
    await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    const seen: string[] = [];
    for (const note of ['plain note', 'broken \uD800 note', 'after it']) {
      await store.update(id, 'agent', (d, c) => {
        seen.push(d.text);
        return markStep(d, 'S001', 'in_progress', c, note);
      });
    }
    // What each update read is what the previous one left in the file, as a decode of the bytes.
    assert.equal(seen.length, 3);
    const after = fs.readFileSync(file, 'utf8');
    assert.match(after, /> Note: after it/);
    await store.update(id, 'agent', (d, c) => {
      seen.push(d.text);
      return markStep(d, 'S001', 'done', c);
    });
    assert.equal(seen[3], after, "the text an update works on is the file's");
    assert.ok(!seen[2].includes('\uD800'), 'a lone surrogate written is read back as the file has it');
    assert.ok(seen[2].includes('broken \uFFFD note'), seen[2]);
  });

  it('a write by another process right after ours (heard before our update returns) is what the index keeps', async () => {
    const base = nodePorts(root, { indexCache: false });
    const file = path.join(plans, `${ids[5]}.md`);
    const ref: { store?: PlanStore } = {};
    let once = true;
    const ports = {
      ...base,
      fs: Object.assign(Object.create(base.fs) as typeof base.fs, {
        appendFile: async (p: string, d: Uint8Array) => {
          if (once && p.endsWith('.jsonl')) {
            // Between our lock's release and our checkpoint: another writer, and our watcher hears it.
            once = false;
            fs.writeFileSync(file, PLAN(ids[5], 'cancelled').replace('version: 1', 'version: 9'));
            await ref.store!.fileChanged(file);
          }
          return base.fs.appendFile(p, d);
        },
      }),
    };
    const store = (ref.store = await PlanStore.open(root, ports));
    const events: string[] = [];
    store.onDidChangePlans((e) => events.push(JSON.stringify(e)));
    await store.update(ids[5], 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await store.settled();
    assert.equal(store.entry(ids[5])?.status, 'cancelled');
    assert.equal(store.entry(ids[5])?.version, 9);
    const fresh = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
    assert.deepEqual(store.entry(ids[5]), fresh.entry(ids[5]));
    const last = JSON.parse(events.at(-1)!) as { changed: string[]; outside?: string[] };
    assert.deepEqual(last.outside, [`${ids[5]}.md`], 'the last word is the outside write, not ours announced after it');
  });

  it('a store opened for named plans only refuses to load an index', async () => {
    const store = await PlanStore.openForPlans(root, nodePorts(root, { indexCache: false }));
    await assert.rejects(store.loadIndex(), /opened for named plans only/);
  });
});
