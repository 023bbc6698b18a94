import * as vscode from 'vscode';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { DisposableScope } from '../common/disposable';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { COMMANDS } from '../common/ids';
import { plainTooltip } from '../common/plainTooltip';
import { needsPersonNow, type PlanNeed, planNeed, PLAN_NEEDS } from '../../core';

/** How each need is counted in the item's text, and explained in its tooltip. */
const NEED_WORDS: Record<PlanNeed, { count: string; tip: string }> = {
  invalid: { count: '{0} invalid', tip: 'a plan file that cannot be read: the Problems panel says why' },
  unapproved: { count: '{0} approval not valid', tip: 'marked approved without a valid approval: nothing runs it until a person approves it' },
  changed: { count: '{0} changed since approval', tip: 'its text changed after a person approved it: review it again' },
  foreign: { count: '{0} approved elsewhere', tip: 'approved on another machine: confirm it here before it runs' },
  review: { count: '{0} to review', tip: 'waiting for your decision' },
  stalled: { count: '{0} stalled', tip: 'executing with no activity for a while: resume, retry or cancel it' },
  running: { count: '{0} running', tip: 'an agent is executing it' },
};

/**
 * The status bar item: how many plans, and each counted once under what it needs most (to review,
 * stalled, running, …; a stalled run is not also running); read-only state. Warning-coloured only
 * for what is wrong and waits for a person now (needsPersonNow: a file that does not read, an
 * approval that no longer holds), never for a plain review or a stalled run.
 */
export class PlanStatusBar extends DisposableScope {
  private readonly item = this.register(vscode.window.createStatusBarItem('piPlans.status', vscode.StatusBarAlignment.Left, 50));
  private readonly work = this.register(vscode.window.createStatusBarItem('piPlans.activePlan', vscode.StatusBarAlignment.Left, 49));

  constructor(
    private readonly plans: WorkspacePlans,
    private readonly active: WorkspaceActivePlans,
  ) {
    super();
    this.work.name = vscode.l10n.t('Pi Plans: active plan');
    this.register(active.onDidChange(() => this.update()));
    this.item.name = vscode.l10n.t('Pi Plans');
    this.item.command = COMMANDS.showPlans;
    this.register(plans.onDidChangePlans(() => this.update()));
    this.register(plans.onDidLoad(() => this.update()));
    this.register(plans.onDidChangeAttention(() => this.update()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.update()));
    this.update();
    this.item.show();
  }

  private update(): void {
    if (!this.plans.loaded) {
      // Until the first index is ready a count would be a guess: say what is happening instead.
      this.item.text = `$(sync~spin) ${vscode.l10n.t('Pi Plans: loading…')}`;
      this.item.tooltip = vscode.l10n.t('Pi Plans is reading the plans of this workspace.');
      this.item.backgroundColor = undefined;
      this.work.hide();
      return;
    }
    const all = this.plans.list();
    const counts = new Map<PlanNeed, number>();
    for (const e of all) {
      const need = planNeed({ valid: e.valid, status: e.status, flag: this.plans.attention(e.folder, e.file) });
      if (need) counts.set(need, (counts.get(need) ?? 0) + 1);
    }
    // Decisions first, then runs, then what is wrong (the order the item has always said them in).
    const order: PlanNeed[] = ['review', 'running', 'stalled', 'changed', 'unapproved', 'foreign', 'invalid'];
    const shown = order.filter((n) => counts.get(n));
    const parts = [all.length === 1 ? vscode.l10n.t('1 plan') : vscode.l10n.t('{0} plans', all.length), ...shown.map((n) => vscode.l10n.t(NEED_WORDS[n].count, counts.get(n)!))];
    const ro = this.plans.writable ? '' : ` ${vscode.l10n.t('(read-only)')}`;
    this.item.text = `$(checklist) ${parts.join(', ')}${ro}`;
    const urgent = PLAN_NEEDS.filter((n) => counts.get(n) && needsPersonNow(n));
    const said = [
      this.plans.writable ? vscode.l10n.t('Click to open a plan.') : vscode.l10n.t('Pi Plans is read-only in Restricted Mode: trust this workspace to approve or change plans.'),
      shown.length ? vscode.l10n.t('Each plan is counted once, under what it needs most:') : '',
      shown.map((n) => `${vscode.l10n.t(NEED_WORDS[n].count, counts.get(n)!)}: ${vscode.l10n.t(NEED_WORDS[n].tip)}`).join('\n'),
      urgent.length ? vscode.l10n.t('Warning colour: something is wrong that only you can put right.') : '',
    ];
    this.item.tooltip = plainTooltip(said, 'Pi Plans');
    // Said to a screen reader as plain text (it would otherwise read the tooltip's Markdown source).
    this.item.accessibilityInformation = { label: `Pi Plans: ${parts.join(', ')}${ro}. ${said.filter(Boolean).join(' ').replace(/\n/g, '; ')}` };
    this.item.backgroundColor = urgent.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const current = this.active.list()[0];
    const entry = current ? all.find((e) => e.id === current.id) : undefined;
    if (current && entry) {
      this.work.text = `$(target) ${entry.title ?? entry.id} · ${entry.stepsDone}/${entry.steps}`;
      this.work.tooltip = vscode.l10n.t('Plan work is active on {0} ({1}). Click to end plan work.', entry.id, entry.status ?? '');
      this.work.command = COMMANDS.endWork;
      this.work.show();
    } else this.work.hide();
  }
}
