// The policy a bound plan's status sets for its session's tool calls, Stop and context events. Pure:
// the plan's facts, the call and the settings in; a decision with its one-sentence reason out.
// Every reason names the plan and the call to make next.
import type { HookEvent } from './payload';
import type { ToolCall } from './tools';

/** What the hook reads of the bound plan (frontmatter and steps, no Markdown parse). */
export interface PlanFacts {
  id: string;
  title: string;
  status: string;
  version: number;
  steps: readonly { id: string; status: string; text: string; target?: string }[];
  /**
   * Review comments the agent still has to act on (core `openReview`): a rejection's, read from the
   * body (reviewNotes `quickRejectionComments`); an approved or executing plan's approval
   * suggestions, counted by the store with its approval check (cached with the verdict).
   */
  openComments: number;
  /**
   * Set when the status says approved, executing, stalled or failed but the person's signed approval
   * of this text does not stand (the store's check, run.ts): the plan is treated as being planned.
   */
  approval?: { state: 'invalid' | 'changed' | 'foreign'; detail?: string };
  /** Targets the last look found changed since approval by something other than the plan's steps (issue 30). */
  drifted?: readonly string[];
}

/** `piPlans.hooks.planningTerminal` and `piPlans.hooks.otherFiles`. */
export type Choice = 'ask' | 'deny' | 'allow';
export interface HookSettings {
  planningTerminal: Choice;
  otherFiles: Choice;
}
export const DEFAULT_HOOK_SETTINGS: HookSettings = { planningTerminal: 'ask', otherFiles: 'ask' };

/** A decision, before it is written in a host's format. */
export type Decision =
  | { kind: 'allow'; context?: string }
  | { kind: 'deny' | 'ask'; reason: string }
  | { kind: 'block'; reason: string }
  | { kind: 'context'; context: string };

export const PLANNING = new Set(['draft', 'proposed', 'rejected', 'needs_review']);
const OPEN_STEP = new Set(['pending', 'in_progress', 'blocked', 'failed']);

const named = (f: PlanFacts) => `${f.id} "${f.title.length > 80 ? `${f.title.slice(0, 79)}…` : f.title}"`;

/** Whether the planning policy applies: a planning status, or a status whose approval does not stand. */
export const planned = (f: PlanFacts) => PLANNING.has(f.status) || !!f.approval;

/** Why a plan whose status says approved (or later) is treated as planned, and the call to make next. */
export function unapproved(f: PlanFacts, a: NonNullable<PlanFacts['approval']>): string {
  const submit = `call pi_plan_submit with id ${f.id} so the person reviews`;
  if (a.state === 'changed') return `${named(f)} says ${f.status}, but its text changed since approval (${a.detail ?? 'a person approved an earlier text'}): ${submit} the current text, and wait for their approval`;
  if (a.state === 'foreign') return `${named(f)} was ${a.detail ?? 'approved on another machine'}, and no one here confirmed that approval: ask the person to confirm it (in VS Code, or pi-plans confirm ${f.id} in their own terminal), or ${submit} it here`;
  return `${named(f)} says ${f.status}, but its approval is not valid (${a.detail ?? 'no signed approval of this text'}): ${submit} it, and wait for their approval`;
}

/** What to do next while a plan is planned, by status: the tail of a planning reason. */
function planningNext(f: PlanFacts): string {
  if (f.status === 'draft') return `it is a draft (v${f.version}): finish it and call pi_plan_submit with id ${f.id}, then wait for the person's approval`;
  if (f.status === 'proposed') return `it is proposed (v${f.version}) and waits for the person's review: wait for their decision (pi_plan_get with id ${f.id} shows it), or revise it with pi_plan_update`;
  return `it was sent back for changes (${f.status}, v${f.version}): read the review with pi_plan_get, revise the plan with pi_plan_update and call pi_plan_submit with id ${f.id} again`;
}

/** The first open step: the next one to work on. */
export function nextStep(f: PlanFacts): PlanFacts['steps'][number] | undefined {
  return f.steps.find((s) => s.status === 'in_progress') ?? f.steps.find((s) => OPEN_STEP.has(s.status));
}

/** Whether a workspace-relative path (posix) is a step target or inside a folder one names. */
export function isTarget(f: PlanFacts, rel: string): boolean {
  return f.steps.some((s) => {
    const t = s.target?.trim().replace(/^\.\//, '').replace(/\\/g, '/');
    if (!t) return false;
    const dir = t.endsWith('/') ? t : `${t}/`;
    return rel === t || rel === t.replace(/\/$/, '') || rel.startsWith(dir);
  });
}

/** The answer to a PreToolUse. `paths`: an edit's files relative to the workspace (`../…` outside it). */
export function decideTool(f: PlanFacts, call: ToolCall, paths: readonly string[], settings: HookSettings): Decision {
  if (call.kind === 'plan' || call.kind === 'other') return { kind: 'allow' };
  const files = paths.length ? paths.join(', ') : 'a file';
  const folder = planFolderCall(f, call, paths, files);
  if (folder) return folder;
  if (f.approval) {
    if (call.kind === 'edit') return { kind: 'deny', reason: `pi-plans: ${call.tool} on ${files} is not run: ${unapproved(f, f.approval)}.` };
    return choice(settings.planningTerminal, `pi-plans: this command runs only if the person allows it: ${unapproved(f, f.approval)}.`);
  }
  if (PLANNING.has(f.status)) {
    if (call.kind === 'edit') return { kind: 'deny', reason: `pi-plans: ${call.tool} on ${files} is not run while ${named(f)} is being planned: ${planningNext(f)}.` };
    return choice(settings.planningTerminal, `pi-plans: ${named(f)} is not approved yet, so this command runs only if the person allows it: ${planningNext(f)}.`);
  }
  if (f.status === 'approved') {
    if (call.kind === 'edit') return { kind: 'deny', reason: `pi-plans: ${named(f)} is approved but not started: call pi_plan_execute with op "start" and id ${f.id} before editing ${files}.` };
    return { kind: 'allow' };
  }
  if (f.status !== 'executing' || call.kind !== 'edit') return { kind: 'allow' };
  const outside = paths.filter((p) => !isTarget(f, p));
  if (outside.length) {
    const targets = f.steps.filter((s) => s.target).map((s) => `${s.id} ${s.target}`).slice(0, 6).join(', ') || 'none';
    return choice(settings.otherFiles, `pi-plans: ${outside.join(', ')} is not a target of ${named(f)}'s steps (${targets}): allow it if it belongs to the plan, or add a step for it with pi_plan_step op "add" (id ${f.id}).`);
  }
  if (!f.steps.some((s) => s.status === 'in_progress')) {
    const next = nextStep(f);
    const mark = next ? `call pi_plan_execute with op "mark", id ${f.id}, step ${next.id} (or the step this edit belongs to), status "in_progress"` : `mark the step it belongs to with pi_plan_execute op "mark"`;
    return { kind: 'allow', context: `pi-plans: ${named(f)} has no step in progress: ${mark}.` };
  }
  return { kind: 'allow' };
}

/** A command that names the plan folder: `.pi/` after a space, a quote, `=` or a path separator, or at the start. */
const NAMES_PLAN_FOLDER = /(?:^|[\s"'=/\\])\.pi(?:[/\\]|\s|$)/;

/** A command that runs the CLI's decisions: `pi-plans approve|confirm|trust`, or a script path ending in `pi-plans.js`/`cli.js`/`bin.js` followed by one. */
const APPROVES = /(?:\bpi-plans|[/\\](?:pi-plans|cli|bin)\.js)\b(?:\s+--?[\w-]+(?:[ =](?!approve|confirm|trust)\S+)?)*\s+(?:approve|confirm|trust)\b/;

/**
 * At any status, a bound session approves nothing (the CLI's approve, confirm and trust are the
 * person's: in an agent's terminal they are denied), and changes the plan folder (the plan, its review copies, the
 * bindings the hook reads) only through the plan tools: an edit there is denied, and a command
 * that names it is the person's to allow (deleting its binding would free the session).
 */
function planFolderCall(f: PlanFacts, call: ToolCall, paths: readonly string[], files: string): Decision | undefined {
  const use = `use the plan tools (pi_plan_get, pi_plan_update, pi_plan_step) with id ${f.id}`;
  if (call.kind === 'edit' && paths.some((p) => p === '.pi' || p.startsWith('.pi/'))) {
    return { kind: 'deny', reason: `pi-plans: ${call.tool} on ${files} is not run: the plan folder changes only through the plan tools, so ${named(f)} stays what the person reviewed: ${use}.` };
  }
  if (call.kind === 'terminal' && APPROVES.test(call.command)) {
    return { kind: 'deny', reason: `pi-plans: this command would approve, confirm or trust a plan, which is the person's act, never the agent's: call pi_plan_submit with id ${f.id} and wait for their decision.` };
  }
  if (call.kind === 'terminal' && NAMES_PLAN_FOLDER.test(call.command)) {
    return { kind: 'ask', reason: `pi-plans: this command names the plan folder (.pi/), which changes only through the plan tools while ${named(f)} binds this session: the person decides whether it runs; to read or change the plan, ${use}.` };
  }
  return undefined;
}

function choice(c: Choice, reason: string): Decision {
  return c === 'allow' ? { kind: 'allow' } : { kind: c, reason };
}

/**
 * The answer to a Stop: an executing plan with open steps blocks the first attempt with the next
 * step and the call to mark it; `letGo` (the host's loop guard, or this session blocked last time)
 * always lets the agent end its turn.
 */
export function decideStop(f: PlanFacts, letGo: boolean): Decision {
  // An executing plan whose approval does not stand is not pushed on: its marks would be refused.
  if (f.status !== 'executing' || f.approval) return { kind: 'allow' };
  const next = nextStep(f);
  if (!next || letGo) return { kind: 'allow' };
  return {
    kind: 'block',
    reason: `pi-plans: ${named(f)} still has open steps; the next is ${next.id} "${next.text.slice(0, 120)}": do it and call pi_plan_execute with op "mark", id ${f.id}, step ${next.id}, status "done" (or "blocked" or "skipped" with a note saying why).`,
  };
}

/** The plan in at most 1,500 characters, for SessionStart, PreCompact and UserPromptSubmit. */
export function summary(f: PlanFacts): string {
  const done = f.steps.filter((s) => s.status === 'done' || s.status === 'skipped').length;
  const next = nextStep(f);
  const what = f.approval
    ? `files are not edited: ${unapproved(f, f.approval)}`
    : PLANNING.has(f.status)
    ? `files are not edited until it is approved; ${planningNext(f)}`
    : f.status === 'approved'
      ? `call pi_plan_execute with op "start" and id ${f.id} before editing files`
      : f.status === 'executing'
        ? next
          ? `next step ${next.id} (${next.status}) "${next.text.slice(0, 200)}"${next.target ? ` → ${next.target}` : ''}; mark each step with pi_plan_execute op "mark"`
          : `every step is finished: call pi_plan_execute with op "complete" and id ${f.id}`
        : `nothing is restricted`;
  const comments = f.openComments ? ` ${f.openComments} open review comment${f.openComments === 1 ? '' : 's'}: read them with pi_plan_get.` : '';
  const drift = f.drifted?.length
    ? ` DRIFTED since approval: ${f.drifted.slice(0, 5).join(', ')}${f.drifted.length > 5 ? ` and ${f.drifted.length - 5} more` : ''} changed by something other than this plan's steps; re-read them before relying on the plan (pi_plan_get lists the commits), and tell the person, who acknowledges it or sends the plan back.`
    : '';
  const text = `pi-plans: this session works on ${named(f)}, ${f.status}, v${f.version}, ${done}/${f.steps.length} steps finished: ${what}.${comments}${drift}`;
  return text.length > 1500 ? `${text.slice(0, 1499)}…` : text;
}

/** Events that carry the plan's summary as added context. */
export const CONTEXT_EVENTS: ReadonlySet<HookEvent> = new Set(['SessionStart', 'PreCompact', 'UserPromptSubmit']);
