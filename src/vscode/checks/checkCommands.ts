/**
 * Run checks and Acknowledge drift (issue 30), for the plan editor, the CodeLens, the explorer and
 * the palette. A check runs only when a person asks here, and only the approved commands of a plan
 * whose approval holds: the extension checks the approval first (and says why not), then runs
 * `pi-plans verify` as a VS Code task, in a terminal the person sees, which runs each command,
 * records its result on its step and sets the task's exit code.
 */
import * as vscode from 'vscode';
import { checksRefusal, isPlanError, stepCheck } from '../../core';
import { acknowledgeDrift, lookForDrift } from '../../node';
import type { PlanStore } from '../../store';
import { COMMANDS } from '../common/ids';
import { report } from '../common/planUi';
import { planFolder, targetId } from '../shell/planCommands';
import { workFactsChanged } from '../common/workFacts';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** What the commands are given: a plan (and a step) from the editor or the CodeLens, an explorer row, or a file. */
type CheckTarget = { id?: string; step?: string; parent?: { id?: string } } | vscode.Uri | undefined;

/** The task type of a check run (package.json `taskDefinitions`). */
export const CHECK_TASK_TYPE = 'piPlans';

/** The plan (and step) a check command is given, or a message saying why there is none (shown, and undefined returned). */
function targetOf(plans: WorkspacePlans, arg: CheckTarget): { id: string; step?: string; store: PlanStore; folder: vscode.WorkspaceFolder | undefined } | undefined {
  // An explorer step row names its plan as its parent.
  const f = planFolder(plans, targetId(arg instanceof vscode.Uri || !arg ? arg : { id: arg.id ?? arg.parent?.id }));
  if (!f) return undefined;
  const step = arg instanceof vscode.Uri ? undefined : arg?.step;
  const folder = vscode.workspace.workspaceFolders?.find((w) => w.uri.fsPath === vscode.Uri.file(f.store.root).fsPath);
  return { id: f.id, step, store: f.store, folder };
}

/** The exit code of a task's process, when it ends. */
function exitOf(execution: vscode.TaskExecution): Promise<number | undefined> {
  return new Promise((resolve) => {
    const d = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution !== execution) return;
      d.dispose();
      resolve(e.exitCode);
    });
  });
}

/**
 * Runs the approved checks of a plan (or of one step) in a task the person sees. Refused, with the
 * reason, before anything runs when the approval does not hold or no step names a check.
 */
async function runChecks(plans: WorkspacePlans, cli: string, arg: CheckTarget): Promise<{ exitCode: number | undefined } | undefined> {
  const t = targetOf(plans, arg);
  if (!t) return undefined;
  try {
    const doc = await t.store.read(t.id);
    const refusal = checksRefusal(doc, await t.store.keyring());
    if (refusal) throw new Error(refusal);
    const steps = t.step ? [t.step] : [];
    const named = t.step ? doc.steps.filter((s) => s.id === t.step) : doc.steps;
    if (!named.some((s) => stepCheck(s))) throw new Error(vscode.l10n.t('{0}{1} names no check: a step names one with a details line `verify: <command>`, and a person approves it.', t.id, t.step ? ` ${t.step}` : ''));
    const exec = new vscode.ShellExecution(process.execPath, [cli, '--root', t.store.root, 'verify', t.id, ...steps], { cwd: t.store.root, env: { ELECTRON_RUN_AS_NODE: '1' } });
    const task = new vscode.Task({ type: CHECK_TASK_TYPE, plan: t.id, ...(t.step ? { step: t.step } : {}) }, t.folder ?? vscode.TaskScope.Workspace, vscode.l10n.t('Checks of {0}{1}', t.id, t.step ? ` ${t.step}` : ''), 'Pi Plans', exec);
    task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, panel: vscode.TaskPanelKind.Dedicated, clear: true, focus: false };
    const exitCode = await exitOf(await vscode.tasks.executeTask(task));
    workFactsChanged(t.id);
    void vscode.window.setStatusBarMessage(exitCode === 0 ? vscode.l10n.t('{0}: checks passed.', t.id) : vscode.l10n.t('{0}: a check failed (exit {1}); see the terminal.', t.id, String(exitCode ?? '?')), 8000);
    return { exitCode };
  } catch (e) {
    if (isPlanError(e) || e instanceof Error) report(e);
    return undefined;
  }
}

/** A person acknowledges a plan's drift: the targets as they are now become its base. */
async function acknowledge(plans: WorkspacePlans, arg: CheckTarget): Promise<boolean> {
  const t = targetOf(plans, arg);
  if (!t) return false;
  try {
    const doc = await t.store.read(t.id);
    const { drifted } = await lookForDrift(t.store.root, doc, new Date().toISOString());
    if (!drifted.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} has not drifted since its approval.', t.id));
      return false;
    }
    const yes = vscode.l10n.t('Acknowledge');
    const files = drifted.map((d) => d.path).join(', ');
    const pick = await vscode.window.showWarningMessage(vscode.l10n.t('{0}: {1} changed since approval by something other than its steps. Acknowledge, so the files as they are now become the base?', t.id, files), { modal: true }, yes);
    if (pick !== yes) return false;
    await acknowledgeDrift(t.store.root, doc, new Date().toISOString());
    workFactsChanged(t.id);
    return true;
  } catch (e) {
    report(e);
    return false;
  }
}

/** Registers Run Checks and Acknowledge Drift. `extensionUri` locates the bundled CLI the task runs. */
export function registerCheckCommands(plans: WorkspacePlans, extensionUri: vscode.Uri): vscode.Disposable[] {
  const cli = vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath;
  return [
    vscode.commands.registerCommand(COMMANDS.runChecks, (arg?: CheckTarget) => runChecks(plans, cli, arg)),
    // Always behind its modal: a person's act, whoever runs the command (an agent can run commands too).
    vscode.commands.registerCommand(COMMANDS.acknowledgeDrift, (arg?: CheckTarget) => acknowledge(plans, arg)),
  ];
}
