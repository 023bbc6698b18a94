// The `pi-plans` command loads the CLI bundle with V8's code cache (src/cli/bin.ts): the first run
// leaves the compiled code in the user's cache folder, later runs start from it, and a cache that
// is garbage or a link is never trusted: the command works as without it.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'dist', 'bin.js');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('pi-plans starts from the code cache of its CLI bundle', function () {
  this.timeout(60_000);
  let cacheDir: string;
  let root: string;
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, PI_PLANS_CACHE_DIR: cacheDir, PI_PLANS_NO_CODE_CACHE: '' } });
  const cacheFiles = () => (fs.existsSync(path.join(cacheDir, 'code')) ? fs.readdirSync(path.join(cacheDir, 'code')).filter((f) => f.startsWith('cli.js-')) : []);

  before(() => {
    if (!fs.existsSync(BIN)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-code-cache-ws-'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
  });
  beforeEach(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-code-cache-'));
  });
  afterEach(() => fs.rmSync(cacheDir, { recursive: true, force: true }));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('the first run keeps the compiled CLI (one file, private to the user); the next runs use it and answer the same', () => {
    const first = run('--version');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout.trim(), VERSION);
    const files = cacheFiles();
    assert.equal(files.length, 1, `one cache file for dist/cli.js: ${files.join(', ')}`);
    const file = path.join(cacheDir, 'code', files[0]);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const written = fs.statSync(file).mtimeMs;
    // A command that does real work, through the cached code: the same answer, the cache left as it was.
    const list = run('--root', root, 'list', '--json');
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout), []);
    assert.deepEqual(cacheFiles(), files);
    assert.equal(fs.statSync(file).mtimeMs, written, 'a cache V8 accepted is not written again');
  });

  it('a cache file of garbage is refused by V8: the command works, and the cache is written anew', () => {
    run('--version');
    const [name] = cacheFiles();
    const file = path.join(cacheDir, 'code', name);
    fs.writeFileSync(file, Buffer.alloc(4096, 0x5a));
    const r = run('--root', root, 'list');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /No plans in /);
    assert.notDeepEqual(fs.readFileSync(file), Buffer.alloc(4096, 0x5a), 'the garbage replaced by compiled code');
  });

  it('a cache file that is a link is not followed: the command works, and what the link points to is untouched', () => {
    run('--version');
    const [name] = cacheFiles();
    const file = path.join(cacheDir, 'code', name);
    const target = path.join(cacheDir, 'elsewhere.v8');
    fs.writeFileSync(target, 'not code');
    fs.rmSync(file);
    fs.symlinkSync(target, file);
    const r = run('--version');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), VERSION);
    assert.equal(fs.readFileSync(target, 'utf8'), 'not code');
  });

  it('the bundles it loads are ASCII: V8 keeps a loaded source at one byte a character, not two (the CLI\'s was 6 MB of every command\'s memory)', () => {
    for (const name of ['cli.js', 'hook.js', 'hook-shell.js']) {
      const bytes = fs.readFileSync(path.join(ROOT, 'dist', name));
      const at = bytes.findIndex((b) => b > 0x7f);
      assert.equal(at, -1, `dist/${name} has a byte past ASCII at ${at}: ${bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8')}`);
    }
  });

  it("the CLI's source is kept once and outside V8's heap: its megabytes are never copied by a young collection, where they counted toward doubling that generation (issue 40)", () => {
    const hook = path.join(cacheDir, 'heap-hook.cjs');
    fs.writeFileSync(hook, "process.on('exit', () => { const v8 = require('v8'); const large = v8.getHeapSpaceStatistics().filter((s) => s.space_name.includes('large_object')).reduce((a, s) => a + s.space_used_size, 0); require('fs').writeSync(2, `\\nheap-check ${large} ${process.memoryUsage().external}\\n`); });\n");
    const size = fs.statSync(path.join(ROOT, 'dist', 'cli.js')).size;
    for (const phase of ['compiled', 'from the cache']) {
      const r = spawnSync(process.execPath, ['-r', hook, BIN, '--version'], { encoding: 'utf8', env: { ...process.env, PI_PLANS_CACHE_DIR: cacheDir, PI_PLANS_NO_CODE_CACHE: '' } });
      assert.equal(r.status, 0, r.stderr);
      const [, large, external] = /heap-check (\d+) (\d+)/.exec(r.stderr)!.map(Number);
      assert.ok(large < size / 2, `${phase}: ${large} bytes of large objects in the heap; dist/cli.js is ${size}`);
      assert.ok(external >= size, `${phase}: ${external} bytes outside the heap; dist/cli.js is ${size}`);
    }
  });

  it('PI_PLANS_NO_CODE_CACHE=1 keeps nothing', () => {
    const r = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8', env: { ...process.env, PI_PLANS_CACHE_DIR: cacheDir, PI_PLANS_NO_CODE_CACHE: '1' } });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(cacheFiles(), []);
  });
});
