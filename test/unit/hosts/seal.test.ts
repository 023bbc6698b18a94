// `pi-plans setup --seal`: the sandbox and permission rules it writes for Claude Code, and the
// permission profile and approval policy it writes for Codex, on real files in a temporary
// workspace and home; its refusals (a host it cannot seal, a sandbox whose programs are not on the
// PATH, user scope, Windows, Codex off Linux, Copilot CLI and why); and `--remove` taking out only the seal.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { parse as parseJsonc } from 'jsonc-parser';
import { AgentHost } from '../../../src/hosts/setup/targets';
import { editConfig } from '../../../src/hosts/setup/configEdit';
import { claudeSeal } from '../../../src/hosts/claude';
import { codexSeal } from '../../../src/hosts/codex';
import { sealInPlace } from '../../../src/hosts/install/protection';
import { HOSTS } from '../../../src/hosts/hosts';
import { sealRefusal } from '../../../src/hosts/setup/seal';
import { formatSetupReport, nodeSealSystem, runAgentSetup, SealSystem, SetupOptions, SetupRefused, userFolders } from '../../../src/hosts/install/apply';

const COMMAND = ['/opt/node/bin/node', '/opt/pi-plans/cli.js'];
const ROOT = path.resolve(__dirname, '..', '..', '..');

interface ClaudeLocal {
  sandbox: { enabled: boolean; failIfUnavailable: boolean; allowUnsandboxedCommands: boolean; filesystem: { denyRead: string[]; denyWrite: string[] } };
  permissions: { deny: string[] };
}

interface CodexConfig {
  default_permissions: string;
  approval_policy: { granular: Record<string, boolean> };
  permissions: Record<string, { extends: string; filesystem: Record<string, string> }>;
  mcp_servers?: Record<string, unknown>;
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

  describe('Codex', () => {
    const config = () => path.join(ws, '.codex', 'config.toml');
    const readConfig = () => parseToml(fs.readFileSync(config(), 'utf8')) as unknown as CodexConfig;
    const userDirs = () => [path.join(home, 'cfg', 'pi-plans'), path.join(home, 'st', 'pi-plans'), path.join(home, 'ca', 'pi-plans')];
    /** The folders the profile makes read-only: .pi/, and those holding the files setup writes (the workspace's .codex/ and .vscode/, Codex's home). */
    const readOnly = () => [path.join(ws, '.pi'), path.join(ws, '.codex'), path.join(home, '.codex'), path.join(ws, '.vscode')];

    it('a permission profile made the default: Codex\'s :workspace with Pi Plans\' folders unreadable, .pi/ and the folders of the files setup writes read-only, and no approval out of the sandbox', () => {
      const r = run('codex');
      assert.deepEqual(r.files.map((f) => [f.shown, f.kind, f.status]), [['.codex/hooks.json', 'hooks', 'created'], ['.codex/config.toml', 'mcp', 'created'], ['.codex/config.toml', 'seal', 'updated']]);
      const c = readConfig();
      assert.equal(c.default_permissions, 'pi-plans-sealed');
      assert.deepEqual({ ...c.approval_policy.granular }, { sandbox_approval: false, rules: false, skill_approval: false, request_permissions: false, mcp_elicitations: true });
      const profile = c.permissions['pi-plans-sealed'];
      assert.equal(profile.extends, ':workspace');
      assert.deepEqual({ ...profile.filesystem }, Object.fromEntries([...userDirs().map((d) => [d, 'none']), ...readOnly().sort().map((d) => [d, 'read'])].sort()));
      assert.ok(!Object.keys(profile.filesystem).includes(ws), 'the rest of the workspace stays as :workspace has it: writable');
      // The MCP server shares the file: both are there.
      assert.ok(c.mcp_servers?.['pi-plans']);
      assert.match(formatSetupReport(r), /\.codex\/config\.toml: added permission profile default_permissions, approval_policy, permissions\.pi-plans-sealed; created the folders it names that were not there: ~\/cfg\/pi-plans, ~\/st\/pi-plans, ~\/ca\/pi-plans, \.pi, ~\/\.codex, \.vscode\n {4}Sealed: Codex runs the agent's commands, its apply_patch edits and its view_image reads under the permission profile pi-plans-sealed/);
    });

    it('creates every folder the profile names (Codex does not start a session while one is missing): Pi Plans\' own for the person alone', () => {
      run('codex', { hooks: false, mcp: false });
      for (const d of [...userDirs(), ...readOnly()]) assert.ok(fs.statSync(d).isDirectory(), d);
      for (const d of userDirs()) assert.equal(fs.statSync(d).mode & 0o777, 0o700, d);
      // A dry run creates nothing and says it would.
      fs.rmSync(path.join(ws, '.vscode'), { recursive: true });
      const dry = run('codex', { hooks: false, mcp: false, dryRun: true });
      assert.match(formatSetupReport(dry), /\.codex\/config\.toml: would create the folder it names that was not there: \.vscode\n/);
      assert.equal(fs.existsSync(path.join(ws, '.vscode')), false);
    });

    it('is idempotent, keeps the person\'s own settings and profiles, and counts as sealed only while the file and the folders are as setup --seal would leave them', () => {
      const mine = '# my Codex\nmodel = "gpt-5" # the model\n\n[permissions.mine.filesystem]\n":minimal" = "read"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # local\n';
      fs.mkdirSync(path.dirname(config()));
      fs.writeFileSync(config(), mine);
      run('codex');
      const once = fs.readFileSync(config(), 'utf8');
      assert.match(once, /^# my Codex\nmodel = "gpt-5" # the model\n/);
      assert.match(once, /\[permissions\.mine\.filesystem\]\n":minimal" = "read"\n/);
      assert.match(once, /command = "docs-mcp" # local\n/);
      const again = run('codex');
      assert.equal(fs.readFileSync(config(), 'utf8'), once);
      assert.ok(again.files.every((f) => f.status === 'unchanged'));
      assert.equal(sealInPlace('codex', ws, folders, linux([])), true, 'sealed, with no program to install: Codex runs the bwrap it ships with');
      // A named folder gone: Codex would not start sealed; setup --seal makes it again.
      fs.rmSync(path.join(ws, '.vscode'), { recursive: true });
      assert.equal(sealInPlace('codex', ws, folders, linux([])), false);
      run('codex');
      assert.equal(sealInPlace('codex', ws, folders, linux([])), true);
      // A path taken out of the profile by hand (here an inline table: the person's [permissions.mine] came first): not a seal.
      const holed = once.replace(`"${userDirs()[0]}" = "none", `, '');
      assert.notEqual(holed, once);
      fs.writeFileSync(config(), holed);
      assert.equal(sealInPlace('codex', ws, folders, linux([])), false, 'a seal with a hole in it');
      assert.equal(sealInPlace('codex', ws, folders, { env, platform: 'darwin', onPath: () => true }), false, 'not on macOS');
    });

    it('--remove takes out the seal with the rest and only it: the person\'s file comes back byte for byte', () => {
      const mine = '# my Codex\nmodel = "gpt-5" # the model\napproval_policy = "on-request"\n\n[permissions.mine.filesystem]\n":minimal" = "read"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # local\n';
      const noApproval = mine.replace('approval_policy = "on-request"\n', '');
      fs.mkdirSync(path.dirname(config()));
      fs.writeFileSync(config(), noApproval);
      run('codex');
      const r = run('codex', { remove: true, seal: false });
      assert.equal(fs.readFileSync(config(), 'utf8'), noApproval);
      assert.match(formatSetupReport(r), /\.codex\/config\.toml: removed MCP server pi-plans\n {2}\.codex\/config\.toml: removed permission profile default_permissions, approval_policy, permissions\.pi-plans-sealed\n {4}Codex is no longer sealed/);
      // The person's own approval policy, changed by --seal, is not one --remove can tell from ours: it goes (as Claude Code's).
      fs.writeFileSync(config(), mine);
      run('codex');
      assert.equal(readConfig().approval_policy.granular.sandbox_approval, false);
      run('codex', { remove: true, seal: false });
      assert.equal(fs.readFileSync(config(), 'utf8'), noApproval);
    });

    it('--remove deletes .codex/config.toml when setup made it, takes the seal out alone with --no-hooks --no-mcp, and takes the profile out by its name after the home moved', () => {
      run('codex');
      run('codex', { remove: true, seal: false });
      assert.equal(fs.existsSync(path.join(ws, '.codex')), false);
      run('codex');
      run('codex', { remove: true, seal: false, hooks: false, mcp: false });
      assert.deepEqual(Object.keys(readConfig()), ['mcp_servers']);
      assert.ok(fs.existsSync(path.join(ws, '.codex', 'hooks.json')));
      // Sealed with one home, removed with another: the profile (its paths the old home's) goes by its name.
      run('codex', { hooks: false, mcp: false });
      env = { ...env, XDG_STATE_HOME: path.join(home, 'elsewhere') };
      run('codex', { remove: true, seal: false, hooks: false, mcp: false });
      assert.deepEqual(Object.keys(readConfig()), ['mcp_servers']);
    });

    it('refuses a file whose keys hold something else, and a folder to name that is a file; nothing is written', () => {
      fs.mkdirSync(path.dirname(config()));
      fs.writeFileSync(config(), 'permissions = 3\n');
      refused(() => run('codex'), /\.codex\/config\.toml: "permissions" holds a value, not a table\. Fix the file/);
      fs.writeFileSync(config(), '');
      fs.writeFileSync(path.join(ws, '.vscode'), 'a file\n');
      refused(() => run('codex'), /^\.vscode is not a folder, and \.codex\/config\.toml names it as one: move it aside, then run setup again\. Nothing was written\.$/);
      assert.deepEqual(fs.readdirSync(ws).sort(), ['.codex', '.vscode']);
      assert.equal(fs.readFileSync(config(), 'utf8'), '');
      assert.equal(fs.existsSync(path.join(home, 'cfg')), false);
    });

    it('needs nothing on the PATH (Codex ships its own bubblewrap); refuses macOS, Windows and user scope, naming pi-plans key --protect', () => {
      run('codex', {}, linux([]));
      assert.ok(fs.existsSync(config()));
      refused(() => run('codex', {}, { env, platform: 'darwin', onPath: () => true }), /^Codex cannot be sealed on darwin: Pi Plans seals Codex on Linux \(and WSL2\) only, where its permission profile was measured \(Codex 0\.169\.0\): here, protect the approval key with a passphrase instead \(pi-plans key --protect\)\. Nothing was written\.$/);
      refused(() => run('codex', {}, { env, platform: 'win32', onPath: () => true }), /cannot be sealed on win32/);
      refused(() => run('codex', { scope: 'user' }), /--seal works at workspace scope only/);
    });

    it('the profile, as configEdit writes it: TOML tables Codex reads, and a removal that leaves the person\'s keys', () => {
      const edit = codexSeal({ hiddenFolders: ['/h/cfg/pi-plans'], readOnlyFolders: ['/w/.pi'], readOnlyFiles: ['/w/.codex/config.toml', '/w/.codex/hooks.json', '/w/.vscode/settings.json'] });
      const text = editConfig('toml', undefined, edit, false).text!;
      assert.equal(
        text,
        [
          'default_permissions = "pi-plans-sealed"',
          '',
          '[approval_policy]',
          '',
          '[approval_policy.granular]',
          'sandbox_approval = false',
          'rules = false',
          'skill_approval = false',
          'request_permissions = false',
          'mcp_elicitations = true',
          '',
          '[permissions]',
          '',
          '[permissions.pi-plans-sealed]',
          'extends = ":workspace"',
          '',
          '[permissions.pi-plans-sealed.filesystem]',
          '"/h/cfg/pi-plans" = "none"',
          '"/w/.pi" = "read"',
          '"/w/.codex" = "read"',
          '"/w/.vscode" = "read"',
          '',
        ].join('\n'),
      );
      // The person changes the default profile by hand: a removal leaves it, and takes the rest.
      const changed = text.replace('default_permissions = "pi-plans-sealed"', 'default_permissions = ":workspace"');
      assert.equal(editConfig('toml', changed, edit, true).text, 'default_permissions = ":workspace"\n');
      assert.equal(editConfig('toml', text, edit, true).text, undefined, 'nothing else in it: the file goes');
    });
  });

  for (const agent of ['copilot', 'copilot-cli'] as const) {
    it(`refuses ${agent}: it cannot be sealed yet, and the key under a passphrase is named instead; nothing is written`, () => {
      refused(() => run(agent), /cannot be sealed yet: .*Run setup without --seal, and protect the approval key with a passphrase: pi-plans key --protect .*Nothing was written\./);
      assert.deepEqual(fs.readdirSync(ws), []);
      assert.deepEqual(fs.readdirSync(home), []);
    });
  }

  it('Copilot CLI\'s refusal says why, as measured with 1.0.102: its sandbox runs the hooks inside it, so the seal would blind Pi Plans\' hook; and its sandbox is a user setting only', () => {
    const why = sealRefusal(HOSTS['copilot-cli'], 'workspace', 'linux', () => true);
    assert.equal(
      why,
      "GitHub Copilot CLI cannot be sealed yet: Copilot CLI 1.0.102's sandbox runs the hooks inside it too, under the agent's own policy (only MCP and LSP servers can run outside it), so a policy that keeps the agent's commands from Pi Plans' folders and from writing .pi/ keeps Pi Plans' hook from them as well: measured, the hook then no longer sees which plan binds the session, and lets through the edits and commands it stops in an unsealed session. (Its sandbox is also the person's setting for every folder, in ~/.copilot/settings.json: a repository's .github/copilot/settings.json may not set it). Run setup without --seal, and protect the approval key with a passphrase: pi-plans key --protect (an agent that reads the key file cannot sign with it). Nothing was written.",
    );
    // The same reason on every platform and at either scope; and the host has no seal to count on.
    for (const platform of ['darwin', 'win32'] as const) assert.equal(sealRefusal(HOSTS['copilot-cli'], 'user', platform, () => false), why);
    assert.equal(HOSTS['copilot-cli'].sandbox, undefined);
    assert.equal(sealInPlace('copilot-cli', ws, folders, linux()), false);
    // Copilot in VS Code keeps the general reason.
    assert.match(sealRefusal(HOSTS.copilot, 'workspace', 'linux', () => true) ?? '', /^GitHub Copilot in VS Code cannot be sealed yet: Pi Plans cannot set its sandbox to keep the agent away from the approval key and \.pi\/\. Run setup without --seal/);
  });

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

  it('the built CLI: `setup --seal` refuses a PATH without bwrap and socat (exit 1, nothing written), and --seal for Copilot CLI names pi-plans key --protect', () => {
    const cli = (PATH: string, ...args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), '--root', ws, 'setup', ...args], { cwd: ws, encoding: 'utf8', env: { ...env, PATH } });
    const missing = cli(path.join(tmp, 'none'), '--agent', 'claude', '--seal');
    assert.equal(missing.status, 1, missing.stderr);
    assert.match(missing.stderr, /^pi-plans setup: Claude Code's sandbox needs bwrap and socat on the PATH/);
    const copilot = cli(path.join(tmp, 'none'), '--agent', 'copilot-cli', '--seal');
    assert.equal(copilot.status, 1);
    assert.match(copilot.stderr, /GitHub Copilot CLI cannot be sealed yet: .*pi-plans key --protect/);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('the built CLI: `setup --agent codex --seal` on a PATH without bwrap writes the seal and says Codex is sealed', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), '--root', ws, 'setup', '--agent', 'codex', '--seal'], { cwd: ws, encoding: 'utf8', env: { ...env, PATH: path.join(tmp, 'none') } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\n {4}Sealed: Codex runs the agent's commands/);
    assert.match(r.stdout, /\nSealed: Codex's own sandbox keeps the agent from your approval key and from writing \.pi\/; the hooks hold it to its plan\.\n$/);
    // The files that now carry this machine's paths, each once; the seal's folders stay this machine's whatever the command.
    assert.match(r.stdout, /\nMachine-specific: \.codex\/hooks\.json and \.codex\/config\.toml name absolute paths of this machine \(the command that runs pi-plans, the workspace folder and the folders the seal names\): .* writes the hooks and the MCP server with no path of this machine \(the seal's folders are this machine's whatever the command\)\.\n/);
    assert.equal((parseToml(fs.readFileSync(path.join(ws, '.codex', 'config.toml'), 'utf8')) as unknown as CodexConfig).default_permissions, 'pi-plans-sealed');
  });
});
