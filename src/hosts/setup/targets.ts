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
 * - `--seal` (workspace scope), naming the paths in SealPaths (src/hosts/setup/seal.ts): for Claude
 *   Code its sandbox and deny rules in `.claude/settings.local.json`; for Codex a permission
 *   profile and an approval policy in `.codex/config.toml`, beside the MCP server (two targets, one
 *   file: each edit sees the one before).
 */
import type { EntryEdit, JsonPlace } from './configEdit';

import { HOOK_HOSTS, type HookHost } from '../ids';

export const AGENT_HOSTS = HOOK_HOSTS;
export type AgentHost = HookHost;
/**
 * The hosts `pi-plans setup --agent` takes: those with hooks, and Cursor, which gets the MCP
 * server only (`.cursor/mcp.json`): Pi Plans has no hooks for it, so it cannot be held to a plan
 * nor sealed.
 */
export const SETUP_HOSTS = [...HOOK_HOSTS, 'cursor'] as const;
export type SetupHost = (typeof SETUP_HOSTS)[number];
export const SETUP_SCOPES = ['workspace', 'user'] as const;
export type SetupScope = (typeof SETUP_SCOPES)[number];

/** The name of our MCP server in every host's configuration. */
export const MCP_SERVER_NAME = 'pi-plans';


/** The host names people read. */
export const HOST_NAMES: Record<SetupHost, string> = {
  copilot: 'GitHub Copilot in VS Code',
  claude: 'Claude Code',
  codex: 'Codex',
  'copilot-cli': 'GitHub Copilot CLI',
  cursor: 'Cursor',
};

/** Where a file is: under the workspace folder, or under one of the folders the caller resolves for the user. */
export type ConfigBase = 'workspace' | 'claudeState' | 'claudeHome' | 'codexHome' | 'copilotHome' | 'vscodeUser' | 'cursorHome';

/** One configuration file setup edits, and the edit. */
export interface SetupTarget {
  base: ConfigBase;
  /** Path segments below the base. */
  path: readonly string[];
  format: 'json' | 'toml';
  /** seal: the host's sandbox and permission rules (`--seal`). */
  kind: 'hooks' | 'mcp' | 'seal';
  edit: EntryEdit;
  /** Said once after the file's line (who else reads it, what to do next). */
  note?: string;
  /** Said after the file's line when setup's entries are taken out of it. */
  removeNote?: string;
  /**
   * Folders the file's settings name that must be there for the host to start (Codex does not
   * start a session while a path its permission profile names is missing): setup creates the
   * missing ones when it writes the file (`private`: for the person alone, mode 0700), and a dry
   * run counts them as changes. Absolute paths.
   */
  folders?: readonly { path: string; private?: boolean }[];
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
  /** `--seal` (and `--remove`, which takes a seal out): what the host's sandbox keeps the agent from. Only a host with a `sandbox` profile uses it. */
  sealPaths?: SealPaths;
}

/**
 * What a sealed host's agent (its tools and the commands it runs) may not touch, as absolute
 * paths the caller resolves (src/hosts/install/seal.ts).
 */
export interface SealPaths {
  /** Folders neither read nor written: Pi Plans' configuration (the approval key), state and cache folders. */
  hiddenFolders: string[];
  /** Folders read but never written: the workspace's .pi/. */
  readOnlyFolders: string[];
  /** Files read but never written: the files setup writes for the host (either scope), .vscode/settings.json. */
  readOnlyFiles: string[];
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

/**
 * Whether a command names an absolute path (`/usr/bin/node /opt/pi-plans/bin.js`, `C:\\…`): the
 * entries written with it then hold only on this machine, and setup says so.
 */
export function namesAbsolutePath(command: readonly string[]): boolean {
  return command.some((w) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(w));
}

/** The MCP server's program and arguments: `<command> [--root <workspace>] mcp`. */
export function mcpArgs(req: Pick<SetupRequest, 'command'>, root: string | undefined): { command: string; args: string[] } {
  const [program = 'pi-plans', ...first] = req.command;
  return { command: program, args: [...first, ...(root !== undefined ? ['--root', root] : []), 'mcp'] };
}

/** The hooks of the shared Copilot file: `version: 1`, camelCase events, one command entry each. */
export function copilotHooks(req: SetupRequest): EntryEdit {
  const entries = HOOK_EVENTS.copilot.map((event) => ({
    place: ['hooks', event] as JsonPlace,
    value: { type: 'command', bash: hookCommand(req.command, undefined, event), powershell: hookCommand(req.command, undefined, event, 'powershell'), timeoutSec: HOOK_TIMEOUT },
  }));
  return { shape: 'hookList', entries, top: { version: 1 }, what: 'hooks' };
}

/**
 * Claude's and Codex's hooks: event -> [{ hooks: [{ type, command, timeout, …extra }] }], one group
 * of ours each (no matcher: every tool). `extra(event)`: the host's fields that make a failed hook
 * block (Claude's `onFailure`), and `command(event, text)` its shell's way to the same end.
 */
export function nestedHooks(req: SetupRequest, agent: 'claude' | 'codex', opts: { extra?: (event: string) => Record<string, unknown>; command?: (event: string, text: string) => string } = {}): EntryEdit {
  const entries = HOOK_EVENTS[agent].map((event) => {
    const text = hookCommand(req.command, agent, event);
    return { place: ['hooks', event] as JsonPlace, value: { hooks: [{ type: 'command', command: opts.command ? opts.command(event, text) : text, timeout: HOOK_TIMEOUT, ...(opts.extra?.(event) ?? {}) }] } };
  });
  return { shape: 'hookGroups', entries, what: 'hooks' };
}

/** Our MCP server under `key` (servers, mcpServers, mcp_servers). */
export function mcpServer(key: string, value: Record<string, unknown>): EntryEdit {
  return { shape: 'named', entries: [{ place: [key, MCP_SERVER_NAME], value }], what: 'MCP server' };
}

/** A list of targets, with the request's --no-hooks / --no-mcp (and whether it seals) applied as they are added. */
export function targetList(req: Pick<SetupRequest, 'hooks' | 'mcp' | 'sealPaths'>): { targets: SetupTarget[]; add(kind: SetupTarget['kind'], target: Omit<SetupTarget, 'kind'>): void } {
  const targets: SetupTarget[] = [];
  return {
    targets,
    add(kind, target) {
      if (kind === 'hooks' ? req.hooks : kind === 'mcp' ? req.mcp : !!req.sealPaths) targets.push({ ...target, kind });
    },
  };
}

/**
 * The MCP server as a stdio entry. It serves the folder the host starts it in (the hosts start a
 * project's servers in the project folder), with no `--root`: at user scope, and at workspace scope
 * for a command on the PATH (`--command pi-plans`), so the file names no path of this machine and
 * can be committed. A command given by absolute path (the default: this Node and this script)
 * makes the entry this machine's anyway, and it names the workspace by absolute path too.
 */
export function stdioServer(req: SetupRequest): { command: string; args: string[]; stdio: { type: 'stdio'; command: string; args: string[] } } {
  const { command, args } = mcpArgs(req, req.scope === 'user' || !namesAbsolutePath(req.command) ? undefined : req.workspace);
  return { command, args, stdio: { type: 'stdio', command, args } };
}

/** The shared Copilot hook file (Copilot in VS Code and Copilot CLI both read `.github/hooks/*.json`). */
export function sharedCopilotHooks(req: SetupRequest): Omit<SetupTarget, 'kind'> {
  const user = req.scope === 'user';
  return { base: user ? 'copilotHome' : 'workspace', path: user ? ['hooks', 'pi-plans.json'] : ['.github', 'hooks', 'pi-plans.json'], format: 'json', edit: copilotHooks(req), note: 'Copilot in VS Code and Copilot CLI both read this file: one set of hooks serves both', removeNote: 'These hooks served Copilot in VS Code and Copilot CLI alike: both are without them now' };
}

/**
 * Cursor: its MCP server in `.cursor/mcp.json` (user scope: `~/.cursor/mcp.json`), `mcpServers`
 * with a command and its arguments; no hooks (Pi Plans has none for Cursor) and no seal. The
 * workspace is `${workspaceFolder}`, which Cursor replaces with the folder it has open, at either
 * scope.
 */
export function cursorTargets(req: Omit<SetupRequest, 'agent'>): SetupTarget[] {
  const user = req.scope === 'user';
  const { command, args } = mcpArgs(req, '${workspaceFolder}');
  const t = targetList(req);
  t.add('mcp', { base: user ? 'cursorHome' : 'workspace', path: user ? ['mcp.json'] : ['.cursor', 'mcp.json'], format: 'json', edit: mcpServer('mcpServers', { command, args }), note: 'Cursor puts the folder it has open in place of ${workspaceFolder}' });
  return t.targets;
}
