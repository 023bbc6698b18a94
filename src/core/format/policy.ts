/**
 * Rules that more than one face applies, written once: when a step counts as finished, how the
 * review history is headed, which version a person reviewed. The faces (tools, CLI, commands,
 * later the tree, CodeLens, custom editor and MCP) call these instead of restating them.
 */
import { TRANSITIONS } from './lifecycle';
import type { PlanStatus, StepStatus } from './schema';

/** Whether an edit keeps a plan of this status as it is (a draft, a proposal): an editor edits such a plan in place, never voiding an approval. */
export function editedInPlace(status: PlanStatus): boolean {
  return TRANSITIONS[status].edit === status;
}

/** A step is finished when it is done or skipped: progress, completion and "the next step" all count this way. */
export function isFinished(status: StepStatus): boolean {
  return status === 'done' || status === 'skipped';
}

/** How many steps are finished, of how many. */
export function progressOf(steps: readonly { status: StepStatus }[]): { done: number; total: number } {
  let done = 0;
  for (const s of steps) if (isFinished(s.status)) done++;
  return { done, total: steps.length };
}

/** The first step that is not finished: what an executing agent does next. */
export function nextOpenStep<T extends { status: StepStatus }>(steps: readonly T[]): T | undefined {
  return steps.find((s) => !isFinished(s.status));
}

/** A rejection's section title, `Rejection (v3)`: the version that was rejected. */
export function rejectionTitle(version: number): string {
  return `Rejection (v${version})`;
}

const REJECTION = /^Rejection \(v(\d+)\)$/;
const REVIEW_HISTORY = /^(?:Rejection|Approval) \(v\d+\)$/;
const REJECTION_HEADING_LINE = /^## Rejection \(v\d+\)[ \t]*\r?$/;
const REVIEW_HISTORY_HEADING_LINE = /^## (?:Rejection|Approval) \(v\d+\)[ \t]*\r?$/;

/** The version a `Rejection (vN)` section title names, or undefined for any other title. */
export function rejectedVersionOf(title: string): number | undefined {
  const m = REJECTION.exec(title);
  return m ? Number(m[1]) : undefined;
}

/** True for a section of the review history (`Rejection (vN)`, `Approval (vN)`): written by reviews, never by the plan's author. */
export function isReviewHistoryTitle(title: string): boolean {
  return REVIEW_HISTORY.test(title);
}

/** True for a Markdown line that starts a review history section (`## Rejection (v3)`, `## Approval (v4)`). */
export function isReviewHistoryHeadingLine(line: string): boolean {
  return REVIEW_HISTORY_HEADING_LINE.test(line);
}

/** True for a Markdown line that starts a rejection section (`## Rejection (v3)`). */
export function isRejectionHeadingLine(line: string): boolean {
  return REJECTION_HEADING_LINE.test(line);
}

/**
 * The version a person reviewed, for approve and reject (which refuse any other): the one they
 * name; else the one they are shown (the text of a saved editor of the plan); else the current.
 */
export function reviewedVersion(opts: { given?: number; shownText?: string; current?: number }): number | undefined {
  if (opts.given !== undefined) return opts.given;
  const m = opts.shownText !== undefined ? /^version:[ \t]*(\d+)[ \t]*\r?$/m.exec(opts.shownText) : null;
  return m ? Number(m[1]) : opts.current;
}
