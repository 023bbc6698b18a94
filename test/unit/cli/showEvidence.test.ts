// `pi-plans show --evidence` in a real repository: each step's change, every file from git, the flags.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { changedLine, withAlongside } from '../../../src/core';
import { GitEvidence } from '../../../src/node';

describe('pi-plans show --evidence (real repository)', function () {
  this.timeout(20_000);
  let root: string;
  let cache: string;
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.PI_PLANS_CACHE_DIR;
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cli-cache-'));
    process.env.PI_PLANS_CACHE_DIR = cache;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-show-evidence-'));
    spawnSync('git', ['init', '-q'], { cwd: root });
  });
  afterEach(() => {
    process.exitCode = 0;
    if (saved === undefined) delete process.env.PI_PLANS_CACHE_DIR;
    else process.env.PI_PLANS_CACHE_DIR = saved;
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('lists every changed file of a step from its trees, beyond the line summary; flags the step with no evidence', async () => {
    const g = await GitEvidence.open(root);
    const before = await g.snapshot();
    for (let i = 0; i < 9; i++) fs.writeFileSync(path.join(root, `f${i}.ts`), `export const v = ${i};\n`);
    const after = await g.snapshot();
    const line = changedLine({ recorded: true, files: await g.diff(before, after), before, after });
    assert.match(line, / and 3 more files · 9 files \+9 −0 /);
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    const id = 'PLAN-0e0e0e0e';
    const text = ['---', `id: ${id}`, 'title: Evidence', 'status: completed', 'version: 5', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-02T00:00:00.000Z', '---', '', '## Goal', 'G', '', '## Steps', '1. [x] S001 Write nine files', `   > Changed: ${withAlongside(line, ['S002'])}`, '2. [x] S002 Nothing', `   > Changed: nothing · tree ${after.slice(0, 10)}..${after.slice(0, 10)}`, '3. [x] S003 Docs only', '   > Changed: not recorded (not a git repository)', '   > Note: the docs live elsewhere', ''].join('\n');
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${id}.md`), text);
    let out = '';
    const code = await runCli(['show', id, '--evidence', '--root', root], { out: (s) => (out += s), err: (s) => (out += s) });
    assert.equal(code, 0, out);
    for (let i = 0; i < 9; i++) assert.ok(out.includes(`    added    f${i}.ts +1 −0`), `f${i}.ts in\n${out}`);
    assert.match(out, /f8\.ts \+1 −0\n {4}another session worked on S002 while the step ran: some of these files may be that step's\n/);
    assert.match(out, /S002 \[done\] nothing changed \(tree [0-9a-f]{10}\): no evidence/);
    assert.match(out, /S003 \[done\] not recorded \(not a git repository\): no evidence\n {4}note: the docs live elsewhere/);
    assert.match(out, /summary: 9 file changes \+9 −0 over 2 recorded steps; 2 with no evidence, 0 explained/);
    let json = '';
    await runCli(['show', id, '--evidence', '--json', '--root', root], { out: (s) => (json += s), err: () => undefined });
    const ev = JSON.parse(json).evidence;
    assert.equal(ev.steps[0].files.length, 9);
    assert.equal(ev.steps[1].flag, 'no evidence');
  });
  it('a line written by hand over the recorded snapshots ("nothing", its trees not the pinned ones) reads as not recorded', async () => {
    const g = await GitEvidence.open(root);
    const before = await g.snapshot();
    fs.writeFileSync(path.join(root, 'work.ts'), 'export const w = 1;\n');
    const after = await g.snapshot();
    const id = 'PLAN-0e0e0e0f';
    // What the store pinned when the step ran.
    await g.pin(id, 'S001', 'before', before);
    await g.pin(id, 'S001', 'after', after);
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    const text = ['---', `id: ${id}`, 'title: Evidence', 'status: completed', 'version: 5', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-02T00:00:00.000Z', '---', '', '## Goal', 'G', '', '## Steps', '1. [x] S001 Write it', `   > Changed: nothing · tree ${before.slice(0, 10)}..${before.slice(0, 10)}`, '   > Note: nothing needed changing', ''].join('\n');
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${id}.md`), text);
    let out = '';
    assert.equal(await runCli(['show', id, '--evidence', '--root', root], { out: (s) => (out += s), err: (s) => (out += s) }), 0, out);
    assert.match(out, /S001 \[done\] not recorded \(the line does not match the snapshot\): no evidence/);
  });
});
