/**
 * The use cases: what a person or an agent does to a plan, once, for every face. Each one says
 * who acts, checks the version the actor saw, runs the core operation under the store's lock,
 * keeps plan work mode (the active plan) in step, and returns what happened as data. The agent
 * tools, the CLI, the MCP server and the VS Code surfaces (commands, tree, CodeLens, plan editor,
 * review gate) are thin adapters over these. No vscode, no I/O of its own. Floor 3, over the store;
 * reviewWait holds the blocking wait for a person's decision. See docs/architecture.md.
 */
import {
  Actor,
  approve,
  changedLine,
  StepChanges,
  stepsAlongside,
  withAlongside,
  changeStatus,
  contentDigest,
  DecisionRecord,
  claimNext,
  ClaimInput,
  cleanSession,
  parseClaim,
  NoRunnableStep,
  EvidenceFlag,
  evidenceFlag,
  commentAddressed,
  comparePlans,
  openReview,
  parsePlan,
  PlanComparison,
  reviewOfVersion,
  ReviewComment,
  editStep,
  FieldsInput,
  finishExecution,
  markStep,
  OpResult,
  PlanError,
  PlanDocument,
  reject,
  releaseStep,
  SectionsInput,
  SeenPlan,
  setContent,
  setContentBodies,
  setMetadata,
  startExecution,
  StepOp,
  StepStatus,
  submit,
} from '../core';
import type { PlanStore, UpdateOptions } from '../store';

export { waitForDecision, type ReviewOutcome } from './reviewWait';

/** The per-folder "active plan" pointer (plan work mode). UI state, never plan content. */
export interface ActivePlans {
  /** Active plan ids, with the folder each is in. */
  list(): { id: string; folder: string }[];
  set(id: string, folder: string): void | Promise<void>;
  clear(id: string): void | Promise<void>;
}

/** Where a use case acts: the plan's store, and plan work mode when the face has one (MCP and the CLI have none). */
export interface Place {
  store: PlanStore;
  /** The folder's name, as the active-plan pointer records it. */
  folder?: string;
  active?: ActivePlans;
}

/** Who acts, and the version they last saw (a plan changed since is refused: VERSION_CONFLICT). */
export interface Act {
  actor: Actor;
  expectedVersion?: number;
}

/** What a use case did: the plan as written and the operation's own account of it. */
export interface Done {
  doc: PlanDocument;
  result: OpResult;
  /** What could not be recorded beside the write (the checkpoint, a review copy): the write stands. */
  warnings?: string[];
}

function run(p: Place, id: string, act: Act, op: Parameters<PlanStore['update']>[2], extra: Omit<UpdateOptions, 'expectedVersion'> = {}): Promise<Done> {
  return p.store.update(id, act.actor, op, { expectedVersion: act.expectedVersion, ...extra });
}

// ---------- planning ----------

/** Adds, updates, removes or moves a step. */
export function editPlanStep(p: Place, id: string, op: StepOp, act: Act): Promise<Done> {
  return run(p, id, act, (d, c) => editStep(d, op, c));
}

/** Sets sections and fields. */
export function updatePlan(p: Place, id: string, sections: SectionsInput, fields: FieldsInput, act: Act): Promise<Done> {
  return run(p, id, act, (d, c) => setMetadata(d, sections, fields, c));
}

/**
 * Replaces the plan's Markdown. An executing plan is not changed in place: its revision (a new
 * proposed plan) is created and becomes the active plan where the old one was. `revision` is the
 * new plan as read back, when one was created.
 */
export async function revisePlan(p: Place, id: string, markdown: string, opts: { title?: string }, act: Act): Promise<Done & { revision?: PlanDocument }> {
  const newId = p.store.newPlanId();
  // The new Markdown's parse can then run where the face parses (the host's worker thread).
  const done = await run(p, id, act, (d, c) => setContent(d, markdown, c, { title: opts.title, revisionId: newId }), { bodies: (d) => setContentBodies(d, markdown) });
  const created = done.result.created?.[0];
  if (!created) return done;
  const revision = await p.store.read(created.id);
  if (p.active) {
    const folder = p.active.list().find((a) => a.id === id)?.folder ?? p.folder ?? '';
    await p.active.clear(id);
    await p.active.set(created.id, folder);
  }
  return { ...done, revision };
}

/**
 * Submits a draft for review (validated; a plan without steps is cancelled: `cancelled` says so).
 * After a rejection with comments, `untouched` lists the comments whose step or section the
 * revision did not change since the rejected version (compared with its snapshot).
 */
export async function submitPlan(p: Place, id: string, act: Act): Promise<Done & { cancelled: boolean; untouched: ReviewComment[] }> {
  let open: ReturnType<typeof openReview>;
  const done = await run(p, id, act, (d, c) => {
    open = openReview(d);
    return submit(d, c);
  });
  let untouched: ReviewComment[] = [];
  if (open?.kind === 'rejection' && open.notes.comments.length) {
    const since = await compareWithReviewed(p, id, { version: open.version, doc: done.doc });
    if (since.comparison) untouched = open.notes.comments.filter((c) => !commentAddressed(c, since.comparison!));
  }
  return { ...done, cancelled: done.doc.fm.status === 'cancelled', untouched };
}

// ---------- review ----------

/**
 * Approves exactly the text the person reviewed: `seen.digest` is the content digest of what
 * they were shown (the plan editor's, the CodeLens's, the notification's, the terminal's); a
 * plan whose text differs now is refused (STALE_APPROVAL, saying what changed when the face
 * passes the shown text). The approval is signed with the person's key. An agent approves only
 * with the user's opt-in (`agentMayApprove`), which the core checks. What could not be recorded
 * after the approval was written (the checkpoint, the review copy) is in `warnings`: the approval stands.
 */
export async function approvePlan(p: Place, id: string, act: { actor: Actor; seen: SeenPlan; agentMayApprove?: boolean; comments?: readonly ReviewComment[]; note?: string }): Promise<Done> {
  let reviewed: PlanDocument | undefined;
  const done = await run(
    p,
    id,
    { actor: act.actor },
    (d, c) => {
      reviewed = d;
      return approve(d, act.seen, c, { comments: act.comments, note: act.note });
    },
    { agentMayApprove: act.agentMayApprove, sign: true },
  );
  const recorded = await recordDecisionOf(p, done.doc, 'approve', done.doc.fm.approval_sig);
  return withWarning(withWarning(done, await keepReviewed(p, id, reviewed)), recorded);
}

/**
 * Rejects with feedback and comments (one `## Rejection (vN)` section); a version other than the
 * one reviewed is refused. The rejected version is kept for the next round's comparison.
 */
export async function rejectPlan(p: Place, id: string, act: { actor: Actor; feedback: string; seenVersion?: number; seen?: SeenPlan; comments?: readonly ReviewComment[] }): Promise<Done> {
  let reviewed: PlanDocument | undefined;
  const done = await run(p, id, { actor: act.actor }, (d, c) => {
    reviewed = d;
    return reject(d, act.feedback, c, act.seen ?? act.seenVersion, act.comments);
  });
  const recorded = await recordDecisionOf(p, done.doc, 'reject');
  return withWarning(withWarning(done, await keepReviewed(p, id, reviewed)), recorded);
}

/**
 * Records a person's decision outside the workspace, so that writing an older file back cannot
 * undo it (the store's keyring voids an approval a later decision undid). A failure never fails
 * the decision, and is said.
 */
async function recordDecisionOf(p: Place, doc: PlanDocument, decision: DecisionRecord['decision'], signature?: string): Promise<string | undefined> {
  try {
    await p.store.recordDecision({ plan: doc.fm.id, decision, version: doc.fm.version, digest: contentDigest(doc), ...(signature ? { signature } : {}), at: new Date().toISOString() });
    return undefined;
  } catch (e) {
    return `the decision was not recorded in your state folder (${e instanceof Error ? e.message : String(e)}), so an older copy of the file written back would not be recognised as one`;
  }
}

/** The copy of a decided version, for the next round's comparison: a failure to keep it never fails the decision, and is said. */
async function keepReviewed(p: Place, id: string, reviewed: PlanDocument | undefined): Promise<string | undefined> {
  if (!reviewed) return undefined;
  try {
    await p.store.saveSnapshot(id, reviewed.fm.version, reviewed.text);
    return undefined;
  } catch (e) {
    return `the reviewed version v${reviewed.fm.version} was not kept for the next comparison (${e instanceof Error ? e.message : String(e)})`;
  }
}

function withWarning(done: Done, warning: string | undefined): Done {
  return warning ? { ...done, warnings: [...(done.warnings ?? []), warning] } : done;
}

/**
 * A person confirms, on this machine, an approval made on another machine by a key not trusted
 * here (the plan is `foreign`): the confirmation is kept in the user's keyring, the plan's file
 * does not change, and the plan may run.
 */
export async function confirmApproval(p: Place, id: string, act: { actor: Actor }): Promise<PlanDocument> {
  if (act.actor === 'agent') throw new PlanError('HUMAN_ONLY', `${id}: confirming an approval made elsewhere is a person's decision; ask the user`);
  const doc = await p.store.confirmApproval(id, act.actor);
  await recordDecisionOf(p, doc, 'confirm', doc.fm.approval_sig);
  return doc;
}

/** What changed since a reviewed version, and the comments of that review with whether each was addressed. */
export interface ReviewedComparison {
  /** Undefined when no reviewed version is kept or it cannot be read (`unavailable` says why). */
  comparison?: PlanComparison;
  unavailable?: string;
  /** The kept version whose snapshot could not be read (corrupted), when that is why there is no comparison. */
  unreadableVersion?: number;
  /** The snapshot's text (for a diff view). */
  reviewedText?: string;
  comments: (ReviewComment & { addressed: boolean })[];
}

/**
 * Compares a plan with the version a person last decided on before its current version (or the
 * one named). A missing or corrupted snapshot is "no comparison available", never an error.
 */
export async function compareWithReviewed(p: Place, id: string, opts: { version?: number; doc?: PlanDocument } = {}): Promise<ReviewedComparison> {
  const now = opts.doc ?? (await p.store.read(id));
  if (p.store.reviewCopiesProblem) return { unavailable: p.store.reviewCopiesProblem, comments: [] };
  const snap = await p.store.findSnapshot(id, opts.version !== undefined ? { version: opts.version } : { before: now.fm.version });
  if (!snap) return { unavailable: opts.version !== undefined ? `no snapshot of v${opts.version} is kept` : 'no reviewed version is kept for this plan', comments: [] };
  // A kept version that does not read is named as such (the version is listed as kept).
  if ('unreadable' in snap) {
    const why = snap.changed ? `the review copy was changed: ${snap.unreadable}` : `the kept version v${snap.version} could not be read (${snap.unreadable})`;
    return { unavailable: why, unreadableVersion: snap.version, comments: [] };
  }
  let then: PlanDocument;
  try {
    then = parsePlan(snap.text);
  } catch {
    return { unavailable: `the kept version v${snap.version} could not be read (corrupted: its file is not a plan)`, unreadableVersion: snap.version, comments: [] };
  }
  if (then.fm.id !== id) return { unavailable: `the snapshot of v${snap.version} is of another plan`, comments: [] };
  const comparison = comparePlans(then, now);
  // The comments made on that version: the review section written right after it.
  const review = reviewOfVersion(now, snap.version, await p.store.approvalStanding(now));
  const comments = (review?.notes.comments ?? []).map((c) => ({ ...c, addressed: commentAddressed(c, comparison) }));
  return { comparison, reviewedText: snap.text, comments };
}

/** Cancels, reopens, retries or resumes (what the transition table allows the actor). A finished plan leaves plan work mode. */
export async function changePlanStatus(p: Place, id: string, action: 'cancel' | 'reopen' | 'retry' | 'resume' | 'withdraw', act: Act & { reason?: string }): Promise<Done> {
  const done = await run(p, id, act, (d, c) => changeStatus(d, action, c, act.reason));
  if (action === 'cancel') await p.active?.clear(id);
  if (action === 'withdraw') return withWarning(done, await recordDecisionOf(p, done.doc, 'withdraw'));
  return done;
}

/** Moves a finished plan into `.pi/plans/archive/` (a person's act); it leaves every list and plan work mode. */
export async function archivePlan(p: Place, id: string, act: Act): Promise<{ path: string }> {
  const path = await p.store.archive(id, act.actor);
  await p.active?.clear(id);
  return { path };
}

// ---------- execution ----------

/** Starts an approved plan; it becomes the active plan of its folder. `session`: who started it (`execution_session`). */
export async function startPlan(p: Place, id: string, act: Act, session?: string): Promise<Done> {
  const done = await run(p, id, act, (d, c) => startExecution(d, c, session));
  // The tree a step marked done straight from pending counts its change from (best effort: the plan started either way).
  await p.store.evidence?.planStarted?.(id).catch(() => undefined);
  await p.active?.set(id, p.folder ?? '');
  return done;
}

/** What a mark recorded of the step's changes: its `> Changed:` line and the evidence flag it now has. */
export interface MarkEvidence {
  changed?: string;
  flag?: EvidenceFlag;
  /** Why the step's start could not be recorded (the mark stands). */
  problem?: string;
}

/**
 * Marks a step; marking the last open one finishes the plan, which then leaves plan work mode.
 * With the store's evidence port (git): a step going to in_progress takes the "before" snapshot;
 * a step leaving in_progress for done, blocked, failed or skipped records what changed since as
 * its `> Changed:` line, in the same write; a step done without ever being in progress says it
 * was not recorded. Every face marks through here, so every face records the same way.
 * With `claim` (the session acting), the step's claim is checked and recorded (see core/claims).
 */
export async function markPlanStep(p: Place, id: string, step: string, status: StepStatus, note: string | undefined, act: Act, claim?: ClaimInput): Promise<Done & { evidence?: MarkEvidence }> {
  const ev = p.store.evidence;
  let changed: string | undefined;
  let problem: string | undefined;
  let toldApart = false;
  if (ev) {
    const was = (await p.store.read(id)).steps.find((s) => s.id === step)?.status;
    const line = (c: StepChanges) => {
      toldApart = c.recorded && !!c.toldApart;
      return changedLine(c);
    };
    if (status === 'in_progress' && was !== 'in_progress') problem = await ev.begin(id, step).then(() => undefined, (e: Error) => `its start could not be recorded: ${e.message}`);
    else if (was === 'in_progress' && status !== 'in_progress' && status !== 'pending') changed = line(await ev.end(id, step));
    else if (status === 'done' && was === 'pending') changed = line(ev.endSinceLastMark ? await ev.endSinceLastMark(id, step) : { recorded: false, why: 'the step was never marked in progress' });
  }
  // A step other sessions worked alongside names their steps (its snapshots hold their changes too), unless the hooks told the files apart.
  const alongside = (d: PlanDocument, c: { activity?: Parameters<typeof stepsAlongside>[3] }) => {
    const s = d.steps.find((x) => x.id === step);
    return changed === undefined || !claim || !s || toldApart ? changed : withAlongside(changed, stepsAlongside(d.steps, s, claim.session, c.activity));
  };
  const done = await run(p, id, act, (d, c) => markStep(d, step, status, c, note, changed !== undefined ? { Changed: alongside(d, c) } : undefined, claim), { claims: !!claim });
  if (done.result.autoCompleted) await p.active?.clear(id);
  const marked = done.doc.steps.find((s) => s.id === step);
  const flag = marked ? evidenceFlag(marked) : undefined;
  return { ...done, evidence: ev ? { changed: marked?.record?.Changed, flag, problem } : undefined };
}

/**
 * Claims the next runnable step for a session and marks it in progress, under the plan's lock (two
 * sessions never get the same step), and takes its "before" snapshot with the store's evidence port. `none` says why nothing was claimed (the plan is complete,
 * or what holds its open steps), with the plan as read.
 */
export async function nextPlanStep(p: Place, id: string, claim: ClaimInput, act: Act): Promise<{ done: Done; none?: undefined } | { done?: undefined; none: NoRunnableStep; doc: PlanDocument }> {
  try {
    const done = await run(p, id, act, (d, c) => claimNext(d, claim, c), { claims: true });
    // The claimed step is in progress now: its "before" snapshot, as a mark to in_progress takes it.
    const step = done.result.step;
    if (step && p.store.evidence) await p.store.evidence.begin(id, step).catch(() => undefined);
    return { done };
  } catch (e) {
    if (e instanceof NoRunnableStep) return { none: e, doc: await p.store.read(id) };
    throw e;
  }
}

/** A person lets a step's claim go (see core `releaseStep`): the step is pending again, for any session. */
export function releaseStepClaim(p: Place, id: string, step: string, act: Act): Promise<Done> {
  return run(p, id, act, (d, c) => releaseStep(d, step, c), { claims: true });
}

/**
 * Hands a session the step it does next, once it started the plan or finished a step: the first
 * runnable step, claimed for it and in progress (see `nextPlanStep`, which takes the step's
 * "before" snapshot), so two sessions are never told the same step and each step's evidence
 * counts from its own start. Undefined when the plan no longer executes or the session still
 * holds a step in progress (it finishes that one first); `none` when nothing can start now.
 */
export async function handOffStep(p: Place, id: string, claim: ClaimInput, act: Act): Promise<Awaited<ReturnType<typeof nextPlanStep>> | undefined> {
  const doc = await p.store.read(id);
  if (doc.fm.status !== 'executing') return undefined;
  const me = cleanSession(claim.session);
  if (doc.steps.some((s) => s.status === 'in_progress' && parseClaim(s.record?.Claimed)?.session === me)) return undefined;
  // After the session's own write: the version it saw is not this one, and the claim is checked under the lock anyway.
  return nextPlanStep(p, id, { session: claim.session }, { actor: act.actor });
}

/** Completes or fails an executing plan with a summary (required for a failure). */
export async function finishPlan(p: Place, id: string, outcome: 'complete' | 'fail', summary: string | undefined, act: Act): Promise<Done> {
  const done = await run(p, id, act, (d, c) => finishExecution(d, outcome, summary, c));
  await p.active?.clear(id);
  return done;
}
