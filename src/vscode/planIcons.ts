import type { AttentionFlag, PlanStatus } from '../core';

/** The codicon of each status (and of an invalid file), shared by the pickers and later the explorer. */
export const STATUS_CODICON: Record<PlanStatus | 'invalid', string> = {
  proposed: 'eye',
  needs_review: 'report',
  executing: 'play',
  stalled: 'debug-pause',
  failed: 'error',
  approved: 'pass',
  draft: 'edit',
  rejected: 'circle-slash',
  completed: 'check-all',
  cancelled: 'close',
  superseded: 'history',
  invalid: 'warning',
};

/** `$(name)` label syntax for a status's codicon. */
export function statusIcon(status: PlanStatus | undefined, flag?: AttentionFlag): string {
  if (!status) return `$(${STATUS_CODICON.invalid})`;
  if (flag === 'changed') return '$(diff)';
  if (status === 'executing' && flag === 'stalled') return `$(${STATUS_CODICON.stalled})`;
  return `$(${STATUS_CODICON[status]})`;
}
