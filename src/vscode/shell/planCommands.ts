import * as vscode from 'vscode';
import { parseClaim, PLAN_ID_PATTERN, planContextValue, StepStatus } from '../../core';
import { archivePlan, changePlanStatus, markPlanStep, Place, releaseStepClaim } from '../../service';
import type { PlanStore } from '../../store';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { CONTEXT_KEYS, COMMANDS } from '../common/ids';
import { openPlan, report } from '../common/planUi';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/**
 * What a plan command is called with: an explorer row (it carries `id` and `version`), a
 * CodeLens or notification's `{ id, version }`, a plan file's Uri, or nothing (the plan in the
 * active editor). Step commands also take `step`.
 */
export type PlanTarget = { id?: string; version?: number; step?: string } | vscode.Uri | undefined;

const ID_IN_PATH = /(PLAN-[0-9a-f]{8})\.md$/;

/** The plan id a target names (the active editor's plan when it names none). */
export function targetId(arg: PlanTarget): string | undefined {
  if (arg instanceof vscode.Uri) return ID_IN_PATH.exec(arg.path)?.[1];
  if (arg?.id && PLAN_ID_PATTERN.test(arg.id)) return arg.id;
  const ed = vscode.window.activeTextEditor;
  return ed ? ID_IN_PATH.exec(ed.document.uri.path)?.[1] : undefined;
}

/** A plan's store, id and folder name, or a message saying why there is none (shown, and undefined returned). */
export function placeFor(plans: WorkspacePlans, active: WorkspaceActivePlans, arg: PlanTarget): (Place & { id: string }) | undefined {
  const found = planFolder(plans, targetId(arg));
  return found && { id: found.id, store: found.store, folder: found.name, active };
}

/** The workspace folder's plans that hold plan `id`, or a message saying why there is none (shown, and undefined returned). */
export function planFolder(plans: WorkspacePlans, id: string | undefined): { id: string; name: string; store: PlanStore } | undefined {
  if (!id) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Choose a plan first: select it in the Pi Plans explorer or open its file.'));
    return undefined;
  }
  const f = plans.folders().find((x) => x.store.entry(id));
  if (!f) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} is not in this workspace (it was removed or archived): refresh the plans.', id));
    return undefined;
  }
  return { ...f, id };
}

/** The file of a plan. */
export function planUri(store: PlanStore, id: string): vscode.Uri {
  return vscode.Uri.file(store.pathOf(id));
}

/** The chat prompt that hands a plan to Copilot's agent mode, naming the tools to report progress with. */
export function executePrompt(id: string, title: string, status: string): string {
  const start = status === 'approved' ? `start it with #planExecute, then ` : '';
  return (
    `Execute the approved plan ${id} ("${title}") with the Pi Plans tools: ${start}work through its steps in order. ` +
    `Before each step mark it in progress with #planUpdate; after it, mark it done with a one-line note (or blocked with the reason). ` +
    `If you lose track, read the plan again with #planGet. Change nothing the plan does not name.`
  );
}

/** What "Plan with Copilot" puts in the chat box, for the person to finish with their task. */
export const PLAN_PROMPT =
  'Make a plan for this task with the Pi Plans tools (#planCreate, #planStep, #planUpdate), then submit it for my review with #planSubmit. Task: ';

/** Opens Copilot chat in agent mode with a prompt (VS Code's `workbench.action.chat.open`). */
export async function openAgentChat(query: string, partial = false): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: partial, mode: 'agent' });
}

/** Runs a write; a refusal is shown in its own words (they name the fix) and gives undefined. */
async function attempt<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (e) {
    report(e);
    return undefined;
  }
}

const MARKS: Record<string, StepStatus> = {
  [COMMANDS.markInProgress]: 'in_progress',
  [COMMANDS.markDone]: 'done',
  [COMMANDS.markBlocked]: 'blocked',
  [COMMANDS.markSkipped]: 'skipped',
};

/** What every plan command works in: the workspace's plans and the plans being worked on. */
interface PlanCommandContext {
  plans: WorkspacePlans;
  active: WorkspaceActivePlans;
}

type OpenTarget = PlanTarget & { file?: string; folder?: vscode.Uri; errorLine?: number };

/** Open: the plan's editor, or an invalid file's text at its broken line. */
async function openCommand({ plans, active }: PlanCommandContext, arg?: OpenTarget): Promise<void> {
  // An invalid file has no valid id: the explorer passes its folder, file name and broken line.
  if (arg && !(arg instanceof vscode.Uri) && arg.folder && arg.file) {
    const uri = vscode.Uri.joinPath(arg.folder, '.pi', 'plans', arg.file);
    const line = arg.errorLine ? arg.errorLine - 1 : undefined;
    await vscode.window.showTextDocument(uri, line !== undefined ? { selection: new vscode.Range(line, 0, line, 0), preview: true } : { preview: true });
    return;
  }
  const p = placeFor(plans, active, arg);
  if (p) await openPlan(planUri(p.store, p.id));
}

/** Execute in Copilot: the plan becomes active and agent mode gets the prompt that executes it. */
async function executeInCopilotCommand({ plans, active }: PlanCommandContext, arg?: PlanTarget): Promise<void> {
  const p = placeFor(plans, active, arg);
  if (!p) return;
  const e = p.store.entry(p.id)!;
  await active.set(p.id, p.folder ?? '');
  await openAgentChat(executePrompt(p.id, e.title ?? p.id, e.status ?? ''));
}

/**
 * A status change (withdraw, retry, resume, reopen), with its status bar message. It asks nothing,
 * except to withdraw the approval of a plan an agent is executing: that stops the agent's work.
 */
function statusCommand({ plans, active }: PlanCommandContext, action: 'withdraw' | 'retry' | 'resume' | 'reopen', done: string) {
  return async (arg?: PlanTarget) => {
    const p = placeFor(plans, active, arg ?? undefined);
    if (!p) return undefined;
    if (action === 'withdraw' && !(await withdrawRunningOk(p.id, p.store.entry(p.id)?.status))) return undefined;
    return attempt(async () => {
      const r = await changePlanStatus(p, p.id, action, { actor: 'user', expectedVersion: versionOf(arg) });
      void vscode.window.setStatusBarMessage(vscode.l10n.t(done, p.id, String(r.doc.fm.version)), 5000);
      return { id: p.id, status: r.doc.fm.status, version: r.doc.fm.version };
    });
  };
}

/** Whether to withdraw the approval of a plan in `status`: asked (modal) when it is executing or stalled. */
async function withdrawRunningOk(id: string, status: string | undefined): Promise<boolean> {
  if (status !== 'executing' && status !== 'stalled') return true;
  const back = vscode.l10n.t('Send Back to Review');
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} is {1}. Withdraw its approval and send it back to review?', id, status),
    { modal: true, detail: vscode.l10n.t('The agent can mark no step until a person approves it again. Its progress and records stay.') },
    back,
  );
  return pick === back;
}

/** Cancel, after the person gives an optional reason (Escape keeps the plan). */
async function cancelCommand({ plans, active }: PlanCommandContext, arg?: PlanTarget) {
  const p = placeFor(plans, active, arg);
  if (!p) return undefined;
  const reason = await vscode.window.showInputBox({
    title: vscode.l10n.t('Cancel {0}', p.id),
    prompt: vscode.l10n.t('Why is it cancelled? (optional) Enter cancels the plan; Escape keeps it.'),
    ignoreFocusOut: true,
  });
  if (reason === undefined) return undefined;
  return attempt(async () => {
    const r = await changePlanStatus(p, p.id, 'cancel', { actor: 'user', reason: reason.trim() || undefined, expectedVersion: versionOf(arg) });
    return { id: p.id, status: r.doc.fm.status, version: r.doc.fm.version };
  });
}

/** Clone: a new draft from the plan, opened. */
async function cloneCommand({ plans, active }: PlanCommandContext, arg?: PlanTarget) {
  const p = placeFor(plans, active, arg);
  if (!p) return undefined;
  return attempt(async () => {
    const doc = await p.store.clone(p.id, 'user');
    await openPlan(planUri(p.store, doc.fm.id), { preview: false });
    return { id: doc.fm.id };
  });
}

/** Archive: the plan's file moves to the archive. */
async function archiveCommand({ plans, active }: PlanCommandContext, arg?: PlanTarget) {
  const p = placeFor(plans, active, arg);
  if (!p) return undefined;
  return attempt(async () => {
    const { path } = await archivePlan(p, p.id, { actor: 'user' });
    void vscode.window.setStatusBarMessage(vscode.l10n.t('{0} archived to {1}.', p.id, vscode.workspace.asRelativePath(path)), 5000);
    return { path };
  });
}

/** Reveal the plan's file in VS Code's explorer. */
async function revealFileCommand({ plans, active }: PlanCommandContext, arg?: PlanTarget): Promise<void> {
  const p = placeFor(plans, active, arg);
  if (p) await vscode.commands.executeCommand('revealInExplorer', planUri(p.store, p.id));
}

/** Copy the plan's id to the clipboard. */
async function copyIdCommand(arg?: PlanTarget): Promise<void> {
  const id = targetId(arg);
  if (!id) return;
  await vscode.env.clipboard.writeText(id);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}.', id), 3000);
}

/** Mark a step; blocked asks what blocks it (the agent reads the note). */
function markCommand({ plans, active }: PlanCommandContext, mark: StepStatus) {
  return async (arg?: PlanTarget) => {
    const p = placeFor(plans, active, arg);
    const step = arg && !(arg instanceof vscode.Uri) ? arg.step : undefined;
    if (!p || !step) return undefined;
    let note: string | undefined;
    if (mark === 'blocked') {
      note = await vscode.window.showInputBox({ title: vscode.l10n.t('{0} {1} is blocked', p.id, step), prompt: vscode.l10n.t('What blocks it? (the agent reads this note)'), ignoreFocusOut: true });
      if (note === undefined) return undefined;
    }
    return attempt(async () => {
      const r = await markPlanStep(p, p.id, step, mark, note?.trim() || undefined, { actor: 'user', expectedVersion: versionOf(arg) });
      return { id: p.id, status: r.doc.fm.status, version: r.doc.fm.version };
    });
  };
}

/**
 * Release Claim…: a person lets a step's claim go (an agent that went away for good), after a
 * modal that names whose claim it is; the step is pending again, for any agent to take. What
 * `pi-plans release` does at a terminal.
 */
function releaseClaimCommand({ plans, active }: PlanCommandContext) {
  return async (arg?: PlanTarget) => {
    const p = placeFor(plans, active, arg);
    const step = arg && !(arg instanceof vscode.Uri) ? arg.step : undefined;
    if (!p || !step) return undefined;
    const s = (await p.store.read(p.id)).steps.find((x) => x.id === step);
    const claim = parseClaim(s?.record?.Claimed);
    const release = vscode.l10n.t('Release Claim');
    const answer = await vscode.window.showWarningMessage(
      claim ? vscode.l10n.t('Release {0} of {1}, claimed by {2} since {3}?', step, p.id, claim.session, new Date(claim.at).toLocaleString()) : vscode.l10n.t('Release {0} of {1}?', step, p.id),
      { modal: true, detail: vscode.l10n.t('It goes back to pending, for any agent to take. Release it when the agent that holds it is gone for good; one still at work would be refused its next mark of it.') },
      release,
    );
    if (answer !== release) return undefined;
    return attempt(async () => {
      const r = await releaseStepClaim(p, p.id, step, { actor: 'user' });
      void vscode.window.setStatusBarMessage(vscode.l10n.t('{0}: {1} is pending again, claimed by no one.', p.id, step), 5000);
      return { id: p.id, status: r.doc.fm.status, version: r.doc.fm.version };
    });
  };
}

/** New plan: its folder (asked when there are several), title and goal, then the new draft opened. */
async function newPlanCommand({ plans }: PlanCommandContext) {
  await plans.ready;
  const folders = plans.folders();
  if (!folders.length) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder first: plans live in its .pi/plans folder.'));
    return undefined;
  }
  const folder =
    folders.length === 1 ? folders[0] : (await vscode.window.showQuickPick(folders.map((f) => ({ label: f.name, f })), { placeHolder: vscode.l10n.t('Which folder is the plan for?') }))?.f;
  if (!folder) return undefined;
  const title = await vscode.window.showInputBox({
    title: vscode.l10n.t('New plan (1/2): title'),
    prompt: vscode.l10n.t('What the plan achieves, in a few words.'),
    validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A plan needs a title.')),
    ignoreFocusOut: true,
  });
  if (!title) return undefined;
  const goal = await vscode.window.showInputBox({ title: vscode.l10n.t('New plan (2/2): goal'), prompt: vscode.l10n.t('Why, and what done looks like (optional: you can write it in the file).'), ignoreFocusOut: true });
  if (goal === undefined) return undefined;
  return attempt(async () => {
    const doc = await folder.store.create({ title: title.trim(), goal: goal.trim() || undefined }, 'user');
    await openPlan(planUri(folder.store, doc.fm.id), { preview: false });
    return { id: doc.fm.id };
  });
}

/**
 * The explorer's, CodeLens's and palette's plan commands beyond approve and reject: open,
 * execute in Copilot, withdraw, retry, resume, reopen, clone, cancel, archive, reveal, copy id,
 * mark a step, new plan. Every write goes through the use cases, as a person (`user`).
 */
export function registerPlanCommands(plans: WorkspacePlans, active: WorkspaceActivePlans): vscode.Disposable[] {
  const ctx: PlanCommandContext = { plans, active };
  const disposables: vscode.Disposable[] = [
    vscode.commands.registerCommand(COMMANDS.open, (arg?: OpenTarget) => openCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.executeInCopilot, (arg?: PlanTarget) => executeInCopilotCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.planWithCopilot, () => openAgentChat(PLAN_PROMPT, true)),
    vscode.commands.registerCommand(COMMANDS.withdraw, statusCommand(ctx, 'withdraw', '{0}: approval withdrawn, back to review (v{1}).')),
    vscode.commands.registerCommand(COMMANDS.retry, statusCommand(ctx, 'retry', '{0} is approved again (v{1}): execute it when ready.')),
    vscode.commands.registerCommand(COMMANDS.resume, statusCommand(ctx, 'resume', '{0} is executing again (v{1}).')),
    vscode.commands.registerCommand(COMMANDS.reopen, statusCommand(ctx, 'reopen', '{0} is a draft again (v{1}).')),
    vscode.commands.registerCommand(COMMANDS.cancel, (arg?: PlanTarget) => cancelCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.clone, (arg?: PlanTarget) => cloneCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.archive, (arg?: PlanTarget) => archiveCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.revealFile, (arg?: PlanTarget) => revealFileCommand(ctx, arg)),
    vscode.commands.registerCommand(COMMANDS.copyId, (arg?: PlanTarget) => copyIdCommand(arg)),
    ...Object.entries(MARKS).map(([command, mark]) => vscode.commands.registerCommand(command, markCommand(ctx, mark))),
    vscode.commands.registerCommand(COMMANDS.releaseClaim, releaseClaimCommand(ctx)),
    vscode.commands.registerCommand(COMMANDS.newPlan, () => newPlanCommand(ctx)),
    // The active editor's plan, as a context key: palette entries and key bindings apply only where they can.
    vscode.window.onDidChangeActiveTextEditor(() => publishEditorPlan(plans)),
    plans.onDidChangePlans(() => publishEditorPlan(plans)),
    plans.onDidChangeAttention(() => publishEditorPlan(plans)),
  ];
  publishEditorPlan(plans);
  return disposables;
}

function versionOf(arg: PlanTarget): number | undefined {
  return arg && !(arg instanceof vscode.Uri) ? arg.version : undefined;
}

let lastEditorPlan: string | undefined;

/** Sets `piPlans.editorPlan` to the commands valid for the active editor's plan (from the index). */
function publishEditorPlan(plans: WorkspacePlans): void {
  const ed = vscode.window.activeTextEditor;
  const id = ed ? ID_IN_PATH.exec(ed.document.uri.path)?.[1] : undefined;
  const folder = id ? vscode.workspace.getWorkspaceFolder(ed!.document.uri) : undefined;
  const store = folder ? plans.storeFor(folder.uri) : undefined;
  const e = id && store && vscode.Uri.file(store.pathOf(id)).toString() === ed!.document.uri.toString() ? store.entry(id) : undefined;
  const value = e?.valid && e.status ? planContextValue(e.status, { flag: plans.attention(folder!.uri, e.file) }) : '';
  if (value === lastEditorPlan) return;
  lastEditorPlan = value;
  void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.editorPlan, value);
}
