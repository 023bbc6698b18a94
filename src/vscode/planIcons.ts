import type { AttentionFlag, PlanStatus, StepStatus } from '../core';

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
  if (flag === 'unapproved') return '$(error)';
  if (flag === 'foreign') return '$(unverified)';
  if (status === 'executing' && flag === 'stalled') return `$(${STATUS_CODICON.stalled})`;
  return `$(${STATUS_CODICON[status]})`;
}

/** The theme colour of each status's icon: existing theme colours, so every theme (and high contrast) styles them. */
export const STATUS_COLOR: Record<PlanStatus | 'invalid', string> = {
  proposed: 'charts.yellow',
  needs_review: 'charts.orange',
  executing: 'charts.blue',
  stalled: 'list.warningForeground',
  failed: 'list.errorForeground',
  approved: 'charts.green',
  draft: 'descriptionForeground',
  rejected: 'charts.red',
  completed: 'testing.iconPassed',
  cancelled: 'disabledForeground',
  superseded: 'disabledForeground',
  invalid: 'list.warningForeground',
};

/** The codicon and theme colour of each step status. */
export const STEP_ICON: Record<StepStatus, { icon: string; color?: string }> = {
  pending: { icon: 'circle-large-outline' },
  in_progress: { icon: 'play-circle', color: 'charts.blue' },
  blocked: { icon: 'circle-slash', color: 'list.warningForeground' },
  done: { icon: 'pass-filled', color: 'testing.iconPassed' },
  failed: { icon: 'error', color: 'list.errorForeground' },
  skipped: { icon: 'debug-step-over', color: 'disabledForeground' },
};

/** "3 min ago", "2 h ago", "5 days ago", or the date: how long since an ISO time. */
export function relativeTime(iso: string | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return d === 1 ? 'yesterday' : `${d} days ago`;
  return iso.slice(0, 10);
}
