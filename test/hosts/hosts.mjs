// Runs the real agent hosts (Claude Code, Codex, Copilot CLI) against the scripted model, in a
// temporary workspace that `pi-plans setup` set up as a user would, with every home, config,
// state and cache folder under one temporary folder (never the user's).
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atTerminalSync } from '../helpers/person.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// PI_PLANS_DIST: another build's dist/ (to run the suite against another version of the hook).
export const DIST = process.env.PI_PLANS_DIST ? path.resolve(process.env.PI_PLANS_DIST) : path.join(ROOT, 'dist');
const BIN = path.join(ROOT, '.tools', 'hosts', 'node_modules', '.bin');

/** The hosts, by our short name: the `--agent` setup takes, and the names their hook events go by. */
export const HOSTS = {
  claude: { agent: 'claude', title: 'Claude Code', events: { start: 'SessionStart', pre: 'PreToolUse', post: 'PostToolUse', stop: 'Stop', end: 'SessionEnd' } },
  codex: { agent: 'codex', title: 'Codex', events: { start: 'SessionStart', pre: 'PreToolUse', post: 'PostToolUse', stop: 'Stop', end: undefined } },
  copilot: { agent: 'copilot-cli', title: 'Copilot CLI', events: { start: 'sessionStart', pre: 'preToolUse', post: 'postToolUse', stop: 'agentStop', end: 'sessionEnd' } },
};

/** How long one host session may run before it is killed (a session takes ~2–7 s). */
const RUN_TIMEOUT_MS = 60_000;

/**
 * A fresh workspace for a host: a git repository holding src/app.js and src/other.js, set up
 * with `pi-plans setup --agent <host>` (hooks and MCP server), and a home folder for the host.
 * `capture`: also keep every hook payload the host sends, as JSON lines per event (measuring).
 * `hooks: false`: set up the MCP server only (the same session without the hooks, for the bench).
 * `seal: true`: `setup --seal` too (the host's own sandbox, set for this workspace's home folders).
 * `command`: setup's `--command` (e.g. `pi-plans`, the shim on the PATH): by default this Node and dist/bin.js, by absolute path.
 */
export function makeWorkspace(host, { capture = false, hooks = true, seal = false, command } = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `pi-plans-host-${host}-`));
  const home = path.join(tmp, 'home');
  const ws = { host, tmp, dir: path.join(tmp, 'proj'), home, bin: path.join(home, '.local', 'bin'), captured: capture ? path.join(tmp, 'captured') : undefined };
  for (const d of [ws.home, ws.bin, path.join(tmp, 'tmp'), path.join(ws.dir, 'src'), path.join(ws.dir, '.pi', 'plans')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(ws.dir, 'src', 'app.js'), 'export const greeting = "hello";\n');
  fs.writeFileSync(path.join(ws.dir, 'src', 'other.js'), 'export const other = 1;\n');
  // The plan folder is in the repository, as where plans are kept with the code: a checkout of it
  // (a worktree) has one too.
  fs.writeFileSync(path.join(ws.dir, '.pi', 'plans', '.gitkeep'), '');
  // The agent's shell finds `pi-plans` on the PATH, as where a user installed it in ~/.local/bin,
  // which Debian's default ~/.profile puts on the PATH of a login shell (Codex runs its commands in one).
  fs.writeFileSync(path.join(ws.bin, 'pi-plans'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(DIST, 'bin.js')}" "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(home, '.profile'), 'if [ -d "$HOME/.local/bin" ] ; then\n    PATH="$HOME/.local/bin:$PATH"\nfi\n');
  ws.env = hostEnv(ws);
  const git = (...args) => execFileSync('git', args, { cwd: ws.dir, env: ws.env, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-qm', 'init');
  // `hooks: false` (the bench's run without them): the MCP server only.
  ws.setup = piPlans(ws, 'setup', '--agent', HOSTS[host].agent, ...(hooks ? [] : ['--no-hooks']), ...(seal ? ['--seal'] : []), ...(command ? ['--command', command] : []));
  if (capture) captureHooks(ws);
  return ws;
}

/** Removes the workspace and its home. */
export function removeWorkspace(ws) {
  if (ws) fs.rmSync(ws.tmp, { recursive: true, force: true });
}

/** The environment every process of a workspace gets: nothing of the user's but PATH. */
function hostEnv(ws) {
  const h = ws.home;
  return {
    PATH: `${ws.bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HOME: h,
    TMPDIR: path.join(ws.tmp, 'tmp'),
    XDG_CONFIG_HOME: path.join(h, '.config'),
    XDG_STATE_HOME: path.join(h, '.local', 'state'),
    XDG_CACHE_HOME: path.join(h, '.cache'),
    XDG_DATA_HOME: path.join(h, '.local', 'share'),
    CLAUDE_CONFIG_DIR: path.join(h, '.claude'),
    CODEX_HOME: path.join(h, '.codex'),
    COPILOT_HOME: path.join(h, '.copilot'),
  };
}

/**
 * The person lets terminal commands run while a plan is planned (in their user configuration, and
 * in the workspace settings today's hook reads): then only the hook's reading of a command stands
 * between the agent and an approval it must not make.
 */
export function allowPlanningCommands(ws) {
  const hooks = { planningTerminal: 'allow' };
  const config = path.join(ws.env.XDG_CONFIG_HOME, 'pi-plans', 'config.json');
  fs.mkdirSync(path.dirname(config), { recursive: true });
  fs.writeFileSync(config, JSON.stringify({ hooks }, null, 2));
  fs.mkdirSync(path.join(ws.dir, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws.dir, '.vscode', 'settings.json'), JSON.stringify({ 'piPlans.hooks.planningTerminal': 'allow' }, null, 2));
}

/**
 * Codex's user config: the scripted model as its provider, and the workspace trusted (hooks run
 * only in a trusted project). gpt-5.5 is a model Codex knows, so it offers its usual tool set
 * (apply_patch, tool_search) and compacts at that model's limit.
 */
function writeCodexConfig(ws, url) {
  fs.mkdirSync(ws.env.CODEX_HOME, { recursive: true });
  const toml = [
    'model = "gpt-5.5"',
    'model_provider = "scripted"',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'env_key = "SCRIPTED_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    `[projects."${ws.dir}"]`,
    'trust_level = "trusted"',
    '',
  ];
  fs.writeFileSync(path.join(ws.env.CODEX_HOME, 'config.toml'), toml.join('\n'));
}

/** The hook files of a workspace, as setup wrote them: each host's, with how its entries hold a command. */
function hookFile(ws) {
  if (ws.host === 'copilot') return { file: path.join(ws.dir, '.github', 'hooks', 'pi-plans.json'), entries: (list) => list };
  return { file: path.join(ws.dir, ws.host === 'claude' ? '.claude/settings.json' : '.codex/hooks.json'), entries: (groups) => groups.flatMap((g) => g.hooks) };
}

/**
 * Wraps each hook command so the payload is kept (one JSON line per call, per event) before
 * pi-plans answers it, with the hook's CLAUDE_PROJECT_DIR and working folder beside it
 * (`<event>.jsonl.env`, tab-separated): for measuring what a host sends.
 */
function captureHooks(ws) {
  fs.mkdirSync(ws.captured, { recursive: true });
  const script = path.join(ws.tmp, 'capture.sh');
  // Codex writes no newline after a payload: the line is ended here; the hook gets the bytes as sent.
  fs.writeFileSync(script, ['f="$1"; shift', 'p=$(cat)', `printf '%s\\n' "$p" >> "$f"`, `printf '%s\\t%s\\n' "\${CLAUDE_PROJECT_DIR-unset}" "$PWD" >> "$f.env"`, `printf '%s' "$p" | "$@"`, ''].join('\n'));
  const { file, entries } = hookFile(ws);
  const o = JSON.parse(fs.readFileSync(file, 'utf8'));
  const key = ws.host === 'copilot' ? 'bash' : 'command';
  for (const [event, list] of Object.entries(o.hooks)) for (const h of entries(list)) h[key] = `sh ${script} ${path.join(ws.captured, `${event}.jsonl`)} ${h[key]}`;
  fs.writeFileSync(file, JSON.stringify(o, null, 2));
}

/** Changes each of pi-plans' own PreToolUse hook commands as setup wrote them (its failure settings kept). */
export function changePiPlansPreToolHook(ws, change) {
  const { file, entries } = hookFile(ws);
  const o = JSON.parse(fs.readFileSync(file, 'utf8'));
  const key = ws.host === 'copilot' ? 'bash' : 'command';
  for (const h of entries(o.hooks[HOSTS[ws.host].events.pre])) h[key] = change(h[key]);
  fs.writeFileSync(file, JSON.stringify(o, null, 2));
}

/** Adds a PreToolUse hook of our own beside pi-plans' (same file), run with a timeout in seconds. */
export function addPreToolHook(ws, command, timeout) {
  const { file } = hookFile(ws);
  const o = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (ws.host === 'copilot') o.hooks.preToolUse.push({ type: 'command', bash: command, timeoutSec: timeout });
  else o.hooks.PreToolUse.push({ hooks: [{ type: 'command', command, timeout }] });
  fs.writeFileSync(file, JSON.stringify(o, null, 2));
}

/** The captured payloads of one event, parsed, each with the hook's `env` (CLAUDE_PROJECT_DIR, working folder). */
export function captured(ws, event) {
  const f = path.join(ws.captured, `${event}.jsonl`);
  if (!fs.existsSync(f)) return [];
  const env = fs.readFileSync(`${f}.env`, 'utf8').split('\n');
  return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l, i) => {
    const [projectDir, pwd] = env[i].split('\t');
    return { payload: JSON.parse(l), env: { CLAUDE_PROJECT_DIR: projectDir === 'unset' ? undefined : projectDir, pwd } };
  });
}

/**
 * The command line of one non-interactive host run; `resume` continues that session. `allow`:
 * more of Claude Code's tools its own prompts let through (`Read`: reads outside the project too).
 * `sandbox`: Codex runs its commands in its own sandbox, as its configuration sets it (the seal's
 * permission profile, or its default `:workspace`), not with `--dangerously-bypass-approvals-and-sandbox`.
 */
function commandOf(ws, model, prompt, { resume, session, allow = [], sandbox = false }) {
  switch (ws.host) {
    case 'claude':
      return {
        cmd: path.join(BIN, 'claude'),
        // The host's own permission prompts let everything through (acceptEdits, and Bash and our
        // MCP server allowed), so what stops a call is the hook (or, sealed, the host's sandbox and deny rules).
        args: ['-p', prompt, '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', 'mcp__pi-plans', ...allow, ...(resume ? ['--resume', resume] : [])],
        env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-scripted', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1' },
      };
    case 'codex':
      writeCodexConfig(ws, model.url);
      return {
        cmd: path.join(BIN, 'codex'),
        // codex exec runs project hooks only with --dangerously-bypass-hook-trust; no sandbox and no approvals, so only the hook stops a call.
        // With `sandbox`, Codex's own sandbox too; codex exec asks no one, so the person lets pi-plans' MCP tools run unasked
        // (an interactive Codex asks them, as an MCP elicitation, which the seal's approval policy still lets through).
        args: [
          'exec',
          ...(resume ? ['resume', resume] : []),
          '--json',
          '--skip-git-repo-check',
          '--dangerously-bypass-hook-trust',
          ...(sandbox ? ['-c', 'mcp_servers.pi-plans.default_tools_approval_mode="approve"'] : ['--dangerously-bypass-approvals-and-sandbox']),
          prompt,
        ],
        env: { SCRIPTED_API_KEY: 'sk-scripted' },
      };
    case 'copilot':
      return {
        cmd: path.join(BIN, 'copilot'),
        args: ['-p', prompt, '--output-format', 'json', '--allow-all-paths', '--no-color', ...(resume ? [`--resume=${resume}`] : ['--session-id', session])],
        env: { COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_TYPE: 'anthropic', COPILOT_PROVIDER_BASE_URL: model.url, COPILOT_PROVIDER_API_KEY: 'sk-scripted', COPILOT_MODEL: 'claude-sonnet-4.5', COPILOT_ALLOW_ALL: 'true', COPILOT_AUTO_UPDATE: 'false' },
      };
  }
  throw new Error(`no host ${ws.host}`);
}

/**
 * Runs one non-interactive host session in the workspace against the model; resolves with its
 * exit, output, run time and session id. The process runs in its own process group, killed when
 * it exits or times out (its MCP server and any hook still running go with it).
 */
export function runHost(ws, model, prompt, { resume, timeoutMs = RUN_TIMEOUT_MS, allow, sandbox } = {}) {
  const session = resume ?? randomUUID();
  const { cmd, args, env } = commandOf(ws, model, prompt, { resume, session, allow, sandbox });
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ws.dir, env: { ...ws.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, signal, timedOut, stdout, stderr, ms: Date.now() - started, session: sessionOf(ws.host, stdout) ?? session });
    });
  });
}

/** The session id a run printed (Claude's result, Codex's thread.started); Copilot's is the one we gave it. */
function sessionOf(host, stdout) {
  for (const line of stdout.split('\n')) {
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    if (host === 'claude' && o.session_id) return o.session_id;
    if (host === 'codex' && o.type === 'thread.started') return o.thread_id;
  }
  return undefined;
}

/** `pi-plans <args>` in the workspace, as its person would run it (their home and keys). */
export function piPlans(ws, ...args) {
  return execFileSync(process.execPath, [path.join(DIST, 'bin.js'), '--root', ws.dir, ...args], { cwd: ws.dir, env: ws.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The digest `pi-plans show --json` prints: what an approval names. */
export const digestOf = (ws, id) => JSON.parse(piPlans(ws, 'show', id, '--json')).digest;

/**
 * A person's approval of the plan as it is now, at a terminal (a pseudo-terminal, answered "y").
 * The one place the suite approves.
 */
export function approve(ws, id) {
  return atTerminalSync(path.join(DIST, 'bin.js'), ['--root', ws.dir, 'approve', id, '--digest', digestOf(ws, id)], { cwd: ws.dir, env: ws.env }).stdout;
}

/**
 * A person resumes a stalled (or failed) plan at a terminal (`pi-plans resume`, answered "y"): the
 * plan an agent's session left open when it ended its turn twice executes again.
 */
export function resume(ws, id) {
  return atTerminalSync(path.join(DIST, 'bin.js'), ['--root', ws.dir, 'resume', id], { cwd: ws.dir, env: ws.env }).stdout;
}

/** The plan file's text, its status line and its step lines. */
export const planText = (ws, id) => fs.readFileSync(path.join(ws.dir, '.pi', 'plans', `${id}.md`), 'utf8');
export const planStatus = (ws, id) => /^status: (\S+)$/m.exec(planText(ws, id))?.[1];
export const planSteps = (ws, id) => planText(ws, id).split('\n').filter((l) => /^\d+\. \[[ x]\] S\d{3}/.test(l));

/** A workspace file's text. */
export const readFile = (ws, rel) => fs.readFileSync(path.join(ws.dir, rel), 'utf8');

/** The plan tools a scripted agent uses. */
const PLAN_TOOLS = ['pi_plan_create', 'pi_plan_get', 'pi_plan_submit', 'pi_plan_cancel', 'pi_plan_execute', 'pi_plan_step'];

/**
 * The scripted agent's tool calls as turns, by the host's real tool names and argument shapes:
 * the same intent (load the plan tools, call one, run a command, read, edit or write a file)
 * spelled as each host's model would. `read` and `load` are undefined where the host needs none.
 */
export function agentTools(ws) {
  const abs = (rel) => path.join(ws.dir, rel);
  const one = (name, input, extra = {}) => ({ calls: [{ name, input, ...extra }] });
  const patch = (body) => `*** Begin Patch\n${body}\n*** End Patch\n`;
  switch (ws.host) {
    case 'claude':
      return {
        // MCP tools are deferred: the model loads their schemas with ToolSearch before calling them.
        load: () => one('ToolSearch', { query: 'select:' + PLAN_TOOLS.map((t) => `mcp__pi-plans__${t}`).join(','), max_results: PLAN_TOOLS.length }),
        mcp: (tool, input) => one(`mcp__pi-plans__${tool}`, input),
        shell: (command) => one('Bash', { command, description: 'run a command' }),
        // As Claude's model does, the script reads a file before it edits it (2.1.328 does not insist).
        read: (rel) => one('Read', { file_path: abs(rel) }),
        edit: (rel, from, to) => one('Edit', { file_path: abs(rel), old_string: from, new_string: to }),
        write: (rel, text) => one('Write', { file_path: abs(rel), content: text }),
      };
    case 'codex':
      return {
        // gpt-5.5's tool set defers MCP tools behind tool_search, but Codex runs a call to one by its namespace directly.
        load: undefined,
        mcp: (tool, input) => one(tool, input, { namespace: 'mcp__pi_plans' }),
        shell: (command, extra = {}) => one('exec_command', { cmd: command, ...extra }),
        read: undefined,
        edit: (rel, from, to) => one('apply_patch', patch(`*** Update File: ${rel}\n@@\n-${from}\n+${to}`)),
        write: (rel, text) => one('apply_patch', patch(`*** Add File: ${rel}\n${text.split('\n').filter(Boolean).map((l) => `+${l}`).join('\n')}`)),
      };
    case 'copilot':
      return {
        load: undefined,
        mcp: (tool, input) => one(`pi-plans-${tool}`, input),
        shell: (command, extra = {}) => one('bash', { command, description: 'run a command', ...extra }),
        read: undefined,
        edit: (rel, from, to) => one('edit', { path: abs(rel), old_str: from, new_str: to }),
        write: (rel, text) => one('create', { path: abs(rel), file_text: text }),
      };
  }
  throw new Error(`no host ${ws.host}`);
}
