import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, isPlanError, PlanErrorCode, submit } from '../../../src/core';
import { NodeFileSystem, NodeLock, openNodeStore } from '../../../src/node';

const enc = (s: string) => new TextEncoder().encode(s);

async function rejectsWith(p: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<void> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `expected ${what}, but it resolved`);
  assert.ok(check(err), `expected ${what}, got ${String(err)}`);
}
const planError = (code: PlanErrorCode) => (e: unknown) => isPlanError(e, code);

// Both modes keep every promise: synchronous calls (the CLI) and none at all (the extension host).
for (const blocking of [true, false])
describe(`NodeFileSystem (real disk, ${blocking ? 'synchronous reads: the CLI' : 'no synchronous call: the extension host'})`, () => {
  let dir: string;
  const nfs = new NodeFileSystem({ blocking });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-nfs-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writeFileAtomic replaces the content and leaves no temp file', async () => {
    const p = path.join(dir, 'PLAN-0000000a.md');
    fs.writeFileSync(p, 'old content\n');
    await nfs.writeFileAtomic(p, enc('new content\n'));
    assert.equal(fs.readFileSync(p, 'utf8'), 'new content\n');
    await nfs.writeFileAtomic(p, enc('newer\n'));
    assert.equal(fs.readFileSync(p, 'utf8'), 'newer\n');
    assert.deepEqual(fs.readdirSync(dir), ['PLAN-0000000a.md']);
    assert.deepEqual(Buffer.from((await nfs.readFile(p))!), Buffer.from('newer\n'));
  });

  it('writeFileAtomic with { stat: true } gives the stat the file has in place (the store trusts it instead of a second read)', async () => {
    const p = path.join(dir, 'PLAN-0000000a.md');
    fs.writeFileSync(p, 'old content\n');
    for (const text of ['new content, longer than before\n', 'short\n', 'é → ✓ two-byte text\n']) {
      const got = await nfs.writeFileAtomic(p, enc(text), { stat: true });
      const st = fs.lstatSync(p);
      assert.ok(got, 'a stat');
      assert.deepEqual([got.size, got.mtimeMs, got.isFile, got.isSymbolicLink], [st.size, st.mtimeMs, true, false]);
      assert.equal(fs.readFileSync(p, 'utf8'), text);
      // What the store's own reads (stat, read with stat) say of it: the same.
      const again = await nfs.stat(p);
      assert.deepEqual([again?.size, again?.mtimeMs], [got.size, got.mtimeMs]);
    }
    // Without the option: nothing (the floor the bench compares with does no stat).
    assert.equal(await nfs.writeFileAtomic(p, enc('x')), undefined);
  });

  it('writeFileAtomic creates a missing file', async () => {
    const p = path.join(dir, 'PLAN-0000000a.md');
    await nfs.writeFileAtomic(p, enc('x'));
    assert.equal(fs.readFileSync(p, 'utf8'), 'x');
    assert.deepEqual(fs.readdirSync(dir), ['PLAN-0000000a.md']);
  });

  it('writeFileAtomic refuses a symlinked target (UNSAFE_PATH); the link target is unchanged', async () => {
    const outside = path.join(dir, 'outside.txt');
    fs.writeFileSync(outside, 'secret\n');
    const link = path.join(dir, 'PLAN-0000000a.md');
    fs.symlinkSync(outside, link);
    await rejectsWith(nfs.writeFileAtomic(link, enc('pwned\n')), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'secret\n');
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    assert.deepEqual(fs.readdirSync(dir).sort(), ['PLAN-0000000a.md', 'outside.txt']);
  });

  it('readFile refuses a symlink and returns undefined for a missing file', async () => {
    const outside = path.join(dir, 'outside.txt');
    fs.writeFileSync(outside, 'secret\n');
    const link = path.join(dir, 'PLAN-0000000a.md');
    fs.symlinkSync(outside, link);
    await rejectsWith(nfs.readFile(link), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
    assert.equal(await nfs.readFile(path.join(dir, 'missing.md')), undefined);
    const [r] = await nfs.readMany([link]);
    assert.ok(isPlanError(r, 'UNSAFE_PATH'));
    const st = await nfs.stat(link);
    assert.equal(st?.isSymbolicLink, true);
  });

  it('appendFile refuses a symlink; the target is unchanged', async () => {
    const outside = path.join(dir, 'outside.jsonl');
    fs.writeFileSync(outside, 'x\n');
    const link = path.join(dir, 'PLAN-0000000a.jsonl');
    fs.symlinkSync(outside, link);
    await rejectsWith(nfs.appendFile(link, enc('y\n')), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'x\n');
  });

  it('createFileExclusive refuses an existing file (EEXIST) and leaves it unchanged', async () => {
    const p = path.join(dir, 'PLAN-0000000a.md');
    await nfs.createFileExclusive(p, enc('first\n'));
    assert.equal(fs.readFileSync(p, 'utf8'), 'first\n');
    await rejectsWith(nfs.createFileExclusive(p, enc('second\n')), (e) => (e as NodeJS.ErrnoException).code === 'EEXIST', 'EEXIST');
    assert.equal(fs.readFileSync(p, 'utf8'), 'first\n');
    assert.deepEqual(fs.readdirSync(dir), ['PLAN-0000000a.md']);
  });

  it('createFileExclusive does not write through a dangling symlink', async () => {
    const outside = path.join(dir, 'not-there-yet.txt');
    const link = path.join(dir, 'PLAN-0000000a.md');
    fs.symlinkSync(outside, link);
    await rejectsWith(nfs.createFileExclusive(link, enc('x')), (e) => (e as NodeJS.ErrnoException).code === 'EEXIST', 'EEXIST');
    assert.equal(fs.existsSync(outside), false);
  });

  it('sweepTempFiles removes temp files of dead pids and old ones, keeps fresh ones of live pids', async () => {
    const dead = '.PLAN-0000000a.md.2147480000.deadbeef.tmp';
    const live = `.PLAN-0000000a.md.${process.pid}.cafebabe.tmp`;
    const liveOld = `.PLAN-0000000b.md.${process.pid}.0badf00d.tmp`;
    const notTemp = ['PLAN-0000000a.md', '.PLAN-0000000a.md.123.tmp', '.PLAN-0000000a.md.2147480000.DEADBEEF.tmp', 'x.2147480000.deadbeef.tmp'];
    for (const n of [dead, live, liveOld, ...notTemp]) fs.writeFileSync(path.join(dir, n), 'partial');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(path.join(dir, liveOld), old, old);
    assert.equal(await nfs.sweepTempFiles(dir), 2);
    assert.deepEqual(fs.readdirSync(dir).sort(), [live, ...notTemp].sort());
    assert.equal(await nfs.sweepTempFiles(dir), 0);
  });

  it('sweepTempFiles of a missing folder is 0', async () => {
    assert.equal(await nfs.sweepTempFiles(path.join(dir, 'nope')), 0);
  });

  it('opening a store sweeps dead temp files in .pi/plans', async () => {
    const plans = path.join(dir, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    fs.writeFileSync(path.join(plans, '.PLAN-0000000a.md.2147480000.deadbeef.tmp'), 'partial');
    const store = await openNodeStore(dir, { indexCache: false });
    assert.deepEqual(fs.readdirSync(plans), []);
    assert.deepEqual(store.list(), []);
  });

  describe('openNodeStore with .pi/plans as a symlink to another folder', () => {
    it('refuses to open, create and update; nothing is written in the target folder', async () => {
      const ws = path.join(dir, 'ws');
      const target = path.join(dir, 'elsewhere');
      fs.mkdirSync(ws);
      // A store opened while the folder was real...
      const store = await openNodeStore(ws, { indexCache: false });
      const { fm } = await store.create({ title: 'T', goal: 'g', steps: [{ text: 'a' }] }, 'agent');
      // ...then the folder is moved away and replaced by a link to it.
      fs.renameSync(path.join(ws, '.pi', 'plans'), target);
      fs.symlinkSync(target, path.join(ws, '.pi', 'plans'));
      const listing = () =>
        fs
          .readdirSync(target, { recursive: true })
          .map(String)
          .sort()
          .map((n) => [n, fs.statSync(path.join(target, n)).isFile() ? fs.readFileSync(path.join(target, n), 'utf8') : 'dir']);
      const before = listing();
      await rejectsWith(store.update(fm.id, 'user', (d, ctx) => submit(d, ctx)), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
      await rejectsWith(store.create({ title: 'T2' }, 'agent'), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
      await rejectsWith(store.read(fm.id), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
      await rejectsWith(openNodeStore(ws, { indexCache: false }), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
      assert.deepEqual(listing(), before);
      assert.deepEqual(
        before.map(([n]) => n),
        [`${fm.id}.md`, 'sessions', `sessions/${fm.id}.jsonl`],
      );
    });

    it('a symlinked plan file inside a real folder is listed invalid and never written through', async () => {
      const ws = path.join(dir, 'ws');
      const plans = path.join(ws, '.pi', 'plans');
      fs.mkdirSync(plans, { recursive: true });
      const outside = path.join(dir, 'outside.md');
      const text = '---\nid: PLAN-0000000a\ntitle: T\nstatus: proposed\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\ng\n\n## Steps\n1. [ ] S001 a\n';
      fs.writeFileSync(outside, text);
      fs.symlinkSync(outside, path.join(plans, 'PLAN-0000000a.md'));
      const store = await openNodeStore(ws, { indexCache: false });
      const [e] = store.list();
      assert.deepEqual([e.id, e.valid, e.error?.code], ['PLAN-0000000a', false, 'UNSAFE_PATH']);
      await rejectsWith(store.update('PLAN-0000000a', 'user', (d, ctx) => approve(d, seenNow(d, 1), ctx), { sign: true }), planError('UNSAFE_PATH'), 'UNSAFE_PATH');
      assert.equal(fs.readFileSync(outside, 'utf8'), text);
      assert.ok(fs.lstatSync(path.join(plans, 'PLAN-0000000a.md')).isSymbolicLink());
    });
  });

  describe('NodeLock', () => {
    it('serializes two acquirers in one process', async () => {
      const p = path.join(dir, 'PLAN-0000000a.md');
      fs.writeFileSync(p, 'x');
      const lock = new NodeLock();
      const log: string[] = [];
      const releaseA = await lock.acquire(p);
      log.push('A acquired');
      let bAcquired = false;
      const b = lock.acquire(p).then((release) => {
        bAcquired = true;
        log.push('B acquired');
        return release;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(bAcquired, false, 'B got the lock while A held it');
      log.push('A releases');
      await releaseA();
      const releaseB = await b;
      assert.deepEqual(log, ['A acquired', 'A releases', 'B acquired']);
      assert.ok(fs.existsSync(path.join(dir, '.PLAN-0000000a.md.lock')));
      await releaseB();
      assert.equal(fs.existsSync(path.join(dir, '.PLAN-0000000a.md.lock')), false);
    });

    it('a waiter that cannot get the lock in time gets VERSION_CONFLICT saying to try again', async () => {
      const p = path.join(dir, 'PLAN-0000000a.md');
      fs.writeFileSync(p, 'x');
      const release = await new NodeLock().acquire(p);
      try {
        await rejectsWith(
          new NodeLock({ retries: 2 }).acquire(p),
          (e) => isPlanError(e, 'VERSION_CONFLICT') && /try again in a moment/.test(e.message),
          'VERSION_CONFLICT',
        );
      } finally {
        await release();
      }
    });
  });
});
