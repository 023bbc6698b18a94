import * as vscode from 'vscode';
import { contentDigest, DIGEST_PATTERN, isPlanError, parsePlan, PLAN_ID_PATTERN, reviewedVersion, SeenPlan, shortDigest, shortKey, standingProblem } from '../core';
import { clearPlanLock } from '../node';
import { approvePlan, confirmApproval as confirmApproval_, rejectPlan } from '../service';
import type { PlanStore } from '../store';
import type { WorkspaceActivePlans } from './activePlans';
import type { WorkspacePlans } from './workspacePlans';
import { COMMANDS } from './ids';
import { draftCommentsFor } from './reviewComments';

/** What the review commands take: `{ id, version, digest }` (CodeLens, notifications, the plan editor), a plan file Uri, or nothing (the active editor). */
type PlanArg = { id?: string; version?: number; digest?: string } | vscode.Uri | undefined;

async function resolve(plans: WorkspacePlans, arg: PlanArg, which: (e: { status?: string }) => boolean = (e) => e.status === 'proposed'): Promise<{ store: PlanStore; id: string; version?: number; digest?: string } | undefined> {
  let id: string | undefined;
  let version: number | undefined;
  let digest: string | undefined;
  if (arg instanceof vscode.Uri) id = /(PLAN-[0-9a-f]{8})\.md$/.exec(arg.path)?.[1];
  else if (arg?.id) ({ id, version, digest } = arg);
  if (!id) {
    const ed = vscode.window.activeTextEditor;
    id = ed ? /(PLAN-[0-9a-f]{8})\.md$/.exec(ed.document.uri.path)?.[1] : undefined;
  }
  if (!id) {
    await plans.ready;
    const candidates = plans.list().filter(which);
    const pick = await vscode.window.showQuickPick(
      candidates.map((e) => ({ label: e.title ?? e.id, description: `${e.id} · v${e.version}`, id: e.id, version: e.version })),
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
  return { store, id, version, digest: digest && DIGEST_PATTERN.test(digest) ? digest : undefined };
}

/** The version the user is looking at (the core's rule): the one given, the open saved editor's, or the current one. */
function seenVersion(store: PlanStore, id: string, given: number | undefined): number | undefined {
  const uri = vscode.Uri.file(store.pathOf(id)).toString();
  const doc = given === undefined ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri) : undefined;
  return reviewedVersion({ given, shownText: doc && !doc.isDirty ? doc.getText() : undefined, current: store.entry(id)?.version });
}

/**
 * The text the person is looking at, named by its content digest: the one given (a CodeLens, a
 * notification, the plan editor drew it), else the open plan's saved text, else the file. With
 * the text when it is known, so a refusal can say what changed since.
 */
async function shownPlan(store: PlanStore, id: string, given: { version?: number; digest?: string }): Promise<{ seen: SeenPlan; title: string; version: number }> {
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
 * A command can be run by any extension, or by an agent whose tools run commands: it approves
 * only after a person confirms in a modal that names the plan, the version and the text's digest.
 */
async function confirmApproval(id: string, shown: { title: string; version: number; seen: SeenPlan }, asked: boolean): Promise<boolean> {
  const ok = vscode.l10n.t('Approve');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Approve {0} "{1}" at version {2}?', id, shown.title, String(shown.version)),
    {
      modal: true,
      detail: [
        vscode.l10n.t('Text {0} (its digest).', shortDigest(shown.seen.digest)),
        asked
          ? vscode.l10n.t('The agent may then execute exactly this text. Your approval is signed with your key.')
          : vscode.l10n.t('This approval was requested through a command (a CodeLens, a key binding, another extension or an agent). The agent may then execute exactly this text; your approval is signed with your key.'),
      ].join('\n'),
    },
    ok,
  );
  return choice === ok;
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
    plans.keys.trust(s.key, s.approver);
    plans.recheckApprovals();
    return true;
  }
  if (choice !== confirm) return false;
  await confirmApproval_({ store }, id, { actor: 'user' });
  plans.recheckApprovals();
  void vscode.window.showInformationMessage(vscode.l10n.t('{0}: the approval by {1} is confirmed on this machine.', id, s.approver));
  return true;
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
      let shown: Awaited<ReturnType<typeof shownPlan>>;
      try {
        shown = await shownPlan(t.store, t.id, { version: seenVersion(t.store, t.id, t.version), digest: t.digest });
      } catch (e) {
        report(e);
        return undefined;
      }
      // Whoever called, a person confirms what is approved (plan, version, the text's digest) in a modal.
      if (!(await confirmApproval(t.id, shown, t.version === undefined && t.digest === undefined))) return undefined;
      return approveAsPerson(t.store, t.id, shown.seen);
    }),
    vscode.commands.registerCommand(COMMANDS.confirmApproval, async (arg?: PlanArg) => {
      const t = await resolve(plans, arg, (e) => !!e.status && ['approved', 'executing', 'stalled', 'failed'].includes(e.status));
      if (!t) return false;
      try {
        return await confirmForeignApproval(plans, t.store, t.id);
      } catch (e) {
        report(e);
        return false;
      }
    }),
    vscode.commands.registerCommand(COMMANDS.clearLock, async (arg?: PlanArg) => {
      const t = await resolve(plans, arg, () => true);
      if (!t) return undefined;
      try {
        const removed = await clearPlanLock(t.store.pathOf(t.id), { root: t.store.root });
        void vscode.window.showInformationMessage(removed ? vscode.l10n.t('{0}: its lock ({1}) was cleared.', t.id, removed.kind) : vscode.l10n.t('{0} has no lock to clear.', t.id));
        return removed ? { removed: removed.removed } : undefined;
      } catch (e) {
        report(e);
        return undefined;
      }
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
          title: n === 0 ? vscode.l10n.t('Reject {0}', t.id) : n === 1 ? vscode.l10n.t('Reject {0} with 1 comment', t.id) : vscode.l10n.t('Reject {0} with {1} comments', t.id, String(n)),
          prompt:
            n === 0
              ? vscode.l10n.t('What must change? The agent revises the plan with this feedback.')
              : n === 1
                ? vscode.l10n.t('Overall feedback (optional): your comment goes with it.')
                : vscode.l10n.t('Overall feedback (optional): your {0} comments on steps and sections go with it.', String(n)),
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
