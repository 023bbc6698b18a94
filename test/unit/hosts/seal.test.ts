// `pi-plans setup --seal`: the sandbox and permission rules it writes for Claude Code, on real
// files in a temporary workspace and home; its refusals (a host it cannot seal, a sandbox whose
// programs are not on the PATH, user scope, Windows); and `--remove` taking out only the seal.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { AgentHost } from '../../../src/hosts/setup/targets';
import { editConfig } from '../../../src/hosts/setup/configEdit';
import { claudeSeal } from '../../../src/hosts/claude';
import { formatSetupReport, nodeSealSystem, runAgentSetup, SealSystem, SetupOptions, SetupRefused, userFolders } from '../../../src/hosts/install/apply';

const COMMAND = ['/opt/node/bin/node', '/opt/pi-plans/cli.js'];
const ROOT = path.resolve(__dirname, '..', '..', '..');

interface ClaudeLocal {
  sandbox: { enabled: boolean; failIfUnavailable: boolean; allowUnsandboxedCommands: boolean; filesystem: { denyRead: string[]; denyWrite: string[] } };
  permissions: { deny: string[] };
}

describe('pi-plans setup --seal', () => {
  let tmp: string;
  let ws: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let folders: ReturnType<typeof userFolders>;
  /** A Linux machine with this environment, where `have` are the programs on the PATH. */
  const linux = (have: string[] = ['bwrap', 'socat']): SealSystem => ({ env, platform: 'linux', onPath: (p) => have.includes(p) });
  const run = (agent: AgentHost, more: Partial<SetupOptions> = {}, system = linux()) =>
    runAgentSetup({ agent, scope: 'workspace', hooks: true, mcp: true, command: COMMAND, workspace: ws, remove: false, dryRun: false, seal: true, ...more }, folders, system);
  const local = () => path.join(ws, '.claude', 'settings.local.json');
  const readLocal = () => parseJsonc(fs.readFileSync(local(), 'utf8')) as ClaudeLocal;
  const refused = (f: () => unknown, message: RegExp) => assert.throws(f, (e: unknown) => e instanceof SetupRefused && message.test(e.message));

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-seal-')));
    ws = path.join(tmp, 'proj');
    home = path.join(tmp, 'home');
    fs.mkdirSync(ws);
    fs.mkdirSync(home);
    env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'cfg'), XDG_STATE_HOME: path.join(home, 'st'), XDG_CACHE_HOME: path.join(home, 'ca') };
    folders = userFolders(env, home, 'linux');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('Claude Code: sandbox on with no way out, and the deny lists name this home\'s Pi Plans folders, the workspace\'s .pi/ and every file setup writes', () => {
    const r = run('claude');
    assert.deepEqual(r.files.map((f) => [f.shown, f.kind, f.status]), [['.claude/settings.json', 'hooks', 'created'], ['.mcp.json', 'mcp', 'created'], ['.claude/settings.local.json', 'seal', 'created']]);
    const s = readLocal();
    assert.deepEqual([s.sandbox.enabled, s.sandbox.failIfUnavailable, s.sandbox.allowUnsandboxedCommands], [true, true, false]);
    const userDirs = [path.join(home, 'cfg', 'pi-plans'), path.join(home, 'st', 'pi-plans'), path.join(home, 'ca', 'pi-plans')];
    assert.deepEqual(s.sandbox.filesystem.denyRead, userDirs);
    const files = ['.claude/settings.json', '.mcp.json', '.claude/settings.local.json', '.vscode/settings.json'].map((f) => path.join(ws, f));
    // The user-scope files setup writes for Claude Code too: a hook or MCP server added there would run outside the sandbox.
    const userFiles = [path.join(home, '.claude', 'settings.json'), path.join(home, '.claude.json')];
    for (const p of [...userDirs, path.join(ws, '.pi'), ...files, ...userFiles]) assert.ok(s.sandbox.filesystem.denyWrite.includes(p), `denyWrite holds ${p}`);
    // Permission rules: `//` starts an absolute path (a single `/` is the project's root).
    for (const d of userDirs) for (const tool of ['Read', 'Edit']) assert.ok(s.permissions.deny.includes(`${tool}(/${d}/**)`), `${tool} of ${d} denied`);
    assert.ok(s.permissions.deny.includes(`Edit(/${path.join(ws, '.pi')}/**)`));
    for (const f of [...files, ...userFiles]) assert.ok(s.permissions.deny.includes(`Edit(/${f})`), `Edit of ${f} denied`);
    assert.ok(!s.permissions.deny.some((d) => d.startsWith(`Read(/${ws}`)), 'the workspace stays readable');
    assert.match(formatSetupReport(r), /\.claude\/settings\.local\.json \(new file\): added sandbox settings sandbox\.enabled, .*permissions\.deny\n {4}Sealed: /);
  });

  it('a folder reached through a link is named both ways (the sandbox and the rules see either)', () => {
    fs.mkdirSync(path.join(tmp, 'real-config'));
    fs.symlinkSync(path.join(tmp, 'real-config'), path.join(home, 'cfg'));
    run('claude');
    const s = readLocal();
    assert.ok(s.sandbox.filesystem.denyRead.includes(path.join(home, 'cfg', 'pi-plans')));
    assert.ok(s.sandbox.filesystem.denyRead.includes(path.join(tmp, 'real-config', 'pi-plans')));
  });

  it('is idempotent, and keeps the person\'s own settings in the same file', () => {
    const mine = '{\n  // my own\n  "permissions": { "deny": ["Read(./.env)"] },\n  "sandbox": { "enabled": true, "filesystem": { "denyRead": ["~/.aws"] } },\n  "model": "opus"\n}\n';
    fs.mkdirSync(path.dirname(local()));
    fs.writeFileSync(local(), mine);
    run('claude');
    const once = fs.readFileSync(local(), 'utf8');
    assert.match(once, /\/\/ my own/);
    const s = readLocal();
    assert.equal(s.permissions.deny[0], 'Read(./.env)');
    assert.equal(s.sandbox.filesystem.denyRead[0], '~/.aws');
    assert.equal((s as unknown as { model: string }).model, 'opus');
    const again = run('claude');
    assert.equal(fs.readFileSync(local(), 'utf8'), once);
    assert.ok(again.files.every((f) => f.status === 'unchanged'));
  });

  it('--remove takes out the seal with the rest and only it: the person\'s file comes back byte for byte', () => {
    const mine = '{\n  // my own\n  "permissions": { "deny": ["Read(./.env)"] },\n  "sandbox": { "filesystem": { "denyRead": ["~/.aws"] } }\n}\n';
    fs.mkdirSync(path.dirname(local()));
    fs.writeFileSync(local(), mine);
    run('claude');
    const r = run('claude', { remove: true, seal: false });
    assert.equal(fs.readFileSync(local(), 'utf8'), mine);
    assert.match(formatSetupReport(r), /\.claude\/settings\.local\.json: removed sandbox settings .*\n {4}Claude Code is no longer sealed/);
    assert.deepEqual(fs.readdirSync(ws), ['.claude']);
    assert.deepEqual(fs.readdirSync(path.join(ws, '.claude')), ['settings.local.json']);
  });

  it('--remove deletes the local settings file when the seal made it, and says nothing of a seal that was never there', () => {
    run('claude');
    run('claude', { remove: true, seal: false });
    assert.deepEqual(fs.readdirSync(ws), []);
    run('claude', { seal: false });
    const r = run('claude', { remove: true, seal: false });
    assert.deepEqual(r.files.map((f) => f.shown), ['.claude/settings.json', '.mcp.json']);
  });

  it('--remove --no-hooks --no-mcp takes out the seal alone', () => {
    run('claude');
    run('claude', { remove: true, seal: false, hooks: false, mcp: false });
    assert.equal(fs.existsSync(local()), false);
    assert.ok(fs.existsSync(path.join(ws, '.claude', 'settings.json')));
    assert.ok(fs.existsSync(path.join(ws, '.mcp.json')));
  });

  it('a setting of the person\'s that --seal changed is put back only as far as it can tell: a value of ours goes, theirs stays', () => {
    const edit = claudeSeal({ hiddenFolders: ['/h/cfg'], readOnlyFolders: ['/w/.pi'], readOnlyFiles: ['/w/.mcp.json'] });
    const sealed = editConfig('json', '{ "sandbox": { "enabled": false, "failIfUnavailable": false } }\n', edit, false).text!;
    assert.equal((parseJsonc(sealed) as ClaudeLocal).sandbox.enabled, true);
    // The person turns one back off by hand: a removal leaves that alone.
    const changed = sealed.replace('"failIfUnavailable": true', '"failIfUnavailable": false');
    const removed = parseJsonc(editConfig('json', changed, edit, true).text!) as { sandbox: Record<string, unknown> };
    assert.deepEqual(removed, { sandbox: { failIfUnavailable: false } });
  });

  for (const agent of ['codex', 'copilot', 'copilot-cli'] as const) {
    it(`refuses ${agent}: it cannot be sealed yet, and the key under a passphrase is named instead; nothing is written`, () => {
      refused(() => run(agent), /cannot be sealed yet: .*Run setup without --seal, and protect the approval key with a passphrase: pi-plans key --protect .*Nothing was written\./);
      assert.deepEqual(fs.readdirSync(ws), []);
    });
  }

  it('refuses when the sandbox\'s programs are not on the PATH, naming them and how to install them; nothing is written', () => {
    refused(() => run('claude', {}, linux([])), /needs bwrap and socat on the PATH, and bwrap and socat are not there: install them \(apt-get install bubblewrap socat.*\), then run setup --seal again\. Nothing was written/);
    refused(() => run('claude', {}, linux(['bwrap'])), /and socat is not there/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('looks on the real PATH: a PATH without bwrap and socat is refused, one with them (as files that run) is not', () => {
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    const system = (p: string) => ({ ...nodeSealSystem({ ...env, PATH: p }, 'linux') });
    refused(() => run('claude', {}, system(bin)), /bwrap and socat are not there/);
    fs.writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'socat'), '#!/bin/sh\n', { mode: 0o644 });
    refused(() => run('claude', {}, system(bin)), /and socat is not there/);
    fs.chmodSync(path.join(bin, 'socat'), 0o755);
    run('claude', {}, system(`${path.join(tmp, 'none')}${path.delimiter}${bin}`));
    assert.ok(fs.existsSync(local()));
  });

  it('macOS needs nothing installed (Seatbelt is built in); Windows itself and user scope are refused', () => {
    run('claude', {}, { env, platform: 'darwin', onPath: () => false });
    assert.ok(fs.existsSync(local()));
    refused(() => run('claude', {}, { env, platform: 'win32', onPath: () => true }), /cannot be sealed on win32: .*WSL2/);
    refused(() => run('claude', { scope: 'user' }), /--seal works at workspace scope only/);
  });

  it('the built CLI: `setup --seal` refuses a PATH without bwrap and socat (exit 1, nothing written), and --seal for codex names pi-plans key --protect', () => {
    const cli = (PATH: string, ...args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), '--root', ws, 'setup', ...args], { cwd: ws, encoding: 'utf8', env: { ...env, PATH } });
    const missing = cli(path.join(tmp, 'none'), '--agent', 'claude', '--seal');
    assert.equal(missing.status, 1, missing.stderr);
    assert.match(missing.stderr, /^pi-plans setup: Claude Code's sandbox needs bwrap and socat on the PATH/);
    const codex = cli(path.join(tmp, 'none'), '--agent', 'codex', '--seal');
    assert.equal(codex.status, 1);
    assert.match(codex.stderr, /Codex cannot be sealed yet: .*pi-plans key --protect/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });
});
