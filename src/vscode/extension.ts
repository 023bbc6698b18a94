import * as vscode from 'vscode';
import { attentionLabel, type AttentionFlag, byAttention, type PlanDocument } from '../core';
import type { PlanStore } from '../store';
import { WorkspaceActivePlans } from './workspace/activePlans';
import { registerLmTools } from './agent/lmTools';
import { PlanDiagnostics } from './editor/diagnostics';
import { PlanCodeLens } from './editor/codeLens';
import { PlanFileDecorations } from './explorer/fileDecorations';
import { PlanNotifications } from './shell/notifications';
import { AgentApprovalWarning } from './shell/agentApprovalWarning';
import { registerPlanCommands } from './shell/planCommands';
import { PlanExplorer } from './explorer/planTree';
import { ReleaseSessionCommand } from './explorer/releaseSession';
import { HookSettingsSync } from './shell/hookSettings';
import { PlanEditorProvider } from './editor/planEditor';
import { openPlan } from './common/planUi';
import { registerReviewCommands } from './review/reviewCommands';
import { ReviewComments } from './review/reviewComments';
import { ReviewCompare } from './review/reviewCompare';
import { AgentSetupCommand } from './shell/agentSetup';
import { McpConfig } from './shell/mcpConfig';
import { PlansChat } from './chat/chat';
import { VsCodeReviewGate } from './agent/reviewGate';
import { PlanStatusBar } from './shell/statusBar';
import { FolderEntry, PlansChange, PlanStatusChange, WorkspacePlans } from './workspace/workspacePlans';
import { COMMANDS } from './common/ids';
import { registerCheckCommands } from './checks/checkCommands';
import { workFactsEmitter } from './common/workFacts';
import { statusIcon } from './common/planIcons';
import { tooltipText } from './common/plainTooltip';

/** What other extensions get from `vscode.extensions.getExtension('pi-plans.pi-plans').exports`. */
export interface PiPlansApi {
  readonly apiVersion: 1;
  /** Resolves when the plan indexes have loaded. */
  readonly ready: Promise<void>;
  /** Every plan in every workspace folder (invalid files too, with their reason). */
  listPlans(): FolderEntry[];
  /** A plan, parsed: fields, steps with ids and statuses, sections. */
  readPlan(id: string): Promise<PlanDocument>;
  /** Plans added, changed or removed, in any folder, from any writer. */
  readonly onDidChangePlans: vscode.Event<PlansChange>;
  /** A plan's status changed or a plan appeared (e.g. `to === 'proposed'`: a plan awaits review). */
  readonly onDidChangePlanStatus: vscode.Event<PlanStatusChange>;
  /** Milliseconds `activate` took (the index loads after it, in the background). */
  readonly activationMs: number;
  /** @internal The store of a folder, for this extension's own tests. Not a stable API. */
  _storeFor(folder: vscode.Uri): PlanStore | undefined;
  /** @internal What a folder's first load read (files, and how many on the worker thread), for this extension's own tests. */
  _firstLoad(folder: vscode.Uri): { plans: number; ms: number; reads: number; helped: number } | undefined;
  /** @internal The latest lines logged as errors, for this extension's own tests. */
  _recentErrors(): readonly string[];
  /** @internal What a plan needs a person for, as the explorer, status bar and CodeLens show it (stalled, changed since approval, approval not valid…), for this extension's own tests. */
  _attention(folder: vscode.Uri, file: string): AttentionFlag | undefined;
  /** @internal Resolves once every store has applied the watcher events and re-scans pending now. */
  _settled(): Promise<void>;
  /** @internal When the explorer last heard of a change and last drew rows (performance.now()), for the bench. */
  _explorerTimings(): { lastChange: number; lastRender: number; rebuilds: number; allRedraws: number };
  /** @internal Milliseconds from each plan editor's script start to its first render, for the bench. */
  _editorRenderTimes(): number[];
  /** @internal A plan's row in the explorer (description, tooltip's text, accessibility label), for this extension's own tests. */
  _explorerRow(folder: vscode.Uri, id: string): Promise<{ description: string; tooltip: string; label: string } | undefined>;
}

/** Composition root: creates the log, the stores, the status bar; registers commands. */
export function activate(context: vscode.ExtensionContext): PiPlansApi {
  const t0 = performance.now();
  const log = vscode.window.createOutputChannel('Pi Plans', { log: true });
  context.subscriptions.push(log);
  // The agent hooks' settings, from the person's user settings to where every host's hook reads them.
  if (vscode.workspace.isTrusted) context.subscriptions.push(new HookSettingsSync(log));
  const plans = new WorkspacePlans(log, context.globalStorageUri?.fsPath, vscode.Uri.joinPath(context.extensionUri, 'dist', 'outlineWorker.js').fsPath);
  context.subscriptions.push(plans);
  const active = new WorkspaceActivePlans(context.workspaceState);
  context.subscriptions.push(active);
  context.subscriptions.push(new PlanStatusBar(plans, active));
  context.subscriptions.push(...registerLmTools(plans, active, new VsCodeReviewGate()));
  // The draft review (comments on plan files) before the commands that submit it.
  const comments = new ReviewComments(context.workspaceState);
  context.subscriptions.push(comments);
  context.subscriptions.push(new ReviewCompare(plans));
  context.subscriptions.push(...registerReviewCommands(plans, active));
  context.subscriptions.push(...registerPlanCommands(plans, active));
  context.subscriptions.push(...registerCheckCommands(plans, context.extensionUri), workFactsEmitter);
  context.subscriptions.push(new PlanDiagnostics(plans));
  const explorer = new PlanExplorer(plans, active, context.workspaceState);
  context.subscriptions.push(new ReleaseSessionCommand(explorer.sessions));
  context.subscriptions.push(explorer);
  context.subscriptions.push(new PlanCodeLens(plans));
  const editor = new PlanEditorProvider(context.extensionUri, plans, active, comments);
  context.subscriptions.push(editor);
  context.subscriptions.push(new PlanFileDecorations(plans));
  context.subscriptions.push(new PlanNotifications(plans, active), new AgentApprovalWarning());
  context.subscriptions.push(new PlansChat(plans, active, context.extensionUri));
  const mcp = new McpConfig(context, String(context.extension.packageJSON.version ?? '0'), (what, e) => plans.logError(what, e));
  context.subscriptions.push(mcp, new AgentSetupCommand(context, mcp.ready, log));
  context.subscriptions.push(
    vscode.commands.registerCommand(COMMANDS.showLog, () => log.show()),
    vscode.commands.registerCommand(COMMANDS.refresh, () => plans.rescanAll()),
    vscode.commands.registerCommand(COMMANDS.showPlans, () => showPlansPick(plans)),
  );
  plans.start();
  const activationMs = performance.now() - t0;
  log.info(`Activated in ${activationMs.toFixed(1)} ms${vscode.workspace.isTrusted ? '' : ' (Restricted Mode: read-only)'}.`);
  return {
    apiVersion: 1,
    get ready() {
      return plans.ready;
    },
    listPlans: () => plans.list(),
    readPlan: (id) => plans.read(id),
    onDidChangePlans: plans.onDidChangePlans,
    onDidChangePlanStatus: plans.onDidChangePlanStatus,
    activationMs,
    _storeFor: (folder) => plans.storeFor(folder),
    _firstLoad: (folder) => plans.firstLoads.get(folder.toString()),
    _recentErrors: () => [...plans.recentErrors],
    _attention: (folder: vscode.Uri, file: string) => plans.attention(folder, file),
    _settled: () => plans.settled(),
    _explorerTimings: () => ({ ...explorer.timings }),
    _editorRenderTimes: () => [...editor.renderTimes],
    _explorerRow: async (folder, id) => {
      const item = await explorer.planRow(folder, id);
      if (!item) return undefined;
      // The tooltip as the text it shows: its escapes undone.
      return { description: String(item.description ?? ''), tooltip: tooltipText(item.tooltip), label: item.accessibilityInformation?.label ?? '' };
    },
  };
}

export function deactivate(): void {
  /* everything is disposed through context.subscriptions */
}

async function showPlansPick(plans: WorkspacePlans): Promise<void> {
  await plans.ready;
  const rows = plans
    .list()
    .map((e) => ({ e, flag: plans.attention(e.folder, e.file) }))
    .sort((a, b) => byAttention({ ...a.e, flag: a.flag }, { ...b.e, flag: b.flag }));
  const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  const items = rows.map(({ e, flag }) => ({
    label: e.valid ? `${statusIcon(e.status, flag)} ${e.title}` : `${statusIcon(undefined)} ${e.file}`,
    description: e.valid
      ? [flag ? `${e.status ?? ''}, ${vscode.l10n.t(attentionLabel(flag))}` : e.status, `v${e.version}`, `${e.stepsDone}/${e.steps} steps`, ...(multi ? [vscode.workspace.getWorkspaceFolder(e.folder)?.name ?? ''] : [])].join(' · ')
      : vscode.l10n.t('invalid'),
    detail: e.valid ? e.id : `${e.error?.message ?? ''}${e.error?.line ? ` (line ${e.error.line})` : ''}`,
    entry: e,
  }));
  if (!items.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No plans yet: an agent creates them in .pi/plans.'));
    return;
  }
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Open a plan (what needs your attention first)'), matchOnDescription: true, matchOnDetail: true });
  if (!pick) return;
  const uri = vscode.Uri.joinPath(pick.entry.folder, '.pi', 'plans', pick.entry.file);
  const line = pick.entry.error?.line;
  // A broken file opens as text at its broken line; a plan the way the person chose.
  if (!pick.entry.valid) await vscode.window.showTextDocument(uri, line ? { selection: new vscode.Range(line - 1, 0, line - 1, 0) } : undefined);
  else await openPlan(uri);
}
