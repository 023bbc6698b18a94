// `pi-plans setup`'s merge logic on real files in temporary folders: a workspace and a home of its
// own per test, the hosts' files written as a person would have them (comments, other entries).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { parse as parseJsonc } from 'jsonc-parser';
import { HOOK_EVENTS, hookCommand, SetupHost } from '../../../src/hosts/setup/targets';
import { formatSetupReport, runAgentSetup, SetupOptions, SetupRefused, userFolders } from '../../../src/hosts/install/apply';

const COMMAND = ['/opt/node/bin/node', '/opt/pi plans/cli.js'];

describe('pi-plans setup: merging into the hosts\' configuration files', () => {
  let ws: string;
  let home: string;
  let folders: ReturnType<typeof userFolders>;
  const file = (...p: string[]) => path.join(ws, ...p);
  const read = (...p: string[]) => fs.readFileSync(file(...p), 'utf8');
  const write = (text: string, ...p: string[]) => {
    fs.mkdirSync(path.dirname(file(...p)), { recursive: true });
    fs.writeFileSync(file(...p), text);
  };
  const run = (agent: SetupHost, more: Partial<SetupOptions> = {}) => runAgentSetup({ agent, scope: 'workspace', hooks: true, mcp: true, command: COMMAND, workspace: ws, remove: false, dryRun: false, ...more }, folders);
  /** Every file under a folder with its bytes, to compare a tree before and after. */
  const snapshot = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
      }
    };
    walk(dir);
    return out;
  };

  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-setup-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-setup-home-'));
    folders = userFolders({}, home, 'linux');
  });
  afterEach(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const CLAUDE_SETTINGS = `// Team settings
{
  "permissions": { "allow": ["Bash(npm test)"] }, // keep this
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./lint.sh" } ] }
    ]
  }
}
`;

  it('Claude Code: adds one hook per event beside the person\'s hook, keeps their comments and entries, and writes .mcp.json', () => {
    write(CLAUDE_SETTINGS, '.claude', 'settings.json');
    const r = run('claude');
    const text = read('.claude', 'settings.json');
    assert.match(text, /^\/\/ Team settings\n/);
    assert.match(text, /"permissions": \{ "allow": \["Bash\(npm test\)"\] \}, \/\/ keep this/);
    assert.match(text, /\{ "matcher": "Bash", "hooks": \[ \{ "type": "command", "command": "\.\/lint\.sh" \} \] \},\n/);
    const hooks = parseJsonc(text).hooks as Record<string, { matcher?: string; hooks: { command: string; timeout: number; onFailure?: string }[] }[]>;
    assert.deepEqual(Object.keys(hooks).sort(), [...HOOK_EVENTS.claude].sort());
    assert.equal(hooks.PreToolUse.length, 2);
    assert.equal(hooks.PreToolUse[1].hooks[0].command, `/opt/node/bin/node '/opt/pi plans/cli.js' hook --agent claude --event PreToolUse`);
    // Claude Code blocks the call when this hook cannot start, times out or exits oddly (its own fail-closed switch).
    assert.equal(hooks.PreToolUse[1].hooks[0].onFailure, 'block');
    assert.equal(hooks.Stop[0].hooks[0].onFailure, undefined, 'a failed Stop hook never traps the agent');
    assert.equal(hooks.Stop[0].hooks[0].command, hookCommand(COMMAND, 'claude', 'Stop'));
    assert.equal(hooks.Stop[0].matcher, undefined, 'no matcher: every tool');
    const mcp = JSON.parse(read('.mcp.json'));
    assert.deepEqual(mcp, { mcpServers: { 'pi-plans': { type: 'stdio', command: COMMAND[0], args: [COMMAND[1], '--root', ws, 'mcp'] } } });
    assert.deepEqual(r.files.map((f) => [f.shown, f.status]), [['.claude/settings.json', 'updated'], ['.mcp.json', 'created']]);
  });

  it('is idempotent: a second run changes no byte and says so', () => {
    write(CLAUDE_SETTINGS, '.claude', 'settings.json');
    run('claude');
    const after = snapshot(ws);
    const again = run('claude');
    assert.deepEqual(snapshot(ws), after);
    assert.ok(again.files.every((f) => f.status === 'unchanged' && !f.changes.length));
    assert.match(formatSetupReport(again), /Already set up: nothing to change\./);
  });

  it('--remove restores the person\'s file byte for byte and deletes the files it created, with their empty folders', () => {
    write(CLAUDE_SETTINGS, '.claude', 'settings.json');
    const before = snapshot(ws);
    run('claude');
    const r = run('claude', { remove: true });
    assert.deepEqual(snapshot(ws), before);
    assert.deepEqual(r.files.map((f) => f.status), ['updated', 'deleted']);
    run('codex');
    run('codex', { remove: true });
    assert.equal(fs.existsSync(file('.codex')), false, 'the .codex folder setup made is gone');
  });

  it('--remove takes only ours: a hook of the person\'s inside the same group, and their own MCP servers, stay', () => {
    write('{\n  "mcpServers": {\n    "github": { "command": "gh-mcp" }\n  }\n}\n', '.mcp.json');
    run('claude');
    assert.deepEqual(Object.keys(JSON.parse(read('.mcp.json')).mcpServers), ['github', 'pi-plans']);
    // The person moved our hook into their own group, beside theirs.
    const s = parseJsonc(read('.claude', 'settings.json'));
    s.hooks.Stop = [{ hooks: [{ type: 'command', command: './notify.sh' }, ...s.hooks.Stop[0].hooks] }];
    write(JSON.stringify(s, null, 2), '.claude', 'settings.json');
    run('claude', { remove: true });
    assert.deepEqual(parseJsonc(read('.claude', 'settings.json')), { hooks: { Stop: [{ hooks: [{ type: 'command', command: './notify.sh' }] }] } });
    assert.equal(read('.mcp.json'), '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp" }\n  }\n}\n');
  });

  it('a changed command (the CLI moved) updates our entries in place instead of adding more', () => {
    run('claude');
    const r = run('claude', { command: ['pi-plans'] });
    const hooks = parseJsonc(read('.claude', 'settings.json')).hooks as Record<string, { hooks: { command: string }[] }[]>;
    assert.equal(hooks.PreToolUse.length, 1);
    assert.equal(hooks.PreToolUse[0].hooks[0].command, 'pi-plans hook --agent claude --event PreToolUse');
    assert.deepEqual(JSON.parse(read('.mcp.json')).mcpServers['pi-plans'].command, 'pi-plans');
    assert.ok(r.files.every((f) => f.changes.every((c) => c.startsWith('updated'))), JSON.stringify(r.files));
  });

  it('--dry-run reports the same changes and writes nothing', () => {
    write(CLAUDE_SETTINGS, '.claude', 'settings.json');
    const before = snapshot(ws);
    const dry = run('claude', { dryRun: true });
    assert.deepEqual(snapshot(ws), before);
    const real = run('claude');
    assert.deepEqual(dry.files.map((f) => f.changes), real.files.map((f) => f.changes));
    assert.match(formatSetupReport(dry), /would add hooks SessionStart/);
    assert.match(formatSetupReport(dry), /nothing is written/);
  });

  it('refuses a file that does not parse, names it and the fix, and writes nothing at all', () => {
    write('{\n  "hooks": {\n    "Stop": [ \n}\n', '.claude', 'settings.json');
    const before = snapshot(ws);
    assert.throws(() => run('claude'), (e: Error) => e instanceof SetupRefused && /\.claude\/settings\.json: it does not parse as JSON \(line \d+: \w+\)\. Fix the file/.test(e.message));
    assert.deepEqual(snapshot(ws), before, 'not even .mcp.json, which was fine');
    write('[mcp_servers\ncommand = 1\n', '.codex', 'config.toml');
    assert.throws(() => run('codex'), (e: Error) => e instanceof SetupRefused && /\.codex\/config\.toml: it does not parse as TOML/.test(e.message));
    assert.equal(fs.existsSync(file('.codex', 'hooks.json')), false);
  });

  it('refuses a key that holds something else than setup needs (hooks as a list)', () => {
    write('{ "hooks": [] }\n', '.claude', 'settings.json');
    assert.throws(() => run('claude'), (e: Error) => e instanceof SetupRefused && /"hooks" holds a list, not an object/.test(e.message));
    assert.equal(read('.claude', 'settings.json'), '{ "hooks": [] }\n');
  });

  it('never follows a linked configuration file out of the workspace at workspace scope', () => {
    const outside = path.join(home, 'elsewhere.json');
    fs.writeFileSync(outside, '{}\n');
    fs.mkdirSync(file('.claude'));
    fs.symlinkSync(outside, file('.claude', 'settings.json'));
    assert.throws(() => run('claude'), (e: Error) => e instanceof SetupRefused && /\.claude\/settings\.json leads out of the workspace through a link/.test(e.message));
    assert.equal(fs.readFileSync(outside, 'utf8'), '{}\n');
    // A linked folder too.
    fs.mkdirSync(path.join(home, 'gh'));
    fs.symlinkSync(path.join(home, 'gh'), file('.github'));
    assert.throws(() => run('copilot'), /\.github\/hooks\/pi-plans\.json leads out of the workspace/);
    assert.deepEqual(fs.readdirSync(path.join(home, 'gh')), []);
  });

  it('Copilot in VS Code and Copilot CLI share one hooks file, in the CLI\'s format, with no --agent (the payload tells the host)', () => {
    const r = run('copilot');
    const text = read('.github', 'hooks', 'pi-plans.json');
    const doc = JSON.parse(text);
    assert.equal(doc.version, 1);
    assert.deepEqual(Object.keys(doc.hooks), [...HOOK_EVENTS.copilot]);
    assert.deepEqual(doc.hooks.preToolUse, [{ type: 'command', bash: `/opt/node/bin/node '/opt/pi plans/cli.js' hook --event preToolUse`, powershell: `& /opt/node/bin/node '/opt/pi plans/cli.js' hook --event preToolUse`, timeoutSec: 30 }]);
    assert.deepEqual(JSON.parse(read('.vscode', 'mcp.json')), { servers: { 'pi-plans': { type: 'stdio', command: COMMAND[0], args: [COMMAND[1], '--root', '${workspaceFolder}', 'mcp'] } } });
    assert.match(formatSetupReport(r), /Copilot in VS Code and Copilot CLI both read this file/);
    // PowerShell reads `a,b` as two arguments, `@x` as a splat, `#` as a comment; `x=y` first in sh is an assignment: all quoted.
    assert.equal(hookCommand(['C:\\Node\\node.exe', 'C:\\tools,old\\@pi#1\\it\u2019s.js'], undefined, 'agentStop', 'powershell'), `& C:\\Node\\node.exe 'C:\\tools,old\\@pi#1\\it\u2019\u2019s.js' hook --event agentStop`);
    assert.equal(hookCommand(['NODE=1', '/a b/c.js'], 'claude', 'Stop'), `'NODE=1' '/a b/c.js' hook --agent claude --event Stop`);
    // Copilot CLI finds its hooks already there, and gets its MCP server in .mcp.json.
    const cli = run('copilot-cli');
    assert.deepEqual(cli.files.map((f) => [f.shown, f.status]), [['.github/hooks/pi-plans.json', 'unchanged'], ['.mcp.json', 'created']]);
    assert.equal(read('.github', 'hooks', 'pi-plans.json'), text);
    assert.match(formatSetupReport(run('copilot-cli', { remove: true })), /pi-plans\.json \(file deleted: nothing else was in it\): removed hooks .*\n {4}These hooks served Copilot in VS Code and Copilot CLI alike/);
  });

  it('Codex: hooks.json and [mcp_servers.pi-plans] in config.toml, the person\'s TOML comments and tables kept, removed exactly', () => {
    const toml = '# my Codex\nmodel = "gpt-5" # the model\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # local\n';
    write(toml, '.codex', 'config.toml');
    run('codex');
    const after = read('.codex', 'config.toml');
    assert.match(after, /^# my Codex\nmodel = "gpt-5" # the model\n/);
    assert.match(after, /command = "docs-mcp" # local/);
    assert.deepEqual({ ...parseToml(after).mcp_servers['pi-plans'] }, { command: COMMAND[0], args: [COMMAND[1], '--root', ws, 'mcp'] });
    const hooks = JSON.parse(read('.codex', 'hooks.json')).hooks;
    assert.deepEqual(Object.keys(hooks), [...HOOK_EVENTS.codex]);
    // A PreToolUse hook that fails (cannot start, dies) blocks: Codex reads exit code 2 as a block.
    assert.equal(hooks.PreToolUse[0].hooks[0].command, `${hookCommand(COMMAND, 'codex', 'PreToolUse')} || exit 2`);
    assert.equal(hooks.Stop[0].hooks[0].command, hookCommand(COMMAND, 'codex', 'Stop'));
    assert.equal(run('codex').files.every((f) => f.status === 'unchanged'), true);
    run('codex', { remove: true });
    assert.equal(read('.codex', 'config.toml'), toml);
    assert.equal(fs.existsSync(file('.codex', 'hooks.json')), false);
  });

  it('--no-hooks and --no-mcp leave their files alone', () => {
    assert.deepEqual(run('claude', { hooks: false }).files.map((f) => f.shown), ['.mcp.json']);
    assert.deepEqual(run('codex', { mcp: false }).files.map((f) => f.shown), ['.codex/hooks.json']);
    assert.equal(fs.existsSync(file('.claude')), false);
    assert.equal(fs.existsSync(file('.codex', 'config.toml')), false);
  });

  it('--command on the PATH (pi-plans): no file names a path of this machine, the MCP server serves the folder the host starts it in, and the report says so', () => {
    const onPath = (agent: SetupHost) => run(agent, { command: ['pi-plans'] });
    const reports = (['claude', 'codex', 'copilot', 'copilot-cli', 'cursor'] as const).map(onPath);
    assert.deepEqual(JSON.parse(read('.mcp.json')).mcpServers['pi-plans'], { type: 'stdio', command: 'pi-plans', args: ['mcp'] });
    assert.deepEqual({ ...parseToml(read('.codex', 'config.toml')).mcp_servers['pi-plans'] }, { command: 'pi-plans', args: ['mcp'] });
    // VS Code and Cursor put in the folder they have open.
    assert.deepEqual(JSON.parse(read('.vscode', 'mcp.json')).servers['pi-plans'].args, ['--root', '${workspaceFolder}', 'mcp']);
    assert.deepEqual(JSON.parse(read('.cursor', 'mcp.json')).mcpServers['pi-plans'].args, ['--root', '${workspaceFolder}', 'mcp']);
    const all = snapshot(ws);
    assert.deepEqual(Object.keys(all).sort(), ['.claude/settings.json', '.codex/config.toml', '.codex/hooks.json', '.cursor/mcp.json', '.github/hooks/pi-plans.json', '.mcp.json', '.vscode/mcp.json']);
    for (const [f, text] of Object.entries(all)) {
      assert.ok(!text.includes(ws) && !text.includes(home), `${f} names no folder of this machine: ${text}`);
      assert.doesNotMatch(text, /"\/|'\/| \//, `${f}: no absolute path`);
    }
    for (const r of reports) {
      assert.ok(r.files.every((f) => !f.machinePaths), r.agent);
      assert.doesNotMatch(formatSetupReport(r), /Machine-specific/, r.agent);
    }
    assert.match(formatSetupReport(reports[0]), /\nThe MCP server entry names no folder: the server serves the folder Claude Code starts it in, this workspace when Claude Code is started here\.\n/);
  });

  it('a command by absolute path (the default): the report names the files that carry this machine\'s paths, what they are, and the command that writes none', () => {
    const out = formatSetupReport(run('claude'));
    assert.match(out, /\nMachine-specific: \.claude\/settings\.json and \.mcp\.json name absolute paths of this machine \(the command that runs pi-plans and the workspace folder\): committed, they work only where those paths are the same; otherwise keep them out of git and have each person run setup\. With pi-plans on the PATH, `pi-plans setup --agent claude --command pi-plans` writes them with no path of this machine\.\nNot sealed: /, 'before the last word, on what holds the agent');
    // VS Code's entry names the folder it has open, not this one: only the command is this machine's.
    assert.match(formatSetupReport(run('copilot', { hooks: false })), /Machine-specific: \.vscode\/mcp\.json names absolute paths of this machine \(the command that runs pi-plans\): committed, it works/);
    // Nothing changed: nothing said. User scope: the home's files, never committed with the workspace.
    assert.doesNotMatch(formatSetupReport(run('claude')), /Machine-specific/);
    assert.doesNotMatch(formatSetupReport(run('codex', { scope: 'user' })), /Machine-specific/);
    assert.doesNotMatch(formatSetupReport(run('claude', { remove: true })), /Machine-specific/);
  });

  it('Cursor: its MCP server in .cursor/mcp.json (~/.cursor/mcp.json at user scope) with ${workspaceFolder}, no hooks, no seal, and the report says it is not held to a plan', () => {
    const r = run('cursor');
    assert.deepEqual(JSON.parse(read('.cursor', 'mcp.json')), { mcpServers: { 'pi-plans': { command: COMMAND[0], args: [COMMAND[1], '--root', '${workspaceFolder}', 'mcp'] } } });
    assert.deepEqual(Object.keys(snapshot(ws)), ['.cursor/mcp.json'], 'no hooks, nothing else');
    const out = formatSetupReport(r);
    assert.match(out, /^Setting up Cursor \(workspace scope\):\n {2}\.cursor\/mcp\.json \(new file\): added MCP server pi-plans\n/);
    assert.match(out, /\nCursor gets the plan tools only: Pi Plans has no hooks for Cursor and cannot seal it, so nothing holds its agent to a plan .*pi-plans key --protect\.\n/);
    assert.throws(() => run('cursor', { seal: true }), (e: Error) => e instanceof SetupRefused && /^Cursor cannot be sealed: .*Run setup without --seal.*Nothing was written\.$/.test(e.message));
    assert.throws(() => run('cursor', { seal: true, command: ['pi-plans'] }), SetupRefused);
    assert.deepEqual(JSON.parse(read('.cursor', 'mcp.json')).mcpServers['pi-plans'].command, COMMAND[0], 'the refused runs wrote nothing');
    assert.equal(run('cursor', { mcp: false }).files.length, 0);
    run('cursor', { remove: true });
    assert.deepEqual(fs.readdirSync(ws), [], 'removed with the folder it made');
    run('cursor', { scope: 'user' });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers['pi-plans'].args, [COMMAND[1], '--root', '${workspaceFolder}', 'mcp']);
    assert.deepEqual(fs.readdirSync(ws), []);
  });

  it('user scope: the home folders each host reads (no --root in the MCP server: it serves the folder it starts in)', () => {
    run('claude', { scope: 'user' });
    run('codex', { scope: 'user' });
    run('copilot-cli', { scope: 'user' });
    assert.ok(parseJsonc(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8')).mcpServers['pi-plans'].args, [COMMAND[1], 'mcp']);
    assert.ok(JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).hooks.Stop);
    assert.ok(parseToml(fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8')).mcp_servers['pi-plans']);
    assert.ok(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'pi-plans.json'), 'utf8')).hooks.agentStop);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8')).mcpServers['pi-plans'].tools, ['*']);
    assert.deepEqual(fs.readdirSync(ws), [], 'nothing in the workspace');
    assert.deepEqual(userFolders({ CODEX_HOME: '/c', COPILOT_HOME: '/p', CLAUDE_CONFIG_DIR: '/k' }, '/h', 'linux'), { home: '/h', claudeState: '/k', claudeHome: '/k', codexHome: '/c', copilotHome: '/p', vscodeUser: '/h/.config/Code/User', cursorHome: '/h/.cursor' });
  });
});
