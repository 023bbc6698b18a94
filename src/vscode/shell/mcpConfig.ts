import * as vscode from 'vscode';
import { COMMANDS } from '../common/ids';

/** The MCP clients a snippet is written for. */
export const MCP_CLIENTS = ['claude', 'codex', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/**
 * "Pi Plans: Copy MCP Configuration…": the snippet that registers `pi-plans mcp` with Claude Code,
 * Codex, Cursor (or VS Code without this extension) on the clipboard. It points at a copy of the
 * CLI in the extension's global storage, refreshed on activation, so the path survives updates of
 * the extension (whose folder name carries its version).
 */
export class McpConfig implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Resolves once the stable copy of the CLI is in place (the command waits for it). */
  readonly ready: Promise<vscode.Uri | undefined>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly version: string,
    private readonly logError: (what: string, e: unknown) => void,
  ) {
    this.ready = this.refresh().catch((e) => {
      logError('MCP server copy', e);
      return undefined;
    });
    this.disposables.push(vscode.commands.registerCommand(COMMANDS.copyMcpConfig, (client?: McpClient, folder?: vscode.Uri) => this.copy(client, folder)));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /**
   * The CLI at a path that does not change with the extension's version: copied when missing or
   * from another version. `pi-plans.js` is the bin (a few hundred bytes) that runs `hook` from
   * `hook.js`, the small bundle agents run on every tool call, and every other command from
   * `cli.js`; the three are copied together, the bin last.
   */
  private async refresh(): Promise<vscode.Uri | undefined> {
    const storage = this.context.globalStorageUri;
    const dist = (name: string) => vscode.Uri.joinPath(this.context.extensionUri, 'dist', name);
    const dir = vscode.Uri.joinPath(storage, 'mcp');
    const target = vscode.Uri.joinPath(dir, 'pi-plans.js');
    const stamp = vscode.Uri.joinPath(dir, 'version');
    const have = await vscode.workspace.fs.readFile(stamp).then((b) => new TextDecoder().decode(b), () => '');
    const exists = await vscode.workspace.fs.stat(target).then(() => true, () => false);
    if (exists && have === this.version) return target;
    await vscode.workspace.fs.createDirectory(dir);
    for (const [from, to] of [['cli.js', 'cli.js'], ['hook.js', 'hook.js'], ['hook-shell.js', 'hook-shell.js'], ['bin.js', 'pi-plans.js']]) {
      // Written beside and renamed: a client starting the server meanwhile never reads half a file.
      const partial = vscode.Uri.joinPath(dir, `${to}.${Date.now()}.part`);
      await vscode.workspace.fs.copy(dist(from), partial, { overwrite: true });
      await vscode.workspace.fs.rename(partial, vscode.Uri.joinPath(dir, to), { overwrite: true });
    }
    await vscode.workspace.fs.writeFile(stamp, new TextEncoder().encode(this.version));
    return target;
  }

  private async copy(given?: McpClient, folderArg?: vscode.Uri): Promise<string | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    let folder = folderArg;
    if (!folder) {
      if (folders.length > 1) {
        const pick = await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Which folder\'s plans should the MCP server serve?') });
        folder = pick?.uri;
      } else folder = folders[0]?.uri;
    }
    if (!folder || folder.scheme !== 'file') {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a local folder first: the MCP server serves the plans of a folder on this machine.'));
      return undefined;
    }
    let client = given;
    if (!client) {
      const items: (vscode.QuickPickItem & { client: McpClient })[] = [
        { label: 'Claude Code', description: vscode.l10n.t('a command to run in a terminal'), client: 'claude' },
        { label: 'Codex', description: vscode.l10n.t('a command to run in a terminal'), client: 'codex' },
        { label: 'Cursor', description: vscode.l10n.t('JSON for .cursor/mcp.json'), client: 'cursor' },
        { label: vscode.l10n.t('VS Code without Pi Plans'), description: vscode.l10n.t('JSON for .vscode/mcp.json (this window has the tools already)'), client: 'vscode' },
      ];
      client = (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Copy the MCP configuration for…') }))?.client;
    }
    if (!client) return undefined;
    const cli = await this.ready;
    if (!cli) {
      void vscode.window.showErrorMessage(vscode.l10n.t('The MCP server could not be set up in the extension\'s storage: see Pi Plans: Show Log.'));
      return undefined;
    }
    const text = mcpSnippet(client, cli.fsPath, folder.fsPath);
    await vscode.env.clipboard.writeText(text);
    const where: Record<McpClient, string> = {
      claude: vscode.l10n.t('Run it in a terminal to add the server to Claude Code.'),
      codex: vscode.l10n.t('Run it in a terminal to add the server to Codex.'),
      cursor: vscode.l10n.t('Paste it into .cursor/mcp.json (the workspace\'s or ~/.cursor/mcp.json).'),
      vscode: vscode.l10n.t('Paste it into .vscode/mcp.json of a VS Code without Pi Plans.'),
    };
    void vscode.window.showInformationMessage(vscode.l10n.t('MCP configuration copied. {0} Node.js 20 or later must be on the PATH.', where[client]));
    return text;
  }
}

/** The snippet for a client: `node <cli> --root <folder> mcp`, quoted for a POSIX shell or as JSON. */
export function mcpSnippet(client: McpClient, cli: string, folder: string): string {
  const args = [cli, '--root', folder, 'mcp'];
  const sh = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  if (client === 'claude') return `claude mcp add pi-plans -- node ${args.map(sh).join(' ')}`;
  if (client === 'codex') return `codex mcp add pi-plans -- node ${args.map(sh).join(' ')}`;
  if (client === 'cursor') return JSON.stringify({ mcpServers: { 'pi-plans': { command: 'node', args } } }, null, 2);
  return JSON.stringify({ servers: { 'pi-plans': { type: 'stdio', command: 'node', args } } }, null, 2);
}
