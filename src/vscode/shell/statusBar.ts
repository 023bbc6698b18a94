import * as vscode from 'vscode';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { DisposableScope } from '../common/disposable';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { COMMANDS } from '../common/ids';

/** The status bar item: how many plans, how many need review or are running; read-only state. */
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
    const count = (s: string) => all.filter((e) => e.status === s).length;
    const review = count('proposed');
    const running = count('executing');
    const invalid = all.filter((e) => !e.valid).length;
    const parts = [all.length === 1 ? vscode.l10n.t('1 plan') : vscode.l10n.t('{0} plans', all.length)];
    if (review) parts.push(vscode.l10n.t('{0} to review', review));
    if (running) parts.push(vscode.l10n.t('{0} running', running));
    const flagged = (f: string) => all.filter((e) => this.plans.attention(e.folder, e.file) === f).length;
    const stalled = flagged('stalled');
    if (stalled) parts.push(vscode.l10n.t('{0} stalled', stalled));
    const changed = flagged('changed');
    if (changed) parts.push(vscode.l10n.t('{0} changed since approval', changed));
    const unapproved = flagged('unapproved');
    if (unapproved) parts.push(vscode.l10n.t('{0} approval not valid', unapproved));
    const foreign = flagged('foreign');
    if (foreign) parts.push(vscode.l10n.t('{0} approved elsewhere', foreign));
    if (invalid) parts.push(vscode.l10n.t('{0} invalid', invalid));
    const ro = this.plans.writable ? '' : ` ${vscode.l10n.t('(read-only)')}`;
    this.item.text = `$(checklist) ${parts.join(', ')}${ro}`;
    this.item.tooltip = this.plans.writable
      ? vscode.l10n.t('Pi Plans: click to open a plan')
      : vscode.l10n.t('Pi Plans is read-only in Restricted Mode: trust this workspace to approve or change plans.');
    this.item.backgroundColor = invalid || stalled || changed || unapproved || foreign ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
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
