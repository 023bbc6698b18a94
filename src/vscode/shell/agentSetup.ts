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
    this.disposable = vscode.commands.registerCommand(COMMANDS.setUpAgent, (agent?: AgentHost, scope?: SetupScope, folder?: vscode.Uri, seal?: boolean) => this.run(agent, scope, folder, seal));
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

  /**
   * Sealed or hooks only, for a host whose sandbox Pi Plans can set (at workspace scope): sealed is
   * the first and recommended choice; where this machine lacks what the sandbox needs, that choice
   * says what to install. Undefined: dismissed.
   */
  private async pickSeal(agent: AgentHost, refusal: string | undefined): Promise<boolean | undefined> {
    const items: (vscode.QuickPickItem & { seal: boolean })[] = [
      {
        label: vscode.l10n.t('Sealed (recommended)'),
        description: refusal ? vscode.l10n.t('cannot be set up on this machine yet') : vscode.l10n.t("the host's own sandbox keeps the agent from your approval key and from writing .pi/"),
        detail: refusal,
        seal: true,
      },
      { label: vscode.l10n.t('Hooks only'), description: vscode.l10n.t('the hooks check each call; an agent with a shell may find a way past them'), seal: false },
    ];
    return (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('How should {0} be held to its plan?', HOST_NAMES[agent]) }))?.seal;
  }

  private async run(givenAgent?: AgentHost, givenScope?: SetupScope, givenFolder?: vscode.Uri, givenSeal?: boolean): Promise<SetupReport | undefined> {
    const agent = givenAgent ?? (await this.pickAgent());
    if (!agent) return undefined;
    const scope = givenScope ?? (await this.pickScope());
    if (!scope) return undefined;
    const folder = await this.pickFolder(givenFolder);
    if (!folder) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a local folder first: the agent\'s hooks read the plans of a folder on this machine.'));
      return undefined;
    }
    const { HOSTS } = await import('../../hosts/hosts');
    const { sealRefusal } = await import('../../hosts/setup/seal');
    const { nodeSealSystem } = await import('../../hosts/install/seal');
    const system = nodeSealSystem();
    const sealable = !!HOSTS[agent].sandbox && scope === 'workspace';
    let seal = givenSeal ?? false;
    if (givenSeal === undefined && givenAgent === undefined && sealable) {
      const picked = await this.pickSeal(agent, sealRefusal(HOSTS[agent], scope, system.platform, system.onPath));
      if (picked === undefined) return undefined;
      seal = picked;
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
      report = runAgentSetup({ agent, scope, hooks: true, mcp: agent !== 'copilot', command: ['node', cli.fsPath], workspace: folder.fsPath, remove: false, dryRun: false, seal }, folders, system);
    } catch (e) {
      if (!(e instanceof SetupRefused)) throw e;
      void vscode.window.showErrorMessage(e.message);
      return undefined;
    }
    this.log.info(formatSetupReport(report).trimEnd());
    void this.tell(report, sealable && !seal ? 'not sealed' : !sealable ? 'cannot' : undefined);
    return report;
  }

  /** `unsealed`: why the host is not sealed (it cannot be, or the person chose hooks only): the message then says what protects the key. */
  private async tell(report: SetupReport, unsealed?: 'cannot' | 'not sealed'): Promise<void> {
    const changed = report.files.filter((f) => f.changes.length && f.status !== 'deleted');
    const name = HOST_NAMES[report.agent];
    if (!changed.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} is set up for Pi Plans already: nothing changed.', name));
      return;
    }
    const what = changed.map((f) => `${f.shown} (${f.changes.join('; ')})`).join(', ');
    const notes =
      [...new Set(changed.map((f) => f.note).filter((n): n is string => !!n))].map((n) => ` ${n}.`).join('') +
      (unsealed === 'cannot'
        ? ` ${vscode.l10n.t('{0} cannot be sealed by Pi Plans: only the hooks hold it to its plan. Protect your approval key with a passphrase (pi-plans key --protect in a terminal), so an agent that reads it cannot sign.', name)}`
        : unsealed === 'not sealed'
          ? ` ${vscode.l10n.t('Not sealed: run Set Up an Agent… again and choose Sealed, or protect your approval key (pi-plans key --protect).')}`
          : '');
    const show = vscode.l10n.t('Show');
    const answer = await vscode.window.showInformationMessage(vscode.l10n.t('Set up {0}: {1}.{2} Node.js 20 or later must be on the PATH.', name, what, notes), show);
    if (answer !== show) return;
    for (const f of changed) await vscode.window.showTextDocument(vscode.Uri.file(f.file), { preview: changed.length === 1 });
  }
}
