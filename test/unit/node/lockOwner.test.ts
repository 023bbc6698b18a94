// Crash leftovers and planted locks (issue 26: "Crash leftovers", finding 6 and the kill -9 and
// orphan .tmp findings). On the real disk, with real processes killed by SIGKILL:
// - a lock whose owner process is gone is taken over at once (the lock records pid and host), by
//   exactly one of the writers racing for it, and its orphan temp files are removed;
// - something planted where the lock folder goes (a link, a file, a pipe) is reported with the
//   command that clears it, and `clearPlanLock` clears it without touching what a link points to,
//   but never a lock whose owner is alive.
import { strict as assert } from 'node:assert';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { isPlanError, submit } from '../../../src/core';
import { clearPlanLock, NodeLock, nodePorts, readPlanLock } from '../../../src/node';
import { PlanStore } from '../../../src/store';
import { refusal } from '../../helpers/assertions';

/** The host name as a lock record carries it. */
const HOST = os.hostname().replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 100);
const HOST_RE = HOST.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The child processes, bundled once so each starts in tens of milliseconds.
 * `hold <file>...`: takes the lock of each file (default options), leaves five temp files of its
 * own beside the first (a writer killed mid-write), prints "ready" and waits to be killed.
 * `race <file> <marker>`: prints "ready", waits for "go" on stdin, takes the lock with a staleness
 * no test reaches (only a takeover can grant a dead lock), and while holding it creates `marker`
 * exclusively (a second holder at the same time fails there); prints how many locks it took over.
 */
const WORKER = `
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeLock } from ${JSON.stringify(path.resolve(__dirname, '../../../src/node'))};
async function main() {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'hold') {
    for (const file of args) await new NodeLock().acquire(file);
    const first = args[0];
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(path.dirname(first), '.' + path.basename(first) + '.' + process.pid + '.0000000' + i + '.tmp'), 'partial');
    process.stdout.write('ready\\n');
    setInterval(() => undefined, 1 << 30);
    return;
  }
  const [file, marker] = args;
  let reclaims = 0;
  const lock = new NodeLock({ staleMs: 1e9, onReclaim: () => reclaims++ });
  process.stdout.write('ready\\n');
  await new Promise((r) => process.stdin.once('data', r));
  const release = await lock.acquire(file);
  fs.writeFileSync(marker, String(process.pid), { flag: 'wx' });
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  fs.unlinkSync(marker);
  await release();
  process.stdout.write(JSON.stringify({ reclaims }) + '\\n');
  process.exit(0);
}
main().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;

let workerJs: string;
let workerDir: string;
before(async function () {
  this.timeout(60_000);
  workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-lockworker-'));
  workerJs = path.join(workerDir, 'worker.js');
  await esbuild.build({ stdin: { contents: WORKER, loader: 'ts', resolveDir: __dirname }, outfile: workerJs, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent' });
});
after(() => fs.rmSync(workerDir, { recursive: true, force: true }));

interface Child {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function start(args: string[]): Child {
  const proc = spawn(process.execPath, [workerJs, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  void exited.then((code) => {
    if (code) process.stderr.write(`worker ${args[0]} exited ${code}: ${err}\n`);
  });
  return { proc, out: () => out, exited };
}

function ready(c: Child): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (c.out().includes('ready')) {
        c.proc.stdout!.off('data', check);
        resolve();
      }
    };
    c.proc.stdout!.on('data', check);
    check();
    void c.exited.then((code) => reject(new Error(`worker exited before it was ready (${code})`)));
  });
}

/** A child that holds the locks of `files` and is then killed with SIGKILL: dead locks, left as a crash leaves them. */
async function killedHolder(files: string[]): Promise<number> {
  const c = start(['hold', ...files]);
  await ready(c);
  c.proc.kill('SIGKILL');
  await c.exited;
  return c.proc.pid!;
}

const PLAN = (id: string) =>
  `---\nid: ${id}\ntitle: "Locked"\nstatus: draft\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 one\n`;

describe('plan locks: owners, takeover of dead ones, planted ones (real disk, real processes)', function () {
  this.timeout(60_000);
  let tmp: string;
  let root: string;
  let plans: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-lockown-'));
    root = path.join(tmp, 'ws');
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const planFile = (id: string) => {
    const p = path.join(plans, `${id}.md`);
    if (!fs.existsSync(p)) fs.writeFileSync(p, PLAN(id));
    return p;
  };
  const lockOf = (id: string) => path.join(plans, `.${id}.md.lock`);

  describe('the owner record', () => {
    it('a held lock names its owner: this process, on this host; nothing once released', async () => {
      const file = planFile('PLAN-00000001');
      const release = await new NodeLock().acquire(file);
      const state = await readPlanLock(file);
      assert.equal(state?.kind, 'directory');
      assert.equal(state?.owners.length, 1);
      assert.deepEqual([state?.owners[0].pid, state?.owners[0].host, state?.owners[0].alive], [process.pid, HOST, true]);
      await release();
      assert.equal(await readPlanLock(file), undefined);
      assert.equal(fs.existsSync(lockOf('PLAN-00000001')), false);
    });

    it('a writer that gives up names who holds the lock', async () => {
      const file = planFile('PLAN-00000001');
      const release = await new NodeLock().acquire(file);
      try {
        const e = await refusal(new NodeLock({ retries: 2 }).acquire(file));
        assert.ok(isPlanError(e, 'VERSION_CONFLICT'), String(e));
        assert.match(e.message, new RegExp(`pid ${process.pid} on ${HOST_RE}\\).*try again in a moment`));
      } finally {
        await release();
      }
    });
  });

  describe('kill -9 of the writer holding the lock', () => {
    for (const blocking of [true, false])
      it(`the next writer takes the lock over at once (a staleness never reached, no retries), and the dead writer's temp files are gone (${blocking ? 'synchronous calls' : 'no synchronous call'})`, async () => {
        const file = planFile('PLAN-00000001');
        const other = planFile('PLAN-00000002');
        const dead = await killedHolder([file]);
        // Orphans of another plan, and a temp file of a live writer, are not this writer's business.
        const otherOrphan = `.PLAN-00000002.md.${dead}.0badf00d.tmp`;
        const live = `.PLAN-00000001.md.${process.pid}.cafebabe.tmp`;
        fs.writeFileSync(path.join(plans, otherOrphan), 'partial');
        fs.writeFileSync(path.join(plans, live), 'in progress');
        const before = await readPlanLock(file);
        assert.deepEqual(
          before?.owners.map((o) => [o.pid, o.alive]),
          [[dead, false]],
        );
        const reclaimed: { reason: string; pids: number[] }[] = [];
        const lock = new NodeLock({ blocking, staleMs: 1e9, retries: 0, onReclaim: (r) => reclaimed.push({ reason: r.reason, pids: r.owners.map((o) => o.pid) }) });
        const release = await lock.acquire(file);
        try {
          assert.deepEqual(reclaimed, [{ reason: 'dead', pids: [dead] }]);
          assert.deepEqual((await readPlanLock(file))?.owners.map((o) => o.pid), [process.pid]);
          const left = fs.readdirSync(plans).filter((n) => n.endsWith('.tmp')).sort();
          assert.deepEqual(left, [live, otherOrphan].sort());
        } finally {
          await release();
        }
        assert.ok(fs.existsSync(other));
      });

    it('through the store: an update after the kill goes through on a takeover', async () => {
      const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false }), lock: new NodeLock({ staleMs: 1e9, retries: 0 }) });
      const { fm } = await store.create({ title: 'T', goal: 'g', steps: [{ text: 'a' }] }, 'agent');
      await killedHolder([store.pathOf(fm.id)]);
      const { doc } = await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      assert.equal(doc.fm.status, 'proposed');
      assert.deepEqual(
        fs.readdirSync(plans).filter((n) => n.startsWith('.')),
        [],
        'no lock and no temp file left',
      );
    });

    it('8 writers in this process race for each of 12 dead locks: one takes each over, and never two hold one at a time', async () => {
      const files = Array.from({ length: 12 }, (_, i) => planFile(`PLAN-0000010${i.toString(16)}`));
      await killedHolder(files);
      for (const file of files) {
        let holders = 0;
        let most = 0;
        let granted = 0;
        let reclaims = 0;
        await Promise.all(
          Array.from({ length: 8 }, async (_, w) => {
            const release = await new NodeLock({ blocking: w % 2 === 0, staleMs: 1e9, onReclaim: () => reclaims++ }).acquire(file);
            holders++;
            most = Math.max(most, holders);
            for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
            holders--;
            granted++;
            await release();
          }),
        );
        assert.deepEqual({ most, granted, reclaims }, { most: 1, granted: 8, reclaims: 1 }, path.basename(file));
        assert.equal(fs.existsSync(path.join(plans, `.${path.basename(file)}.lock`)), false);
      }
    });

    it('4 processes race for each of 3 dead locks: one takes each over, and never two hold one at a time', async function () {
      this.timeout(120_000);
      const files = Array.from({ length: 3 }, (_, i) => planFile(`PLAN-0000020${i}`));
      await killedHolder(files);
      for (const file of files) {
        const marker = path.join(tmp, `holder-${path.basename(file)}`);
        const racers = Array.from({ length: 4 }, () => start(['race', file, marker]));
        await Promise.all(racers.map(ready));
        for (const r of racers) r.proc.stdin!.write('go\n');
        const codes = await Promise.all(racers.map((r) => r.exited));
        // A second holder at the same time fails to create the marker and exits 1.
        assert.deepEqual(codes, [0, 0, 0, 0], path.basename(file));
        const reclaims = racers.map((r) => (JSON.parse(r.out().trim().split('\n').at(-1)!) as { reclaims: number }).reclaims);
        assert.equal(
          reclaims.reduce((a, b) => a + b, 0),
          1,
          `exactly one takeover of ${path.basename(file)}: ${reclaims.join(',')}`,
        );
      }
    });
  });

  describe('owners that are not gone, and locks without a live owner record', () => {
    const ID = 'PLAN-0000000c';
    /** A record as another writer leaves it: `owner.<pid>.<machine>.<nonce>.<host>`. */
    const plant = (records: string[], ageMs = 0) => {
      fs.mkdirSync(lockOf(ID));
      for (const r of records) fs.writeFileSync(path.join(lockOf(ID), r), '');
      const t = new Date(Date.now() - ageMs);
      fs.utimesSync(lockOf(ID), t, t);
    };
    /** The machine part of this machine's records, from a real one. */
    const thisMachine = async (file: string) => {
      const release = await new NodeLock().acquire(file);
      const [name] = fs.readdirSync(lockOf(ID));
      await release();
      return name.split('.')[2];
    };
    const HOUR = 60 * 60 * 1000;

    it('a live holder in another process is never taken, however long the wait; once it is killed, it is', async () => {
      const file = planFile(ID);
      const c = start(['hold', file]);
      await ready(c);
      try {
        let reclaims = 0;
        const e = await refusal(new NodeLock({ staleMs: 1e9, retries: 3, onReclaim: () => reclaims++ }).acquire(file));
        assert.ok(isPlanError(e, 'VERSION_CONFLICT'), String(e));
        assert.match(e.message, new RegExp(`pid ${c.proc.pid} on ${HOST_RE}\\)`));
        assert.equal(reclaims, 0);
        assert.deepEqual((await readPlanLock(file))?.owners.map((o) => [o.pid, o.alive]), [[c.proc.pid, true]]);
      } finally {
        c.proc.kill('SIGKILL');
        await c.exited;
      }
      await (await new NodeLock({ staleMs: 1e9, retries: 0 }).acquire(file))();
    });

    it("another machine's lock waits for the stale time (its process cannot be asked), then is taken", async () => {
      const file = planFile(ID);
      const far = 'owner.4242.0123456789ab.00112233445566ff.far-away-host';
      plant([far]);
      const e = await refusal(new NodeLock({ retries: 0 }).acquire(file));
      assert.match(e.message, /pid 4242 on far-away-host\)/);
      assert.deepEqual((await readPlanLock(file))?.owners.map((o) => [o.pid, o.host, o.sameMachine, o.alive]), [[4242, 'far-away-host', false, undefined]]);
      fs.rmSync(lockOf(ID), { recursive: true });
      plant([far], HOUR);
      const reclaimed: string[] = [];
      await (await new NodeLock({ retries: 0, onReclaim: (r) => reclaimed.push(r.reason) }).acquire(file))();
      assert.deepEqual(reclaimed, ['stale']);
    });

    it('a lock without a record (an older Pi Plans, or a crash before the record) waits for the stale time, then is taken', async () => {
      const file = planFile(ID);
      plant([]);
      const e = await refusal(new NodeLock({ retries: 0 }).acquire(file));
      assert.ok(isPlanError(e, 'VERSION_CONFLICT'));
      assert.match(e.message, new RegExp(`clear the lock with \`pi-plans unlock ${ID}\``));
      fs.rmdirSync(lockOf(ID));
      // Also what a writer killed between claiming a dead record and removing the folder leaves.
      plant(['claim.0011223344556677.0'], HOUR);
      const reclaimed: string[] = [];
      await (await new NodeLock({ retries: 0, onReclaim: (r) => reclaimed.push(r.reason) }).acquire(file))();
      assert.deepEqual(reclaimed, ['stale']);
      assert.equal(fs.existsSync(lockOf(ID)), false);
    });

    it('a record of this machine with our own pid that is not ours (a process before us had the pid) is dead', async () => {
      const file = planFile(ID);
      plant([`owner.${process.pid}.${await thisMachine(file)}.00112233445566ff.${HOST}`]);
      const reclaimed: string[] = [];
      await (await new NodeLock({ staleMs: 1e9, retries: 0, onReclaim: (r) => reclaimed.push(r.reason) }).acquire(file))();
      assert.deepEqual(reclaimed, ['dead']);
    });
  });

  describe('something planted where the lock goes', () => {
    const ID = 'PLAN-0000000a';

    it('a link to a folder: every write is refused naming the link and the command that clears it; clearPlanLock removes the link, not its target', async () => {
      const store = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
      fs.writeFileSync(path.join(plans, `${ID}.md`), PLAN(ID));
      await store.rescan();
      const target = path.join(tmp, 'target');
      fs.mkdirSync(target);
      fs.writeFileSync(path.join(target, 'keep.txt'), 'keep\n');
      fs.symlinkSync(target, lockOf(ID));
      const e = await refusal(store.update(ID, 'agent', (d, ctx) => submit(d, ctx)));
      assert.ok(isPlanError(e, 'UNSAFE_PATH'), String(e));
      assert.match(e.message, new RegExp(`^\\.pi/plans/\\.${ID}\\.md\\.lock is a symbolic link, not a lock folder: Pi Plans never writes through links; remove it with \`pi-plans unlock ${ID}\` \\(or Pi Plans: Clear Plan Lock in VS Code\\)`));
      assert.equal(e.details.file, `.pi/plans/.${ID}.md.lock`);
      assert.deepEqual(fs.readdirSync(target), ['keep.txt']);
      const cleared = await clearPlanLock(path.join(plans, `${ID}.md`));
      assert.deepEqual(cleared, { removed: lockOf(ID), kind: 'symlink', owners: [] });
      assert.equal(fs.existsSync(lockOf(ID)), false);
      assert.deepEqual(fs.readdirSync(target), ['keep.txt']);
      assert.equal(fs.readFileSync(path.join(target, 'keep.txt'), 'utf8'), 'keep\n');
      await store.update(ID, 'agent', (d, ctx) => submit(d, ctx));
    });

    it('a link to a file, and a dangling link: refused the same way, cleared, the target file unchanged', async () => {
      const file = planFile(ID);
      const targetFile = path.join(tmp, 'secret.txt');
      fs.writeFileSync(targetFile, 'secret\n');
      for (const to of [targetFile, path.join(tmp, 'nowhere')]) {
        fs.symlinkSync(to, lockOf(ID));
        for (const blocking of [true, false]) {
          const e = await refusal(new NodeLock({ blocking }).acquire(file));
          assert.ok(isPlanError(e, 'UNSAFE_PATH'), String(e));
          assert.match(e.message, /is a symbolic link, not a lock folder/);
        }
        assert.equal((await clearPlanLock(file))?.kind, 'symlink');
        assert.equal(fs.readFileSync(targetFile, 'utf8'), 'secret\n');
        assert.equal(fs.existsSync(path.join(tmp, 'nowhere')), false);
      }
      await (await new NodeLock().acquire(file))();
    });

    it('a regular file and a named pipe: refused as not a lock folder, with the command that clears it', async () => {
      const file = planFile(ID);
      for (const [make, what, kind] of [
        [() => fs.writeFileSync(lockOf(ID), 'junk'), 'a file', 'file'],
        [() => execFileSync('mkfifo', [lockOf(ID)]), 'a named pipe', 'fifo'],
      ] as const) {
        make();
        const e = await refusal(new NodeLock().acquire(file));
        assert.ok(isPlanError(e, 'LOCKED'), String(e));
        assert.match(e.message, new RegExp(`^\\.pi/plans/\\.${ID}\\.md\\.lock is ${what}, not a lock folder.*remove it with \`pi-plans unlock ${ID}\``));
        assert.equal((await clearPlanLock(file))?.kind, kind);
        assert.equal(fs.existsSync(lockOf(ID)), false);
      }
    });
  });

  describe('clearPlanLock', () => {
    const ID = 'PLAN-0000000b';

    it('refuses a lock whose owner is alive, naming its pid and host; the lock stays held', async () => {
      const file = planFile(ID);
      const release = await new NodeLock().acquire(file);
      try {
        const e = await refusal(clearPlanLock(file));
        assert.ok(isPlanError(e, 'LOCKED'), String(e));
        assert.match(e.message, new RegExp(`pid ${process.pid} on ${HOST_RE}, which is running`));
        assert.equal((await readPlanLock(file))?.owners[0].pid, process.pid);
      } finally {
        await release();
      }
      assert.equal(await clearPlanLock(file), undefined, 'nothing to clear once released');
    });

    it("removes a dead owner's lock and says whose it was", async () => {
      const file = planFile(ID);
      const dead = await killedHolder([file]);
      const cleared = await clearPlanLock(file);
      assert.equal(cleared?.kind, 'directory');
      assert.deepEqual(
        cleared?.owners.map((o) => [o.pid, o.host, o.alive]),
        [[dead, HOST, false]],
      );
      assert.equal(fs.existsSync(lockOf(ID)), false);
    });

    it('a lock folder without an owner: refused while fresh, removed once older than the stale time', async () => {
      const file = planFile(ID);
      fs.mkdirSync(lockOf(ID));
      const e = await refusal(clearPlanLock(file));
      assert.ok(isPlanError(e, 'LOCKED'), String(e));
      const old = new Date(Date.now() - 60 * 60 * 1000);
      fs.utimesSync(lockOf(ID), old, old);
      assert.deepEqual(await clearPlanLock(file), { removed: lockOf(ID), kind: 'directory', owners: [] });
      assert.equal(fs.existsSync(lockOf(ID)), false);
    });

    it('never deletes through a linked plans folder', async () => {
      const elsewhere = path.join(tmp, 'elsewhere');
      fs.mkdirSync(elsewhere);
      fs.symlinkSync(path.join(tmp, 'secret'), path.join(elsewhere, `.${ID}.md.lock`));
      fs.rmSync(plans, { recursive: true });
      fs.symlinkSync(elsewhere, plans);
      const e = await refusal(clearPlanLock(path.join(plans, `${ID}.md`)));
      assert.ok(isPlanError(e, 'UNSAFE_PATH'), String(e));
      assert.ok(fs.lstatSync(path.join(elsewhere, `.${ID}.md.lock`)).isSymbolicLink());
    });
  });
});
