import { applyEdits, BodyEdit, parsePlan, PlanDocument, sectionText } from '../format/document';
import { APPROVAL_GOVERNS, approvalPayload, approvalStanding, contentDigest, notesDigest, shortDigest } from '../rules/approval';
import { PlanError } from '../limits/errors';
import { rejectionTitle } from '../format/policy';
import { comparePlans, describeComparison } from '../rules/review';
import { formatReviewNotes, normalizeComments, ReviewComment, ReviewInputError } from '../rules/review';
import { FrontmatterValue } from '../format/frontmatter';
import { nextStatus, PlanAction } from '../format/lifecycle';
import { LIMITS } from '../limits/limits';
import { DEFAULT_CONFIG, PlansConfig, SectionName } from '../format/schema';
import { diffEdits, TextEdit } from '../format/textEdits';
import { oneLine } from '../format/steps';
import { GraphProblem, planGraph } from '../rules/graph';
import { APPROVAL_CLEARED, OpContext, OpResult, cfg, ensureStepIds, result, sectionEdit, stamp, withEol } from './opsShared';
import { requireApproval } from './executionOps';

// ---------- review ----------

/** One thing that keeps a plan from review: a stable code, what to do, and the step it concerns. */
export interface ReviewProblem {
  code: 'missing-section' | 'no-steps' | 'step-without-text' | GraphProblem['code'];
  message: string;
  step?: string;
  /** For `missing-section`: which one. */
  section?: SectionName;
}

/** What keeps a plan from review (the one rule submit, `analyze` and the editors share). Empty when ready. */
export function reviewProblemList(doc: PlanDocument, config: PlansConfig = DEFAULT_CONFIG): ReviewProblem[] {
  const problems: ReviewProblem[] = [];
  for (const name of config.required_sections) {
    if (!sectionText(doc, name)) problems.push({ code: 'missing-section', message: `add a "## ${name}" section${name === 'Goal' ? ' saying what the plan achieves' : ''}`, section: name });
  }
  if (!doc.steps.length) problems.push({ code: 'no-steps', message: 'add at least one step' });
  for (const s of doc.steps) if (!s.text) problems.push({ code: 'step-without-text', message: `step ${s.id} has no text: say what it does`, step: s.id });
  for (const g of planGraph(doc.steps).problems) problems.push({ code: g.code, message: g.message, step: g.step });
  return problems;
}

/**
 * The edits that give a plan a section with `content` where the usual order puts it (or replace
 * the section's content), as a person's edit: no version bump, every other line as it is.
 */
export function sectionTextEdits(doc: PlanDocument, name: SectionName, content: string): TextEdit[] {
  return diffEdits(doc.text, applyEdits(doc, {}, [sectionEdit(doc, name, content)]).text);
}

/** What keeps a plan from review, as a list a model can fix in one pass. Empty when ready. */
export function reviewProblems(doc: PlanDocument, config: PlansConfig = DEFAULT_CONFIG): string[] {
  return reviewProblemList(doc, config).map((p) => p.message);
}

/** draft -> proposed after validation; a plan with no steps is cancelled (seed 001). */
export function submit(doc: PlanDocument, ctx: OpContext): OpResult {
  // A plan whose approval does not hold (its text changed after the approval, or it was marked
  // approved without one) goes back to review as it is now, from any status an approval governs:
  // what it says was never approved, so nothing runs on it until a person approves it.
  const standing = APPROVAL_GOVERNS.has(doc.fm.status) ? approvalStanding(doc, ctx.approvals?.keyring).state : 'none';
  const resubmit = standing === 'changed' || standing === 'invalid';
  const to = resubmit ? 'proposed' : nextStatus(doc.fm.id, doc.fm.status, 'submit', ctx.actor);
  const d = ensureStepIds(doc);
  if (!d.steps.length) {
    const text = applyEdits(d, { ...stamp(doc, ctx), status: 'cancelled', result_summary: 'Cancelled on submit: the plan had no steps.' }).text;
    return result(doc, text, 'status', { note: 'no steps: cancelled' });
  }
  const problems = reviewProblems(d, cfg(ctx));
  if (problems.length) {
    throw new PlanError('VALIDATION_FAILED', `${doc.fm.id} is not ready for review; it stays a draft. Fix: ${problems.join('; ')}. Then submit again.`, { problems });
  }
  const note = standing === 'changed' ? 'changed since approval: submitted again' : 'its approval was not valid: submitted for review';
  // Its own checkpoint type: the log then says which proposals passed this check (see `submittedHere`).
  return result(doc, applyEdits(d, { ...stamp(doc, ctx), status: to, ...(resubmit ? APPROVAL_CLEARED : {}) }).text, 'submitted', resubmit ? { note } : {});
}

/** What a reviewer saw: the content digest of the text they were shown (and, optionally, its version and the text itself). */
export interface SeenPlan {
  digest: string;
  version?: number;
  /** The text shown, when the face has it: a refusal then says what changed since. */
  text?: string;
}

/**
 * Refuses to approve a plan with a line in the store's note form on a step no mark has touched
 * (pending): the digest leaves such a line out, so whatever it says would not be approved, and
 * could be rewritten after the approval without voiding it. A note on a step that was worked on
 * is the record of an earlier run (a plan sent back to review keeps it): execution state.
 */
function refuseUnmarkedNotes(doc: PlanDocument): void {
  const bad = doc.steps.filter((s) => s.record !== undefined && s.status === 'pending').map((s) => s.id);
  if (!bad.length) return;
  const who = bad.length === 1 ? `${bad[0]}'s last line is` : `the last lines of ${bad.join(', ')} are`;
  throw new PlanError(
    'INVALID_INPUT',
    `${doc.fm.id} cannot be approved: ${who} in the form execution records are written in (\`> Note: …\`, \`> Claimed: …\`, \`> Changed: …\`, \`> Check: …\`), which an approval does not cover, on a step not yet worked on. If it says something the agent must follow, write it another way (for example \`> Warning: …\`); if it is a note left from an earlier run, delete the line. Then review the plan again.`,
  );
}

/** Refuses a decision on a text other than the one the reviewer saw, saying what changed when it can. */
export function refuseIfNotSeen(doc: PlanDocument, seen: SeenPlan, what: string): void {
  const now = contentDigest(doc);
  if (seen.version !== undefined && seen.version !== doc.fm.version) {
    throw new PlanError('STALE_APPROVAL', `the plan changed since you opened it: you reviewed v${seen.version}, ${doc.fm.id} is now v${doc.fm.version}. Review the current version, then ${what} it.`, { currentVersion: doc.fm.version });
  }
  if (seen.digest === now) return;
  let changes = '';
  if (seen.text !== undefined) {
    try {
      const then = parsePlan(seen.text);
      if (contentDigest(then) === seen.digest) {
        const lines = describeComparison(comparePlans(then, doc));
        changes = lines.length ? ` What changed: ${lines.join('; ')}.` : ' What changed: text outside the steps and sections (the preamble, a paragraph, a field).';
      }
    } catch {
      /* the shown text does not read: no details */
    }
  }
  throw new PlanError(
    'STALE_APPROVAL',
    `the text of ${doc.fm.id} changed since you read it (you reviewed ${shortDigest(seen.digest)}, it is now ${shortDigest(now)} at v${doc.fm.version}).${changes} Review the current text, then ${what} it.`,
    { currentVersion: doc.fm.version },
  );
}

/**
 * proposed -> approved, on exactly the text the reviewer saw (`seen.digest`; a stale digest is
 * refused with what changed). The approval is a signed record (see core/approval.ts): the digest
 * of the approved text (review notes and step ids included), who approved, when, the signer's key
 * and signature. Comments made with an approval are suggestions, not conditions: they are written
 * as an `## Approval (vN)` section the agent reads when it starts, and the record covers them.
 */
export function approve(doc: PlanDocument, seen: SeenPlan, ctx: OpContext, review: { note?: string; comments?: readonly ReviewComment[] } = {}): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, 'approve', ctx.actor, { agentMayApprove: ctx.agentMayApprove });
  refuseIfNotSeen(doc, seen, 'approve');
  const signer = ctx.approvals?.signer;
  if (!signer) throw new PlanError('APPROVAL_INVALID', `${doc.fm.id} cannot be approved here: no approval key is available to sign the approval`);
  refuseUnmarkedNotes(doc);
  const notes = reviewNotesText(review.note ?? '', review.comments);
  // Ids first (a pi-planner plan's steps get theirs now, not when it starts: the approved text has them).
  const d = ensureStepIds(doc);
  const patch = { ...stamp(doc, ctx), status: to, approved_by: ctx.actor, approved_version: doc.fm.version, approved_at: ctx.now };
  const approved = parsePlan(applyEdits(d, patch, notes ? [appendSection(d, `Approval (v${doc.fm.version})`, notes)] : []).text);
  const digest = contentDigest(approved);
  // The suggestions are signed too (their digest, or none): only this section is the person's words.
  const notesSigned = notes ? notesDigest(notes) : undefined;
  const claim = { id: doc.fm.id, version: doc.fm.version, digest, by: ctx.actor, approver: signer.approver, at: ctx.now, notes: notesSigned ?? 'none' };
  const record = { approved_hash: digest, approver: signer.approver, approval_key: signer.key, approval_sig: signer.sign(approvalPayload(claim)), approval_notes: notesSigned };
  const text = applyEdits(approved, record).text;
  return result(doc, text, 'status', notes ? { note: notes } : {}, approved);
}

/**
 * proposed -> rejected (or needs_review on the third rejection): one `## Rejection (vN)` section
 * with the feedback, then a `- S003: …` line per comment. Feedback or at least one comment is needed.
 */
export function reject(doc: PlanDocument, feedback: string, ctx: OpContext, seen?: number | SeenPlan, comments?: readonly ReviewComment[]): OpResult {
  const fb = reviewNotesText(feedback, comments);
  if (!fb) throw new PlanError('INVALID_INPUT', 'a rejection needs feedback: say what must change');
  const to = nextStatus(doc.fm.id, doc.fm.status, 'reject', ctx.actor, { rejectionCount: doc.rejections.length });
  if (typeof seen === 'number' && seen !== doc.fm.version) {
    throw new PlanError('STALE_APPROVAL', `the plan changed since you opened it: you reviewed v${seen}, ${doc.fm.id} is now v${doc.fm.version}. Review the current version first.`, { currentVersion: doc.fm.version });
  }
  if (seen !== undefined && typeof seen !== 'number') refuseIfNotSeen(doc, seen, 'reject');
  const text = applyEdits(doc, { ...stamp(doc, ctx), status: to }, [appendSection(doc, rejectionTitle(doc.fm.version), fb)]).text;
  return result(doc, text, 'status', { note: fb });
}

/** A review's text (feedback and comment lines), checked against the limits. */
function reviewNotesText(feedback: string, comments: readonly ReviewComment[] | undefined): string {
  let list: ReviewComment[];
  try {
    list = normalizeComments(comments);
  } catch (e) {
    if (e instanceof ReviewInputError) throw new PlanError('INVALID_INPUT', e.message);
    throw e;
  }
  const text = formatReviewNotes(feedback, list);
  if (text.length > LIMITS.feedback) throw new PlanError('TOO_LARGE', `feedback is over ${LIMITS.feedback} characters: shorten it`);
  return text;
}

/** An edit that appends a `## title` section with `text` at the end of the body. */
function appendSection(doc: PlanDocument, title: string, text: string): BodyEdit {
  const eol = doc.eol;
  const trimmedEnd = doc.body.replace(/\s+$/, '').length;
  return { start: trimmedEnd, end: doc.body.length, text: `${trimmedEnd ? `${eol}${eol}` : eol}## ${title}${eol}${withEol(text, eol)}${eol}` };
}

/** A plain status change that the transition table allows (cancel, reopen, retry, resume, stall, withdraw). */
export function changeStatus(doc: PlanDocument, action: Extract<PlanAction, 'cancel' | 'reopen' | 'retry' | 'resume' | 'stall' | 'withdraw'>, ctx: OpContext, reason?: string): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, action, ctx.actor);
  if (action === 'resume') requireApproval(doc, ctx, 'resumed');
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), status: to };
  if (action === 'cancel') {
    if (reason) patch.result_summary = oneLine(reason).slice(0, LIMITS.resultSummary);
    if (doc.fm.status === 'executing') patch.execution_ended_at = ctx.now;
  }
  if (action === 'retry') {
    patch.execution_ended_at = undefined;
    patch.result_summary = undefined;
  }
  if (action === 'resume') patch.execution_ended_at = undefined;
  // Withdrawing an approval puts the plan back up for review, as if it had never been approved.
  if (action === 'reopen' || action === 'withdraw') Object.assign(patch, APPROVAL_CLEARED);
  return result(doc, applyEdits(doc, patch).text, 'status', { note: reason });
}
