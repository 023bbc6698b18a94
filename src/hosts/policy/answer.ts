// A decision written as a host reads it (research §0 table, §1.5, §2.4, §3.4, §4.5): the hosts
// differ only in where the fields go (nested under hookSpecificOutput, at the top level, or both),
// whether an ask is possible, and how a Stop block is read. Each host's folder picks its style;
// this file writes it. The exit code is always 0: a decision travels as JSON, and a plain allow is
// empty stdout (every host's "no decision", and the only allow Codex accepts).
import type { HookPayload } from './payload';
import type { Decision } from './decide';

/** What the hook process writes and how it exits. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  code: 0;
}

/** A denial's first sentence where the host calls it a hook error: what stopped the call, plainly. */
export const NOT_A_FAULT = 'Blocked by the plan, not an error.';

export const EMPTY: HookAnswer = { stdout: '', stderr: '', code: 0 };
export const json = (o: object, stderr = ''): HookAnswer => ({ stdout: `${JSON.stringify(o)}\n`, stderr, code: 0 });

/** How a host reads an answer. */
export interface AnswerStyle {
  /** Where the decision and the context go: nested (hookSpecificOutput), or top-level and nested (Copilot CLI; nested left out for its camelCase payloads). */
  fields: 'nested' | 'top';
  /** An ask is written as a deny with this sentence after the reason (Codex: its hooks cannot ask). */
  askAsDeny?: string;
  /**
   * Said first in a denial where the host presents it as a failure (Claude Code shows it as a
   * "hook error"): the plan stopped the call, nothing is broken (`NOT_A_FAULT`).
   */
  denyLead?: string;
  /** The host ends the reason's sentence itself (Codex adds ". Command: …"): its last full stop is left to the host. */
  hostEndsSentence?: boolean;
  /** A Stop block nested as well as at the top level (VS Code reads it nested). */
  stopNested?: boolean;
}

function place(p: HookPayload, style: AnswerStyle, fields: Record<string, unknown>): object {
  const nested = { hookSpecificOutput: { hookEventName: p.eventName, ...fields } };
  if (style.fields === 'nested') return nested;
  return p.camel ? fields : { ...fields, ...nested };
}

/** The decision for this payload's event in a host's style. */
export function answerIn(style: AnswerStyle, p: HookPayload, d: Decision): HookAnswer {
  if (p.event === 'PreToolUse') {
    if (d.kind === 'allow' || d.kind === 'context') return d.context ? json(place(p, style, { additionalContext: d.context })) : EMPTY;
    const kind = d.kind === 'block' ? 'deny' : d.kind;
    const asDeny = kind === 'ask' && style.askAsDeny !== undefined;
    const denied = kind === 'deny' || asDeny;
    const reason = [denied ? style.denyLead : undefined, d.reason, asDeny ? style.askAsDeny : undefined].filter(Boolean).join(' ');
    return json(place(p, style, { permissionDecision: denied ? 'deny' : kind, permissionDecisionReason: style.hostEndsSentence ? reason.replace(/\.+$/, '') : reason }));
  }
  if (p.event === 'Stop') {
    if (d.kind !== 'block') return EMPTY;
    return json(style.stopNested ? { decision: 'block', reason: d.reason, hookSpecificOutput: { hookEventName: p.eventName, decision: 'block', reason: d.reason } } : { decision: 'block', reason: d.reason });
  }
  // PreCompact has no context channel on any host (VS Code ignores its output, Claude reads only a
  // block): the summary comes back at SessionStart (source compact) and every UserPromptSubmit.
  const text = d.kind === 'context' ? d.context : undefined;
  if (!text || p.event === 'PreCompact') return EMPTY;
  return json(place(p, style, { additionalContext: text }));
}

/** A message for the person with no decision: the host's system message (a warning in its UI) and stderr; stderr only where the host has none. */
export function noticeIn(systemMessage: boolean, message: string): HookAnswer {
  return systemMessage ? json({ systemMessage: message }, `${message}\n`) : { stdout: '', stderr: `${message}\n`, code: 0 };
}
