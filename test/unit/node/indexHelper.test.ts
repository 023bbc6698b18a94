// A cold index of many plans with a helper thread (the extension host's worker): the worker reads
// and summarizes the files, and the index it gives is the one this thread would have built, entry
// for entry, whatever the files hold (valid plans, broken ones, links, pipes, folders, oversized
// files, invalid UTF-8). A helper that fails changes nothing but who does the work.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { LIMITS } from '../../../src/core';
import { nodePorts, OffThreadParser } from '../../../src/node';
import { IndexEntry, IndexHelperPort, PlanStore } from '../../../src/store';

const hex = (i: number) => i.toString(16).padStart(8, '0');
const PLAN = (id: string, i: number) =>
  `---\nid: ${id}\ntitle: "Plan ${i} →"\nstatus: ${['draft', 'proposed', 'approved', 'executing', 'completed'][i % 5]}\nversion: ${i}\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-02T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [x] S001 one\n2. [ ] S002 two\n${i % 3 ? '3. [ ] S003 three\n' : ''}`;

/** What each kind of broken file holds (or is). */
const BROKEN: [name: string, make: (p: string) => void][] = [
  ['PLAN-bad00001.md', (p) => fs.writeFileSync(p, '---\nid: PLAN-bad00001\ntitle: [unclosed\n---\n')],
  ['PLAN-bad00002.md', (p) => fs.writeFileSync(p, '---\nid: PLAN-00000000\ntitle: "wrong id"\nstatus: draft\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n')],
  ['PLAN-bad00003.md', (p) => fs.writeFileSync(p, Buffer.concat([Buffer.from('---\nid: PLAN-bad00003\n'), Buffer.from([0xff, 0xfe, 0x0a])]))],
  ['PLAN-bad00004.md', (p) => fs.writeFileSync(p, '<<<<<<< HEAD\n---\n')],
  ['PLAN-bad00005.md', (p) => fs.writeFileSync(p, 'no frontmatter at all\n')],
  ['PLAN-bad00006.md', (p) => fs.writeFileSync(p, `---\nid: PLAN-bad00006\n---\n${'x'.repeat(LIMITS.fileBytes)}`)],
  ['PLAN-bad00007.md', (p) => fs.symlinkSync(path.join(path.dirname(p), 'PLAN-00000001.md'), p)],
  ['PLAN-bad00008.md', (p) => fs.mkdirSync(p)],
  ['PLAN-bad00009.md', (p) => execFileSync('mkfifo', [p])],
  ['PLAN-NOTHEX1.md', (p) => fs.writeFileSync(p, PLAN('PLAN-NOTHEX1', 1))],
];

describe('a cold index with a helper thread', function () {
  this.timeout(120_000);
  let dir: string;
  let root: string;
  let script: string;
  const COUNT = 1500;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-helper-'));
    script = path.join(dir, 'outlineWorker.js');
    // The same entry point the extension ships as dist/outlineWorker.js.
    await esbuild.build({ entryPoints: ['src/node/ports/outlineWorker.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'error' });
    root = path.join(dir, 'ws');
    const plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    for (let i = 1; i <= COUNT; i++) fs.writeFileSync(path.join(plans, `PLAN-${hex(i)}.md`), PLAN(`PLAN-${hex(i)}`, i));
    for (const [name, make] of BROKEN) make(path.join(plans, name));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  let lastScan = { reads: 0, helped: 0 };
  /** The index a store builds with these ports, as plain data. */
  async function index(blocking: boolean, helper?: IndexHelperPort): Promise<IndexEntry[]> {
    const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false, blocking }), ...(helper ? { indexHelper: helper } : {}) });
    lastScan = store.lastScan;
    return store.list().map((e) => ({ ...e }));
  }

  for (const blocking of [false, true])
    it(`the worker's index equals this thread's, entry for entry (${blocking ? 'synchronous' : 'asynchronous'} reads here)`, async () => {
      const parser = new OffThreadParser(script);
      let asked = 0;
      let made = 0;
      const counting: IndexHelperPort = {
        entries: async (files, max) => {
          asked += files.length;
          const got = await parser.entries(files, max);
          made += got?.filter(Boolean).length ?? 0;
          return got;
        },
      };
      try {
        const alone = await index(blocking);
        const helped = await index(blocking, counting);
        assert.equal(alone.length, COUNT + BROKEN.length);
        assert.deepEqual(helped, alone);
        // Every file went to the worker, and it made the entries (the FIFO, opened by nobody, too).
        assert.equal(asked, COUNT + BROKEN.length);
        assert.equal(made, COUNT + BROKEN.length);
        assert.deepEqual(lastScan, { reads: COUNT + BROKEN.length, helped: COUNT + BROKEN.length });
        // The broken ones are there with their reasons, as this thread gives them.
        const byFile = new Map(helped.map((e) => [e.file, e]));
        for (const [name] of BROKEN) assert.equal(byFile.get(name)?.valid, false, name);
        assert.match(byFile.get('PLAN-bad00009.md')!.error!.message, /a named pipe, not a file/);
        assert.equal(byFile.get('PLAN-bad00003.md')!.error!.rule, 'invalid-utf8');
        assert.deepEqual([byFile.get('PLAN-00000003.md')!.steps, byFile.get('PLAN-00000003.md')!.stepsDone], [2, 1]);
      } finally {
        parser.dispose();
      }
    });

  it('a helper that cannot start (a missing script) or gives up halfway: the same index, built here', async () => {
    const alone = await index(false);
    const failures: Error[] = [];
    const broken = new OffThreadParser(path.join(dir, 'missing.js'), undefined, (e) => failures.push(e));
    try {
      assert.deepEqual(await index(false, broken), alone);
      // Reported, and not asked again in the same scan (the two chunks in flight may both hear it).
      assert.ok(failures.length >= 1 && failures.length <= 2, `${failures.length} failures reported`);
    } finally {
      broken.dispose();
    }
    // A helper that answers some chunks, then nothing, and leaves files to the caller.
    const parser = new OffThreadParser(script);
    let calls = 0;
    const flaky: IndexHelperPort = {
      entries: async (files, max) => {
        calls++;
        if (calls > 2) return undefined;
        const got = await parser.entries(files, max);
        return got?.map((e, i) => (i % 2 ? undefined : e));
      },
    };
    try {
      assert.deepEqual(await index(false, flaky), alone);
      assert.ok(calls > 2);
      // Half of the first two chunks came from the helper; everything else was read here.
      assert.deepEqual(lastScan, { reads: COUNT + BROKEN.length, helped: 256 });
    } finally {
      parser.dispose();
    }
  });

  it('a few new files are read here: no helper is asked for less than its start costs', async () => {
    let asked = 0;
    const store = await PlanStore.open(root, {
      ...nodePorts(root, { indexCache: false, blocking: false }),
      indexHelper: { entries: async (files) => ((asked += files.length), undefined) },
    });
    assert.ok(asked > 0);
    asked = 0;
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, '.pi', 'plans', `PLAN-${hex(0xfff00 + i)}.md`), PLAN(`PLAN-${hex(0xfff00 + i)}`, i));
    try {
      await store.rescan();
      assert.equal(asked, 0);
      assert.equal(store.entry(`PLAN-${hex(0xfff00)}`)?.valid, true);
    } finally {
      for (let i = 0; i < 5; i++) fs.rmSync(path.join(root, '.pi', 'plans', `PLAN-${hex(0xfff00 + i)}.md`));
    }
  });
});
