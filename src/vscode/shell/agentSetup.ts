import * as path from 'node:path';
import * as vscode from 'vscode';
import { AgentHost, HOST_NAMES, SetupScope } from '../../hosts/setup/targets';
import type { SetupReport } from '../../hosts/install/apply';
import { COMMANDS } from '../common/ids';

/**
 * "Pi Plans: Set Up an Agent…": `pi-plans setup` for one agent host, from a quick pick, run here
 * (the same code as the CLI's, not a process) with the hooks and the MCP server pointing at the
 * stable copy of the CLI the MCP configuration uses (`node <copy>`). For Copilot in VS Code it
 * writes the hooks only: this extension gives VS Code's agents the plan tools already.
 */
export class AgentSetupCommand implements vscode.Disposable {
  private readonly disposable: vscode.Disposable;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly cli: Promise<vscode.Uri | undefined>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposable = vscode.commands.registerCommand(COMMANDS.setUpAgent, (agent?: AgentHost, scope?: SetupScope, folder?: vscode.Uri) => this.run(agent, scope, folder));
  }

  dispose(): void {
    this.disposable.dispose();
  }

  private async pickAgent(): Promise<AgentHost | undefined> {
    const items: (vscode.QuickPickItem & { agent: AgentHost })[] = [
      { label: HOST_NAMES.copilot, description: vscode.l10n.t('hooks in .github/hooks/pi-plans.json (the plan tools come from this extension)'), agent: 'copilot' },
      { label: HOST_NAMES.claude, description: vscode.l10n.t('hooks in .claude/settings.json, the MCP server in .mcp.json'), agent: 'claude' },
      { label: HOST_NAMES.codex, description: vscode.l10n.t('hooks in .codex/hooks.json, the MCP server in .codex/config.toml'), agent: 'codex' },
      { label: HOST_NAMES['copilot-cli'], description: vscode.l10n.t('hooks in .github/hooks/pi-plans.json, the MCP server in .mcp.json'), agent: 'copilot-cli' },
    ];
    return (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Set up which agent to use Pi Plans (its plan tools, and hooks that hold it to its plan)?') }))?.agent;
  }

  private async pickScope(): Promise<SetupScope | undefined> {
    const items: (vscode.QuickPickItem & { scope: SetupScope })[] = [
      { label: vscode.l10n.t('This workspace'), description: vscode.l10n.t('files in the folder, which you can commit'), scope: 'workspace' },
      { label: vscode.l10n.t('Every workspace'), description: vscode.l10n.t('your user configuration of the agent'), scope: 'user' },
    ];
    return (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Where should the configuration go?') }))?.scope;
  }

  private async pickFolder(given?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = given ?? (folders.length > 1 ? (await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Set up the agent for which folder?') }))?.uri : folders[0]?.uri);
    if (folder && folder.scheme !== 'file') return undefined;
    return folder;
  }

  private async run(givenAgent?: AgentHost, givenScope?: SetupScope, givenFolder?: vscode.Uri): Promise<SetupReport | undefined> {
    const agent = givenAgent ?? (await this.pickAgent());
    if (!agent) return undefined;
    const scope = givenScope ?? (await this.pickScope());
    if (!scope) return undefined;
    const folder = await this.pickFolder(givenFolder);
    if (!folder) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a local folder first: the agent\'s hooks read the plans of a folder on this machine.'));
      return undefined;
    }
    const cli = await this.cli;
    if (!cli) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The Pi Plans CLI could not be set up in the extension\'s storage: see Pi Plans: Show Log.'));
      return undefined;
    }
    // Loaded when first used: the TOML and JSONC editors stay out of the extension's activation.
    const { formatSetupReport, runAgentSetup, SetupRefused, userFolders } = await import('../../hosts/install/apply');
    // The profile's User folder holds globalStorage/<extension>: VS Code's own mcp.json is beside it.
    const folders = { ...userFolders(), vscodeUser: path.dirname(path.dirname(this.context.globalStorageUri.fsPath)) };
    let report: SetupReport;
    try {
      report = runAgentSetup({ agent, scope, hooks: true, mcp: agent !== 'copilot', command: ['node', cli.fsPath], workspace: folder.fsPath, remove: false, dryRun: false }, folders);
    } catch (e) {
      if (!(e instanceof SetupRefused)) throw e;
      void vscode.window.showErrorMessage(e.message);
      return undefined;
    }
    this.log.info(formatSetupReport(report).trimEnd());
    void this.tell(report);
    return report;
  }

  private async tell(report: SetupReport): Promise<void> {
    const changed = report.files.filter((f) => f.changes.length && f.status !== 'deleted');
    const name = HOST_NAMES[report.agent];
    if (!changed.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} is set up for Pi Plans already: nothing changed.', name));
      return;
    }
    const what = changed.map((f) => `${f.shown} (${f.changes.join('; ')})`).join(', ');
    const notes = [...new Set(changed.map((f) => f.note).filter((n): n is string => !!n))].map((n) => ` ${n}.`).join('');
    const show = vscode.l10n.t('Show');
    const answer = await vscode.window.showInformationMessage(vscode.l10n.t('Set up {0}: {1}.{2} Node.js 20 or later must be on the PATH.', name, what, notes), show);
    if (answer !== show) return;
    for (const f of changed) await vscode.window.showTextDocument(vscode.Uri.file(f.file), { preview: changed.length === 1 });
  }
}
