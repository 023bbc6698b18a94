import * as vscode from 'vscode';
import { DIGEST_PATTERN, isPlanError, PLAN_ID_PATTERN, reviewedVersion, SeenPlan, shortDigest } from '../../core';
import { clearPlanLock } from '../../node';
import { rejectPlan } from '../../service';
import type { PlanStore } from '../../store';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { COMMANDS } from '../common/ids';
import { draftCommentsFor } from '../common/reviewDrafts';
import { approveAsPerson, confirmForeignApproval, shownPlan } from '../decision/personApproval';

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

/** Shows a refusal or failure in its own words. */
function report(e: unknown): void {
  const msg = isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e);
  void vscode.window.showErrorMessage(msg);
}

/** Approve: the text the person looks at, after they confirm it in a modal. */
async function approveCommand(plans: WorkspacePlans, arg?: PlanArg) {
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
}

/** Confirm an approval made elsewhere (another machine or key) as this person's. */
async function confirmApprovalCommand(plans: WorkspacePlans, arg?: PlanArg): Promise<boolean> {
  const t = await resolve(plans, arg, (e) => !!e.status && ['approved', 'executing', 'stalled', 'failed'].includes(e.status));
  if (!t) return false;
  try {
    return await confirmForeignApproval(plans, t.store, t.id);
  } catch (e) {
    report(e);
    return false;
  }
}

/** Clear a plan's lock left behind. */
async function clearLockCommand(plans: WorkspacePlans, arg?: PlanArg) {
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
}

/** The feedback box of a rejection, its title and prompt saying how many draft comments go with it. */
function askRejectFeedback(id: string, n: number): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: n === 0 ? vscode.l10n.t('Reject {0}', id) : n === 1 ? vscode.l10n.t('Reject {0} with 1 comment', id) : vscode.l10n.t('Reject {0} with {1} comments', id, String(n)),
    prompt:
      n === 0
        ? vscode.l10n.t('What must change? The agent revises the plan with this feedback.')
        : n === 1
          ? vscode.l10n.t('Overall feedback (optional): your comment goes with it.')
          : vscode.l10n.t('Overall feedback (optional): your {0} comments on steps and sections go with it.', String(n)),
    validateInput: (v) => (v.trim() || n ? undefined : vscode.l10n.t('Feedback is required.')),
    ignoreFocusOut: true,
  });
}

/** Reject with feedback (given, or asked for) and the reviewer's draft comments. */
async function rejectCommand(plans: WorkspacePlans, arg?: PlanArg & { feedback?: string }) {
  const t = await resolve(plans, arg);
  if (!t) return undefined;
  const given = arg && !(arg instanceof vscode.Uri) ? (arg as { feedback?: string }).feedback : undefined;
  // The reviewer's draft comments go with the rejection, one line per step or section.
  const drafts = await draftCommentsFor(t.store, t.id);
  const n = drafts.comments.length;
  const feedback = given ?? (await askRejectFeedback(t.id, n));
  if (feedback === undefined || (!feedback.trim() && !n)) return undefined;
  try {
    const { doc } = await rejectPlan({ store: t.store }, t.id, { actor: 'user', feedback, comments: drafts.comments, seenVersion: seenVersion(t.store, t.id, t.version) });
    if (n) await drafts.clear();
    return { id: t.id, status: doc.fm.status, version: doc.fm.version };
  } catch (e) {
    report(e);
    return undefined;
  }
}

/** Start work on a plan (given, or picked among the open ones): it becomes active. */
async function startWorkCommand(plans: WorkspacePlans, active: WorkspaceActivePlans, arg?: PlanArg): Promise<void> {
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
}

/** End plan work: no plan is active any more. */
async function endWorkCommand(active: WorkspaceActivePlans): Promise<void> {
  const was = active.list();
  if (!was.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No plan work is active. Start it with "Pi Plans: Start Work on a Plan…".'));
    return;
  }
  await active.clearAll();
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Plan work ended on {0}.', was.map((a) => a.id).join(', ')), 4000);
}

/** The human review commands (the CodeLens and the review notification run them) and plan work mode. */
export function registerReviewCommands(plans: WorkspacePlans, active: WorkspaceActivePlans): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.approve, (arg?: PlanArg) => approveCommand(plans, arg)),
    vscode.commands.registerCommand(COMMANDS.confirmApproval, (arg?: PlanArg) => confirmApprovalCommand(plans, arg)),
    vscode.commands.registerCommand(COMMANDS.clearLock, (arg?: PlanArg) => clearLockCommand(plans, arg)),
    vscode.commands.registerCommand(COMMANDS.reject, (arg?: PlanArg & { feedback?: string }) => rejectCommand(plans, arg)),
    vscode.commands.registerCommand(COMMANDS.startWork, (arg?: PlanArg) => startWorkCommand(plans, active, arg)),
    vscode.commands.registerCommand(COMMANDS.endWork, () => endWorkCommand(active)),
  ];
}
