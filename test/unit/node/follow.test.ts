// The store following its folder on the real disk with Node's watcher: no change is missed, from
// the first millisecond after the store starts, whatever the watchers do.
import { strict as assert } from 'node:assert';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeWatcher, nodePorts } from '../../../src/node';
import { FileSystemPort, PlanStore, PlansChangeEvent, WatcherPort } from '../../../src/store';

const PLAN = (id: string, title = 'Written from outside') =>
  `---\nid: ${id}\ntitle: "${title}"\nstatus: draft\nversion: 1\ncreated_at: 2026-11-22T10:00:00.000Z\nupdated_at: 2026-11-22T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 first\n`;

const roots: string[] = [];
function freshRoot(withPlans = true): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-follow-'));
  roots.push(root);
  if (withPlans) {
    fs.mkdirSync(path.join(root, '.pi/plans'), { recursive: true });
    fs.writeFileSync(path.join(root, '.pi/plans/PLAN-00000001.md'), PLAN('PLAN-00000001', 'Already there'));
  }
  return root;
}
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

/** Waits for a condition, never for a fixed time; fails after `ms`. */
async function until<T>(what: string, check: () => T | undefined | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A watcher that never reports anything: a watcher that is not live yet, or has died. */
const deafWatcher: WatcherPort = { watch: () => ({ dispose: () => undefined }) };

/** Node ports whose directory listing lets `afterList` run right after the plans folder is listed: a write in the scan's window. */
function portsWithListingHook(root: string, afterList: () => void) {
  const base = nodePorts(root, { indexCache: false });
  let fired = false;
  const fsPort: FileSystemPort = Object.create(base.fs);
  fsPort.readDir = async (p) => {
    const names = await base.fs.readDir(p);
    if (!fired && p.endsWith('/.pi/plans')) {
      fired = true;
      afterList();
    }
    return names;
  };
  return { ...base, fs: fsPort };
}

/** A writer process, started ahead and waiting: on "go" it waits `delay` ms, writes the plan, and prints when. */
function writer(file: string, text: string, delay: number): { proc: ChildProcess; wrote: Promise<number> } {
  const script = `process.stdin.once('data',()=>setTimeout(()=>{require('fs').writeFileSync(${JSON.stringify(file)},${JSON.stringify(text)});process.stdout.write(String(Date.now()));process.exit(0)},${delay}))`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  const wrote = new Promise<number>((resolve, reject) => proc.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`writer exited ${code}`)))));
  return { proc, wrote };
}

describe('following the plans folder (real disk, Node watcher)', function () {
  this.timeout(120_000);

  it('sees a plan written right after the scan listed the folder, through the watcher started before the scan', async () => {
    const root = freshRoot();
    const file = path.join(root, '.pi/plans/PLAN-0000aaaa.md');
    const store = new PlanStore(root, portsWithListingHook(root, () => fs.writeFileSync(file, PLAN('PLAN-0000aaaa'))));
    // No confirming or periodic re-scan: only the watcher can see the write.
    const following = store.watch(new NodeWatcher(), { confirmMs: 0, periodMs: 0 });
    try {
      await store.load();
      assert.equal(store.entry('PLAN-0000aaaa'), undefined, 'the scan had listed the folder before the write');
      await until('the plan written during the scan', () => store.entry('PLAN-0000aaaa'));
    } finally {
      following.dispose();
    }
  });

  it('sees a plan written during the scan even when no watcher reports it: the re-scan after loading finds it', async () => {
    const root = freshRoot();
    const file = path.join(root, '.pi/plans/PLAN-0000bbbb.md');
    const store = new PlanStore(root, portsWithListingHook(root, () => fs.writeFileSync(file, PLAN('PLAN-0000bbbb'))));
    const following = store.watch(deafWatcher, { confirmMs: 200, periodMs: 0 });
    try {
      await store.load();
      assert.equal(store.entry('PLAN-0000bbbb'), undefined);
      await until('the confirming re-scan', () => store.entry('PLAN-0000bbbb'));
    } finally {
      following.dispose();
    }
  });

  it('sees, within the periodic re-scan, a change no watcher reported', async () => {
    const root = freshRoot();
    const store = new PlanStore(root, nodePorts(root, { indexCache: false }));
    const following = store.watch(deafWatcher, { confirmMs: 0, periodMs: 100 });
    try {
      await store.load();
      fs.writeFileSync(path.join(root, '.pi/plans/PLAN-0000cccc.md'), PLAN('PLAN-0000cccc'));
      await until('the periodic re-scan', () => store.entry('PLAN-0000cccc'));
    } finally {
      following.dispose();
    }
  });

  it('sees every plan written by another process 0, 10, 50, 100 and 500 ms after the store starts (3 times each)', async () => {
    const latencies: number[] = [];
    for (const delay of [0, 10, 50, 100, 500]) {
      for (let round = 0; round < 3; round++) {
        const root = freshRoot();
        const id = `PLAN-${(delay * 10 + round).toString(16).padStart(8, '0')}`;
        const w = writer(path.join(root, '.pi/plans', `${id}.md`), PLAN(id), delay);
        await new Promise((r) => w.proc.once('spawn', r));
        const store = new PlanStore(root, nodePorts(root, { indexCache: false }));
        w.proc.stdin!.write('go\n');
        const following = store.watch(new NodeWatcher(), { confirmMs: 1000, periodMs: 0 });
        try {
          await store.load();
          const wroteAt = await w.wrote;
          await until(`${id}, written ${delay} ms after the start`, () => store.entry(id));
          latencies.push(Date.now() - wroteAt);
        } finally {
          following.dispose();
        }
      }
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(`      written-to-indexed: median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms over ${sorted.length} writes`);
  });

  it('follows a plans folder made after the store started, and one removed and made again (a checkout)', async () => {
    const root = freshRoot(false);
    const store = new PlanStore(root, nodePorts(root, { indexCache: false }));
    const following = store.watch(new NodeWatcher(50, 100), { confirmMs: 0, periodMs: 0 });
    try {
      await store.load();
      assert.equal(store.list().length, 0);
      fs.mkdirSync(path.join(root, '.pi/plans'), { recursive: true });
      fs.writeFileSync(path.join(root, '.pi/plans/PLAN-0000dddd.md'), PLAN('PLAN-0000dddd'));
      await until('the plan in the new folder', () => store.entry('PLAN-0000dddd'));
      fs.rmSync(path.join(root, '.pi/plans'), { recursive: true });
      fs.mkdirSync(path.join(root, '.pi/plans'));
      fs.writeFileSync(path.join(root, '.pi/plans/PLAN-0000eeee.md'), PLAN('PLAN-0000eeee'));
      await until('the folder made again, with its plan', () => store.entry('PLAN-0000eeee') && !store.entry('PLAN-0000dddd'));
    } finally {
      following.dispose();
    }
  });

  it('merges events from two watchers: one change event per outside write, and settles', async () => {
    const root = freshRoot();
    const store = new PlanStore(root, nodePorts(root, { indexCache: false }));
    const events: PlansChangeEvent[] = [];
    store.onDidChangePlans((e) => events.push(e));
    const following = store.watch([new NodeWatcher(), new NodeWatcher()], { settleMs: 50, confirmMs: 0, periodMs: 0 });
    try {
      await store.load();
      fs.writeFileSync(path.join(root, '.pi/plans/PLAN-0000ffff.md'), PLAN('PLAN-0000ffff'));
      await until('the plan', () => store.entry('PLAN-0000ffff'));
      await following.settled();
      const mentions = events.flatMap((e) => [...e.added, ...e.changed]).filter((f) => f === 'PLAN-0000ffff.md');
      assert.deepEqual(mentions, ['PLAN-0000ffff.md']);
      assert.deepEqual(events.at(-1)?.outside, ['PLAN-0000ffff.md']);
    } finally {
      following.dispose();
    }
  });
});
