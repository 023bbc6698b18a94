import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { parsePlan, startExecution, approve, submit } from '../../../src/core';
import { openNodeStore } from '../../../src/node';

const WORKERS = path.resolve(__dirname, '../../fixtures/workers');
const SCRIPTS = ['updater.ts', 'atomicWriter.ts', 'storeWriter.ts'];
let bundled: string;

/** Workers are bundled once (esbuild) so each process starts in tens of milliseconds. */
before(async function () {
  this.timeout(60_000);
  bundled = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-workers-'));
  await esbuild.build({
    entryPoints: SCRIPTS.map((s) => path.join(WORKERS, s)),
    outdir: bundled,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
  });
});
after(() => fs.rmSync(bundled, { recursive: true, force: true }));

function runNode(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [path.join(bundled, script.replace(/\.ts$/, '.js')), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

function waitReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      if (d.toString().includes('ready')) {
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('several OS processes and crashes (real disk)', function () {
  this.timeout(240_000);
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-proc-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('6 processes x 40 checked read-modify-writes: every update is applied or reported as a conflict, none lost', async () => {
    const store = await openNodeStore(root, { indexCache: false });
    const doc = await store.create({ title: 'Contended', goal: 'x' }, 'agent');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, w) => collect(runNode('updater.ts', [root, doc.fm.id, '40', 'checked', `w${w}`]))),
    );
    let ok = 0;
    let conflicts = 0;
    for (const r of results) {
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out) as { ok: number; conflicts: number };
      ok += j.ok;
      conflicts += j.conflicts;
    }
    assert.equal(ok + conflicts, 240);
    assert.ok(ok > 0);
    const final = parsePlan(fs.readFileSync(path.join(root, '.pi/plans', `${doc.fm.id}.md`), 'utf8'));
    assert.equal(final.fm.version, 1 + ok, 'final version = 1 + successful updates');
    assert.equal(final.steps.length, ok, 'one step per successful update');
    assert.equal(new Set(final.steps.map((s) => s.id)).size, ok, 'step ids unique');
  });

  it('6 processes x 25 blind updates under the lock: all 150 applied', async () => {
    const store = await openNodeStore(root, { indexCache: false });
    const doc = await store.create({ title: 'Blind', goal: 'x' }, 'agent');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, w) => collect(runNode('updater.ts', [root, doc.fm.id, '25', 'blind', `w${w}`]))),
    );
    for (const r of results) assert.equal(r.code, 0, r.err);
    const final = parsePlan(fs.readFileSync(path.join(root, '.pi/plans', `${doc.fm.id}.md`), 'utf8'));
    assert.equal(final.fm.version, 151);
    const texts = new Set(final.steps.map((s) => s.text));
    for (let w = 0; w < 6; w++) for (let i = 0; i < 25; i++) assert.ok(texts.has(`w${w}-${i}`), `w${w}-${i} lost`);
  });

  it('120 SIGKILLs during atomic writes of a 2 MB file: always exactly the old or the new bytes; temp files swept', async () => {
    const dir = path.join(root, '.pi/plans');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'PLAN-0000aaaa.md');
    const a = Buffer.alloc(2 * 1024 * 1024, 'a');
    const b = Buffer.alloc(2 * 1024 * 1024 + 17, 'b');
    fs.writeFileSync(path.join(root, 'a'), a);
    fs.writeFileSync(path.join(root, 'b'), b);
    fs.writeFileSync(file, a);
    // One long-lived writer would be killed once; restart a writer per kill.
    let kills = 0;
    for (let round = 0; round < 120; round++) {
      const child = runNode('atomicWriter.ts', [file, path.join(root, 'a'), path.join(root, 'b')]);
      const done = collect(child);
      await waitReady(child);
      await sleep(5 + Math.floor(Math.random() * 40));
      child.kill('SIGKILL');
      await done;
      kills++;
      const now = fs.readFileSync(file);
      assert.ok(now.equals(a) || now.equals(b), `round ${round}: torn file (${now.length} bytes)`);
    }
    assert.equal(kills, 120);
    // Temp files of dead writers are swept when a store opens the folder.
    await openNodeStore(root, { indexCache: false });
    const leftovers = fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));
    assert.deepEqual(leftovers, []);
  });

  it('SIGKILLs during locked store updates: the plan always parses, and the next writer takes over the stale lock', async () => {
    const store = await openNodeStore(root, { indexCache: false });
    let doc = await store.create({ title: 'Crashy', goal: 'x', steps: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] }, 'agent');
    const id = doc.fm.id;
    await store.update(id, 'agent', (d, c) => submit(d, c));
    await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    const file = path.join(root, '.pi/plans', `${id}.md`);
    let lastVersion = parsePlan(fs.readFileSync(file, 'utf8')).fm.version;
    for (let round = 0; round < 6; round++) {
      const child = runNode('storeWriter.ts', [root, id]);
      const done = collect(child);
      await waitReady(child);
      await sleep(50 + Math.floor(Math.random() * 150));
      child.kill('SIGKILL');
      await done;
      doc = parsePlan(fs.readFileSync(file, 'utf8'));
      assert.ok(doc.fm.version >= lastVersion, 'version never goes back');
      assert.equal(doc.fm.status, 'executing');
      lastVersion = doc.fm.version;
    }
    // A writer after the crashes still gets through (stale lock taken over).
    const res = await store.update(id, 'agent', (d, c) => startExecution(d, c)).catch((e) => e);
    assert.equal(res.code, 'INVALID_TRANSITION', 'the update ran (and was refused on its merits, not by a dead lock)');
  });
});
