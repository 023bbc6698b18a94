import * as vscode from 'vscode';
import { isPlanError, PLAN_ID_PATTERN, reviewedVersion } from '../core';
import { approvePlan, rejectPlan } from '../service';
import type { PlanStore } from '../store';
import type { WorkspaceActivePlans } from './activePlans';
import type { WorkspacePlans } from './workspacePlans';
import { COMMANDS } from './ids';
import { draftCommentsFor } from './reviewComments';

/** What the approve/reject commands take: `{ id, version }` (CodeLens, notifications), a plan file Uri, or nothing (the active editor). */
type PlanArg = { id?: string; version?: number } | vscode.Uri | undefined;

async function resolve(plans: WorkspacePlans, arg: PlanArg): Promise<{ store: PlanStore; id: string; version?: number } | undefined> {
  let id: string | undefined;
  let version: number | undefined;
  if (arg instanceof vscode.Uri) id = /(PLAN-[0-9a-f]{8})\.md$/.exec(arg.path)?.[1];
  else if (arg?.id) ({ id, version } = arg);
  if (!id) {
    const ed = vscode.window.activeTextEditor;
    id = ed ? /(PLAN-[0-9a-f]{8})\.md$/.exec(ed.document.uri.path)?.[1] : undefined;
  }
  if (!id) {
    await plans.ready;
    const proposed = plans.list().filter((e) => e.status === 'proposed');
    const pick = await vscode.window.showQuickPick(
      proposed.map((e) => ({ label: e.title ?? e.id, description: `${e.id} · v${e.version}`, id: e.id, version: e.version })),
      { placeHolder: vscode.l10n.t('Which plan?') },
    );
    if (!pick) return undefined;
    ({ id, version } = pick);
  }
  if (!id || !PLAN_ID_PATTERN.test(id)) return undefined;
  const store = plans.storeOf(id);
  if (!store) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} is not in this workspace.', id));
    return undefined;
  }
  return { store, id, version };
}

/** The version the user is looking at (the core's rule): the one given, the open saved editor's, or the current one. */
function seenVersion(store: PlanStore, id: string, given: number | undefined): number | undefined {
  const uri = vscode.Uri.file(store.pathOf(id)).toString();
  const doc = given === undefined ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri) : undefined;
  return reviewedVersion({ given, shownText: doc && !doc.isDirty ? doc.getText() : undefined, current: store.entry(id)?.version });
}

/**
 * Approves as the person: only UI a person must operate calls this directly (the review
 * notification's button, the modal below, later the extension's own webview). Says what happened.
 */
export async function approveAsPerson(store: PlanStore, id: string, seen: number | undefined): Promise<{ id: string; status: string; version: number } | undefined> {
  try {
    // The reviewer's draft comments go with the approval, as suggestions the agent reads.
    const drafts = await draftCommentsFor(store, id);
    const { doc } = await approvePlan({ store }, id, { actor: 'user', seenVersion: seen, comments: drafts.comments });
    if (drafts.comments.length) await drafts.clear();
    void vscode.window.showInformationMessage(
      drafts.comments.length
        ? vscode.l10n.t('{0} approved at v{1}, with {2} comment(s) as suggestions for the agent.', id, String(doc.fm.approved_version), String(drafts.comments.length))
        : vscode.l10n.t('{0} approved at v{1}.', id, String(doc.fm.approved_version)),
    );
    return { id, status: doc.fm.status, version: doc.fm.version };
  } catch (e) {
    void vscode.window.showErrorMessage(isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e));
    return undefined;
  }
}

/**
 * A command can be run by any extension, or by an agent whose tools run commands: it approves
 * only after a person confirms in a modal that names the plan and the version.
 */
async function confirmApproval(store: PlanStore, id: string, seen: number | undefined, asked: boolean): Promise<boolean> {
  const ok = vscode.l10n.t('Approve');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Approve {0} "{1}" at version {2}?', id, store.entry(id)?.title ?? '', String(seen ?? '?')),
    {
      modal: true,
      detail: asked
        ? vscode.l10n.t('The agent may then execute it. Your approval is recorded with this version.')
        : vscode.l10n.t('This approval was requested through a command (a CodeLens, a key binding, another extension or an agent). The agent may then execute the plan; your approval is recorded with this version.'),
    },
    ok,
  );
  return choice === ok;
}

/** The human review commands (the CodeLens and the review notification run them) and plan work mode. */
export function registerReviewCommands(plans: WorkspacePlans, active: WorkspaceActivePlans): vscode.Disposable[] {
  const report = (e: unknown) => {
    const msg = isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(msg);
  };
  return [
    vscode.commands.registerCommand(COMMANDS.approve, async (arg?: PlanArg) => {
      const t = await resolve(plans, arg);
      if (!t) return undefined;
      const seen = seenVersion(t.store, t.id, t.version);
      // Whoever called, a person confirms what is approved (plan and version) in a modal.
      if (!(await confirmApproval(t.store, t.id, seen, t.version === undefined))) return undefined;
      return approveAsPerson(t.store, t.id, seen);
    }),
    vscode.commands.registerCommand(COMMANDS.reject, async (arg?: PlanArg & { feedback?: string }) => {
      const t = await resolve(plans, arg);
      if (!t) return undefined;
      const given = arg && !(arg instanceof vscode.Uri) ? (arg as { feedback?: string }).feedback : undefined;
      // The reviewer's draft comments go with the rejection, one line per step or section.
      const drafts = await draftCommentsFor(t.store, t.id);
      const n = drafts.comments.length;
      const feedback =
        given ??
        (await vscode.window.showInputBox({
          title: n ? vscode.l10n.t('Reject {0} with {1} comment(s)', t.id, String(n)) : vscode.l10n.t('Reject {0}', t.id),
          prompt: n
            ? vscode.l10n.t('Overall feedback (optional): your {0} comment(s) on steps and sections go with it.', String(n))
            : vscode.l10n.t('What must change? The agent revises the plan with this feedback.'),
          validateInput: (v) => (v.trim() || n ? undefined : vscode.l10n.t('Feedback is required.')),
          ignoreFocusOut: true,
        }));
      if (feedback === undefined || (!feedback.trim() && !n)) return undefined;
      try {
        const { doc } = await rejectPlan({ store: t.store }, t.id, { actor: 'user', feedback, comments: drafts.comments, seenVersion: seenVersion(t.store, t.id, t.version) });
        if (n) await drafts.clear();
        return { id: t.id, status: doc.fm.status, version: doc.fm.version };
      } catch (e) {
        report(e);
        return undefined;
      }
    }),
    vscode.commands.registerCommand(COMMANDS.startWork, async (arg?: PlanArg) => {
      await plans.ready;
      let id = arg && !(arg instanceof vscode.Uri) ? arg.id : undefined;
      if (!id) {
        const pick = await vscode.window.showQuickPick(
          plans.list().filter((e) => e.valid && !['completed', 'cancelled', 'superseded'].includes(e.status!)).map((e) => ({ label: e.title!, description: `${e.id} · ${e.status}`, id: e.id })),
          { placeHolder: vscode.l10n.t('Work on which plan?') },
        );
        id = pick?.id;
      }
      const f = id ? plans.folders().find((x) => x.store.entry(id!)) : undefined;
      if (!id || !f) return;
      await active.set(id, f.name);
    }),
    vscode.commands.registerCommand(COMMANDS.endWork, async () => {
      const was = active.list();
      if (!was.length) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No plan work is active. Start it with "Pi Plans: Start Work on a Plan…".'));
        return;
      }
      await active.clearAll();
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Plan work ended on {0}.', was.map((a) => a.id).join(', ')), 4000);
    }),
  ];
}
