// A decision written as each host reads it (research §0 table, §1.5, §2.4, §3.4, §4.5). The exit
// code is always 0: a decision travels as JSON, and a plain allow is empty stdout (every host's "no
// decision", and the only allow Codex accepts). Exit 2 is never used: it would block on some hosts
// and not others, and a hook that fails must never block.
import type { HookPayload } from './payload';
import type { Decision } from './decide';

/** What the process writes and how it exits. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  code: 0;
}

const EMPTY: HookAnswer = { stdout: '', stderr: '', code: 0 };
const json = (o: object, stderr = ''): HookAnswer => ({ stdout: `${JSON.stringify(o)}\n`, stderr, code: 0 });

/**
 * Codex has no `ask` (its hooks cannot ask the person: the hook is marked failed and the call goes
 * through). An ask becomes a deny there, and its reason says how the person lets such calls through.
 */
function codexAsk(reason: string): string {
  return `${reason} (Codex hooks cannot ask the person, so pi-plans denies it: the person can allow such calls with piPlans.hooks.* "allow" in .vscode/settings.json.)`;
}

function preToolUse(p: HookPayload, d: Decision): HookAnswer {
  if (d.kind === 'allow' || d.kind === 'context') {
    const context = d.kind === 'allow' ? d.context : d.context;
    if (!context) return EMPTY;
    if (p.host === 'copilot-cli') return json({ additionalContext: context, ...(p.camel ? {} : { hookSpecificOutput: { hookEventName: p.eventName, additionalContext: context } }) });
    return json({ hookSpecificOutput: { hookEventName: p.eventName, additionalContext: context } });
  }
  if (d.kind === 'block') return preToolUse(p, { kind: 'deny', reason: d.reason });
  const decision = p.host === 'codex' ? 'deny' : d.kind;
  const reason = p.host === 'codex' && d.kind === 'ask' ? codexAsk(d.reason) : d.reason;
  if (p.host === 'copilot-cli') {
    return json({ permissionDecision: decision, permissionDecisionReason: reason, ...(p.camel ? {} : { hookSpecificOutput: { hookEventName: p.eventName, permissionDecision: decision, permissionDecisionReason: reason } }) });
  }
  return json({ hookSpecificOutput: { hookEventName: p.eventName, permissionDecision: decision, permissionDecisionReason: reason } });
}

function stop(p: HookPayload, d: Decision): HookAnswer {
  if (d.kind !== 'block') return EMPTY;
  // VS Code reads the block nested (and ignores the top-level keys); Claude, Codex and Copilot CLI
  // (in both of its payload formats: its VS Code-compatible Stop is told apart by `stop_reason`)
  // read it at the top level.
  if (p.host === 'copilot') return json({ decision: 'block', reason: d.reason, hookSpecificOutput: { hookEventName: p.eventName, decision: 'block', reason: d.reason } });
  return json({ decision: 'block', reason: d.reason });
}

function context(p: HookPayload, d: Decision): HookAnswer {
  const text = d.kind === 'context' ? d.context : undefined;
  // PreCompact has no context channel on any host (VS Code ignores its output, Claude reads only a
  // block): the summary comes back at SessionStart (source compact) and every UserPromptSubmit.
  if (!text || p.event === 'PreCompact') return EMPTY;
  // Copilot CLI reads the context at the top level, in both of its payload formats.
  if (p.host === 'copilot-cli') return json({ additionalContext: text, ...(p.camel ? {} : { hookSpecificOutput: { hookEventName: p.eventName, additionalContext: text } }) });
  return json({ hookSpecificOutput: { hookEventName: p.eventName, additionalContext: text } });
}

/** The decision for this payload's event, in its host's format. */
export function answer(p: HookPayload, d: Decision): HookAnswer {
  if (p.event === 'PreToolUse') return preToolUse(p, d);
  if (p.event === 'Stop') return stop(p, d);
  return context(p, d);
}

/**
 * An allow that says why the hook could not decide (its own failure, a broken or missing plan, an
 * unknown payload): in the host's system message where it has one, and on stderr for every host.
 */
export function failOpen(host: HookPayload['host'] | undefined, why: string): HookAnswer {
  return notice(host, `pi-plans hook allowed this call without checking its plan: ${why}`);
}

/**
 * An allow with a message for the person: the host's system message (a warning in its UI) and
 * stderr. Copilot CLI documents no system message: stderr only, stdout empty.
 */
export function notice(host: HookPayload['host'] | undefined, message: string): HookAnswer {
  if (host === 'copilot-cli' || host === undefined) return { stdout: '', stderr: `${message}\n`, code: 0 };
  return json({ systemMessage: message }, `${message}\n`);
}
