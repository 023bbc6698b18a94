/**
 * What a person can do with a plan now, and where an editor offers it: one answer for the
 * explorer's menus, the CodeLens, notifications and (later) the custom editor. Everything here is
 * read off the transition table, never restated, so a face cannot offer what a write would refuse.
 */
import { approvalFlag, type AttentionFlag } from '../rules/attentionOrder';
import { contentDigest } from '../rules/approval';
import { lineAtOffset, lineStarts, parsePlan } from '../format/document';
import { isPlanError } from '../limits/errors';
import { canDo, PlanAction, TRANSITIONS } from '../format/lifecycle';
import { isFinished } from '../format/policy';
import type { PlanStatus, StepStatus } from '../format/schema';
import { stepCheck } from '../rules/checks';

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

/**
 * The one command a plan's editor draws as its primary action, if any: what needs the person in
 * this state. Nothing that is already happening: an executing plan whose agent is at work has
 * none (Execute in Copilot stays on offer, secondary); once it stalls, handing it to Copilot is.
 */
export function editorPrimary(status: PlanStatus, opts: { flag?: AttentionFlag } = {}): PlanCommand | undefined {
  const valid = planCommands(status, opts);
  const wanted: PlanCommand | undefined =
    opts.flag === 'foreign'
      ? 'confirm'
      : status === 'proposed'
        ? 'approve'
        : status === 'needs_review'
          ? 'reopen'
          : status === 'approved'
            ? 'execute'
            : status === 'executing'
              ? opts.flag === 'stalled'
                ? 'execute'
                : undefined
              : status === 'stalled' || status === 'failed'
                ? 'resume'
                : undefined;
  return wanted && valid.includes(wanted) ? wanted : undefined;
}

/**
 * What a plan needs from a person, the most urgent first: a file that does not read, an approval
 * that does not hold (not valid, changed since, made elsewhere and not confirmed), a decision, a
 * run that stopped, a run under way. The status bar counts each plan once, under the first that
 * applies (a stalled run is not also running).
 */
export const PLAN_NEEDS = ['invalid', 'unapproved', 'changed', 'foreign', 'review', 'stalled', 'running'] as const;
export type PlanNeed = (typeof PLAN_NEEDS)[number];

/** The one need a plan counts under (none for a plan that needs nothing now: a draft, an approved plan waiting to run, a finished one). */
export function planNeed(r: { valid: boolean; status?: PlanStatus; flag?: AttentionFlag }): PlanNeed | undefined {
  if (!r.valid || !r.status) return 'invalid';
  if (approvalFlag(r.flag)) return r.flag;
  if (r.status === 'proposed' || r.status === 'needs_review') return 'review';
  if (r.status === 'stalled' || (r.status === 'executing' && r.flag === 'stalled')) return 'stalled';
  if (r.status === 'executing') return 'running';
  return undefined;
}

/**
 * Needs that are something wrong only a person can put right, now: a plan file that does not read
 * (no agent can use it) and an approval that no longer covers the text (an agent may be working
 * from words nobody approved). The status bar takes the warning colour for these only; a review,
 * an approval to confirm and a stalled run are a person's next decisions, counted without alarm.
 */
export function needsPersonNow(need: PlanNeed | undefined): boolean {
  return need === 'invalid' || need === 'unapproved' || need === 'changed';
}

/**
 * About how wide text is drawn, in ems of the workbench's font: each character's advance in
 * DejaVu Sans (Linux's default, wider than Segoe UI or San Francisco, so text that fits here fits
 * there), printable ASCII by code point from the space; 0.62 for other letters, 1 for wide scripts.
 */
const ADVANCE = [
  0.32, 0.4, 0.46, 0.84, 0.64, 0.95, 0.78, 0.27, 0.39, 0.39, 0.5, 0.84, 0.32, 0.36, 0.32, 0.34, // space to /
  0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.34, 0.34, 0.84, 0.84, 0.84, 0.53, // 0 to ?
  1, 0.68, 0.69, 0.7, 0.77, 0.63, 0.58, 0.77, 0.75, 0.29, 0.29, 0.66, 0.56, 0.86, 0.75, 0.79, // @ to O
  0.6, 0.79, 0.69, 0.63, 0.61, 0.73, 0.68, 0.99, 0.69, 0.61, 0.69, 0.39, 0.34, 0.39, 0.84, 0.5, // P to _
  0.5, 0.61, 0.63, 0.55, 0.63, 0.62, 0.35, 0.63, 0.63, 0.28, 0.28, 0.58, 0.28, 0.97, 0.63, 0.61, // ` to o
  0.63, 0.63, 0.41, 0.52, 0.39, 0.63, 0.59, 0.82, 0.59, 0.59, 0.52, 0.64, 0.34, 0.64, 0.84, // p to ~
];

/** About how many ems wide `text` is drawn (see ADVANCE). */
export function textWidthEm(text: string): number {
  let w = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    w += c >= 32 && c < 127 ? ADVANCE[c - 32] : c >= 0x2e80 ? 1 : 0.62;
  }
  return w;
}

/**
 * A row's label that fits `maxEm` ems: the text itself when it fits, otherwise cut after its last
 * whole word that fits (a single long word is cut inside; no punctuation or little word such as
 * "to" or "with a" left at the end), with "…". The whole text belongs in the row's tooltip and
 * accessible name.
 */
export function fitLabel(text: string, maxEm: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (textWidthEm(t) <= maxEm) return t;
  const room = maxEm - textWidthEm('…');
  let end = 0;
  let w = 0;
  for (const ch of t) {
    const next = w + textWidthEm(ch);
    if (next > room) break;
    w = next;
    end += ch.length;
  }
  const cut = t.slice(0, end);
  let words = (t[end] === ' ' ? cut : cut.slice(0, cut.lastIndexOf(' ') + 1 || cut.length)).trimEnd();
  // A cut never ends on punctuation, nor on a little word that leads nowhere ("to…", "with a…").
  for (let prev = ''; prev !== words; ) {
    prev = words;
    words = words.replace(/[\s,;:\u00b7\u2013\u2014-]+$/, '');
    const last = / (\S+)$/.exec(words);
    if (last && DANGLING.has(last[1].toLowerCase())) words = words.slice(0, last.index);
  }
  return `${words || cut.trimEnd()}…`;
}

/** Words a cut label does not end on. */
const DANGLING: ReadonlySet<string> = new Set(['a', 'an', 'the', 'to', 'of', 'and', 'or', 'for', 'with', 'in', 'on', 'at', 'by', 'from', 'into', 'as']);

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

