import * as path from 'node:path';
import * as vscode from 'vscode';
import { readUserConfig, userConfigDir } from '../../node';
import { DisposableScope } from '../common/disposable';
import { SETTINGS } from '../common/ids';

/** How often the person's Pi Plans configuration is looked at again (a file outside the workspace: no watcher on it everywhere). */
const PERIOD_MS = 60_000;

/**
 * A warning in the status bar for as long as agents may approve plans: VS Code's
 * `piPlans.agentApproval.enabled` (user settings) or `"agentMayApprove": true` in the person's
 * Pi Plans config.json (the MCP server's and the CLI's). Either one lets an agent approve its
 * own plan; a person should see that it is on, not find out. Clicking it opens the setting.
 */
export class AgentApprovalWarning extends DisposableScope {
  private readonly item = this.register(vscode.window.createStatusBarItem('piPlans.agentApproval', vscode.StatusBarAlignment.Left, 99));

  constructor() {
    super();
    this.item.name = vscode.l10n.t('Pi Plans: agents may approve');
    this.item.text = `$(warning) ${vscode.l10n.t('Agents may approve plans')}`;
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.command = { title: vscode.l10n.t('Open the setting'), command: 'workbench.action.openSettings', arguments: [`${SETTINGS.section}.${SETTINGS.agentApproval}`] };
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.agentApproval}`) && this.update()));
    this.register(vscode.window.onDidChangeWindowState((s) => s.focused && this.update()));
    const config = path.join(userConfigDir(), 'config.json');
    const w = this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(config)), 'config.json')));
    this.register(w.onDidChange(() => this.update()));
    this.register(w.onDidCreate(() => this.update()));
    this.register(w.onDidDelete(() => this.update()));
    const period = setInterval(() => this.update(), PERIOD_MS);
    this.register({ dispose: () => clearInterval(period) });
    this.update();
  }

  /** Where agents may approve now: the VS Code setting, the config file, both, or neither. */
  sources(): string[] {
    const out: string[] = [];
    if (vscode.workspace.getConfiguration(SETTINGS.section).inspect<boolean>(SETTINGS.agentApproval)?.globalValue === true) out.push(vscode.l10n.t('the setting {0}', `${SETTINGS.section}.${SETTINGS.agentApproval}`));
    try {
      if (readUserConfig(userConfigDir()).agentMayApprove) out.push(vscode.l10n.t('"agentMayApprove": true in {0}', path.join(userConfigDir(), 'config.json')));
    } catch {
      // a config that cannot be read grants nothing (readUserConfig's callers refuse it too)
    }
    return out;
  }

  private update(): void {
    const from = this.sources();
    if (!from.length) {
      this.item.hide();
      return;
    }
    this.item.tooltip = new vscode.MarkdownString().appendText(
      vscode.l10n.t('Agents may approve plans ({0}): an agent can approve its own plan and then act on it, with no person reviewing it. Turn it off unless you mean it. (It has no effect while your approval key is protected by a passphrase.)', from.join('; ')),
    );
    this.item.show();
  }
}
