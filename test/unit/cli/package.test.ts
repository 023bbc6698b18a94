// The CLI as people install it from a clone, with the commands the READMEs give (the package is
// not on the npm registry yet): `npm run pack:cli` (packages/pi-plans packed as a publish would
// pack it, its prepack building the bundle), then the tarball installed with `npm install -g` into
// an empty prefix from a folder outside this checkout, offline (the package has no dependency to
// fetch), with no path into the checkout; then `pi-plans --version`, an MCP handshake and a tool
// call through the installed binary. The script packs a copy in a temporary folder: runs side by
// side (several people test in one tree) never build into the same dist/, and none is left in the tree.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync, SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(__dirname, '../../..');
const PACKAGE_DIR = path.join(ROOT, 'packages', 'pi-plans');
const BUILD_SCRIPT = path.join(ROOT, 'scripts', 'build.mjs');
const readme = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  files?: string[];
  engines?: { node?: string };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  bundleDependencies?: string[];
}
const readManifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

const isInside = (dir: string, p: string) => {
  const rel = path.relative(dir, path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The environment of a user who never cloned this repository: no npm lifecycle variables of
 * this test run, no NODE_PATH or NODE_OPTIONS, no PATH entry into the checkout (npm puts its
 * node_modules/.bin there), and configuration, state and cache folders of its own.
 */
function outsiderEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^npm_/i.test(k) || k === 'NODE_PATH' || k === 'NODE_OPTIONS' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  env[pathKey] = (env[pathKey] ?? '')
    .split(path.delimiter)
    .filter((p) => p && !isInside(ROOT, p))
    .join(path.delimiter);
  env.XDG_CONFIG_HOME = path.join(home, 'config');
  env.XDG_STATE_HOME = path.join(home, 'state');
  env.PI_PLANS_CACHE_DIR = path.join(home, 'plans-cache');
  return env;
}

describe('the pi-plans npm package (packed, installed into an empty prefix, run from there)', () => {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  let tmp: string;
  let elsewhere: string;
  let prefix: string;
  let tarball: string;
  let env: Record<string, string>;
  let manifest: Manifest;
  /** What `npm run pack:cli` printed. */
  let packed: string;
  /** The installed `pi-plans` as npm put it on the prefix's PATH. */
  let bin: string;

  const run = (args: string[], cwd: string): SpawnSyncReturns<string> => spawnSync(bin, args, { cwd, env, encoding: 'utf8', shell: process.platform === 'win32' });

  before(function () {
    manifest = readManifest(PACKAGE_DIR);
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-package-')));
    if (isInside(ROOT, tmp)) this.skip(); // a temp folder inside the checkout would prove nothing
    elsewhere = path.join(tmp, 'elsewhere');
    prefix = path.join(tmp, 'prefix');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(tmp, 'home'));
    env = outsiderEnv(path.join(tmp, 'home'));
    const shell = process.platform === 'win32';
    // The README's command in the clone (the tarball into this test's folder, not the clone's out/).
    const distBefore = fs.existsSync(path.join(PACKAGE_DIR, 'dist'));
    packed = execFileSync(npm, ['run', '--silent', 'pack:cli', '--', '--destination', tmp], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell });
    assert.equal(fs.existsSync(path.join(PACKAGE_DIR, 'dist')), distBefore, 'pack:cli builds in a copy: nothing is left in packages/pi-plans');
    tarball = path.join(tmp, `${manifest.name}-${manifest.version}.tgz`);
    assert.ok(fs.existsSync(tarball), `npm run pack:cli wrote no ${path.basename(tarball)}`);
    // Offline, with a cache of its own: a dependency to fetch would fail the install here.
    execFileSync(npm, ['install', '--global', '--prefix', prefix, '--offline', '--cache', path.join(tmp, 'npm-cache'), '--no-audit', '--no-fund', tarball], { cwd: elsewhere, env, stdio: ['ignore', 'ignore', 'pipe'], shell });
    bin = process.platform === 'win32' ? path.join(prefix, 'pi-plans.cmd') : path.join(prefix, 'bin', 'pi-plans');
  });
  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the READMEs give the commands this test runs: npm run pack:cli, then npm install -g of the tarball it names; npx only for after publication', () => {
    const tgz = `./out/${manifest.name}-${manifest.version}.tgz`;
    assert.match(packed, new RegExp(`: \\d+ KB\\. Install it with: npm install -g .*${manifest.name}-${manifest.version}\\.tgz`));
    for (const file of ['README.md', 'packages/pi-plans/README.md']) {
      const text = readme(file);
      assert.ok(text.includes('npm run pack:cli'), `${file} says how to pack the CLI in a clone`);
      assert.ok(text.includes(`npm install -g ${tgz}`), `${file} installs ${tgz}`);
      assert.match(text, /not\s+(yet\s+)?(published\s+)?on\s+the\s+npm\s+registry/i, `${file} says the package is not on the registry yet`);
      // A command block with npx or a registry install sits in a part that says it is for after publication.
      for (const m of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) {
        if (!/npx -y pi-plans|npm install -g pi-plans(?!\S)|"npx"/.test(m[1])) continue;
        const before = text.slice(0, m.index);
        const context = before.slice(before.lastIndexOf('\n#'));
        assert.match(context, /once\s+(it\s+is\s+)?published/i, `${file}: the block\n${m[1]}is marked as for after publication`);
      }
    }
    assert.ok(JSON.parse(readme('package.json')).scripts['pack:cli'], 'package.json has the pack:cli script');
  });

  it('the package is publishable and installs only what runs: bin, engines, files, no dependencies, the extension\'s version', () => {
    const root = readManifest(ROOT);
    assert.equal(manifest.name, 'pi-plans');
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.version, root.version, 'packages/pi-plans/package.json and package.json release together: give them one version');
    assert.equal(manifest.engines?.node, root.engines?.node);
    assert.deepEqual(manifest.bin, { 'pi-plans': 'dist/bin.js' });
    // The prepack the test runs is the committed one, with the build script's path made absolute.
    assert.equal(manifest.scripts?.prepack, 'node ../../scripts/build.mjs --package .');
    assert.equal(path.resolve(PACKAGE_DIR, '../../scripts/build.mjs'), BUILD_SCRIPT);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'] as const) assert.equal(manifest[field], undefined, `${field}: the bundle inlines every dependency`);
    const installed = path.join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'pi-plans');
    const files: string[] = [];
    const walk = (dir: string, rel = '') => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(dir, e.name), `${rel}${e.name}/`);
        else files.push(`${rel}${e.name}`);
      }
    };
    walk(installed);
    assert.deepEqual(files.sort(), ['LICENSE', 'README.md', 'dist/THIRD-PARTY-NOTICES.txt', 'dist/bin.js', 'dist/cli.js', 'dist/hook-shell.js', 'dist/hook.js', 'package.json']);
    assert.equal(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8'), fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'));
    const notices = fs.readFileSync(path.join(installed, 'dist', 'THIRD-PARTY-NOTICES.txt'), 'utf8');
    for (const dep of ['@modelcontextprotocol/sdk@', 'zod@', 'commander@']) assert.ok(notices.includes(`\n${dep}`), `the notices name ${dep}`);
  });

  it('`pi-plans --version` prints the package version; a mistyped command suggests the right one and points at --help', () => {
    const v = run(['--version'], elsewhere);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout, `${manifest.version}\n`);
    const typo = run(['lsit'], elsewhere);
    assert.equal(typo.status, 2);
    assert.equal(typo.stdout, '');
    assert.equal(typo.stderr, "error: unknown command 'lsit'\n(Did you mean list?)\nRun `pi-plans --help` for the commands and options.\n");
  });

  it('`pi-plans hook` from the installed binary (its own bundle): a payload it cannot read is allowed, exit 0, and it says why', () => {
    const r = spawnSync(bin, ['hook', '--agent', 'claude'], { cwd: elsewhere, env, encoding: 'utf8', input: 'not json', shell: process.platform === 'win32' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).systemMessage, /its input was not JSON .*nothing was checked/);
  });

  it('`pi-plans hook` from the installed binary reads a shell command with its shell parser (dist/hook-shell.js, shipped beside it)', () => {
    const payload = { session_id: 's-pkg', transcript_path: '/t', cwd: elsewhere, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'pi-plans hook collect PLAN-0000abcd' }, tool_use_id: 't1' };
    const r = spawnSync(bin, ['hook'], { cwd: elsewhere, env: { ...env, PI_PLANS_STATE_DIR: path.join(tmp, 'state'), PI_PLANS_HOOK_TRACE: '' }, encoding: 'utf8', input: JSON.stringify(payload), shell: process.platform === 'win32' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '', 'no plan of that id here: nothing bound, an empty allow');
    assert.doesNotMatch(r.stderr, /could not check|Cannot find module/, r.stderr);
  });

  it('`pi-plans mcp` from the installed binary: the handshake names pi-plans and its version, a tool call writes a plan the CLI then lists', async () => {
    const workspace = path.join(tmp, 'workspace');
    fs.mkdirSync(workspace);
    const transport = new StdioClientTransport({ command: bin, args: ['--root', workspace, 'mcp'], cwd: elsewhere, env, stderr: 'pipe' });
    const client = new Client({ name: 'pi-plans-package-test', version: '1.0.0' });
    let serverErr = '';
    transport.stderr?.on('data', (b: Buffer) => (serverErr += b.toString()));
    try {
      await client.connect(transport).catch((e: Error) => {
        throw new Error(`${e.message}; the server's stderr: ${serverErr}`);
      });
      assert.deepEqual({ name: client.getServerVersion()?.name, version: client.getServerVersion()?.version }, { name: 'pi-plans', version: manifest.version });
      const r = (await client.callTool({ name: 'pi_plan_create', arguments: { title: 'Installed from the tarball', goal: 'Prove the package serves MCP', steps: [{ text: 'First' }], verification: ['it lists'] } })) as { content: { text?: string }[]; isError?: boolean };
      const text = r.content.map((c) => c.text ?? '').join('\n');
      assert.ok(!r.isError, text);
      const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(text)?.[1];
      assert.ok(id, text);
      assert.ok(fs.existsSync(path.join(workspace, '.pi', 'plans', `${id}.md`)));
      const list = run(['--root', workspace, 'list'], elsewhere);
      assert.equal(list.status, 0, list.stderr);
      assert.match(list.stdout, new RegExp(`^${id} .*Installed from the tarball`, 'm'));
    } finally {
      await client.close();
    }
  });

  it('the npx form runs the tarball too: `npm exec --package <tarball> -- pi-plans --version`', () => {
    const r = spawnSync(npm, ['exec', '--yes', '--offline', '--cache', path.join(tmp, 'npx-cache'), '--package', tarball, '--', 'pi-plans', '--version'], { cwd: elsewhere, env, encoding: 'utf8', shell: process.platform === 'win32' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${manifest.version}\n`);
  });
});
