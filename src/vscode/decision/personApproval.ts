import * as vscode from 'vscode';
import { contentDigest, isPlanError, parsePlan, SeenPlan, shortDigest, shortKey, standingProblem } from '../../core';
import { recordDriftBase } from '../../node';
import { approvePlan, confirmApproval as confirmApproval_ } from '../../service';
import type { PlanStore } from '../../store';
import { draftCommentsFor } from '../common/reviewDrafts';
import type { WorkspacePlans } from '../workspace/workspacePlans';

// The person's decisions as every surface makes them (the plan editor's buttons, the review
// notification, the review commands' modals): an approval of exactly the text shown, signed as
// the person, with the drafted comments; a confirmation of an approval signed elsewhere.

/**
 * The text the person is looking at, named by its content digest: the one given (a CodeLens, a
 * notification, the plan editor drew it), else the open plan's saved text, else the file. With
 * the text when it is known, so a refusal can say what changed since.
 */
export async function shownPlan(store: PlanStore, id: string, given: { version?: number; digest?: string }): Promise<{ seen: SeenPlan; title: string; version: number }> {
  const uri = vscode.Uri.file(store.pathOf(id)).toString();
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri && !d.isDirty);
  const doc = open ? parsePlan(open.getText()) : await store.read(id);
  const digest = given.digest ?? contentDigest(doc);
  const text = contentDigest(doc) === digest ? doc.text : undefined;
  return { seen: { digest, version: given.version, text }, title: doc.fm.title, version: given.version ?? doc.fm.version };
}

/**
 * Approves as the person, exactly the text `seen` names: only UI a person must operate calls
 * this directly (the review notification's button, the modal below, the plan editor's button).
 * Says what happened, and what could not be recorded beside it.
 */
export async function approveAsPerson(store: PlanStore, id: string, seen: SeenPlan): Promise<{ id: string; status: string; version: number } | undefined> {
  try {
    // The reviewer's draft comments go with the approval, as suggestions the agent reads.
    const drafts = await draftCommentsFor(store, id);
    const { doc, warnings } = await approvePlan({ store }, id, { actor: 'user', seen, comments: drafts.comments });
    if (drafts.comments.length) await drafts.clear();
    // The drift base: HEAD and the steps' targets as approved (a warning later, never a gate).
    await recordDriftBase(store.root, doc, doc.fm.approved_at ?? new Date().toISOString()).catch(() => undefined);
    void vscode.window.showInformationMessage(
      drafts.comments.length
        ? drafts.comments.length === 1
          ? vscode.l10n.t('{0} approved at v{1}, with 1 comment as a suggestion for the agent.', id, String(doc.fm.approved_version))
          : vscode.l10n.t('{0} approved at v{1}, with {2} comments as suggestions for the agent.', id, String(doc.fm.approved_version), String(drafts.comments.length))
        : vscode.l10n.t('{0} approved at v{1}.', id, String(doc.fm.approved_version)),
    );
    for (const w of warnings ?? []) void vscode.window.showWarningMessage(vscode.l10n.t('{0} is approved, but {1}.', id, w));
    return { id, status: doc.fm.status, version: doc.fm.version };
  } catch (e) {
    void vscode.window.showErrorMessage(isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e));
    return undefined;
  }
}

/**
 * A person confirms, on this machine, an approval made elsewhere with a key not trusted here (or
 * trusts that key for good). Says who signed it and that anyone can sign with a key of their own.
 */
export async function confirmForeignApproval(plans: WorkspacePlans, store: PlanStore, id: string): Promise<boolean> {
  const doc = await store.read(id);
  const s = await store.approvalStanding(doc);
  if (s.state !== 'foreign') {
    const problem = standingProblem(doc, s);
    void vscode.window.showInformationMessage(problem ? `${problem}.` : vscode.l10n.t('{0} has no approval from another machine to confirm.', id));
    return s.state === 'valid';
  }
  const confirm = vscode.l10n.t('Confirm');
  const trust = vscode.l10n.t("Always Trust {0}'s Key", s.approver);
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} "{1}" was approved by {2} at v{3} on another machine. Let it run here?', id, doc.fm.title, s.approver, String(s.version)),
    {
      modal: true,
      detail: vscode.l10n.t(
        'Signed with {0}, a key this machine does not trust. Anyone who can write the file can sign a record with a key of their own and any name: confirm only if you know this approval is {1}\'s. The text is unchanged since it was approved ({2}).',
        shortKey(s.key),
        s.approver,
        shortDigest(s.digest),
      ),
    },
    confirm,
    trust,
  );
  if (choice === trust) {
    await plans.keys.trust(s.key, s.approver);
    plans.recheckApprovals();
    return true;
  }
  if (choice !== confirm) return false;
  await confirmApproval_({ store }, id, { actor: 'user' });
  plans.recheckApprovals();
  void vscode.window.showInformationMessage(vscode.l10n.t('{0}: the approval by {1} is confirmed on this machine.', id, s.approver));
  return true;
}
