// `pi-plans setup` as people run it: the built CLI (dist/cli.js) in its own process, on a
// temporary workspace and a temporary home.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { atTerminalSync } from '../../helpers/person.mjs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

describe('pi-plans setup (the built CLI)', function () {
  this.timeout(60_000);
  let ws: string;
  let home: string;
  const envOf = () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home };
    for (const k of ['CODEX_HOME', 'COPILOT_HOME', 'CLAUDE_CONFIG_DIR']) delete env[k];
    return env;
  };
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', ws, ...args], { cwd: ws, encoding: 'utf8', env: envOf() });
  const read = (...p: string[]) => fs.readFileSync(path.join(ws, ...p), 'utf8');

  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-setup-cli-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-setup-cli-home-'));
  });
  afterEach(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('writes, says what it wrote, is idempotent, and --remove puts the person\'s file back', () => {
    const mine = '{\n  // the team\'s\n  "permissions": { "deny": ["Read(.env)"] }\n}\n';
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), mine);
    const first = cli('setup', '--agent', 'claude');
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^Setting up Claude Code \(workspace scope\):\n {2}\.claude\/settings\.json: added hooks SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop, SessionEnd\n/);
    assert.match(first.stdout, /\.mcp\.json \(new file\): added MCP server pi-plans/);
    const hook = parseJsonc(read('.claude', 'settings.json')).hooks.PreToolUse[0].hooks[0].command as string;
    // Run as dist/cli.js, setup writes the bin beside it (dist/bin.js): the hook's small bundle, not the whole CLI.
    assert.equal(hook, `${process.execPath} ${path.join(path.dirname(CLI), 'bin.js')} hook --agent claude --event PreToolUse`, 'this Node and the bin beside this script, by absolute path');
    const second = cli('setup', '--agent', 'claude');
    assert.equal(second.status, 0);
    assert.match(second.stdout, /Already set up: nothing to change\.\n$/);
    // Taking the hooks out is the person's act: at their terminal (a plain key: their yes is enough).
    const removed = atTerminalSync(CLI, ['--root', ws, 'setup', '--agent', 'claude', '--remove'], { env: envOf(), cwd: ws });
    assert.match(removed.stdout, /Remove Pi Plans' hooks from \.claude\/settings\.json, so Claude Code is no longer held to its plans\? \[y\/N\]/);
    assert.equal(read('.claude', 'settings.json'), mine);
    assert.equal(fs.existsSync(path.join(ws, '.mcp.json')), false);
    assert.match(cli('setup', '--agent', 'claude', '--remove').stdout, /Nothing to remove\./);
  });

  it('the MCP server entry it writes starts this CLI on this workspace', () => {
    assert.equal(cli('setup', '--agent', 'copilot', '--no-hooks').status, 0);
    const server = JSON.parse(read('.vscode', 'mcp.json')).servers['pi-plans'] as { command: string; args: string[] };
    assert.equal(server.args.at(-1), 'mcp');
    // The same program and arguments, asked for its version instead of serving.
    const r = spawnSync(server.command, [...server.args.slice(0, -1).map((a) => a.replace('${workspaceFolder}', ws)), '--version'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^\d+\.\d+\.\d+/);
  });

  it('--command pi-plans (on the PATH): .mcp.json names no path, and its server, started in the workspace as the hosts start it, serves that workspace', async () => {
    const r = cli('setup', '--agent', 'claude', '--command', 'pi-plans');
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /Machine-specific/);
    const server = JSON.parse(read('.mcp.json')).mcpServers['pi-plans'] as { command: string; args: string[] };
    assert.deepEqual(server, { type: 'stdio', command: 'pi-plans', args: ['mcp'] });
    assert.ok(!read('.claude', 'settings.json').includes(ws) && !read('.mcp.json').includes(ws));
    // pi-plans on the PATH, as a person installs it; the entry run as written, in the workspace.
    const bin = path.join(home, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'pi-plans'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(path.dirname(CLI), 'bin.js')}" "$@"\n`, { mode: 0o755 });
    const id = 'PLAN-0000feed';
    fs.mkdirSync(path.join(ws, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.pi', 'plans', `${id}.md`), `---\nid: ${id}\ntitle: Served from here\nstatus: proposed\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nBe found\n\n## Steps\n1. [ ] S001 Do it\n`);
    const env = { ...envOf(), PATH: `${bin}${path.delimiter}${process.env.PATH}` } as Record<string, string>;
    const transport = new StdioClientTransport({ command: server.command, args: server.args, cwd: ws, env, stderr: 'pipe' });
    const client = new Client({ name: 'pi-plans-setup-test', version: '1.0.0' });
    let serverErr = '';
    transport.stderr?.on('data', (b: Buffer) => (serverErr += b.toString()));
    try {
      await client.connect(transport);
      const listed = (await client.callTool({ name: 'pi_plan_list', arguments: {} })) as { content: { text?: string }[] };
      assert.match(listed.content.map((c) => c.text ?? '').join('\n'), new RegExp(`${id}.*Served from here`), serverErr);
      assert.match(serverErr, new RegExp(`serving ${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on stdio`));
    } finally {
      await client.close();
    }
  });

  it('--agent cursor writes .cursor/mcp.json and says Cursor gets the tools, no hooks and no seal; --seal is refused, naming what to do', () => {
    const r = cli('setup', '--agent', 'cursor');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\.cursor\/mcp\.json \(new file\): added MCP server pi-plans/);
    assert.match(r.stdout, /Cursor gets the plan tools only: Pi Plans has no hooks for Cursor and cannot seal it/);
    assert.match(r.stdout, /Machine-specific: \.cursor\/mcp\.json names absolute paths of this machine \(the command that runs pi-plans\)/);
    assert.deepEqual(fs.readdirSync(ws), ['.cursor']);
    const sealed = cli('setup', '--agent', 'cursor', '--seal');
    assert.equal(sealed.status, 1);
    assert.match(sealed.stderr, /^pi-plans setup: Cursor cannot be sealed: .* Run setup without --seal, and protect the approval key with a passphrase: pi-plans key --protect\. Nothing was written\.\n$/);
  });

  it('--dry-run prints the changes and writes nothing; --command sets how the agent runs pi-plans', () => {
    const r = cli('setup', '--agent', 'copilot-cli', '--dry-run', '--command', 'pi-plans');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\.github\/hooks\/pi-plans\.json \(new file\): would add hooks sessionStart, userPromptSubmitted, preToolUse, postToolUse, agentStop, sessionEnd/);
    assert.match(r.stdout, /Dry run: run the same command without --dry-run/);
    assert.deepEqual(fs.readdirSync(ws), []);
    assert.equal(cli('setup', '--agent', 'copilot-cli', '--command', 'pi-plans').status, 0);
    assert.equal(JSON.parse(read('.github', 'hooks', 'pi-plans.json')).hooks.agentStop[0].bash, 'pi-plans hook --event agentStop');
  });

  it('refuses a configuration file that does not parse: exit 1, the file and the fix named, nothing written', () => {
    fs.mkdirSync(path.join(ws, '.codex'));
    fs.writeFileSync(path.join(ws, '.codex', 'hooks.json'), '{ "hooks": { ');
    const r = cli('setup', '--agent', 'codex');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^pi-plans setup: \.codex\/hooks\.json: it does not parse as JSON \(line 1: \w+\)\. Fix the file \(or move it aside\), then run setup again\. Nothing was written\.\n$/);
    assert.equal(read('.codex', 'hooks.json'), '{ "hooks": { ');
    assert.deepEqual(fs.readdirSync(path.join(ws, '.codex')), ['hooks.json']);
  });

  it('--scope user writes in the home folder, not the workspace', () => {
    const r = cli('setup', '--agent', 'codex', '--scope', 'user');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /~\/\.codex\/hooks\.json \(new file\)/);
    assert.match(r.stdout, /open \/hooks in Codex/);
    assert.ok(fs.existsSync(path.join(home, '.codex', 'config.toml')));
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('the hook commands it writes run through a shell from folders with spaces (the CLI, the workspace, the home), for every host\'s file', () => {
    // The CLI in a folder with a space (like VS Code's globalStorage under a home "John Doe"), run as people run it (the bin).
    const spaced = fs.mkdtempSync(path.join(os.tmpdir(), 'pi plans setup '));
    const dist = path.join(spaced, 'global storage', "it's here");
    const spacedWs = path.join(spaced, 'my project');
    const spacedHome = path.join(spaced, 'John Doe');
    fs.mkdirSync(dist, { recursive: true });
    fs.mkdirSync(path.join(spacedWs, '.pi', 'plans'), { recursive: true });
    fs.mkdirSync(spacedHome);
    for (const f of ['bin.js', 'cli.js', 'hook.js']) fs.copyFileSync(path.join(ROOT, 'dist', f), path.join(dist, f));
    const id = 'PLAN-0000c0de';
    fs.writeFileSync(path.join(spacedWs, '.pi', 'plans', `${id}.md`), `---\nid: ${id}\ntitle: Spaces\nstatus: proposed\nversion: 1\n---\n\n## Steps\n\n1. [ ] S001 Edit it\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: spacedHome, USERPROFILE: spacedHome, CLAUDE_PROJECT_DIR: '' };
    for (const k of ['CODEX_HOME', 'COPILOT_HOME', 'CLAUDE_CONFIG_DIR']) delete env[k];
    const setup = (...args: string[]) => {
      const r = spawnSync(process.execPath, [path.join(dist, 'bin.js'), '--root', spacedWs, 'setup', ...args], { cwd: spacedWs, encoding: 'utf8', env });
      assert.equal(r.status, 0, r.stderr);
    };
    try {
      setup('--agent', 'claude');
      setup('--agent', 'codex', '--scope', 'user');
      setup('--agent', 'copilot');
      const fixture = (dir: string, name: string, change: (p: Record<string, unknown>) => void) => {
        const p = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'hooks', dir, `${name}.json`), 'utf8').replaceAll('/home/dev/proj', spacedWs)) as Record<string, unknown>;
        change(p);
        return JSON.stringify(p);
      };
      /** Runs a written command line the way the hosts do (a POSIX shell, the payload on stdin), in the workspace. */
      const sh = (command: string, input: string) => spawnSync('/bin/sh', ['-c', command], { cwd: spacedWs, input, encoding: 'utf8', env });
      const cases: { file: string; command: (doc: any) => string; dir: string; session: string }[] = [ // eslint-disable-line @typescript-eslint/no-explicit-any -- hook files read field by field
        { file: path.join(spacedWs, '.claude', 'settings.json'), command: (d) => d.hooks.PreToolUse[0].hooks[0].command, dir: 'claude', session: 'claude-session' },
        { file: path.join(spacedHome, '.codex', 'hooks.json'), command: (d) => d.hooks.PreToolUse[0].hooks[0].command, dir: 'codex', session: 'codex-session' },
        { file: path.join(spacedWs, '.github', 'hooks', 'pi-plans.json'), command: (d) => d.hooks.preToolUse[0].bash, dir: 'vscode', session: 'vscode-session' },
      ];
      for (const c of cases) {
        const command = c.command(parseJsonc(fs.readFileSync(c.file, 'utf8')));
        assert.ok(command.includes(dist.replace(/'/g, `'\\''`)), `${c.file}: ${command}`);
        const bind = sh(command, fixture(c.dir, 'PreToolUse.mcp', (p) => Object.assign(p, { session_id: c.session, tool_input: { id } })));
        assert.equal(bind.status, 0, `${command}: ${bind.stderr}`);
        assert.equal(bind.stderr, '', command);
        const edit = sh(command, fixture(c.dir, c.dir === 'vscode' ? 'PreToolUse.create_file' : c.dir === 'codex' ? 'PreToolUse.apply_patch' : 'PreToolUse.edit', (p) => (p.session_id = c.session)));
        assert.equal(edit.status, 0, edit.stderr);
        assert.equal(JSON.parse(edit.stdout).hookSpecificOutput.permissionDecision, 'deny', `${c.file}: the hook ran and denied: ${edit.stdout}`);
      }
      // PowerShell (Windows): the program and the script quoted, the call operator before them.
      const ps = JSON.parse(fs.readFileSync(cases[2].file, 'utf8')).hooks.preToolUse[0].powershell as string;
      assert.equal(ps, `& ${process.execPath.includes(' ') ? `'${process.execPath}'` : process.execPath} '${path.join(dist, 'bin.js').replace(/'/g, "''")}' hook --event preToolUse`);
    } finally {
      fs.rmSync(spaced, { recursive: true, force: true });
    }
  });

  it('a wrong or missing --agent is a usage error that lists the hosts', () => {
    const r = cli('setup', '--agent', 'windsurf');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Allowed choices are copilot, claude, codex, copilot-cli, cursor/);
    assert.equal(cli('setup').status, 2);
  });
});
