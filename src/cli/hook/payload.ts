// What an agent host sends `pi-plans hook` on stdin, read into one shape: which host, which event,
// which session, where, and the tool call. Pure (no I/O): the payload is data the host wrote, and
// every field is treated as hostile input (checked types, bounded lengths).

/** The hosts `pi-plans hook` answers, each in its own output format and exit-code convention. */
export const HOOK_HOSTS = ['copilot', 'claude', 'codex', 'copilot-cli'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

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
 * The host a payload's shape says (research §0, "Design consequences" 3): camelCase `toolName`/
 * `sessionId` without `hook_event_name` is Copilot CLI; `turn_id` or `model` beside snake_case
 * fields is Codex; `permission_mode` or `prompt_id` is Claude; an ISO `timestamp` is VS Code, or
 * Copilot CLI in its VS Code-compatible mode when a tool event has no `tool_use_id`.
 */
export function detectHost(p: Record<string, unknown>): HookHost | undefined {
  const camel = p.hook_event_name === undefined && (p.sessionId !== undefined || p.toolName !== undefined || typeof p.timestamp === 'number');
  if (camel) return 'copilot-cli';
  if (p.turn_id !== undefined || (p.model !== undefined && p.permission_mode !== undefined && p.prompt_id === undefined && p.timestamp === undefined)) return 'codex';
  if (p.permission_mode !== undefined || p.prompt_id !== undefined) return 'claude';
  if (typeof p.timestamp === 'string') {
    const toolEvent = p.tool_name !== undefined;
    return toolEvent && p.tool_use_id === undefined ? 'copilot-cli' : 'copilot';
  }
  if (p.hook_event_name !== undefined && p.session_id !== undefined) return 'claude';
  return undefined;
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
  const host = given.agent ?? detectHost(p);
  if (!host) return undefined;
  const named = str(p.hook_event_name, 64);
  const event = given.event ?? (named ? eventOf(named) ?? 'other' : camel ? camelEventOf(p) : undefined);
  if (!event) return undefined;
  return {
    host,
    event,
    eventName: named ?? (camel ? (Object.keys(CAMEL_EVENTS).find((k) => CAMEL_EVENTS[k] === event) ?? event) : event),
    camel: camel && host === 'copilot-cli',
    session: str(p.session_id, 512) ?? str(p.sessionId, 512),
    cwd: str(p.cwd),
    tool: str(p.tool_name, 256) ?? str(p.toolName, 256),
    input: argsOf(p.tool_input ?? p.toolArgs),
    response: textOf(p.tool_response ?? p.toolResult),
    stopHookActive: p.stop_hook_active === true || p.stopHookActive === true,
  };
}
