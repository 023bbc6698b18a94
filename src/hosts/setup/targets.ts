/**
 * `pi-plans setup --agent …`: what Pi Plans writes into an agent host's configuration, and where.
 * Pure: the hosts, their files (relative to the workspace or to a home folder the caller resolves),
 * the MCP server entry and the hook entries, and how each edit is made (configEdit.ts). The files
 * are read and written by src/node/agentSetup.ts, for the CLI and VS Code alike.
 *
 * Where each host reads (see README "Setting an agent up"):
 * - Copilot in VS Code and Copilot CLI both read `.github/hooks/*.json` (and `~/.copilot/hooks`).
 *   Two files there would make each host run both, one of them with the other's payload shape, so
 *   both write one shared file, `pi-plans.json`, in the Copilot CLI's format (`version: 1`,
 *   camelCase events, `bash`/`powershell`), which VS Code reads natively too. Its commands carry
 *   no `--agent`: the host is told by the payload's shape (VS Code's has `hook_event_name`, the
 *   CLI's camelCase one has none), and `--event` names the event the CLI's payload lacks.
 * - Claude Code: hooks in `.claude/settings.json`, its MCP server in `.mcp.json` (user scope:
 *   `~/.claude/settings.json` and `~/.claude.json`). Copilot CLI reads `.mcp.json` too: both write
 *   the same entry there.
 * - Codex: hooks in `.codex/hooks.json`, its MCP server in `[mcp_servers.pi-plans]` of
 *   `.codex/config.toml` (user scope: `~/.codex/`, or CODEX_HOME).
 * - VS Code's MCP servers: `servers` in `.vscode/mcp.json` (user scope: the profile's mcp.json).
 */
import type { EntryEdit, JsonPlace } from './configEdit';

export const AGENT_HOSTS = ['copilot', 'claude', 'codex', 'copilot-cli'] as const;
export type AgentHost = (typeof AGENT_HOSTS)[number];
export const SETUP_SCOPES = ['workspace', 'user'] as const;
export type SetupScope = (typeof SETUP_SCOPES)[number];

/** The name of our MCP server in every host's configuration. */
export const MCP_SERVER_NAME = 'pi-plans';


/** The host names people read. */
export const HOST_NAMES: Record<AgentHost, string> = {
  copilot: 'GitHub Copilot in VS Code',
  claude: 'Claude Code',
  codex: 'Codex',
  'copilot-cli': 'GitHub Copilot CLI',
};

/** Where a file is: under the workspace folder, or under one of the folders the caller resolves for the user. */
export type ConfigBase = 'workspace' | 'claudeState' | 'claudeHome' | 'codexHome' | 'copilotHome' | 'vscodeUser';

/** One configuration file setup edits, and the edit. */
export interface SetupTarget {
  base: ConfigBase;
  /** Path segments below the base. */
  path: readonly string[];
  format: 'json' | 'toml';
  kind: 'hooks' | 'mcp';
  edit: EntryEdit;
  /** Said once after the file's line (who else reads it, what to do next). */
  note?: string;
  /** Said after the file's line when setup's entries are taken out of it. */
  removeNote?: string;
}

/** How to run pi-plans: a program and its first arguments, e.g. [node, /path/to/cli.js] or ['pi-plans']. */
export interface SetupRequest {
  agent: AgentHost;
  scope: SetupScope;
  hooks: boolean;
  mcp: boolean;
  command: readonly string[];
  /** The workspace folder (absolute); the MCP server serves its plans at workspace scope. */
  workspace: string;
}

/** The events each host gets a hook for, as its configuration names them. */
export const HOOK_EVENTS: Record<'copilot' | 'claude' | 'codex', readonly string[]> = {
  // VS Code maps these camelCase names to its own (agentStop -> Stop); it has no camelCase preCompact,
  // and its PreCompact output is ignored anyway.
  copilot: ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'sessionEnd'],
  claude: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'Stop', 'SessionEnd'],
  // Codex has no SessionEnd.
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'Stop'],
};

/** Seconds a host waits for the hook (each host's default is 30 or 600; the hook answers in well under one). */
export const HOOK_TIMEOUT = 30;

/** A word for a POSIX shell (`sh -c`, as every host runs a hook's command): bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A word for PowerShell (single quotes, a quote doubled). Bare only when plain letters, digits and
 * path characters: `,` would make an array of two arguments, `@` splat, `#` start a comment.
 */
function powershellWord(s: string): string {
  return /^[\w.:/\\-]+$/.test(s) ? s : `'${s.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

/** The hook command line for a host and event, for a POSIX shell (or PowerShell). */
export function hookCommand(command: readonly string[], agent: AgentHost | undefined, event: string, shell: 'sh' | 'powershell' = 'sh'): string {
  const tail = [...(agent ? ['--agent', agent] : []), '--event', event];
  if (shell === 'powershell') return `& ${[...command.map(powershellWord), 'hook', ...tail].join(' ')}`;
  return [...command.map(shellWord), 'hook', ...tail].join(' ');
}

/** The MCP server's program and arguments: `<command> [--root <workspace>] mcp`. */
function mcpArgs(req: SetupRequest, root: string | undefined): { command: string; args: string[] } {
  const [program = 'pi-plans', ...first] = req.command;
  return { command: program, args: [...first, ...(root !== undefined ? ['--root', root] : []), 'mcp'] };
}

/** The hooks of the shared Copilot file: `version: 1`, camelCase events, one command entry each. */
function copilotHooks(req: SetupRequest): EntryEdit {
  const entries = HOOK_EVENTS.copilot.map((event) => ({
    place: ['hooks', event] as JsonPlace,
    value: { type: 'command', bash: hookCommand(req.command, undefined, event), powershell: hookCommand(req.command, undefined, event, 'powershell'), timeoutSec: HOOK_TIMEOUT },
  }));
  return { shape: 'hookList', entries, top: { version: 1 }, what: 'hooks' };
}

/** Claude's and Codex's hooks: event -> [{ hooks: [{ type, command, timeout }] }], one group of ours each (no matcher: every tool). */
function nestedHooks(req: SetupRequest, agent: 'claude' | 'codex'): EntryEdit {
  const entries = HOOK_EVENTS[agent].map((event) => ({
    place: ['hooks', event] as JsonPlace,
    value: { hooks: [{ type: 'command', command: hookCommand(req.command, agent, event), timeout: HOOK_TIMEOUT }] },
  }));
  return { shape: 'hookGroups', entries, what: 'hooks' };
}

/** Our MCP server under `key` (servers, mcpServers, mcp_servers). */
function mcpServer(key: string, value: Record<string, unknown>): EntryEdit {
  return { shape: 'named', entries: [{ place: [key, MCP_SERVER_NAME], value }], what: 'MCP server' };
}

const SHARED_COPILOT = 'Copilot in VS Code and Copilot CLI both read this file: one set of hooks serves both';

/** The files and edits for a request, in the order they are reported. */
export function setupTargets(req: SetupRequest): SetupTarget[] {
  const user = req.scope === 'user';
  const root = user ? undefined : req.workspace;
  const { command, args } = mcpArgs(req, root);
  const stdio = { type: 'stdio', command, args };
  const t: SetupTarget[] = [];
  const add = (kind: 'hooks' | 'mcp', target: Omit<SetupTarget, 'kind'>) => {
    if (kind === 'hooks' ? req.hooks : req.mcp) t.push({ ...target, kind });
  };
  switch (req.agent) {
    case 'copilot':
    case 'copilot-cli':
      add('hooks', { base: user ? 'copilotHome' : 'workspace', path: user ? ['hooks', 'pi-plans.json'] : ['.github', 'hooks', 'pi-plans.json'], format: 'json', edit: copilotHooks(req), note: SHARED_COPILOT, removeNote: 'These hooks served Copilot in VS Code and Copilot CLI alike: both are without them now' });
      if (req.agent === 'copilot') {
        // VS Code resolves ${workspaceFolder}: the file stays right when the folder moves.
        const vsArgs = user ? args : mcpArgs(req, '${workspaceFolder}').args;
        add('mcp', { base: user ? 'vscodeUser' : 'workspace', path: user ? ['mcp.json'] : ['.vscode', 'mcp.json'], format: 'json', edit: mcpServer('servers', { ...stdio, args: vsArgs }) });
      } else if (user) add('mcp', { base: 'copilotHome', path: ['mcp-config.json'], format: 'json', edit: mcpServer('mcpServers', { type: 'local', command, args, tools: ['*'] }) });
      else add('mcp', { base: 'workspace', path: ['.mcp.json'], format: 'json', edit: mcpServer('mcpServers', stdio), note: 'Claude Code reads .mcp.json too' });
      break;
    case 'claude':
      add('hooks', { base: user ? 'claudeHome' : 'workspace', path: user ? ['settings.json'] : ['.claude', 'settings.json'], format: 'json', edit: nestedHooks(req, 'claude'), note: 'Copilot CLI reads .claude/settings.json too, and VS Code does with chat.useClaudeHooks on' });
      add('mcp', { base: user ? 'claudeState' : 'workspace', path: user ? ['.claude.json'] : ['.mcp.json'], format: 'json', edit: mcpServer('mcpServers', stdio) });
      break;
    case 'codex':
      add('hooks', { base: user ? 'codexHome' : 'workspace', path: user ? ['hooks.json'] : ['.codex', 'hooks.json'], format: 'json', edit: nestedHooks(req, 'codex'), note: 'Codex runs new or changed hooks only once you trust them: open /hooks in Codex' });
      add('mcp', { base: user ? 'codexHome' : 'workspace', path: user ? ['config.toml'] : ['.codex', 'config.toml'], format: 'toml', edit: mcpServer('mcp_servers', { command, args }) });
      break;
  }
  return t;
}
