// What an agent host sends `pi-plans hook` on stdin, read into one shape: which host, which event,
// which session, where, and the tool call. Pure (no I/O): the payload is data the host wrote, and
// every field is treated as hostile input (checked types, bounded lengths).

import { HOOK_HOSTS, type HookHost } from '../ids';

export { HOOK_HOSTS, type HookHost } from '../ids';

/** The events the hook acts on, by their PascalCase names; anything else is `other` (allowed, untouched). */
export type HookEvent = 'PreToolUse' | 'PostToolUse' | 'Stop' | 'SubagentStop' | 'SessionStart' | 'SessionEnd' | 'UserPromptSubmit' | 'PreCompact' | 'other';

/** A payload read: the host, the event, the session and the tool call, as every host's shape gives them. */
export interface HookPayload {
  host: HookHost;
  event: HookEvent;
  /** The event's name as the host spells it (for the `hookEventName` the host expects back). */
  eventName: string;
  /** Copilot CLI's camelCase payloads (no event name in them) are answered in the camelCase format. */
  camel: boolean;
  session?: string;
  cwd?: string;
  tool?: string;
  input: Record<string, unknown>;
  /** The tool's result on PostToolUse, as text (objects are serialised). */
  response?: string;
  /** The host's own loop guard on Stop: the agent is already continuing because a Stop hook blocked. */
  stopHookActive: boolean;
  /** The host's id of the tool call (`tool_use_id`), when it sends one. */
  callId?: string;
  /** The payload's time in milliseconds (VS Code's and Copilot CLI's `timestamp`), when it has one. */
  at?: number;
}

const CAMEL_EVENTS: Record<string, HookEvent> = {
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  agentStop: 'Stop',
  subagentStop: 'SubagentStop',
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  userPromptSubmitted: 'UserPromptSubmit',
  preCompact: 'PreCompact',
};
const PASCAL_EVENTS = new Set<HookEvent>(['PreToolUse', 'PostToolUse', 'Stop', 'SubagentStop', 'SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreCompact']);

/** `--agent` names: `vscode` is accepted for Copilot in VS Code. */
export function hostOf(name: string | undefined): HookHost | undefined {
  if (name === 'vscode') return 'copilot';
  return (HOOK_HOSTS as readonly string[]).includes(name ?? '') ? (name as HookHost) : undefined;
}

/** An event name in either spelling (`preToolUse`, `PreToolUse`, `agentStop`), or undefined. */
export function eventOf(name: string | undefined): HookEvent | undefined {
  if (!name) return undefined;
  if (CAMEL_EVENTS[name]) return CAMEL_EVENTS[name];
  return PASCAL_EVENTS.has(name as HookEvent) ? (name as HookEvent) : undefined;
}

const str = (v: unknown, max = 4096): string | undefined => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * Whether a payload with VS Code's snake_case fields and an ISO `timestamp` is Copilot CLI's "VS
 * Code compatible" one (PascalCase events in its hook files, and `.claude/settings.json` read by
 * the CLI), by the fields VS Code never sends (research §1.4, §4.4; GitHub's hooks reference):
 * `stop_reason` (Stop, SubagentStop), `tool_result` (PostToolUse), `initial_prompt` (SessionStart),
 * `error_context`, a `manual` compaction; a tool event without `tool_use_id`; and, on the events
 * where the CLI sends none (SessionStart, SessionEnd, UserPromptSubmit), no `transcript_path`
 * beside a session id (VS Code sends one on every event of a session).
 */
function copilotCliCompat(p: Record<string, unknown>): boolean {
  if (p.stop_reason !== undefined || p.tool_result !== undefined || p.initial_prompt !== undefined || p.error_context !== undefined || p.trigger === 'manual') return true;
  if (p.tool_name !== undefined) return p.tool_use_id === undefined;
  return NO_TRANSCRIPT_IN_CLI.has(String(p.hook_event_name)) && p.session_id !== undefined && p.transcript_path === undefined;
}
const NO_TRANSCRIPT_IN_CLI = new Set(['SessionStart', 'SessionEnd', 'UserPromptSubmit']);

/**
 * The host a payload's shape says (research §0, "Design consequences" 3): camelCase `toolName`/
 * `sessionId` without `hook_event_name` is Copilot CLI; `turn_id` or `model` beside snake_case
 * fields is Codex; `permission_mode` or `prompt_id` is Claude; an ISO `timestamp` is VS Code, or
 * Copilot CLI in its VS Code-compatible mode (copilotCliCompat).
 */
export function detectHost(p: Record<string, unknown>): HookHost | undefined {
  const camel = p.hook_event_name === undefined && (p.sessionId !== undefined || p.toolName !== undefined || typeof p.timestamp === 'number');
  if (camel) return 'copilot-cli';
  if (p.turn_id !== undefined || (p.model !== undefined && p.permission_mode !== undefined && p.prompt_id === undefined && p.timestamp === undefined)) return 'codex';
  if (p.permission_mode !== undefined || p.prompt_id !== undefined) return 'claude';
  if (typeof p.timestamp === 'string') return copilotCliCompat(p) ? 'copilot-cli' : 'copilot';
  if (p.hook_event_name !== undefined && p.session_id !== undefined) return 'claude';
  return undefined;
}

/**
 * The host to answer: `--agent` names the host whose file holds the hook, but other hosts read
 * that file too (Copilot CLI reads `.claude/settings.json`, and VS Code does with
 * `chat.useClaudeHooks`). Their payloads carry an ISO `timestamp`, which Claude Code and Codex
 * never send: such a payload under `--agent claude` or `--agent codex` is answered as the host its
 * shape says, in the format that host reads.
 */
function hostToAnswer(p: Record<string, unknown>, given: HookHost | undefined): HookHost | undefined {
  if (!given) return detectHost(p);
  if ((given === 'claude' || given === 'codex') && typeof p.timestamp === 'string') return detectHost(p) ?? given;
  return given;
}

/** The event a camelCase payload (which names none) must be, from its fields, when `--event` is not given. */
function camelEventOf(p: Record<string, unknown>): HookEvent {
  if (p.toolResult !== undefined) return 'PostToolUse';
  if (p.toolName !== undefined) return 'PreToolUse';
  if (p.agentId !== undefined) return 'SubagentStop';
  if (p.stopReason !== undefined || p.stop_hook_active !== undefined) return 'Stop';
  if (p.trigger !== undefined) return 'PreCompact';
  if (p.prompt !== undefined) return 'UserPromptSubmit';
  if (typeof p.reason === 'string') return 'SessionEnd';
  if (p.source !== undefined) return 'SessionStart';
  return 'other';
}

/** A tool's arguments: an object, or (Copilot CLI) a JSON string of one. */
function argsOf(v: unknown): Record<string, unknown> {
  if (typeof v === 'string') {
    try {
      return obj(JSON.parse(v)) ?? {};
    } catch {
      return {};
    }
  }
  return obj(v) ?? {};
}

function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v.slice(0, 65536);
  // Copilot CLI's result: { resultType, textResultForLlm } (camelCase) or { result_type, text_result_for_llm }.
  const o = obj(v);
  const text = o ? (o.textResultForLlm ?? o.text_result_for_llm) : undefined;
  if (typeof text === 'string') return text.slice(0, 65536);
  try {
    return JSON.stringify(v).slice(0, 65536);
  } catch {
    return undefined;
  }
}

/**
 * Reads a payload; undefined when it is not one (not an object, no host or event to be told).
 * `agent` and `event` (the command line's `--agent`, `--event`) win over what the shape says.
 */
export function readPayload(raw: unknown, given: { agent?: HookHost; event?: HookEvent } = {}): HookPayload | undefined {
  const p = obj(raw);
  if (!p) return undefined;
  const camel = p.hook_event_name === undefined && (p.sessionId !== undefined || p.toolName !== undefined || typeof p.timestamp === 'number');
  const host = hostToAnswer(p, given.agent);
  if (!host) return undefined;
  const named = str(p.hook_event_name, 64);
  const event = given.event ?? (named ? eventOf(named) ?? 'other' : camel ? camelEventOf(p) : undefined);
  if (!event) return undefined;
  return {
    host,
    event,
    eventName: named ?? (camel ? (Object.keys(CAMEL_EVENTS).find((k) => CAMEL_EVENTS[k] === event) ?? event) : event),
    camel: camel && host === 'copilot-cli',
    // A Copilot CLI subagent calls its tools under a session id of its own and names its parent's:
    // it works for its parent's session, and under its binding.
    session: str(p.parentAgentId, 512) ?? str(p.parent_agent_id, 512) ?? str(p.session_id, 512) ?? str(p.sessionId, 512),
    cwd: str(p.cwd),
    tool: str(p.tool_name, 256) ?? str(p.toolName, 256),
    input: argsOf(p.tool_input ?? p.toolArgs),
    response: textOf(p.tool_response ?? p.tool_result ?? p.toolResult),
    stopHookActive: p.stop_hook_active === true || p.stopHookActive === true,
    callId: str(p.tool_use_id, 512) ?? str(p.toolUseId, 512),
    at: typeof p.timestamp === 'number' && Number.isFinite(p.timestamp) ? p.timestamp : typeof p.timestamp === 'string' && !Number.isNaN(Date.parse(p.timestamp)) ? Date.parse(p.timestamp) : undefined,
  };
}
