import * as vscode from 'vscode';
import type { PlanStore } from '../store';
import { ReviewGate, ReviewOutcome, waitForDecision } from '../tools';
import { COMMANDS } from './ids';

/**
 * Puts a submitted plan in front of the user (opens it, with a notification offering Approve and
 * Reject) and resolves when the plan leaves `proposed`: a decision made anywhere (this window,
 * another window, the CLI) reaches it through the store's change events.
 */
export class VsCodeReviewGate implements ReviewGate {
  async awaitDecision(store: PlanStore, id: string, signal: AbortSignal): Promise<ReviewOutcome> {
    const uri = vscode.Uri.file(store.pathOf(id));
    const version = (await store.read(id)).fm.version;
    void vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true }).then(undefined, () => undefined);
    const approve = vscode.l10n.t('Approve');
    const reject = vscode.l10n.t('Reject…');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('{0} is ready for your review.', `${id} "${store.entry(id)?.title ?? ''}"`), approve, reject)
      .then((choice) => {
        if (choice === approve) return vscode.commands.executeCommand(COMMANDS.approve, { id, version });
        if (choice === reject) return vscode.commands.executeCommand(COMMANDS.reject, { id, version });
        return undefined;
      });
    return waitForDecision(store, id, signal);
  }
}
