import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { bodyOf, computeOutline, createPlanText, parsePlan } from '../../../src/core';
import { PersistedOutlines } from '../../../src/node';

const ROOT = path.resolve(__dirname, '../../..');
/**
 * What the new processes of these tests load: the cache and the core as one JavaScript file,
 * bundled from the sources once (as the product's own bundles are), run by node alone. Through
 * tsx, each new process loaded and transformed every TypeScript file it needs: 1.3 s of CPU
 * where the bundle takes 0.1 s, and on a loaded machine tens of seconds, so the two new processes
 * of the first test overran its time (it timed out beside 20 CPU burners, each process ~30 s).
 */
let LIB = '';
const steps = Array.from({ length: 150 }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` }));
const TEXT = createPlanText({ id: 'PLAN-0000ca5e', title: 'Large', goal: 'G', steps, verification: ['v'] }, '2026-11-24T10:00:00.000Z');
const BODY = bodyOf(TEXT)!;
const KEY = createHash('sha256').update(BODY).digest('hex');

/**
 * What a new process finds: it asks the cache in `dir` to prepare TEXT, then says whether it
 * holds an outline of the body without having parsed it, and whether that is the body's outline.
 */
function inNewProcess(dir: string): { known: boolean; equal: boolean } {
  const script = `
    const { PersistedOutlines, bodyOf, computeOutline, hasOutline, parsePlan } = require(${JSON.stringify(LIB)});
    const text = require('fs').readFileSync(${JSON.stringify(path.join(dir, 'plan.md'))}, 'utf8');
    new PersistedOutlines(${JSON.stringify(dir)}).prepare(text).then(() => {
      const body = bodyOf(text);
      const known = hasOutline(body);
      const equal = known && JSON.stringify(parsePlan(text).outline) === JSON.stringify(computeOutline(body));
      process.stdout.write(JSON.stringify({ known, equal }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe('outlines of large plans kept on disk for the next process (PersistedOutlines)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    LIB = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-outlines-lib-')), 'lib.js');
    buildSync({
      stdin: { contents: "export { PersistedOutlines } from './src/node/ports/persistedOutlines';\nexport { bodyOf, computeOutline, hasOutline, parsePlan } from './src/core';\n", resolveDir: ROOT, loader: 'ts', sourcefile: 'persistedOutlines.lib.ts' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: LIB,
      logLevel: 'warning',
    });
  });
  after(() => fs.rmSync(path.dirname(LIB), { recursive: true, force: true }));
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-outlines-'));
    fs.writeFileSync(path.join(dir, 'plan.md'), TEXT);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the outline of a plan this process parsed, by the body\'s digest; the next process reads the plan without parsing it', async () => {
    assert.equal(inNewProcess(dir).known, false, 'nothing kept yet: the next process would parse');
    const cache = new PersistedOutlines(dir);
    parsePlan(TEXT);
    cache.parsed(TEXT);
    await cache.flush();
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, `${KEY}.json`), 'utf8')), computeOutline(BODY));
    assert.deepEqual(inNewProcess(dir), { known: true, equal: true });
  });

  it('a corrupted, foreign or wrong outline file is not used (the process parses, as without a cache), and nothing throws', async () => {
    const other = computeOutline(BODY.replace('## Steps', '## Stepz'));
    for (const content of ['{ not json', '[]', JSON.stringify(other), JSON.stringify({ ...computeOutline(BODY), steps: computeOutline(BODY).steps.slice(1) })]) {
      fs.writeFileSync(path.join(dir, `${KEY}.json`), content);
      assert.deepEqual(inNewProcess(dir), { known: false, equal: false }, content.slice(0, 40));
    }
  });

  it('a process about to exit writes what every cache in it still holds, with one exit hook for all of them', () => {
    // 12 caches (a process that opens a store per folder), each with an outline not yet written
    // (the quiet timer has not run): all written at exit, and no warning about exit listeners.
    const dirs = Array.from({ length: 12 }, (_, i) => path.join(dir, `cache-${i}`));
    const script = `
      const { PersistedOutlines, parsePlan } = require(${JSON.stringify(LIB)});
      const text = require('fs').readFileSync(${JSON.stringify(path.join(dir, 'plan.md'))}, 'utf8');
      parsePlan(text);
      for (const d of ${JSON.stringify(dirs)}) new PersistedOutlines(d).parsed(text);`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /MaxListenersExceeded/);
    for (const d of dirs) assert.deepEqual(JSON.parse(fs.readFileSync(path.join(d, `${KEY}.json`), 'utf8')), computeOutline(BODY), d);
  });

  it('small plans are left alone, and the folder keeps the newest 200 outlines', async () => {
    const cache = new PersistedOutlines(dir);
    const small = createPlanText({ id: 'PLAN-0000ca5f', title: 'Small', goal: 'G', steps: [{ text: 'a' }] }, '2026-11-24T10:00:00.000Z');
    parsePlan(small);
    cache.parsed(small);
    await cache.flush();
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.endsWith('.json')), []);
    for (let i = 0; i < 230; i++) {
      const f = path.join(dir, `${String(i).padStart(64, '0')}.json`);
      fs.writeFileSync(f, '{}');
      fs.utimesSync(f, new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
    }
    parsePlan(TEXT);
    cache.parsed(TEXT);
    await cache.flush();
    const left = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
    assert.equal(left.length, 200);
    assert.ok(left.includes(`${KEY}.json`), 'the newest stays');
    assert.ok(!left.includes(`${'0'.repeat(64)}.json`), 'the oldest went');
  });
});
