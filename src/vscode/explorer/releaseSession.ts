import * as vscode from 'vscode';
import { removeBinding, type Binding } from '../../hosts/hook/sessions';
import { HOST_NAMES } from '../../hosts/setup/targets';
import { COMMANDS } from '../common/ids';
import { relativeTime } from '../common/planIcons';
import type { PlanSessions } from './planSessions';

/**
 * "Free an Agent Session…": a person frees an agent session from the plans it is bound to (what
 * `pi-plans hook release` does at a terminal). Always behind a modal: a command any extension or
 * agent could run with arguments takes none that skips it. From a plan's row (its sessions), or
 * the command palette (every bound session of the open folders).
 */
export class ReleaseSessionCommand implements vscode.Disposable {
  static readonly id = COMMANDS.releaseSession;
  private readonly disposable: vscode.Disposable;

  constructor(private readonly sessions: PlanSessions) {
    this.disposable = vscode.commands.registerCommand(ReleaseSessionCommand.id, (arg?: { folder?: vscode.Uri; id?: string }) => this.run(arg));
  }

  dispose(): void {
    this.disposable.dispose();
  }

  private async run(arg?: { folder?: vscode.Uri; id?: string }): Promise<boolean> {
    this.sessions.read();
    const list = arg?.folder && arg.id ? this.sessions.of(arg.folder, arg.id) : this.sessions.all();
    if (!list.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No agent session is bound to {0}.', arg?.id ?? vscode.l10n.t('a plan')));
      return false;
    }
    const b = list.length === 1 ? list[0] : await this.pick(list);
    if (!b) return false;
    const free = vscode.l10n.t('Free Session');
    const detail = vscode.l10n.t(
      'Bound to {0}. Once freed, it may edit files and run commands that no approved plan covers, until it names a plan again.',
      b.plans.join(', ') || vscode.l10n.t('a plan being created'),
    );
    const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Free the {0} session {1} from its plans?', HOST_NAMES[b.host] ?? b.host, short(b)), { modal: true, detail }, free);
    if (answer !== free) return false;
    removeBinding(b.host, b.session);
    this.sessions.read();
    void vscode.window.setStatusBarMessage(vscode.l10n.t('The {0} session {1} is free.', HOST_NAMES[b.host] ?? b.host, short(b)), 5000);
    return true;
  }

  private async pick(list: readonly Binding[]): Promise<Binding | undefined> {
    const now = Date.now();
    const items = list.map((b) => ({ label: `${HOST_NAMES[b.host] ?? b.host} ${short(b)}`, description: b.plans.join(', '), detail: vscode.l10n.t('last active {0}', relativeTime(b.seenAt, now) || b.seenAt), b }));
    return (await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Free which agent session from its plans?') }))?.b;
  }
}

const short = (b: Binding) => (b.session.length > 12 ? `${b.session.slice(0, 12)}…` : b.session);
