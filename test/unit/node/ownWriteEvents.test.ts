import { seenNow } from '../../helpers/approvals';
// An update's change is announced once, whoever reads the file meanwhile. A re-scan (and a
// watcher's refresh) runs in the store's queue, an update does not: a re-scan that stat'ed the
// file after the update's write but compared before the update set its own index entry reads the
// new bytes and finds nothing new against that entry, and the update found its entry replaced.
// Nobody announced the change: in the real VS Code a plan's "completed" notification was
// sometimes never shown.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, markStep, startExecution, submit } from '../../../src/core';
import { nodePorts } from '../../../src/node';
import { FileSystemPort, PlanStore, PlansChangeEvent } from '../../../src/store';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** A promise and its resolver. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((r) => (fire = r));
  return { promise, fire };
}

async function executingPlan() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-own-events-'));
  roots.push(root);
  const base = nodePorts(root, { indexCache: false });
  const fsPort: FileSystemPort = Object.create(base.fs);
  const store = await PlanStore.open(root, { ...base, fs: fsPort });
  const { fm } = await store.create({ title: 'Race', goal: 'G', steps: [{ text: 'one' }, { text: 'two' }] }, 'agent');
  await store.update(fm.id, 'agent', (d, c) => submit(d, c));
  await store.update(fm.id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
  await store.update(fm.id, 'agent', (d, c) => startExecution(d, c));
  await store.update(fm.id, 'agent', (d, c) => markStep(d, 'S001', 'done', c));
  return { store, base, fsPort, id: fm.id };
}

describe('the store announces its own updates once, whatever reads the file meanwhile', () => {
  it('a re-scan that stats after the write and reads while the update sets its entry', async () => {
    const { store, base, fsPort, id } = await executingPlan();
    const events: PlansChangeEvent[] = [];
    store.onDidChangePlans((e) => events.push(e));
    const scanReads = signal();
    const checkpointing = signal();
    let scan: Promise<unknown> | undefined;
    // The interleaving, step by step: the update writes; a re-scan starts, stats the new file and
    // finds it differs from the entry it knows (the update has not set its own yet), so it reads it;
    // its read waits until the update set its entry and is writing its checkpoint; the checkpoint
    // waits for the re-scan to end; then the update announces (or not).
    fsPort.writeFileAtomic = async (p, data) => {
      await base.fs.writeFileAtomic(p, data);
      if (scan || !p.endsWith(`${id}.md`)) return;
      scan = store.rescan();
      await scanReads.promise;
    };
    fsPort.readMany = async (paths) => {
      if (scan && paths.some((p) => p.endsWith(`${id}.md`))) {
        scanReads.fire();
        await checkpointing.promise;
      }
      return base.fs.readMany(paths);
    };
    fsPort.appendFile = async (p, data) => {
      if (scan) {
        checkpointing.fire();
        await scan;
      }
      return base.fs.appendFile(p, data);
    };
    await store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c));
    assert.ok(scan, 'the re-scan ran in the window');
    assert.equal(store.entry(id)?.status, 'completed');
    const named = events.filter((e) => e.changed.includes(`${id}.md`) || e.added.includes(`${id}.md`));
    assert.equal(named.length, 1, `one announcement of the change, got ${JSON.stringify(events)}`);
    assert.deepEqual(named[0].outside ?? [], [], 'our own write, not an outside change');
  });

  it('a watcher refresh of the same file in that window is announced once too', async () => {
    const { store, base, fsPort, id } = await executingPlan();
    const events: PlansChangeEvent[] = [];
    store.onDidChangePlans((e) => events.push(e));
    let raced = false;
    fsPort.appendFile = async (p, data) => {
      if (!raced) {
        raced = true;
        await store.fileChanged(store.pathOf(id));
      }
      return base.fs.appendFile(p, data);
    };
    await store.update(id, 'agent', (d, c) => markStep(d, 'S002', 'done', c));
    assert.ok(raced);
    assert.equal(store.entry(id)?.status, 'completed');
    assert.equal(events.filter((e) => e.changed.includes(`${id}.md`)).length, 1, JSON.stringify(events));
  });
});
