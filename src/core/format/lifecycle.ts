import { PlanError } from '../limits/errors';
import { Actor, PlanStatus } from './schema';

/** Everything that can happen to a plan. */
export type PlanAction =
  | 'submit'
  | 'approve'
  | 'reject'
  | 'cancel'
  | 'edit'
  | 'reopen'
  | 'start'
  | 'mark_step'
  | 'complete'
  | 'fail'
  | 'stall'
  | 'revise'
  | 'retry'
  | 'resume'
  | 'withdraw'
  | 'clone'
  | 'archive';

/** Actions only a person (editor UI or CLI) may take. */
export const HUMAN_ONLY_ACTIONS: readonly PlanAction[] = ['approve', 'reject', 'reopen', 'retry', 'resume', 'withdraw', 'archive'];

/**
 * The transition table, exactly as docs/plan-format.md states it. `clone` leaves the source
 * plan as it is (it creates a new plan); `archive` moves a finished plan's file into
 * `.pi/plans/archive/` as it is; `reject` lands in `needs_review` on the third rejection.
 */
export const TRANSITIONS: Readonly<Record<PlanStatus, Partial<Record<PlanAction, PlanStatus>>>> = {
  draft: { submit: 'proposed', cancel: 'cancelled', edit: 'draft' },
  proposed: { approve: 'approved', reject: 'rejected', cancel: 'cancelled', edit: 'proposed' },
  rejected: { edit: 'draft', clone: 'rejected' },
  needs_review: { reopen: 'draft', cancel: 'cancelled' },
  approved: { start: 'executing', withdraw: 'proposed', cancel: 'cancelled', edit: 'proposed' },
  executing: {
    mark_step: 'executing',
    complete: 'completed',
    fail: 'failed',
    stall: 'stalled',
    cancel: 'cancelled',
    revise: 'superseded',
    withdraw: 'proposed',
  },
  failed: { retry: 'approved', resume: 'executing', cancel: 'cancelled', clone: 'failed' },
  stalled: { retry: 'approved', resume: 'executing', cancel: 'cancelled', withdraw: 'proposed' },
  completed: { clone: 'completed', archive: 'completed' },
  cancelled: { clone: 'cancelled', archive: 'cancelled' },
  superseded: { clone: 'superseded', archive: 'superseded' },
};

/** What to do instead, per status, for a refused action. */
const NEXT_HINT: Record<PlanStatus, string> = {
  draft: 'edit it, or submit it for review',
  proposed: 'wait for a person to approve or reject it, edit it (it stays proposed), or cancel it',
  rejected: 'revise it (any edit moves it back to draft), then submit it again',
  needs_review: 'it was rejected three times: a person must reopen it (back to draft) or cancel it',
  approved: 'start execution, or edit it (that sends it back to review); a person may withdraw the approval',
  executing: 'mark steps, complete or fail it; change step content only through a revision (replace the whole Markdown); a person may withdraw the approval (back to review)',
  failed: 'a person may retry or resume it; or clone it into a new plan',
  stalled: 'a person may retry or resume it, withdraw its approval (back to review), or cancel it',
  completed: 'it is finished: clone it to start a new plan, or archive it',
  cancelled: 'it is finished: clone it to start a new plan, or archive it',
  superseded: 'it was replaced by its revision: work on the plan named in superseded_by (a person may archive this one)',
};

/** What an agent does next from each status: the call that works now, with the plan's id. */
const AGENT_NEXT: Record<PlanStatus, (id: string) => string> = {
  draft: (id) => `send it for review: call pi_plan_submit {"id":"${id}"}`,
  proposed: (id) => `it waits for the person's decision: call pi_plan_submit {"id":"${id}"} to wait for it`,
  rejected: (id) => `read the feedback (pi_plan_get {"id":"${id}"}), revise it with pi_plan_step or pi_plan_set_content, then call pi_plan_submit {"id":"${id}"}`,
  needs_review: () => 'it was rejected three times: ask the user to reopen it (back to draft) or cancel it',
  approved: (id) => `start it first: call pi_plan_execute {"id":"${id}","op":"start"}`,
  executing: (id) => `call pi_plan_execute {"id":"${id}","op":"next"} for a step to do, or mark one with op=mark`,
  failed: () => 'ask the user: a person may retry or resume it',
  stalled: () => 'ask the user: a person may resume or retry it',
  completed: () => 'it is finished: for more work, create a new plan with pi_plan_create',
  cancelled: () => 'it is finished: for more work, create a new plan with pi_plan_create',
  superseded: (id) => `it was replaced by its revision: call pi_plan_get {"id":"${id}"} for the plan named in superseded_by, and work on that one`,
};

/**
 * The status after `action`, or a PlanError that says why not and what to do instead.
 * `agentMayApprove` is the user's explicit, application-scoped opt-in.
 */
export function nextStatus(
  planId: string,
  status: PlanStatus,
  action: PlanAction,
  actor: Actor,
  opts: { agentMayApprove?: boolean; rejectionCount?: number } = {},
): PlanStatus {
  if (actor === 'agent' && HUMAN_ONLY_ACTIONS.includes(action) && !(action === 'approve' && opts.agentMayApprove)) {
    const why =
      action === 'approve'
        ? 'approving a plan is a human decision (a person approves it in the editor or with `pi-plans approve`), unless the user turned on agent approval in their application settings'
        : `"${action}" is a human decision; ask the user to do it`;
    throw new PlanError('HUMAN_ONLY', `${planId}: ${why}`);
  }
  const to = TRANSITIONS[status][action];
  if (!to) {
    throw new PlanError(
      'INVALID_TRANSITION',
      `${planId} is ${status}: "${action.replace('_', ' ')}" is not possible now; ${actor === 'agent' ? AGENT_NEXT[status](planId) : NEXT_HINT[status]}`,
    );
  }
  if (action === 'reject' && (opts.rejectionCount ?? 0) + 1 >= 3) return 'needs_review';
  return to;
}

/** True when an action is allowed (no error). */
export function canDo(status: PlanStatus, action: PlanAction): boolean {
  return TRANSITIONS[status][action] !== undefined;
}
