/**
 * The operation that writes a check's result on its step (issue 30): the step's `> Check:` record
 * line, execution state the approval digest leaves out. Only on a plan whose approval holds (or
 * that finished under it), and only for the command the approved text names now: a check whose
 * `verify:` line changed while it ran is not recorded.
 */
import { checksRefusal, stepCheck } from '../rules/checks';
import { PlanError } from '../limits/errors';
import { requireApproval } from './executionOps';
import { ensureStepIds, findStep, OpContext, OpResult, result, stamp, stepEdits, withShiftedOutline } from './opsShared';
import type { PlanDocument } from '../format/document';
import { LIMITS } from '../limits/limits';

/** Writes `text` (a formatted CheckRecord) as step `stepId`'s `> Check:` line; `command` is the check that ran. */
export function recordCheck(input: PlanDocument, stepId: string, command: string, text: string, ctx: OpContext): OpResult {
  const refusal = checksRefusal(input, ctx.approvals?.keyring);
  if (refusal) throw new PlanError('APPROVAL_INVALID', refusal);
  if (input.fm.status !== 'completed') requireApproval(input, ctx, 'given a check result');
  if (text.length > LIMITS.note || /[\r\n]/.test(text)) throw new PlanError('INVALID_INPUT', 'a check record is one line of at most the note\'s length');
  const doc = ensureStepIds(input);
  const s = findStep(doc, stepId);
  if (stepCheck(s) !== command) {
    throw new PlanError('CHANGED_SINCE_APPROVAL', `${doc.fm.id} ${s.id}'s check is no longer \`${command}\`: its result is not recorded; run the checks again`);
  }
  const next = withShiftedOutline(doc, stamp(input, ctx), stepEdits(doc, s, { record: { Check: text } }));
  return result(input, next.text, 'check', { step: s.id, note: text }, doc === input ? input : undefined);
}
