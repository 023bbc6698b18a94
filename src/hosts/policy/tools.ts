// What a tool call is, for the plan's policy, judged by the host's own lists (hosts/<host>): one of
// Pi Plans' plan tools (and the plan it names), a read, an edit (and the files it names), a shell
// command, input typed into a shell started earlier, or a tool of unknown effect: every tool the
// host's lists do not name, other MCP servers' tools and tools newer than this version included.
// Pure.
import type { HookPayload } from './payload';

/** A tool input, as the host sent it (hostile: every field checked before use). */
export type ToolInput = Record<string, unknown>;

/** A shell tool's call: the command, and the folder it runs in when the input names one. */
export interface ShellCall {
  command: string;
  cwd?: string;
  /** The call keeps a shell open for input the hook will not see (Codex's `tty`). */
  interactive?: boolean;
}

/** How a host's tools are judged (each host's folder lists them). Tools in none of these lists are of unknown effect. */
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

/** A string field of a tool's input. */
export const field = (input: ToolInput, ...keys: string[]): string | undefined => {
  for (const k of keys) if (typeof input[k] === 'string') return input[k] as string;
  return undefined;
};

export type ToolCall =
  | { kind: 'plan'; tool: string; plan?: string; creates: boolean }
  | { kind: 'read'; tool: string }
  /** `paths` undefined: the edit names files the hook cannot read (it is refused). */
  | { kind: 'edit'; tool: string; paths: string[] | undefined }
  | ({ kind: 'terminal'; tool: string } & ShellCall)
  | { kind: 'shellInput'; tool: string }
  | { kind: 'unknown'; tool: string };

const PLAN_ID = /\bPLAN-[0-9a-f]{8}\b/;
const PLAN_ID_EXACT = /^PLAN-[0-9a-f]{8}$/;

/**
 * The pi-plans tool a host's tool name stands for (`pi_plan_submit`), or undefined: the bare name
 * (VS Code's own LM tools), and the MCP names `pi-plans setup` gives it on each host:
 * `mcp__pi-plans__…` (Claude Code, Codex), `mcp_pi-plans_…` (VS Code), `pi-plans-…` (Copilot CLI),
 * with the server's key spelled `pi-plans` or `pi_plans`. Another server's tool that merely ends
 * in `pi_plan_get` is no plan tool (it is of unknown effect).
 */
export function planToolOf(name: string): string | undefined {
  const m = /^(?:mcp__pi[-_]plans__|mcp_pi[-_]plans_|pi[-_]plans-)?(pi_plan_[a-z_]+)$/.exec(name);
  return m ? m[1] : undefined;
}

/** The plan a plan tool's call names: its `id`, else (a create, after the fact) the id its result names. */
function namedPlan(input: Record<string, unknown>, response: string | undefined): string | undefined {
  const id = input.id ?? input.plan ?? input.planId;
  if (typeof id === 'string' && PLAN_ID_EXACT.test(id)) return id;
  return response ? PLAN_ID.exec(response)?.[0] : undefined;
}

/** What a payload's tool call is, by the host's lists. */
export function classifyTool(p: HookPayload, host: { tools: HostTools }): ToolCall | undefined {
  const tool = p.tool;
  if (!tool) return undefined;
  const plan = planToolOf(tool);
  if (plan) {
    const creates = plan === 'pi_plan_create';
    // Only a create's result is read for an id: other results (a list) name many plans.
    return { kind: 'plan', tool: plan, plan: namedPlan(p.input, creates ? p.response : undefined), creates };
  }
  const t = host.tools;
  if (t.reads.has(tool)) return { kind: 'read', tool };
  const edit = Object.prototype.hasOwnProperty.call(t.edits, tool) ? t.edits[tool] : undefined;
  if (edit) return { kind: 'edit', tool, paths: edit(p.input) };
  const shell = Object.prototype.hasOwnProperty.call(t.shells, tool) ? t.shells[tool] : undefined;
  if (shell) {
    const call = shell(p.input);
    return call ? { kind: 'terminal', tool, ...call } : { kind: 'unknown', tool };
  }
  if (t.shellInput?.has(tool)) return { kind: 'shellInput', tool };
  return { kind: 'unknown', tool };
}
