import * as vscode from 'vscode';
import { DisposableScope } from './disposable';
import type { WorkspacePlans } from './workspacePlans';

/** The status bar item: how many plans, how many need review or are running; read-only state. */
export class PlanStatusBar extends DisposableScope {
  private readonly item = this.register(vscode.window.createStatusBarItem('piPlans.status', vscode.StatusBarAlignment.Left, 50));

  constructor(private readonly plans: WorkspacePlans) {
    super();
    this.item.name = vscode.l10n.t('Pi Plans');
    this.item.command = 'piPlans.showPlans';
    this.register(plans.onDidChangePlans(() => this.update()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.update()));
    this.update();
    this.item.show();
  }

  private update(): void {
    const all = this.plans.list();
    const count = (s: string) => all.filter((e) => e.status === s).length;
    const review = count('proposed');
    const running = count('executing');
    const invalid = all.filter((e) => !e.valid).length;
    const parts = [vscode.l10n.t('{0} plans', all.length)];
    if (review) parts.push(vscode.l10n.t('{0} to review', review));
    if (running) parts.push(vscode.l10n.t('{0} running', running));
    if (invalid) parts.push(vscode.l10n.t('{0} invalid', invalid));
    const ro = this.plans.writable ? '' : ` ${vscode.l10n.t('(read-only)')}`;
    this.item.text = `$(checklist) ${parts.join(', ')}${ro}`;
    this.item.tooltip = this.plans.writable
      ? vscode.l10n.t('Pi Plans: click to open a plan')
      : vscode.l10n.t('Pi Plans is read-only in Restricted Mode: trust this workspace to approve or change plans.');
    this.item.backgroundColor = invalid ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }
}
