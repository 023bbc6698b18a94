// A cold index reads its files one at a time (issue 40: `pi-plans list --json` on 10,000 plans
// with no index kept peaked at 114 MB): the file system lends each file's bytes in one buffer, the
// store summarizes the file before the next is read and keeps nothing of the bytes, and the index
// cache is written a slice of entries at a time. The index is the one a batch read gives, entry for
// entry, whatever the files hold; the cache's text is the one JSON.stringify gives.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LIMITS } from '../../../src/core';
import { fileIndexCache, NodeFileSystem, nodePorts } from '../../../src/node';
import { FileSystemPort, IndexEntry, PlanStore } from '../../../src/store';
import { indexCacheText } from '../../../src/store/folderIndex';

const hex = (i: number) => i.toString(16).padStart(8, '0');
const PLAN = (id: string, i: number) =>
  `---\nid: ${id}\ntitle: "Plan ${i} →"\nstatus: ${['draft', 'proposed', 'approved', 'executing', 'completed'][i % 5]}\nversion: ${i}\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-0${1 + (i % 2)}T00:00:00.000Z\n${i % 7 ? '' : 'supersedes: PLAN-00000001\n'}---\n\n## Goal\nG\n\n## Steps\n1. [x] S001 one\n2. [ ] S002 two\n${i % 3 ? '3. [ ] S003 three\n' : ''}`;

/** 1,000 steps: a valid plan of about 90 KB, more than the buffer the file system lends. */
const LONG_STEPS = Array.from({ length: 1000 }, (_, k) => `${k + 1}. [ ] S${String(k + 1).padStart(3, '0')} change module ${k} of the generated plan, as its ticket says\n`).join('');

/** Files of every kind a scan meets: broken plans, a link, a folder, a FIFO, an empty file, a valid plan larger than the lent buffer, one over the cap. */
const ODD: [name: string, make: (p: string) => void][] = [
  ['PLAN-bad00001.md', (p) => fs.writeFileSync(p, '---\nid: PLAN-bad00001\ntitle: [unclosed\n---\n')],
  ['PLAN-bad00003.md', (p) => fs.writeFileSync(p, Buffer.concat([Buffer.from('---\nid: PLAN-bad00003\n'), Buffer.from([0xff, 0xfe, 0x0a])]))],
  ['PLAN-bad00006.md', (p) => fs.writeFileSync(p, `---\nid: PLAN-bad00006\n---\n${'x'.repeat(LIMITS.fileBytes)}`)],
  ['PLAN-bad00007.md', (p) => fs.symlinkSync(path.join(path.dirname(p), 'PLAN-00000001.md'), p)],
  ['PLAN-bad00008.md', (p) => fs.mkdirSync(p)],
  ['PLAN-bad00009.md', (p) => execFileSync('mkfifo', [p])],
  ['PLAN-bad0000a.md', (p) => fs.writeFileSync(p, '')],
  ['PLAN-0000b1f0.md', (p) => fs.writeFileSync(p, PLAN('PLAN-0000b1f0', 3).replace(/1\. \[x\][^]*$/, LONG_STEPS))],
];

describe('a cold index reads one file at a time', function () {
  this.timeout(60_000);
  let dir: string;
  let root: string;
  let plans: string;
  const COUNT = 700;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cold-'));
    root = path.join(dir, 'ws');
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    for (let i = 1; i <= COUNT; i++) fs.writeFileSync(path.join(plans, `PLAN-${hex(i)}.md`), PLAN(`PLAN-${hex(i)}`, i));
    for (const [name, make] of ODD) make(path.join(plans, name));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The index a store builds over `files`, as plain data. */
  async function index(files: FileSystemPort): Promise<IndexEntry[]> {
    const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false }), fs: files });
    return store.list().map((e) => ({ ...e }));
  }

  /** The port without the one-at-a-time read: the store reads its files in batches. */
  const batched = (files: FileSystemPort): FileSystemPort => Object.assign(Object.create(files) as FileSystemPort, { readEachWithStats: undefined });

  it('the file system lends every small file its bytes in one buffer, and gives what a batch read gives', async () => {
    const files = new NodeFileSystem();
    const paths = fs.readdirSync(plans).sort().map((n) => path.join(plans, n));
    paths.push(path.join(plans, 'PLAN-absent00.md'));
    const batch = await files.readManyWithStats(paths, LIMITS.fileBytes);
    const buffers = new Set<ArrayBufferLike>();
    let calls = 0;
    await files.readEachWithStats(paths, LIMITS.fileBytes, (k, r) => {
      assert.equal(k, calls++, 'in order, one call per path');
      const b = batch[k];
      if (r instanceof Error || b instanceof Error) return assert.equal(String(r), String(b), paths[k]);
      if (!r || !b) return assert.equal(r, b, paths[k]);
      assert.deepEqual(r.stat, b.stat, paths[k]);
      assert.deepEqual(r.bytes && Buffer.from(r.bytes), b.bytes && Buffer.from(b.bytes), paths[k]);
      if (r.bytes?.byteLength && r.bytes.byteLength < 64 * 1024) buffers.add(r.bytes.buffer);
    });
    assert.equal(calls, paths.length);
    assert.equal(buffers.size, 1, 'one buffer for every file under 64 KB');
  });

  for (const blocking of [true, false])
    it(`the index is the batch read's, entry for entry, and keeps nothing of the lent bytes (${blocking ? 'synchronous' : 'asynchronous'} reads)`, async () => {
      const real = new NodeFileSystem({ blocking });
      let lent = 0;
      // Each file's bytes are spoiled once the store has had them: an entry that kept them, or
      // read them later, would differ from the batch read's.
      const spoiling = Object.assign(Object.create(real) as FileSystemPort, {
        readEachWithStats: (paths: readonly string[], max: number, each: Parameters<NonNullable<FileSystemPort['readEachWithStats']>>[2]) =>
          real.readEachWithStats(paths, max, (k, r) => {
            each(k, r);
            if (r && !(r instanceof Error) && r.bytes) {
              lent++;
              r.bytes.fill(0x21);
            }
          }),
      });
      const once = await index(spoiling);
      const inBatches = await index(batched(real));
      assert.equal(once.length, COUNT + ODD.length);
      assert.ok(lent >= COUNT, 'the plans were read one at a time');
      assert.deepEqual(once, inBatches);
      assert.equal(once.filter((e) => e.valid).length, COUNT + 1, 'the plans, and the long one');
      assert.equal(once.find((e) => e.file === 'PLAN-0000b1f0.md')?.steps, 1000);
      assert.equal(once.find((e) => e.file === 'PLAN-00000007.md')?.supersedes, 'PLAN-00000001');
    });

  it("the index cache's text, written in parts, is JSON.stringify's, and a warm start reads it", async () => {
    const entries = await index(new NodeFileSystem());
    for (const n of [0, 1, 255, 256, 257, 513, entries.length]) {
      const some = entries.slice(0, n);
      const parts = [...indexCacheText('/w/.pi/plans', some)];
      assert.equal(parts.join(''), JSON.stringify({ format: 3, dir: '/w/.pi/plans', entries: some }), `${n} entries`);
      assert.equal(parts.length, 2 + Math.ceil(n / 256), `${n} entries: a part per 256`);
    }
    const cacheDir = path.join(dir, 'cache');
    const open = () => PlanStore.open(root, { ...nodePorts(root), indexCache: fileIndexCache(root, cacheDir) });
    const cold = await open();
    assert.ok(cold.lastScan.reads > COUNT);
    const [file] = fs.readdirSync(cacheDir).filter((n) => n.endsWith('.json'));
    const byFile = (a: IndexEntry, b: IndexEntry) => a.file.localeCompare(b.file);
    const saved = (JSON.parse(fs.readFileSync(path.join(cacheDir, file), 'utf8')) as { entries: IndexEntry[] }).entries;
    assert.deepEqual(saved.sort(byFile), (JSON.parse(JSON.stringify(cold.list())) as IndexEntry[]).sort(byFile));
    const warm = await open();
    assert.equal(warm.lastScan.reads, 0, 'every entry from the cache');
    assert.deepEqual(warm.list().map((e) => JSON.stringify(e)), cold.list().map((e) => JSON.stringify(e)));
  });
});
