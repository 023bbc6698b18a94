// The code caches of the `pi-plans` command's bundles stay few (src/cli/bin.ts): every build (or Node
// version) makes a new one, and when one is written the bundle's 4 newest stay, the others go;
// another bundle's, a file not of its names, and a link (itself, and what it points to) are left.
// bin.ts is bundled as the build bundles it, beside a small stand-in for the CLI bundle.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

describe('the code cache keeps the 4 newest per bundle', function () {
  this.timeout(60_000);
  let dir: string;
  let cache: string;
  before(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-code-bound-')));
    await esbuild.build({ entryPoints: [path.resolve(__dirname, '../../../src/cli/bin.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(dir, 'dist', 'bin.js'), logLevel: 'error' });
    fs.writeFileSync(path.join(dir, 'dist', 'cli.js'), 'exports.runCli = async (args) => { process.stdout.write(`ran ${args.join(" ")}\\n`); return 0; };\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(dir, 'cache-'));
  });

  it('a new cache written past the bound removes the oldest of its bundle only', () => {
    const code = path.join(cache, 'code');
    fs.mkdirSync(code, { mode: 0o700 });
    const aged = (name: string, daysAgo: number) => {
      fs.writeFileSync(path.join(code, name), 'old compiled code');
      const t = new Date(Date.now() - daysAgo * 86_400_000);
      fs.utimesSync(path.join(code, name), t, t);
    };
    // Six earlier builds of the CLI bundle, two of the hook's, a file of another name, a link among them.
    for (let i = 1; i <= 6; i++) aged(`cli.js-${1000 + i}-${2000 + i}-${3000 + i}-v20.0.0-x64.v8`, 10 - i);
    for (let i = 1; i <= 6; i++) aged(`hook.js-${1000 + i}-${2000 + i}-${3000 + i}-v20.0.0-x64.v8`, 20 - i);
    aged('cli.js-notes.txt', 30);
    fs.writeFileSync(path.join(dir, 'precious'), 'keep me');
    fs.symlinkSync(path.join(dir, 'precious'), path.join(code, 'cli.js-1-1-1-v20.0.0-x64.v8'));
    const r = spawnSync(process.execPath, [path.join(dir, 'dist', 'bin.js'), 'list'], { encoding: 'utf8', env: { ...process.env, PI_PLANS_CACHE_DIR: cache, PI_PLANS_NO_CODE_CACHE: '' } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ran list\n');
    const names = fs.readdirSync(code).sort();
    const cli = names.filter((n) => /^cli\.js-\d+-\d+-\d+-v[\d.]+-\w+\.v8$/.test(n) && !fs.lstatSync(path.join(code, n)).isSymbolicLink());
    assert.equal(cli.length, 4, names.join('\n'));
    const st = fs.statSync(path.join(dir, 'dist', 'cli.js'));
    assert.ok(cli.includes(`cli.js-${st.size}-${Math.floor(st.mtimeMs)}-${st.ino}-${process.version}-${process.arch}.v8`), 'the one just written stays');
    for (const i of [4, 5, 6]) assert.ok(cli.includes(`cli.js-${1000 + i}-${2000 + i}-${3000 + i}-v20.0.0-x64.v8`), `build ${i}, among the newest, stays`);
    assert.equal(names.filter((n) => n.startsWith('hook.js-')).length, 6, "another bundle's caches are left");
    assert.ok(names.includes('cli.js-notes.txt'));
    assert.ok(fs.lstatSync(path.join(code, 'cli.js-1-1-1-v20.0.0-x64.v8')).isSymbolicLink(), 'a link is left');
    assert.equal(fs.readFileSync(path.join(dir, 'precious'), 'utf8'), 'keep me');
  });
});
