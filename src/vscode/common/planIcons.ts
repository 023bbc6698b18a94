import * as vscode from 'vscode';
import type { AttentionFlag, PlanStatus, StepStatus } from '../../core';

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

/** The codicon of a plan: what needs a person (an approval that does not hold, a stall) before its status. */
export function planCodicon(status: PlanStatus, flag?: AttentionFlag): string {
  if (flag === 'changed') return 'diff';
  if (flag === 'unapproved') return 'error';
  if (flag === 'foreign') return 'unverified';
  if (status === 'executing' && flag === 'stalled') return STATUS_CODICON.stalled;
  return STATUS_CODICON[status];
}

/** The theme colour of a plan's icon: red for an approval that is not valid, the warning colour for any other flag, else its status's. */
export function planColor(status: PlanStatus, flag?: AttentionFlag): string {
  if (flag === 'unapproved') return 'list.errorForeground';
  return flag ? 'list.warningForeground' : STATUS_COLOR[status];
}

/** `$(name)` label syntax for a status's codicon. */
export function statusIcon(status: PlanStatus | undefined, flag?: AttentionFlag): string {
  return `$(${status ? planCodicon(status, flag) : STATUS_CODICON.invalid})`;
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

/** "3 min ago", "2 h ago", "5 days ago", or the date: how long since an ISO time (in the display language). */
export function relativeTime(iso: string | undefined, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return vscode.l10n.t('just now');
  const m = Math.round(s / 60);
  if (m < 60) return vscode.l10n.t('{0} min ago', m);
  const h = Math.round(m / 60);
  if (h < 24) return vscode.l10n.t('{0} h ago', h);
  const d = Math.round(h / 24);
  if (d < 30) return d === 1 ? vscode.l10n.t('yesterday') : vscode.l10n.t('{0} days ago', d);
  return iso.slice(0, 10);
}

/** A date and time in VS Code's display language, in the one format the plan editor uses too. */
export function dateTime(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  try {
    return new Intl.DateTimeFormat(vscode.env.language, { dateStyle: 'medium', timeStyle: 'short' }).format(t);
  } catch {
    return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(t);
  }
}
