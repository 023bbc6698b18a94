import { seenNow } from '../../helpers/approvals';
// Only regular files are ever read: a FIFO, a socket, a device or a folder named like a plan is
// listed as invalid with what it is, and never opened in a way that can block. On the real disk,
// through the store and through the real `pi-plans` process (dist/cli.js, built by `npm run build`).
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, isPlanError } from '../../../src/core';
import { nodePorts } from '../../../src/node';
import { PlanStore } from '../../../src/store';

const CLI = path.resolve(__dirname, '../../../dist/cli.js');
const PLAN = (id: string) =>
  `---\nid: ${id}\ntitle: "A real plan"\nstatus: draft\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 one\n`;

const KINDS: [id: string, what: string][] = [
  ['PLAN-f1f0f1f0', 'a named pipe'],
  ['PLAN-50c50c50', 'a socket'],
  ['PLAN-c0c0c0c0', 'a character device'],
  ['PLAN-d1d1d1d1', 'a folder'],
];

describe('only regular files are read (real disk)', function () {
  this.timeout(60_000);
  let root: string;
  let plans: string;
  let cache: string;
  let server: net.Server;

  before(async () => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run npm run build first`);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-special-'));
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-special-cache-'));
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    fs.writeFileSync(path.join(plans, 'PLAN-00000001.md'), PLAN('PLAN-00000001'));
    execFileSync('mkfifo', [path.join(plans, 'PLAN-f1f0f1f0.md')]);
    execFileSync('mknod', [path.join(plans, 'PLAN-c0c0c0c0.md'), 'c', '1', '3']);
    fs.mkdirSync(path.join(plans, 'PLAN-d1d1d1d1.md'));
    server = net.createServer();
    await new Promise<void>((r) => server.listen(path.join(plans, 'PLAN-50c50c50.md'), r));
  });
  after(() => {
    server?.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  });

  for (const blocking of [true, false])
  it(`the store lists each as invalid with what it is, and read refuses it with the same words (${blocking ? 'synchronous reads' : 'no synchronous call'})`, async () => {
    const store = await PlanStore.open(root, nodePorts(root, { indexCache: false, blocking }));
    assert.equal(store.entry('PLAN-00000001')?.valid, true);
    for (const [id, what] of KINDS) {
      const e = store.entry(id);
      assert.ok(e, id);
      assert.equal(e.valid, false);
      assert.equal(e.error?.code, 'NOT_A_FILE');
      assert.match(e.error!.message, new RegExp(`is ${what}, not a file.*remove it or replace it with a plan file`));
      const err = await store.read(id).then(
        () => undefined,
        (x: unknown) => x,
      );
      assert.ok(isPlanError(err, 'NOT_A_FILE'), `${id}: ${String(err)}`);
      assert.match((err as Error).message, new RegExp(`is ${what}, not a file`));
      assert.ok(!(err as { details: { file?: string } }).details.file?.startsWith('/'), 'the file is named relative to the workspace');
    }
  });

  for (const blocking of [true, false])
    it(`read, update and analyze never open a named pipe: a writer waiting on it stays waiting (${blocking ? 'synchronous reads' : 'no synchronous call'})`, async () => {
      // A pipe of its own, with a writer blocked until a reader opens it. Opening the pipe, even
      // without blocking and without reading, would let the writer go on and lose what it wrote.
      const id = blocking ? 'PLAN-f1f0f1f1' : 'PLAN-f1f0f1f2';
      const fifo = path.join(plans, `${id}.md`);
      execFileSync('mkfifo', [fifo]);
      const writer = spawn('sh', ['-c', 'printf waiting > "$0"', fifo], { stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => writer.on('exit', (code) => r(code)));
      try {
        const store = await PlanStore.openForPlans(root, nodePorts(root, { indexCache: false, blocking }));
        await assert.rejects(store.read(id), (e: unknown) => isPlanError(e, 'NOT_A_FILE'));
        await assert.rejects(store.update(id, 'user', (d, c) => approve(d, seenNow(d, 1), c), { sign: true }), (e: unknown) => isPlanError(e, 'NOT_A_FILE'));
        const { problems } = await store.analyze(id);
        assert.deepEqual(problems.map((p) => p.code), ['not-a-file']);
        assert.match(problems[0].message, /is a named pipe, not a file/);
        assert.equal(writer.exitCode, null, 'the writer still waits');
        // Now a reader: the writer goes on, and what it wrote arrives whole. (Were the writer gone,
        // the reader would wait for another: `timeout` ends it, and the test fails, not hangs.)
        const got = execFileSync('timeout', ['20', 'cat', fifo], { encoding: 'utf8' });
        assert.equal(got, 'waiting');
        assert.equal(await exited, 0);
      } finally {
        writer.kill();
        fs.rmSync(fifo, { force: true });
      }
    });

  it('the real pi-plans process validates and lists them promptly (exit 1 / 0), naming each file and what it is', () => {
    const env = { ...process.env, PI_PLANS_CACHE_DIR: cache };
    const v = spawnSync(process.execPath, [CLI, '--root', root, 'validate'], { encoding: 'utf8', timeout: 15_000, env });
    assert.equal(v.signal, null, 'it did not hang');
    assert.equal(v.status, 1, v.stderr);
    for (const [id, what] of KINDS) assert.match(v.stdout, new RegExp(`\\.pi/plans/${id}\\.md: ${id}\\.md is ${what}, not a file`));
    assert.match(v.stdout, /5 plan files checked, 4 problems\./);
    const l = spawnSync(process.execPath, [CLI, '--root', root, 'list'], { encoding: 'utf8', timeout: 15_000, env });
    assert.equal(l.status, 0, l.stderr);
    for (const [id] of KINDS) assert.match(l.stdout, new RegExp(`${id}  INVALID`));
  });

  it('a pi-plans process stays responsive to SIGTERM while the folder holds a FIFO', async () => {
    // `show` of the FIFO plan refuses at once; a long-running list is what a signal must still stop.
    const child = spawn(process.execPath, [CLI, '--root', root, 'show', 'PLAN-f1f0f1f0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PI_PLANS_CACHE_DIR: cache } });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    const timer = setTimeout(() => child.kill('SIGTERM'), 10_000);
    const { code, signal } = await ended;
    clearTimeout(timer);
    assert.equal(signal, null, 'it ended by itself, long before the SIGTERM');
    assert.equal(code, 1);
    assert.match(err, /PLAN-f1f0f1f0\.md is a named pipe, not a file/);
  });

  it('a .pi or .pi/plans that is not a folder is an error that says so (exit 1), never "No plans"', () => {
    for (const [made, shown] of [
      [['.pi/plans'], '.pi/plans is a file, not a folder'],
      [['.pi'], '.pi is a file, not a folder'],
    ] as const) {
      const r = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-notdir-'));
      if (made[0] === '.pi/plans') fs.mkdirSync(path.join(r, '.pi'));
      fs.writeFileSync(path.join(r, made[0]), 'not a folder');
      for (const cmd of ['list', 'validate']) {
        const x = spawnSync(process.execPath, [CLI, '--root', r, cmd], { encoding: 'utf8', timeout: 15_000, env: { ...process.env, PI_PLANS_CACHE_DIR: cache } });
        assert.equal(x.status, 1, `${cmd}: ${x.stdout}${x.stderr}`);
        assert.ok(x.stderr.includes(shown), x.stderr);
        assert.doesNotMatch(x.stdout, /No plans/);
      }
      fs.rmSync(r, { recursive: true, force: true });
    }
  });

  it('a --root that does not exist or is not a folder: exit 2, the path named, nothing written', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-rootcache-'));
    const file = path.join(root, 'not-a-folder.txt');
    fs.writeFileSync(file, 'x');
    for (const [arg, words] of [
      ['/nonexistent/pi-plans-root', 'does not exist'],
      [file, 'is not a folder'],
    ]) {
      for (const cmd of ['list', 'validate', 'approve PLAN-00000001']) {
        const x = spawnSync(process.execPath, [CLI, '--root', arg, ...cmd.split(' ')], { encoding: 'utf8', timeout: 15_000, env: { ...process.env, PI_PLANS_CACHE_DIR: empty } });
        assert.equal(x.status, 2, `${cmd}: ${x.stderr}`);
        assert.ok(x.stderr.includes(`--root ${arg} ${words}`), x.stderr);
      }
    }
    assert.deepEqual(fs.readdirSync(empty), [], 'no index cache was written for a wrong root');
    fs.rmSync(empty, { recursive: true, force: true });
  });
});

describe('a cold index reads each file once, and never a file over the cap (real disk)', function () {
  this.timeout(60_000);
  let root: string;
  let plans: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-onescan-'));
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    fs.writeFileSync(path.join(plans, 'PLAN-00000001.md'), PLAN('PLAN-00000001'));
    fs.writeFileSync(path.join(root, 'elsewhere.md'), PLAN('PLAN-0000000a'));
    fs.symlinkSync(path.join(root, 'elsewhere.md'), path.join(plans, 'PLAN-0000000a.md'));
    fs.symlinkSync(path.join(root, 'missing.md'), path.join(plans, 'PLAN-0000000b.md'));
    // Sparse, 3 GB: a read of it would fail (over Node's 2 GB buffer limit) or take seconds.
    const fd = fs.openSync(path.join(plans, 'PLAN-0000000c.md'), 'w');
    fs.ftruncateSync(fd, 3 * 2 ** 30);
    fs.closeSync(fd);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  for (const blocking of [true, false])
    it(`links are refused with their own stat, a huge file by its size alone, on the first scan and on a re-scan (${blocking ? 'synchronous reads' : 'no synchronous call'})`, async () => {
      const store = await PlanStore.open(root, nodePorts(root, { indexCache: false, blocking }));
      const check = () => {
        assert.equal(store.entry('PLAN-00000001')?.valid, true);
        assert.equal(store.entry('PLAN-00000001')?.steps, 1);
        for (const id of ['PLAN-0000000a', 'PLAN-0000000b']) {
          assert.equal(store.entry(id)?.valid, false, id);
          assert.equal(store.entry(id)?.error?.code, 'UNSAFE_PATH', id);
          assert.equal(store.entry(id)?.size, fs.lstatSync(path.join(plans, `${id}.md`)).size, `${id}: the link's own size`);
        }
        const big = store.entry('PLAN-0000000c');
        assert.equal(big?.error?.code, 'TOO_LARGE');
        assert.match(big!.error!.message, new RegExp(`${3 * 2 ** 30} bytes, over the \\d+-byte limit`));
        assert.equal(big?.size, 3 * 2 ** 30);
      };
      check();
      // Changed since the scan: the known-file path (stat first) must not read it either.
      fs.utimesSync(path.join(plans, 'PLAN-0000000c.md'), new Date(), new Date(Date.now() + 5000));
      const ev = await store.rescan();
      assert.deepEqual(ev.changed, [], 'the same entry, size and time aside');
      check();
    });

  for (const blocking of [true, false])
    it(`read and update: a link, a dangling link and a huge file are refused, nothing written (${blocking ? 'synchronous reads' : 'no synchronous call'})`, async () => {
      const store = await PlanStore.open(root, nodePorts(root, { indexCache: false, blocking }));
      assert.equal((await store.read('PLAN-00000001')).steps.length, 1);
      const before = new Map(['PLAN-0000000a', 'PLAN-0000000b', 'PLAN-0000000c'].map((id) => [id, fs.lstatSync(path.join(plans, `${id}.md`)).mtimeMs]));
      const refused = async (p: Promise<unknown>) => {
        try {
          await p;
        } catch (e) {
          assert.ok(isPlanError(e), String(e));
          return (e as { code: string; message: string });
        }
        assert.fail('not refused');
      };
      for (const id of ['PLAN-0000000a', 'PLAN-0000000b']) {
        assert.equal((await refused(store.read(id))).code, 'UNSAFE_PATH', id);
        assert.equal((await refused(store.update(id, 'user', (d, c) => approve(d, seenNow(d, 1), c), { sign: true }))).code, 'UNSAFE_PATH', id);
      }
      const big = await refused(store.read('PLAN-0000000c'));
      assert.equal(big.code, 'TOO_LARGE');
      assert.match(big.message, new RegExp(`${3 * 2 ** 30} bytes, over the \\d+-byte limit`));
      assert.equal((await refused(store.update('PLAN-0000000c', 'user', (d, c) => approve(d, seenNow(d, 1), c), { sign: true }))).code, 'TOO_LARGE');
      for (const [id, mtime] of before) assert.equal(fs.lstatSync(path.join(plans, `${id}.md`)).mtimeMs, mtime, `${id} untouched`);
      assert.equal(fs.readFileSync(path.join(root, 'elsewhere.md'), 'utf8'), PLAN('PLAN-0000000a'));
      assert.equal(fs.existsSync(path.join(root, 'missing.md')), false, 'nothing written through the dangling link');
      await refused(store.read('PLAN-0000000d')).then((e) => assert.equal(e.code, 'NOT_FOUND'));
    });
});
