// What Pi Plans knows of one agent host, in one shape: its name, the tools it has (which read,
// which edit and where they name their files, which run a shell command), whether its hooks can
// ask the person, how it reads a hook's answer, and where `pi-plans setup` writes its
// configuration. Each host is one folder beside this file (claude/, codex/, copilot/,
// copilot-cli/); a new host is a new folder and a line in hosts.ts. Pure.
import type { HookHost } from './ids';
import type { HookAnswer } from './policy/answer';
import type { Decision } from './policy/decide';
import type { HookPayload } from './policy/payload';
import type { HostTools } from './policy/tools';
import type { SetupRequest, SetupTarget } from './setup/targets';

export { HOOK_HOSTS, type HookHost } from './ids';
export type { HookAnswer } from './policy/answer';
export { field, type HostTools, type ShellCall, type ToolInput } from './policy/tools';

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
  /** The files and edits `pi-plans setup` makes for this host (its seal too, given `req.sealPaths`). */
  setupTargets(req: SetupRequest): SetupTarget[];
  /** The host's own OS sandbox, which `pi-plans setup --seal` configures; absent: the host cannot be sealed. */
  sandbox?: HostSandbox;
  /**
   * Why the host cannot be sealed, where it has a sandbox of its own that Pi Plans measured and
   * found unfit (no `sandbox` then): said in `setup --seal`'s refusal, naming the version measured.
   */
  unsealable?: string;
}

/** Where a host's sandbox runs, and what it needs installed there. */
export interface HostSandbox {
  /** Per platform (process.platform's names) it runs on: the programs it needs on the PATH (none: built in), and how to install them. */
  platforms: Readonly<Partial<Record<string, { programs: readonly string[]; install?: string }>>>;
  /** What to do on a platform it does not run on. */
  elsewhere: string;
}
