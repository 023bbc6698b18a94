// The policy a session's bound plans set for its tool calls, Stop and context events. Pure: the
// plans' facts, the call (with what its command does or where its files are) and the settings in;
// a decision with its one-sentence reason out. Every reason names the plan and the call to make
// next. A session may be bound to several plans: each judges the call, and the strictest answer
// stands, so naming another plan can add a restriction and never lift one.
import type { Finding } from './commands';
import type { HookEvent } from './payload';
import type { Protected } from './paths';
import type { ToolCall } from './tools';

/** What the hook reads of a bound plan (frontmatter and steps, no Markdown parse). */
export interface PlanFacts {
  id: string;
  title: string;
  status: string;
  version: number;
  /** `claimedBy`: the session a step in progress is claimed by (its `> Claimed:` line). */
  steps: readonly { id: string; status: string; text: string; target?: string; claimedBy?: string }[];
  /**
   * Review comments the agent still has to act on (core `openReview`): a rejection's, read from the
   * body (reviewNotes `quickRejectionComments`); an approved or executing plan's approval
   * suggestions, counted by the store with its approval check (cached with the verdict).
   */
  openComments: number;
  /**
   * Set when the status says approved, executing, stalled or failed but the person's signed approval
   * of this text does not stand (the store's check): the plan is treated as being planned.
   */
  approval?: { state: 'invalid' | 'changed' | 'foreign'; detail?: string };
  /** Targets the last look found changed since approval by something other than the plan's steps (issue 30). */
  drifted?: readonly string[];
}

/** A bound plan as the hook found it: its facts, or why it could not be read (then nothing but reads and plan tools run). */
export type BoundPlan = { facts: PlanFacts } | { id: string; problem: string };

/** `hooks.planningTerminal` and `hooks.otherFiles` (the user's configuration; a workspace may only make them stricter). */
export type Choice = 'ask' | 'deny' | 'allow';
export interface HookSettings {
  planningTerminal: Choice;
  otherFiles: Choice;
}
export const DEFAULT_HOOK_SETTINGS: HookSettings = { planningTerminal: 'ask', otherFiles: 'ask' };

/** A decision, before it is written in a host's format. */
export type Decision =
  /** `notice`: a message for the person (the host's system message), no decision. */
  | { kind: 'allow'; context?: string; notice?: string }
  | { kind: 'deny' | 'ask'; reason: string }
  | { kind: 'block'; reason: string }
  | { kind: 'context'; context: string };

/** The call as the policy judges it: the tool call, and what the hook found out about it on the disk. */
export interface JudgedCall {
  call: ToolCall;
  /** Edits: the files, relative to the workspace (posix; `../…` outside it), resolved through links; undefined when they cannot be read. */
  paths?: string[];
  /** Edits: the protected places the files are in. */
  places?: Protected[];
  /** Shell commands: what the command does (commands.ts). */
  findings?: Finding[];
  /** Codex's apply_patch inside a shell command: its files, as `paths`, and their protected places. */
  patch?: { paths: string[]; places: Protected[] };
}

/** Who to ask to free the session, for the reasons that say so. */
export interface SessionRef {
  session: string;
}

export const PLANNING = new Set(['draft', 'proposed', 'rejected', 'needs_review']);
/** The statuses a plan ends in: its work is over, and it lets its session do no more than a plan being planned. */
export const FINISHED = new Set(['completed', 'cancelled', 'superseded', 'archived']);
const OPEN_STEP = new Set(['pending', 'in_progress', 'blocked', 'failed']);

/** How a plan restricts its session, strictest first. */
export type Level = 'broken' | 'planning' | 'finished' | 'approved' | 'paused' | 'executing';
const LEVELS: readonly Level[] = ['broken', 'planning', 'finished', 'approved', 'paused', 'executing'];

/** A plan's level: a status whose approval does not stand is planning; an unknown status is finished. */
export function levelOf(b: BoundPlan): Level {
  if (!('facts' in b)) return 'broken';
  const f = b.facts;
  if (PLANNING.has(f.status) || f.approval) return 'planning';
  if (f.status === 'approved') return 'approved';
  if (f.status === 'stalled' || f.status === 'failed') return 'paused';
  if (f.status === 'executing') return 'executing';
  return 'finished';
}

/**
 * The plans that decide, strictest first: every plan the session is bound to. (A plan that was
 * finished already when the session named it, a read of an old plan, is not bound at all: the
 * hook leaves it out. One that finished while bound, cancelled or completed by the agent, holds
 * the session as a plan being planned does.)
 */
export function deciding(plans: readonly BoundPlan[]): BoundPlan[] {
  return [...plans].sort((a, b) => LEVELS.indexOf(levelOf(a)) - LEVELS.indexOf(levelOf(b)));
}

const named = (f: PlanFacts) => `${f.id} "${f.title.length > 80 ? `${f.title.slice(0, 79)}…` : f.title}"`;
const release = (s: SessionRef) => `pi-plans hook release ${s.session.length > 64 ? `${s.session.slice(0, 64)}…` : s.session}`;

/** Why a plan whose status says approved (or later) is treated as planned, and the call to make next. */
export function unapproved(f: PlanFacts, a: NonNullable<PlanFacts['approval']>): string {
  const submit = `call pi_plan_submit with id ${f.id} so the person reviews`;
  if (a.state === 'changed') return `${named(f)} says ${f.status}, but its text changed since approval (${a.detail ?? 'a person approved an earlier text'}): ${submit} the current text, and wait for their approval`;
  if (a.state === 'foreign') return `${named(f)} was ${a.detail ?? 'approved on another machine'}, and no one here confirmed that approval: ask the person to confirm it (in VS Code, or pi-plans confirm ${f.id} in their own terminal), or ${submit} it here`;
  return `${named(f)} says ${f.status}, but its approval is not valid (${a.detail ?? 'no signed approval of this text'}): ${submit} it, and wait for their approval`;
}

/** What to do next while a plan is planned, by status: the tail of a planning reason. */
function planningNext(f: PlanFacts): string {
  if (f.approval) return unapproved(f, f.approval);
  if (f.status === 'draft') return `it is a draft (v${f.version}): finish it and call pi_plan_submit with id ${f.id}, then wait for the person's approval`;
  if (f.status === 'proposed') return `it is proposed (v${f.version}) and waits for the person's review: wait for their decision (pi_plan_get with id ${f.id} shows it), or revise it with pi_plan_update`;
  return `it was sent back for changes (${f.status}, v${f.version}): read the review with pi_plan_get, revise the plan with pi_plan_update and call pi_plan_submit with id ${f.id} again`;
}

/** Why a level holds the session back, and what to do: the tail of a reason. */
function held(b: BoundPlan, s: SessionRef): string {
  if (!('facts' in b)) return `${b.id} cannot be read (${b.problem}), and while it binds this session only reads and the plan tools run: the person fixes the plan file (pi-plans validate shows what is wrong) or frees this session (${release(s)} in their own terminal)`;
  const f = b.facts;
  switch (levelOf(b)) {
    case 'planning':
      return `${named(f)} is not approved: ${planningNext(f)}`;
    case 'finished':
      return `${named(f)} is ${f.status}, so nothing more is approved for this session: for further changes create a plan (pi_plan_create) and wait for the person's approval, or ask the person to free this session (${release(s)} in their own terminal)`;
    case 'approved':
      return `${named(f)} is approved but not started: call pi_plan_execute with op "start" and id ${f.id} first`;
    case 'paused':
      return `${named(f)} is ${f.status}: the person resumes it (pi-plans resume ${f.id} in their own terminal, or in VS Code) before its files change again`;
    default:
      return `${named(f)} is executing`;
  }
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

const SEVERITY = { allow: 0, context: 0, block: 3, ask: 2, deny: 3 } as const;
const rank = (d: Decision) => SEVERITY[d.kind] + (d.kind === 'allow' && d.context ? 1 : 0);

/** The stricter of two decisions (the first when equal). */
export function stricter(a: Decision, b: Decision): Decision {
  return rank(b) > rank(a) ? b : a;
}

function choice(c: Choice, reason: string): Decision {
  return c === 'allow' ? { kind: 'allow' } : { kind: c, reason };
}

/** An edit, judged by one plan: protected places first, then the plan's level, then (executing) its targets. */
function editDecision(b: BoundPlan, tool: string, paths: string[] | undefined, places: readonly Protected[], settings: HookSettings, s: SessionRef): Decision {
  if (paths === undefined) return { kind: 'deny', reason: `pi-plans: ${tool} is not run: the hook cannot read which files it changes, and this session is bound to a plan: edit one file per call with a path.` };
  const files = paths.length ? paths.join(', ') : 'a file';
  if (places.length) return { kind: 'deny', reason: `pi-plans: ${tool} on ${files} is not run: it is in ${places[0].what}, which an agent bound to a plan never changes by an edit (plans change through the plan tools; the hooks' files through pi-plans setup, which the person runs).` };
  const level = levelOf(b);
  if (level === 'approved' && 'facts' in b) return { kind: 'deny', reason: `pi-plans: ${tool} on ${files} is not run: ${named(b.facts)} is approved but not started: call pi_plan_execute with op "start" and id ${b.facts.id} before editing ${files}.` };
  if (level !== 'executing' || !('facts' in b)) return { kind: 'deny', reason: `pi-plans: ${tool} on ${files} is not run: ${held(b, s)}.` };
  const f = b.facts;
  const outside = paths.filter((p) => !isTarget(f, p));
  if (outside.length) {
    const targets = f.steps.filter((st) => st.target).map((st) => `${st.id} ${st.target}`).slice(0, 6).join(', ') || 'none';
    return choice(settings.otherFiles, `pi-plans: ${outside.join(', ')} is not a target of ${named(f)}'s steps (${targets}): allow it if it belongs to the plan, or add a step for it with pi_plan_step op "add" (id ${f.id}).`);
  }
  if (!f.steps.some((st) => st.status === 'in_progress')) {
    const next = nextStep(f);
    const mark = next ? `call pi_plan_execute with op "mark", id ${f.id}, step ${next.id} (or the step this edit belongs to), status "in_progress"` : `mark the step it belongs to with pi_plan_execute op "mark"`;
    return { kind: 'allow', context: `pi-plans: ${named(f)} has no step in progress: ${mark}.` };
  }
  return { kind: 'allow' };
}

/** A call of unknown effect (a tool no list names, a command the policy cannot read, input typed into a shell): the person decides. */
function unknownDecision(b: BoundPlan, what: string, settings: HookSettings, s: SessionRef): Decision {
  const level = levelOf(b);
  if (level === 'broken') return { kind: 'deny', reason: `pi-plans: ${what} is not run: ${held(b, s)}.` };
  const planned = level === 'planning' || level === 'finished';
  if (planned && settings.planningTerminal === 'deny') return { kind: 'deny', reason: `pi-plans: ${what} is not run: ${held(b, s)}.` };
  return { kind: 'ask', reason: `pi-plans: ${what}, so the person decides whether it runs while this session is bound to ${'facts' in b ? named(b.facts) : b.id}${planned ? ` (${held(b, s)})` : ''}.` };
}

/** A shell command, judged by one plan: what it does first (a person's verb, a protected place, an unknown effect), then the plan's level. */
function commandDecision(b: BoundPlan, j: JudgedCall, settings: HookSettings, s: SessionRef): Decision {
  const id = 'facts' in b ? b.facts.id : b.id;
  let d: Decision = { kind: 'allow' };
  for (const f of j.findings ?? []) {
    if (f.kind === 'person') d = stricter(d, { kind: 'deny', reason: `pi-plans: this command is not run: ${f.what} is the person's act, never an agent's, whatever the spelling: call pi_plan_submit with id ${id} and wait for their decision.` });
    else if (f.kind === 'protected' && f.place.level === 'deny') d = stricter(d, { kind: 'deny', reason: `pi-plans: this command is not run: it names ${f.place.what}, which only Pi Plans and the person change; an agent bound to a plan never touches it.` });
    else if (f.kind === 'protected') d = stricter(d, { kind: 'ask', reason: `pi-plans: this command names ${f.place.what}, which changes only through the plan tools or the person while ${'facts' in b ? named(b.facts) : b.id} binds this session: the person decides whether it runs; to read or change the plan, use pi_plan_get or pi_plan_update with id ${id}.` });
    else if (f.kind === 'unknown' || f.kind === 'interactive') d = stricter(d, unknownDecision(b, `the hook cannot tell what this command does (${f.why})`, settings, s));
  }
  if (j.patch) d = stricter(d, editDecision(b, 'apply_patch', j.patch.paths, j.patch.places, settings, s));
  if (d.kind === 'deny') return d;
  const level = levelOf(b);
  if (level === 'broken') return { kind: 'deny', reason: `pi-plans: this command is not run: ${held(b, s)}.` };
  if (level === 'planning' || level === 'finished') {
    return stricter(d, choice(settings.planningTerminal, `pi-plans: this command runs only if the person allows it: ${held(b, s)}.`));
  }
  return d;
}

/** The answer to a PreToolUse, by one plan. */
function decideByPlan(b: BoundPlan, j: JudgedCall, settings: HookSettings, s: SessionRef): Decision {
  const c = j.call;
  if (c.kind === 'plan' || c.kind === 'read') return { kind: 'allow' };
  if (c.kind === 'edit') return editDecision(b, c.tool, j.paths, j.places ?? [], settings, s);
  if (c.kind === 'terminal') return commandDecision(b, j, settings, s);
  if (c.kind === 'shellInput') return unknownDecision(b, `${c.tool} types into a shell, where the hook cannot see the command`, settings, s);
  return unknownDecision(b, `${c.tool} is a tool the hook does not know`, settings, s);
}

/** The answer to a PreToolUse: every deciding plan judges the call; the strictest answer stands. */
export function decideTool(plans: readonly BoundPlan[], j: JudgedCall, settings: HookSettings, s: SessionRef): Decision {
  let d: Decision = { kind: 'allow' };
  for (const b of deciding(plans)) d = stricter(d, decideByPlan(b, j, settings, s));
  return d;
}

/**
 * The answer to a Stop: when the strictest plan is executing with open steps, the first attempt
 * is blocked with the next step and the call to mark it; `letGo` (the host's loop guard, or this
 * session blocked last time) always lets the agent end its turn.
 */
export function decideStop(plans: readonly BoundPlan[], letGo: boolean): Decision {
  const top = deciding(plans)[0];
  if (!top || levelOf(top) !== 'executing' || !('facts' in top)) return { kind: 'allow' };
  const f = top.facts;
  const next = nextStep(f);
  if (!next || letGo) return { kind: 'allow' };
  return {
    kind: 'block',
    reason: `pi-plans: ${named(f)} still has open steps; the next is ${next.id} "${next.text.slice(0, 120)}": do it and call pi_plan_execute with op "mark", id ${f.id}, step ${next.id}, status "done" (or "blocked" or "skipped" with a note saying why).`,
  };
}

/** One plan in a few words for the summary. */
function planLine(b: BoundPlan, s: SessionRef): string {
  if (!('facts' in b)) return `${b.id}, which cannot be read (${b.problem}): only reads and the plan tools run`;
  const f = b.facts;
  const done = f.steps.filter((st) => st.status === 'done' || st.status === 'skipped').length;
  const next = nextStep(f);
  const level = levelOf(b);
  const what =
    level === 'executing'
      ? next
        ? `next step ${next.id} (${next.status}) "${next.text.slice(0, 200)}"${next.target ? ` → ${next.target}` : ''}; mark each step with pi_plan_execute op "mark"`
        : `every step is finished: call pi_plan_execute with op "complete" and id ${f.id}`
      : `files are not edited: ${held(b, s)}`;
  const comments = f.openComments ? ` ${f.openComments} open review comment${f.openComments === 1 ? '' : 's'}: read them with pi_plan_get.` : '';
  const drift = f.drifted?.length
    ? ` DRIFTED since approval: ${f.drifted.slice(0, 5).join(', ')}${f.drifted.length > 5 ? ` and ${f.drifted.length - 5} more` : ''} changed by something other than this plan's steps; re-read them before relying on the plan (pi_plan_get lists the commits), and tell the person, who acknowledges it or sends the plan back.`
    : '';
  return `${named(f)}, ${f.status}, v${f.version}, ${done}/${f.steps.length} steps finished: ${what}.${comments}${drift}`;
}

/** The session's plans in at most 1,500 characters, for SessionStart, PreCompact and UserPromptSubmit. */
export function summary(plans: readonly BoundPlan[], s: SessionRef): string {
  const [top] = deciding(plans);
  if (!top) return '';
  const others = plans.filter((p) => p !== top).map((p) => ('facts' in p ? `${p.facts.id} (${p.facts.status})` : p.id));
  const text = `pi-plans: this session works on ${planLine(top, s)}${others.length ? ` It is bound to ${others.length === 1 ? 'one more plan' : `${others.length} more plans`} as well (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}); the strictest decides.` : ''}`;
  return text.length > 1500 ? `${text.slice(0, 1499)}…` : text;
}

/** Events that carry the plan's summary as added context. */
export const CONTEXT_EVENTS: ReadonlySet<HookEvent> = new Set(['SessionStart', 'PreCompact', 'UserPromptSubmit']);
