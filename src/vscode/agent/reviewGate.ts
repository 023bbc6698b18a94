import * as vscode from 'vscode';
import { contentDigest } from '../../core';
import type { PlanStore } from '../../store';
import { ReviewGate, ReviewOutcome, waitForDecision } from '../../tools';
import { COMMANDS } from '../common/ids';
import { approveAsPerson } from '../decision/personApproval';
import { openPlan } from '../common/planUi';

/**
 * Puts a submitted plan in front of the user (opens it, with a notification offering Approve and
 * Reject) and resolves when the plan leaves `proposed`: a decision made anywhere (this window,
 * another window, the CLI) reaches it through the store's change events.
 */
export class VsCodeReviewGate implements ReviewGate {
  async awaitDecision(store: PlanStore, id: string, signal: AbortSignal): Promise<ReviewOutcome> {
    const uri = vscode.Uri.file(store.pathOf(id));
    // The text the notification is about: its Approve approves exactly this text, by its digest.
    const shown = await store.read(id);
    const version = shown.fm.version;
    const digest = contentDigest(shown);
    void openPlan(uri, { preview: true, preserveFocus: true }).then(undefined, () => undefined);
    const approve = vscode.l10n.t('Approve');
    const reject = vscode.l10n.t('Reject…');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('{0} is ready for your review.', `${id} "${store.entry(id)?.title ?? ''}"`), approve, reject)
      .then((choice) => {
        if (!choice) return undefined;
        // VS Code cannot take a notification back: a click after the decision was made elsewhere
        // (another window, the CLI) says what happened instead of acting on an old version.
        const now = store.entry(id);
        if (now?.status !== 'proposed' || now.version !== version) {
          const by = now?.approvedBy ? vscode.l10n.t(' by {0} at v{1}', now.approvedBy, String(now.approvedVersion ?? '')) : '';
          void vscode.window.showInformationMessage(
            now?.status && now.status !== 'proposed'
              ? vscode.l10n.t('{0} was already decided: it is {1}{2}.', id, now.status, by)
              : vscode.l10n.t('{0} changed since this notification (now v{1}): review the current version.', id, String(now?.version ?? '?')),
          );
          return undefined;
        }
        // The button is the person's act: no second confirmation.
        if (choice === approve) return approveAsPerson(store, id, { digest, version, text: shown.text });
        if (choice === reject) return vscode.commands.executeCommand(COMMANDS.reject, { id, version, digest });
        return undefined;
      });
    return waitForDecision(store, id, signal);
  }
}
