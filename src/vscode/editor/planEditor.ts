import * as vscode from 'vscode';
import { editStep, OpContext, OpResult, parsePlan, PlanDocument, reviewAnchors, setMetadata, StepOp, editedInPlace } from '../../core';
import { FromWebview, FromWebviewSchema, ToWebview } from '../../protocol/planEditor';
import { rejectPlan } from '../../service';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { DisposableScope } from '../common/disposable';
import { COMMANDS, MARK_COMMAND_IDS, PLAN_COMMAND_IDS, PLAN_EDITOR_VIEW_TYPE, SETTINGS } from '../common/ids';
import { onDidChangeWorkFacts } from '../common/workFacts';
import { report } from '../common/planUi';
import { approveAsPerson, confirmForeignApproval } from '../decision/personApproval';
import { draftCommentsFor, ReviewDrafts } from '../common/reviewDrafts';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { isWorkspaceFile, PlanEditorSession } from './planEditorSession';
import { StepChangesView } from './stepChanges';

/** A plan file's path. */
const PLAN_FILE = /\/\.pi\/plans\/PLAN-[0-9a-f]{8}\.md$/;

/** The plan files' pattern (the custom editor's selector in package.json). */
export const PLAN_FILE_PATTERN = '**/.pi/plans/PLAN-*.md';

/**
 * Makes VS Code's own openers (Quick Open, the file explorer, links) follow
 * `piPlans.editor.openPlansIn`: the manifest makes the plan editor the default for plan files, a
 * choice that cannot change at run time, so `text` is written where VS Code reads it, as an
 * entry of the user's `workbench.editorAssociations` (what "Configure default editor" writes),
 * and `preview` removes that entry again. Other entries are the person's and left alone.
 */
export async function syncEditorAssociation(): Promise<void> {
  const how = vscode.workspace.getConfiguration(SETTINGS.section).get<string>(SETTINGS.openPlansIn, 'preview');
  const workbench = vscode.workspace.getConfiguration('workbench');
  const user = workbench.inspect<Record<string, string>>('editorAssociations')?.globalValue ?? {};
  const want = how === 'text' ? 'default' : undefined;
  if (user[PLAN_FILE_PATTERN] === want) return;
  const next = { ...user };
  if (want) next[PLAN_FILE_PATTERN] = want;
  else if (user[PLAN_FILE_PATTERN] === 'default') delete next[PLAN_FILE_PATTERN];
  else return; // the person associated plan files with another editor: theirs to change
  await workbench.update('editorAssociations', Object.keys(next).length ? next : undefined, vscode.ConfigurationTarget.Global);
}

/**
 * The plan editor: a `CustomTextEditorProvider` over the plan's TextDocument, so undo, redo,
 * dirty state, save and hot exit stay VS Code's own, and it always shows what the text editor
 * shows. The webview gets a new state (data, never HTML) after it says it is ready and after
 * every change of the document or of what is known about the plan.
 */
export class PlanEditorProvider extends DisposableScope implements vscode.CustomTextEditorProvider {
  static readonly viewType = PLAN_EDITOR_VIEW_TYPE;
  /** Milliseconds from the webview script's start to its first render, per open (the bench reads them). */
  readonly renderTimes: number[] = [];
  private readonly stepChanges = this.register(new StepChangesView());

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly plans: WorkspacePlans,
    private readonly active: WorkspaceActivePlans,
    private readonly comments: ReviewDrafts,
  ) {
    super();
    void syncEditorAssociation().catch((e) => plans.logError('plan editor', e));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.openPlansIn}`)) void syncEditorAssociation().catch((err) => plans.logError('plan editor', err));
      }),
    );
    this.register(vscode.window.registerCustomEditorProvider(PlanEditorProvider.viewType, this, { webviewOptions: { enableFindWidget: true }, supportsMultipleEditorsPerDocument: true }));
    this.register(
      vscode.commands.registerCommand(COMMANDS.openPreview, async (arg?: vscode.Uri) => {
        // The file given, else the plan in the active tab or editor (the focus may be in a
        // comment box, whose own small document is not a plan).
        const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        const candidates = [arg instanceof vscode.Uri ? arg : undefined, tab instanceof vscode.TabInputText ? tab.uri : undefined, vscode.window.activeTextEditor?.document.uri];
        const uri = candidates.find((u) => u && PLAN_FILE.test(u.path));
        if (uri) await reopenPlanIn(uri, PlanEditorProvider.viewType);
        else void vscode.window.showInformationMessage(vscode.l10n.t('Open a plan file (.pi/plans/PLAN-….md) first.'));
      }),
    );
    this.register(
      vscode.commands.registerCommand(COMMANDS.openAsText, async (arg?: vscode.Uri | { folder?: vscode.Uri; file?: string }) => {
        // A file, an explorer row (its folder and file), or the plan editor in front.
        const uri = arg instanceof vscode.Uri ? arg : arg?.folder && arg.file ? vscode.Uri.joinPath(arg.folder, '.pi', 'plans', arg.file) : activeCustomUri();
        if (uri) await reopenPlanIn(uri, 'default');
      }),
    );
  }

  async resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): Promise<void> {
    // The webview loads its bundle, stylesheet and icons from dist/ and from nowhere else.
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [dist] };
    panel.webview.html = this.html(panel.webview, dist);
    const session = new PlanEditorSession(document, panel, { plans: this.plans, active: this.active, comments: this.comments });
    const soon = () => session.soon();
    const subs: vscode.Disposable[] = [
      vscode.workspace.onDidChangeTextDocument((e) => e.document === document && soon()),
      vscode.workspace.onDidSaveTextDocument((d) => d === document && soon()),
      this.plans.onDidChangePlans(() => soon()),
      this.plans.onDidChangeAttention(() => soon()),
      this.active.onDidChange(() => soon()),
      onDidChangeWorkFacts((id) => session.id === id && soon()),
      this.comments.onDidChange((uri) => uri.toString() === document.uri.toString() && soon()),
      panel.webview.onDidReceiveMessage((raw) => this.received(raw, session, document, panel)),
    ];
    panel.onDidDispose(() => {
      session.dispose();
      for (const d of subs) d.dispose();
    });
  }

  /** A message from the webview: validated, then `ready` starts the session and the rest is handled. */
  private received(raw: unknown, session: PlanEditorSession, document: vscode.TextDocument, panel: vscode.WebviewPanel): void {
    const m = FromWebviewSchema.safeParse(raw);
    if (!m.success) {
      this.plans.logError('plan editor', new Error(`a message from the webview was dropped: ${m.error.issues[0]?.message ?? 'invalid'}`));
      return;
    }
    if (m.data.type === 'ready') {
      session.start();
      return;
    }
    void this.handle(m.data, document, session.folder, session.id, session.drawn, panel).catch(report);
  }

  private async handle(m: FromWebview, document: vscode.TextDocument, folder: vscode.WorkspaceFolder | undefined, id: string | undefined, drawn: ReadonlyMap<string, string>, panel: vscode.WebviewPanel): Promise<void> {
    const post = (out: ToWebview) => panel.webview.postMessage(out);
    if (m.type === 'rendered') {
      this.renderTimes.push(m.ms);
      return;
    }
    if (m.type === 'openAsText') {
      await reopenPlanIn(document.uri, 'default');
      return;
    }
    if (m.type === 'openLink') {
      try {
        await this.openLink(m.href, folder, panel);
      } finally {
        void post({ type: 'linkDone', href: m.href });
      }
      return;
    }
    if (m.type === 'comment') {
      await commentAt(document, m.anchor, this.comments);
      return;
    }
    if (m.type === 'compare') {
      await vscode.commands.executeCommand(COMMANDS.compareWithReviewed, document.uri);
      return;
    }
    const store = folder ? this.plans.storeFor(folder.uri) : undefined;
    if (!store || !id || m.type === 'ready') return;
    if (m.type === 'viewChanges') {
      await this.stepChanges.open(await store.read(id), m.step, store.root);
      return;
    }
    if (m.type === 'editStep' || m.type === 'editGoal' || m.type === 'editSection') {
      await this.edit(document, store.config, m.version, (doc, ctx) =>
        m.type === 'editGoal' ? setMetadata(doc, { goal: m.text }, {}, ctx) : m.type === 'editSection' ? setMetadata(doc, { [m.key]: m.text }, {}, ctx) : editStep(doc, stepOp(m), ctx),
      );
      return;
    }
    if (m.type === 'mark') {
      await vscode.commands.executeCommand(MARK_COMMAND_IDS[m.status], { id, version: m.version, step: m.step });
      return;
    }
    if (m.type === 'reject') {
      // The reviewer's draft comments go with the feedback.
      const drafts = await draftCommentsFor(store, id);
      await rejectPlan({ store }, id, { actor: 'user', feedback: m.feedback, comments: drafts.comments, seenVersion: m.version });
      if (drafts.comments.length) await drafts.clear();
      return;
    }
    if (m.command === 'saveToApprove') {
      await document.save();
      return;
    }
    if (m.command === 'approve') {
      // A click in this editor is the person's act, on exactly the text it drew (by its digest), saved.
      if (document.isDirty) {
        void vscode.window.showWarningMessage(vscode.l10n.t('{0} has unsaved changes: save it, then approve what is on disk.', id));
        return;
      }
      if (!m.digest) return;
      await approveAsPerson(store, id, { digest: m.digest, version: m.version, text: drawn.get(m.digest) });
      return;
    }
    if (m.command === 'confirm') {
      await confirmForeignApproval(this.plans, store, id);
      return;
    }
    await vscode.commands.executeCommand(PLAN_COMMAND_IDS[m.command], { id, version: m.version, ...(m.step ? { step: m.step } : {}) });
  }

  /**
   * One edit of the document, made by the core's operation on its current text and applied as
   * one WorkspaceEdit of the changed lines: one Ctrl+Z takes it back, untouched lines stay byte
   * for byte, saving is VS Code's save. A document changed since the view was drawn is refused.
   */
  private async edit(document: vscode.TextDocument, config: OpContext['config'], version: number, op: (doc: PlanDocument, ctx: OpContext) => OpResult): Promise<void> {
    const doc = parsePlan(document.getText());
    // The view offers edits only where they keep the status; a message that asks for more is refused here too.
    if (!this.plans.writable || !editedInPlace(doc.fm.status)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} is {1}: it is edited here only as a draft or proposal, in a trusted workspace.', doc.fm.id, doc.fm.status));
      return;
    }
    if (doc.fm.version !== version) {
      void vscode.window.showWarningMessage(vscode.l10n.t('{0} changed while you were editing (now v{1}): look at it again, then edit.', doc.fm.id, String(doc.fm.version)));
      return;
    }
    const r = op(doc, { now: new Date().toISOString(), actor: 'user', config });
    const we = new vscode.WorkspaceEdit();
    for (const e of r.edits ?? []) we.replace(document.uri, new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character), e.newText);
    await vscode.workspace.applyEdit(we);
  }

  /** A link in a plan: a file of the workspace opens; a web page after the person agrees; nothing else. */
  private async openLink(href: string, folder: vscode.WorkspaceFolder | undefined, panel: vscode.WebviewPanel): Promise<void> {
    if (/^https?:\/\//i.test(href)) {
      const open = vscode.l10n.t('Open');
      const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Open {0} in the browser?', href), { modal: true, detail: vscode.l10n.t('The link is in the plan text, which an agent may have written.') }, open);
      if (choice === open) await vscode.env.openExternal(vscode.Uri.parse(href, true));
      // VS Code gives the focus back to the webview's frame, not into it: the link that asked would
      // lose it, and keys pressed then reach nothing. Focusing this view's editor focuses the view,
      // which puts the focus back on the link (before the view hears that the link is done). This
      // view's own, not the active group's: with a file opened beside the plan, VS Code may still
      // count that group as active (the click into the view's frame reaches it late), and the
      // focus went to the file.
      else panel.reveal(panel.viewColumn, false);
      return;
    }
    if (folder && !/^[a-z][a-z0-9+.-]*:/i.test(href) && (await isWorkspaceFile(folder, href))) {
      // Beside the plan: the reviewer keeps the plan in view (a preview tab would be replaced).
      await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, href.replace(/^\.?\//, '')), { viewColumn: vscode.ViewColumn.Beside, preview: true });
      return;
    }
    void vscode.window.showWarningMessage(vscode.l10n.t('Not opened: {0} is neither a file of this workspace nor a web page.', href.slice(0, 200)));
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'planEditor.css'));
    const codicons = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css'));
    const csp = `default-src 'none'; img-src ${webview.cspSource}; style-src ${webview.cspSource}; font-src ${webview.cspSource}; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none';`;
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons}">
<link rel="stylesheet" href="${style}">
<title>Plan</title>
</head>
<body>
<main id="root"><p>Loading the plan…</p></main>
<div id="status" role="status" class="visually-hidden"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

/**
 * Shows a plan in one of its two editors: `default` (the text editor) or the plan editor. A tab of
 * the active group that shows it in the other one is reopened in place (VS Code's "Reopen Editor
 * With…": same position, same pinned or preview state, unsaved changes kept), so a file never
 * has two tabs of the same name side by side in one group; elsewhere the editor opens as usual.
 */
export async function reopenPlanIn(uri: vscode.Uri, editor: 'default' | typeof PlanEditorProvider.viewType): Promise<void> {
  const group = vscode.window.tabGroups.activeTabGroup;
  const same = (u: vscode.Uri) => u.toString() === uri.toString();
  const isPlanEditor = (t: vscode.Tab) => t.input instanceof vscode.TabInputCustom && t.input.viewType === PlanEditorProvider.viewType && same(t.input.uri);
  const isText = (t: vscode.Tab) => t.input instanceof vscode.TabInputText && same(t.input.uri);
  const [wanted, other] = editor === 'default' ? [isText, isPlanEditor] : [isPlanEditor, isText];
  const active = group.activeTab;
  if (active && other(active) && !group.tabs.some(wanted)) {
    await vscode.commands.executeCommand('reopenActiveEditorWith', editor);
    return;
  }
  const replaced = group.tabs.some(wanted) ? undefined : group.tabs.find(other);
  await vscode.commands.executeCommand('vscode.openWith', uri, editor, { viewColumn: group.viewColumn, ...(replaced ? { preview: replaced.isPreview } : {}) });
  if (replaced) await vscode.window.tabGroups.close(replaced, true);
}

/** The file of the active custom editor tab, if it is a plan editor. */
function activeCustomUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom && input.viewType === PlanEditorProvider.viewType ? input.uri : undefined;
}

/** The core's step operation for an edit message. */
function stepOp(m: { op: 'add' | 'update' | 'remove' | 'move'; step?: string; text?: string; tool?: string; operation?: string; target?: string; after?: string }): StepOp {
  const annotation = { tool: m.tool || undefined, operation: m.operation || undefined, target: m.target || undefined };
  if (m.op === 'add') return { op: 'add', text: m.text ?? '', after: m.after, ...annotation };
  if (!m.step) throw new Error('a step edit names its step');
  if (m.op === 'remove') return { op: 'remove', id: m.step };
  if (m.op === 'move') return { op: 'move', id: m.step, after: m.after };
  return { op: 'update', id: m.step, text: m.text, ...annotation };
}

/** Opens the plan's text beside, at a step or section, with a new comment thread there. */
async function commentAt(document: vscode.TextDocument, anchor: string, comments: ReviewDrafts): Promise<void> {
  let line = 0;
  try {
    line = reviewAnchors(parsePlan(document.getText())).get(anchor) ?? 0;
  } catch {
    /* an unreadable text: the top of the file */
  }
  const at = new vscode.Range(line, 0, line, 0);
  await vscode.commands.executeCommand('vscode.openWith', document.uri, 'default', { selection: at, viewColumn: vscode.ViewColumn.Beside });
  const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === document.uri.toString());
  if (editor) {
    editor.selection = new vscode.Selection(at.start, at.start);
    editor.revealRange(at, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
  comments.startThread(document.uri, line);
}
