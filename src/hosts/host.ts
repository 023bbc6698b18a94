// What Pi Plans knows of one agent host, in one shape: its name, the tools it has (which read,
// which edit and where they name their files, which run a shell command), whether its hooks can
// ask the person, how it reads a hook's answer, and where `pi-plans setup` writes its
// configuration. Each host is one folder beside this file (claude/, codex/, copilot/,
// copilot-cli/); a new host is a new folder and a line in hosts.ts. Pure.
import type { Decision } from './policy/decide';
import type { HookPayload } from './policy/payload';
import type { SetupRequest, SetupTarget } from './setup/targets';

/** The hosts `pi-plans hook` answers and `pi-plans setup` configures. */
export const HOOK_HOSTS = ['copilot', 'claude', 'codex', 'copilot-cli'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

/** A tool input, as the host sent it (hostile: every field checked before use). */
export type ToolInput = Record<string, unknown>;

/** A shell tool's call: the command, and the folder it runs in when the input names one. */
export interface ShellCall {
  command: string;
  cwd?: string;
  /** The call keeps a shell open for input the hook will not see (Codex's `tty`). */
  interactive?: boolean;
}

/** How a host's tools are judged. Tools in none of these lists are of unknown effect. */
export interface HostTools {
  /** Tools that only read, or only talk to the person or the plan: never restricted. */
  reads: ReadonlySet<string>;
  /** Edit tools: the files each names (undefined when its input names none the hook can read: the edit is refused). */
  edits: Readonly<Record<string, (input: ToolInput) => string[] | undefined>>;
  /** Shell tools: the command each runs. */
  shells: Readonly<Record<string, (input: ToolInput) => ShellCall | undefined>>;
  /** Tools that type into a shell started earlier (Copilot CLI's write_bash): commands the hook cannot read. */
  shellInput?: ReadonlySet<string>;
}

/** What the process writes and how it exits. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  code: 0;
}

export interface HostProfile {
  id: HookHost;
  /** The name people read. */
  name: string;
  tools: HostTools;
  /** Whether a PreToolUse hook can ask the person (Codex's cannot: an ask becomes a deny). */
  canAsk: boolean;
  /** The decision for a payload's event, in the format this host reads. */
  answer(p: HookPayload, d: Decision): HookAnswer;
  /** A message for the person with no decision: the host's system message where it has one, and stderr. */
  notice(message: string): HookAnswer;
  /** The files and edits `pi-plans setup` makes for this host. */
  setupTargets(req: SetupRequest): SetupTarget[];
}

/** A string field of a tool's input. */
export const field = (input: ToolInput, ...keys: string[]): string | undefined => {
  for (const k of keys) if (typeof input[k] === 'string') return input[k] as string;
  return undefined;
};
