import * as vscode from 'vscode';
import { AttentionFlag, attentionLabel, PlanLens, planLenses, StepStatus } from '../../core';
import { DisposableScope } from '../common/disposable';
import { COMMAND_LABELS } from '../../protocol/planEditor';
import { COMMANDS, MARK_COMMAND_IDS, PLAN_COMMAND_IDS, SETTINGS } from '../common/ids';
import { STATUS_CODICON } from '../common/planIcons';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** Plan files: Markdown under a workspace folder's `.pi/plans`. */
export const PLAN_FILES: vscode.DocumentSelector = { scheme: 'file', language: 'markdown', pattern: '**/.pi/plans/PLAN-*.md' };

const MARK_COMMAND: Partial<Record<StepStatus, { command: string; title: string }>> = {
  done: { command: MARK_COMMAND_IDS.done, title: 'Done' },
  blocked: { command: MARK_COMMAND_IDS.blocked, title: 'Blocked…' },
  skipped: { command: MARK_COMMAND_IDS.skipped, title: 'Skip' },
};

/**
 * CodeLens on plan files: the status and the commands valid now on the first line, Done /
 * Blocked / Skip on each open step of an executing plan. The core decides which and where, from
 * the document's text as shown (an unsaved buffer offers "Save to approve"); this only draws them.
 */
export class PlanCodeLens extends DisposableScope implements vscode.CodeLensProvider {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly plans: WorkspacePlans) {
    super();
    this.register(vscode.languages.registerCodeLensProvider(PLAN_FILES, this));
    // The store's writes, attention flags and plan work mode change what is offered; so does saving.
    this.register(plans.onDidChangePlans(() => this.changed.fire()));
    this.register(plans.onDidChangeAttention(() => this.changed.fire()));
    this.register(vscode.workspace.onDidSaveTextDocument(() => this.changed.fire()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.codeLens}`) && this.changed.fire()));
  }

  async provideCodeLenses(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!vscode.workspace.getConfiguration(SETTINGS.section).get<boolean>(SETTINGS.codeLens, true)) return [];
    const text = document.getText();
    // A large plan's Markdown parse runs on the worker; the lenses then read it from the cache.
    await this.plans.prepare(text);
    if (token.isCancellationRequested) return [];
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const file = /\/(PLAN-[^/]+\.md)$/.exec(document.uri.path)?.[1];
    const flag = folder && file ? this.plans.attention(folder.uri, file) : undefined;
    return planLenses(text, { dirty: document.isDirty, flag }).flatMap((l) => this.draw(l, document, flag));
  }

  private draw(l: PlanLens, document: vscode.TextDocument, flag: AttentionFlag | undefined): vscode.CodeLens[] {
    const range = new vscode.Range(l.line, 0, l.line, 0);
    if (l.kind === 'invalid') {
      return [
        new vscode.CodeLens(range, {
          title: `$(warning) ${vscode.l10n.t('Invalid plan{0}: see Problems', l.errorLine ? vscode.l10n.t(' (line {0})', l.errorLine) : '')}`,
          tooltip: l.message,
          command: 'workbench.actions.view.problems',
        }),
      ];
    }
    if (l.kind === 'step') {
      const marks = l.marks.flatMap((m) => {
        const c = MARK_COMMAND[m];
        return c ? [new vscode.CodeLens(range, { title: vscode.l10n.t(c.title), command: c.command, arguments: [{ id: l.id, version: l.version, step: l.step }] })] : [];
      });
      // The step's approved check, run in a terminal the person sees (refused, with the reason, when the approval does not hold).
      const check = l.check ? [new vscode.CodeLens(range, { title: `$(beaker) ${vscode.l10n.t('Run check')}`, tooltip: vscode.l10n.t('Run the approved check of {0} in a terminal and record its result', l.step), command: COMMANDS.runChecks, arguments: [{ id: l.id, step: l.step }] })] : [];
      return [...marks, ...check];
    }
    const status = new vscode.CodeLens(range, {
      title: `$(${STATUS_CODICON[l.status]}) ${l.status.replace('_', ' ')}${flag ? ` (${vscode.l10n.t(attentionLabel(flag))})` : ''} · v${l.version} · ${l.done}/${l.total}`,
      tooltip: vscode.l10n.t('Show {0} in the Pi Plans explorer', l.id),
      command: COMMANDS.revealInExplorer,
      arguments: [{ id: l.id }],
    });
    return [
      status,
      ...l.commands.map((c) =>
        c === 'saveToApprove'
          ? new vscode.CodeLens(range, {
              title: vscode.l10n.t(COMMAND_LABELS.saveToApprove),
              tooltip: vscode.l10n.t('The plan has unsaved changes: save it, then approve what is on disk.'),
              command: 'workbench.action.files.save',
              arguments: [document.uri],
            })
          : // Approve names the text these lenses were drawn from by its digest: the modal approves exactly it.
            new vscode.CodeLens(range, { title: vscode.l10n.t(COMMAND_LABELS[c]), command: PLAN_COMMAND_IDS[c], arguments: [{ id: l.id, version: l.version, digest: l.digest }] }),
      ),
      new vscode.CodeLens(range, { title: vscode.l10n.t('Open Preview'), tooltip: vscode.l10n.t('Read and review the plan as a document'), command: COMMANDS.openPreview, arguments: [document.uri] }),
    ];
  }
}
