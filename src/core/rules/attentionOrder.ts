import type { PlanStatus } from '../format/schema';

/**
 * The order a reviewer needs plans in: what awaits a decision first, then broken files, then
 * what is running or stuck, then what waits to start, then drafts, then what is done with.
 */
export const ATTENTION_ORDER: readonly PlanStatus[] = [
  'proposed',
  'needs_review',
  'executing',
  'stalled',
  'failed',
  'approved',
  'draft',
  'rejected',
  'completed',
  'cancelled',
  'superseded',
];

/**
 * What is noticed from outside a plan's status, never written to the file: an executing plan
 * without activity (`stalled`), a proposal waiting too long (`stale`), a plan whose text changed
 * after its approval (`changed`), a plan marked approved without a valid approval (`unapproved`:
 * no record, an unsigned or a forged one), one approved on another machine by a key not trusted
 * here and not yet confirmed (`foreign`).
 */
export type AttentionFlag = 'stalled' | 'stale' | 'changed' | 'unapproved' | 'foreign';

/** What a flag says where a person reads it (the explorer, the status bar, CodeLens, quick picks). */
export function attentionLabel(flag: AttentionFlag): string {
  return { stalled: 'stalled', stale: 'stale', changed: 'changed since approval', unapproved: 'approval not valid', foreign: 'approved elsewhere: confirm' }[flag];
}

/** Flags that stop a plan from running on its approval until a person acts. */
export function approvalFlag(flag: AttentionFlag | undefined): flag is 'changed' | 'unapproved' | 'foreign' {
  return flag === 'changed' || flag === 'unapproved' || flag === 'foreign';
}

/** What a row needs to be placed: validity, status, whether it looks stalled, when it changed. */
export interface AttentionRow {
  valid: boolean;
  status?: PlanStatus;
  /** Noticed from outside the file: an executing plan without activity, a proposal waiting too long. */
  flag?: AttentionFlag;
  updatedAt?: string;
  id: string;
}

/** Where a row goes: proposals and plans needing review, then invalid files, then by status (a stalled-looking run with the stalled ones). */
export function attentionRank(r: AttentionRow): number {
  // A broken file and a plan whose approval does not hold both wait for a person.
  if (!r.valid || !r.status || approvalFlag(r.flag)) return 2;
  if (r.status === 'proposed' || r.status === 'needs_review') return ATTENTION_ORDER.indexOf(r.status);
  if (r.status === 'executing' && r.flag === 'stalled') return 3 + ATTENTION_ORDER.indexOf('stalled');
  return 3 + ATTENTION_ORDER.indexOf(r.status);
}

/** Sorts rows for a reviewer: by rank, then the most recently updated first, then by id. */
export function byAttention(a: AttentionRow, b: AttentionRow): number {
  return attentionRank(a) - attentionRank(b) || compareText(b.updatedAt ?? '', a.updatedAt ?? '') || compareText(a.id, b.id);
}

/** Code-unit order: ISO times and plan ids sort correctly this way, many times faster than `localeCompare` (10,000 rows per redraw). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
