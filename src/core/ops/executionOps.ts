import { applyEdits, BodyEdit, parsePlan, PlacedStep, PlanDocument, rememberOutline, rememberStepsAfterEdit } from '../format/document';
import { openDependencies, planGraph, runnableSteps } from '../rules/graph';
import { ClaimInput, claimChange, cleanSession, parseClaim, whyNoneRunnable } from './claims';
import { approvalStanding, standingProblem } from '../rules/approval';
import { PlanError } from '../limits/errors';
import { isFinished, isReviewHistoryTitle } from '../format/policy';
import { FrontmatterValue } from '../format/frontmatter';
import { nextStatus } from '../format/lifecycle';
import { LIMITS } from '../limits/limits';
import { shiftOutline } from '../format/outline';
import { DEFAULT_CONFIG, Frontmatter, PlansConfig, StepStatus } from '../format/schema';
import { oneLine, RecordKey } from '../format/steps';
import { OpContext, OpResult, cfg, createPlanText, ensureStepIds, findStep, result, stamp, stepEdits } from './opsShared';

// ---------- execution ----------

/** approved -> executing. */
export function startExecution(doc: PlanDocument, ctx: OpContext, session?: string): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, 'start', ctx.actor);
  requireApproval(doc, ctx, 'started');
  const d = ensureStepIds(doc);
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), status: to, execution_started_at: ctx.now, execution_ended_at: undefined };
  if (session) patch.execution_session = oneLine(session).slice(0, LIMITS.shortField);
  return result(doc, applyEdits(d, patch).text, 'status');
}

/**
 * Nothing runs on an approval that does not hold: start, resume, marks and completion refuse a
 * plan whose approved text changed, that was marked approved without a valid record, or whose
 * approval was signed elsewhere and not yet confirmed here. The message names what to do.
 */
export function requireApproval(doc: PlanDocument, ctx: OpContext, what: string): void {
  const keyring = ctx.approvals?.keyring;
  if (!keyring) throw new PlanError('APPROVAL_INVALID', `${doc.fm.id} cannot be ${what} here: approvals cannot be checked without the user's approval keys`);
  const s = approvalStanding(doc, keyring);
  const problem = standingProblem(doc, s);
  if (!problem) return;
  if (s.state === 'foreign') {
    throw new PlanError('APPROVAL_UNCONFIRMED', `${problem}, so it cannot be ${what} yet. Ask the user to confirm it (Pi Plans: Confirm Approval in VS Code, or \`pi-plans confirm ${doc.fm.id}\` in a terminal).`);
  }
  const again = 'submit it for review again (pi_plan_submit): a person approves the current text';
  throw new PlanError(s.state === 'changed' ? 'CHANGED_SINCE_APPROVAL' : 'APPROVAL_INVALID', `${problem}, so it cannot be ${what}. To go on, ${again}.`);
}

/**
 * Marks a step (executing only). Marking the last open step done or skipped completes the plan.
 * `record` sets (or, with null, removes) the step's other record lines in the same write: its
 * claim, its changes, its check (see `recordBlockOf`). With `claim` (the session acting), the
 * step's `> Claimed:` line says whose it is: a step another session holds is refused (see
 * `claimChange`), and a takeover is logged in the checkpoint.
 */
export function markStep(
  input: PlanDocument,
  stepId: string,
  status: StepStatus,
  ctx: OpContext,
  note?: string,
  record?: Partial<Record<Exclude<RecordKey, 'Note'>, string | null>>,
  claim?: ClaimInput,
): OpResult {
  nextStatus(input.fm.id, input.fm.status, 'mark_step', ctx.actor);
  requireApproval(input, ctx, 'marked');
  if (note !== undefined && note.length > LIMITS.note) throw new PlanError('TOO_LARGE', `the note is over ${LIMITS.note} characters: shorten it`);
  const doc = ensureStepIds(input);
  const s = findStep(doc, stepId);
  const change = claim ? claimChange(doc.fm.id, s, s.record?.Claimed, status, { ...claim, person: ctx.actor !== 'agent' }, ctx.now, cfg(ctx), ctx.activity ? (ctx.activity.get(s.id) ?? null) : undefined) : {};
  // Reopening a finished step undoes recorded work: it is said why, and the log keeps the reason.
  if (isFinished(s.status) && !isFinished(status) && ctx.actor === 'agent' && !note?.trim()) {
    throw new PlanError(
      'INVALID_INPUT',
      `${s.id} is ${s.status}: reopening it (to ${status}) needs the reason, which the checkpoint log keeps: call pi_plan_execute {"id":"${doc.fm.id}","op":"mark","step":"${s.id}","status":"${status}","note":"<why ${s.id} must be done again>"}`,
    );
  }
  refuseWaiting(doc, s, status, ctx.actor);
  const updated = { ...s, status, note: note !== undefined ? oneLine(note) || undefined : s.note };
  const finishing = isFinished(status) && doc.steps.every((x) => x.id === s.id || isFinished(x.status));
  const patch: Record<string, FrontmatterValue | undefined> = stamp(input, ctx);
  if (finishing) {
    patch.status = 'completed';
    patch.execution_ended_at = ctx.now;
    patch.result_summary = doc.fm.result_summary ?? 'All steps done.';
  }
  for (const v of Object.values(record ?? {})) if (v && v.length > LIMITS.note) throw new PlanError('TOO_LARGE', `a record line is over ${LIMITS.note} characters: shorten it`);
  const claimed = change.text === undefined ? {} : { Claimed: change.text };
  const edits = stepEdits(doc, s, { status, note: note !== undefined ? (updated.note ?? null) : undefined, record: { ...claimed, ...record } });
  const { text, body } = applyEdits(doc, patch, edits);
  // The hot path: the header and record lines change, the block structure does not; no Markdown
  // parse, and of the steps only this one is read again.
  const outline = shiftOutline(doc.outline, edits, body);
  rememberOutline(body, outline, doc.outline);
  rememberStepsAfterEdit(doc.body, body, outline, [s.index]);
  const logged = [updated.note, change.takenOver].filter(Boolean).join('; ') || undefined;
  return result(input, text, 'step', { step: s.id, stepStatus: status, note: logged, autoCompleted: finishing, ...(change.takenOver ? { takenOver: change.takenOver } : {}), ...(claim ? { session: cleanSession(claim.session) } : {}) }, doc === input ? input : undefined);
}

/**
 * A person lets a step's claim go: the step in progress goes back to pending with its
 * `> Claimed:` line removed, for any session to take (a session whose server went away for good,
 * an agent that stopped). Only a person: a session lets its own step go by marking it pending,
 * and another agent waits for the claim to stall. The log keeps whose claim it was.
 */
export function releaseStep(input: PlanDocument, stepId: string, ctx: OpContext): OpResult {
  nextStatus(input.fm.id, input.fm.status, 'mark_step', ctx.actor);
  const doc = ensureStepIds(input);
  const s = findStep(doc, stepId);
  if (ctx.actor === 'agent') {
    throw new PlanError('HUMAN_ONLY', `${s.id}: releasing another session's claim is a person's decision; mark your own step "pending" to let it go, or call pi_plan_execute {"id":"${doc.fm.id}","op":"next"} for a step that can run now`);
  }
  const claim = parseClaim(s.record?.Claimed);
  const held = claim ?? (s.status === 'in_progress' ? ctx.activity?.get(s.id) : undefined);
  if (s.status !== 'in_progress') throw new PlanError('INVALID_INPUT', `${s.id} is ${s.status.replace('_', ' ')}, not in progress: there is no claim to release`);
  const who = held?.session ? `${held.session}'s claim (since ${held.at})` : 'its claim';
  const edits = stepEdits(doc, s, { status: 'pending', record: { Claimed: null } });
  return result(input, applyEdits(doc, stamp(input, ctx), edits).text, 'step', { step: s.id, stepStatus: 'pending', note: `${who} released by a person` }, doc === input ? input : undefined);
}

/** Why `claimNext` claimed nothing: the plan is complete, or what holds its open steps. */
export class NoRunnableStep extends Error {
  constructor(
    readonly why: string,
    readonly complete: boolean,
  ) {
    super(why);
  }
}

/**
 * Claims the next runnable step for a session and marks it in progress (the first runnable in
 * list order). Throws `NoRunnableStep` saying why when there is none. Under the store's lock, two
 * sessions never claim the same step: the second one's work is done again on the first one's write.
 */
export function claimNext(input: PlanDocument, claim: ClaimInput, ctx: OpContext): OpResult {
  if (input.fm.status === 'completed') throw new NoRunnableStep(`${input.fm.id} is complete: every step is done or skipped`, true);
  nextStatus(input.fm.id, input.fm.status, 'mark_step', ctx.actor);
  const doc = ensureStepIds(input);
  const graph = planGraph(doc.steps);
  const next = runnableSteps(doc.steps, graph)[0];
  if (!next) {
    const steps = doc.steps.map((s) => ({ ...s, claim: s.status === 'in_progress' ? parseClaim(s.record?.Claimed) : undefined }));
    throw new NoRunnableStep(whyNoneRunnable(steps, graph), false);
  }
  return markStep(input, next.id, 'in_progress', ctx, undefined, undefined, claim);
}

/** Any line that starts (after blanks) with `after:`: only then can a step have one. */
const MAY_HAVE_AFTER = /^[ \t]*after:/im;

/**
 * Refuses to start a step (in progress, or done straight from pending) while a step it waits for
 * is open, naming those steps and the call that does the right thing. Only in a plan that uses
 * `after:` (a graph): a plain list keeps its old freedom to be marked in any order.
 */
function refuseWaiting(doc: PlanDocument, s: PlacedStep, status: StepStatus, actor: OpContext['actor']): void {
  if (status !== 'in_progress' && !(status === 'done' && s.status === 'pending')) return;
  // A plan without any `after:` line is a list, marked in any order as it always was. Told from
  // the text first: the hot path of a mark reads no other step (steps are read when asked for).
  if (!MAY_HAVE_AFTER.test(doc.body)) return;
  const graph = planGraph(doc.steps);
  if (!graph.explicit.size) return;
  if (graph.cyclic.has(s.id)) {
    const cycle = graph.problems.find((p) => p.code === 'dependency-cycle' && p.step && graph.cyclic.has(p.step));
    throw new PlanError('STEP_WAITING', `${s.id} cannot start: ${cycle?.message ?? 'it is on a cycle of "after:" lines'}; that is a change of the plan (pi_plan_set_content makes a revision for review)`);
  }
  const open = openDependencies(doc.steps, s.id, graph);
  if (!open.length) return;
  const first = open[0];
  const waits = open.map((id) => `${id} (${doc.steps.find((x) => x.id === id)!.status.replace('_', ' ')})`).join(', ');
  if (actor !== 'agent') throw new PlanError('STEP_WAITING', `${s.id} waits for ${waits}: mark ${open.length === 1 ? 'it' : 'them'} done or skipped first`);
  const runnable = runnableSteps(doc.steps, graph).map((x) => x.id);
  throw new PlanError(
    'STEP_WAITING',
    `${s.id} waits for ${waits}: do ${open.length === 1 ? 'it' : 'them'} first (pi_plan_execute {"id":"${doc.fm.id}","op":"mark","step":"${first}","status":"in_progress"}), or call pi_plan_execute {"id":"${doc.fm.id}","op":"next"} for a step that can run now${runnable.length ? ` (runnable now: ${runnable.join(', ')})` : ''}`,
  );
}

/** executing -> completed or failed, with a result summary (required for a failure). */
export function finishExecution(doc: PlanDocument, outcome: 'complete' | 'fail', summary: string | undefined, ctx: OpContext): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, outcome, ctx.actor);
  // Failing is always possible (it stops the run); completing claims the approved work was done.
  if (outcome === 'complete') requireApproval(doc, ctx, 'completed');
  // An agent completes only the work it did: every step done, or skipped with the reason said.
  if (outcome === 'complete' && ctx.actor === 'agent') {
    const open = doc.steps.filter((s) => !isFinished(s.status)).map((s) => `${s.id} (${s.status.replace('_', ' ')})`);
    const unexplained = doc.steps.filter((s) => s.status === 'skipped' && !(s.note ?? s.record?.Note)).map((s) => s.id);
    if (open.length || unexplained.length) {
      const first = doc.steps.find((s) => !isFinished(s.status)) ?? doc.steps.find((s) => unexplained.includes(s.id))!;
      throw new PlanError(
        'INVALID_TRANSITION',
        `${doc.fm.id} cannot be completed: ${[open.length ? `${open.join(', ')} ${open.length === 1 ? 'is' : 'are'} not done` : '', unexplained.length ? `${unexplained.join(', ')} ${unexplained.length === 1 ? 'was' : 'were'} skipped without a reason` : ''].filter(Boolean).join('; ')}. Mark ${first.id} first: pi_plan_execute {"id":"${doc.fm.id}","op":"mark","step":"${first.id}","status":"done"} (or "skipped" with "note": why); marking the last open step completes the plan by itself`,
      );
    }
  }
  const s = summary ? oneLine(summary) : '';
  if (outcome === 'fail' && !s) throw new PlanError('INVALID_INPUT', 'say why the plan failed: give a summary');
  if (s.length > LIMITS.resultSummary) throw new PlanError('TOO_LARGE', `the summary is over ${LIMITS.resultSummary} characters: shorten it`);
  return result(doc, applyEdits(doc, { ...stamp(doc, ctx), status: to, execution_ended_at: ctx.now, result_summary: s || undefined }).text, 'status', { note: s || undefined }, doc);
}

/** A new proposed plan from a finished, rejected or failed one: same steps (all pending), no review history. */
export function clonePlan(doc: PlanDocument, newId: string, ctx: OpContext): string {
  nextStatus(doc.fm.id, doc.fm.status, 'clone', ctx.actor);
  const src = ensureStepIds(doc);
  const created = parsePlan(createPlanText({ id: newId, title: src.fm.title, status: 'proposed', planner_model: src.fm.planner_model, executor_model: src.fm.executor_model, tools_required: src.fm.tools_required }, ctx.now));
  // Body: the source body without its review history, every step pending, no record lines.
  const drop = src.outline.sections.filter((s) => s.depth === 2 && isReviewHistoryTitle(s.title));
  const edits: BodyEdit[] = [
    ...drop.map((s) => ({ start: s.start, end: s.end, text: '' })),
    ...src.steps.flatMap((s) => stepEdits(src, s, { status: 'pending', record: { Claimed: null, Changed: null, Check: null, Note: null } })),
  ];
  // A clone is a new file: LF line ends, no BOM.
  const body = applyEdits(src, {}, edits).body.replace(/\r\n/g, '\n').replace(/\s+$/, '') + '\n';
  return parsePlan(applyEdits(created, { step_seq: src.fm.step_seq ?? 0 }, [{ start: 0, end: created.body.length, text: body.startsWith('\n') ? body : '\n' + body }]).text).text;
}

// ---------- detection ----------

/** True when an executing plan has shown no activity (checkpoint, write, start) for the configured timeout. */
export function isStalled(fm: Frontmatter, lastActivity: string | undefined, now: string, config: PlansConfig = DEFAULT_CONFIG): boolean {
  if (fm.status !== 'executing') return false;
  const times = [lastActivity, fm.execution_started_at, fm.updated_at].filter(Boolean).map((t) => Date.parse(t!));
  const last = Math.max(...times.filter((t) => !Number.isNaN(t)));
  return Date.parse(now) - last > config.executor_timeout_minutes * 60_000;
}

/** True when a proposed plan has waited for review longer than `stale_after_days`. */
export function isStale(fm: Frontmatter, now: string, config: PlansConfig = DEFAULT_CONFIG): boolean {
  return fm.status === 'proposed' && Date.parse(now) - Date.parse(fm.updated_at) > config.stale_after_days * 86_400_000;
}
