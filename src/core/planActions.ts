/**
 * What a person can do with a plan now, and where an editor offers it: one answer for the
 * explorer's menus, the CodeLens, notifications and (later) the custom editor. Everything here is
 * read off the transition table, never restated, so a face cannot offer what a write would refuse.
 */
import { approvalFlag, type AttentionFlag } from './attentionOrder';
import { contentDigest } from './approval';
import { lineAtOffset, lineStarts, parsePlan } from './document';
import { isPlanError } from './errors';
import { canDo, PlanAction, TRANSITIONS } from './lifecycle';
import { isFinished } from './policy';
import type { PlanStatus, StepStatus } from './schema';
import { stepCheck } from './checks';

/** A person's command on a whole plan, as the faces name them. */
export type PlanCommand =
  | 'approve'
  | 'confirm'
  | 'reject'
  | 'withdraw'
  | 'startWork'
  | 'execute'
  | 'retry'
  | 'resume'
  | 'reopen'
  | 'clone'
  | 'cancel'
  | 'archive';

/** The order commands are offered in, most decisive first. */
const COMMAND_ORDER: readonly PlanCommand[] = ['approve', 'reject', 'confirm', 'execute', 'resume', 'retry', 'reopen', 'startWork', 'withdraw', 'clone', 'cancel', 'archive'];

/** Commands that are one transition of the table, by the action they take. */
const TRANSITION_OF: Partial<Record<PlanCommand, PlanAction>> = {
  approve: 'approve',
  reject: 'reject',
  withdraw: 'withdraw',
  retry: 'retry',
  resume: 'resume',
  reopen: 'reopen',
  clone: 'clone',
  cancel: 'cancel',
  archive: 'archive',
};

/** A status is finished when the table leaves it nothing to do but clone or archive it. */
export function isFinishedStatus(status: PlanStatus): boolean {
  return Object.keys(TRANSITIONS[status]).every((a) => a === 'clone' || a === 'archive');
}

/** Whether a plan in this status still runs or can be run: it is approved (to start) or executing. */
function canExecute(status: PlanStatus): boolean {
  return canDo(status, 'start') || canDo(status, 'mark_step');
}

/**
 * The commands valid for a plan now. An approval that does not hold (the attention flag: its text
 * changed since, no valid record, or approved elsewhere and not confirmed here) runs nothing:
 * execute and resume are not offered; an approval made elsewhere offers `confirm`.
 */
export function planCommands(status: PlanStatus, opts: { flag?: AttentionFlag } = {}): PlanCommand[] {
  const blocked = approvalFlag(opts.flag);
  return COMMAND_ORDER.filter((c) => {
    const action = TRANSITION_OF[c];
    if (action) return canDo(status, action) && !(blocked && c === 'resume');
    if (c === 'execute') return canExecute(status) && !blocked;
    if (c === 'confirm') return opts.flag === 'foreign';
    if (c === 'startWork') return !isFinishedStatus(status);
    return false;
  });
}

/** The one or two commands that matter most in this status: an explorer row's inline buttons. */
export function primaryCommands(status: PlanStatus, opts: { flag?: AttentionFlag } = {}): PlanCommand[] {
  const valid = planCommands(status, opts);
  const wanted: readonly PlanCommand[] =
    opts.flag === 'foreign'
      ? ['confirm']
      : status === 'proposed'
      ? ['approve', 'reject']
      : status === 'draft' || status === 'rejected'
        ? ['startWork']
        : isFinishedStatus(status)
          ? ['archive']
          : status === 'approved'
            ? ['execute', 'withdraw']
            : ['execute', 'resume', 'reopen'];
  return wanted.filter((c) => valid.includes(c)).slice(0, 2);
}

/** The statuses a person may mark a step with while its plan executes (none otherwise). */
export function stepMarks(planStatus: PlanStatus, step: StepStatus): StepStatus[] {
  if (!canDo(planStatus, 'mark_step')) return [];
  const marks: StepStatus[] = ['in_progress', 'done', 'blocked', 'skipped'];
  return marks.filter((m) => m !== step && !(isFinished(step) && m !== 'in_progress'));
}

/**
 * A tree item's `contextValue`: the kind, then every valid command between colons, then the
 * primary ones as `inline-<command>`. Menus match with `viewItem =~ /:approve:/`.
 */
export function planContextValue(status: PlanStatus, opts: { flag?: AttentionFlag } = {}): string {
  return `piPlans.plan:${[...planCommands(status, opts), ...primaryCommands(status, opts).map((c) => `inline-${c}`)].join(':')}:`;
}

/** A step row's `contextValue`: `piPlans.step:` then the marks it can take, e.g. `:done:blocked:`. */
export function stepContextValue(planStatus: PlanStatus, step: StepStatus): string {
  return `piPlans.step:${stepMarks(planStatus, step).join(':')}:`;
}

/** A CodeLens the editors draw, judged from a document's text as shown (saved or not). */
export type PlanLens =
  | {
      kind: 'plan';
      /** 0-based line: the frontmatter's first line. */
      line: number;
      id: string;
      status: PlanStatus;
      version: number;
      done: number;
      total: number;
      /** What to offer: `saveToApprove` in place of approve while the text is not saved. */
      commands: (PlanCommand | 'saveToApprove')[];
      /** The content digest of the text these lenses were drawn from: an Approve lens approves exactly it. */
      digest: string;
    }
  | { kind: 'step'; line: number; id: string; version: number; step: string; marks: StepStatus[]; /** It names a check a person may run now (issue 30). */ check?: true }
  | { kind: 'invalid'; line: number; message: string; errorLine?: number };

/** Commands that fit on a title line; the rest live in menus. */
const LENS_COMMANDS: readonly PlanCommand[] = ['approve', 'reject', 'confirm', 'execute', 'resume', 'retry', 'reopen', 'startWork', 'withdraw'];

/** Statuses whose steps' checks may run (Run check on a step line; the command checks the approval). */
const CHECK_STATUSES: ReadonlySet<PlanStatus> = new Set<PlanStatus>(['approved', 'executing', 'stalled', 'failed', 'completed']);

/** The marks a step line of an executing plan offers (in progress is the agent's to set). */
const LENS_MARKS: readonly StepStatus[] = ['done', 'blocked', 'skipped'];

/**
 * The CodeLens of a plan text: its status and the commands valid now on the first line; on each
 * open step line of an executing plan, Done / Blocked / Skip. `dirty`: the text is not saved, so
 * approving it is not offered (nobody approves text that is not on disk). A text that cannot be
 * read gives one lens naming the problem.
 */
export function planLenses(text: string, opts: { dirty?: boolean; flag?: AttentionFlag } = {}): PlanLens[] {
  let doc;
  try {
    doc = parsePlan(text);
  } catch (e) {
    if (!isPlanError(e)) throw e;
    return [{ kind: 'invalid', line: 0, message: e.message, errorLine: e.details.line }];
  }
  const { id, status, version } = doc.fm;
  const valid = planCommands(status, opts);
  const commands = LENS_COMMANDS.filter((c) => valid.includes(c)).map((c) => (c === 'approve' && opts.dirty ? 'saveToApprove' : c));
  let done = 0;
  for (const s of doc.steps) if (isFinished(s.status)) done++;
  const lenses: PlanLens[] = [{ kind: 'plan', line: 0, id, status, version, done, total: doc.steps.length, commands, digest: contentDigest(doc) }];
  const marking = canDo(status, 'mark_step');
  const checking = CHECK_STATUSES.has(status);
  if (!marking && !checking) return lenses;
  const lines = lineStarts(text);
  for (const s of doc.steps) {
    const marks = marking && !isFinished(s.status) ? stepMarks(status, s.status).filter((m) => LENS_MARKS.includes(m)) : [];
    const check = checking && stepCheck(s) !== undefined;
    if (!marks.length && !check) continue;
    lenses.push({ kind: 'step', line: lineAtOffset(lines, doc.block.bodyStart + doc.outline.steps[s.index].start), id, version, step: s.id, marks, ...(check ? { check: true as const } : {}) });
  }
  return lenses;
}

