import * as vscode from 'vscode';
import { analyze, APPROVAL_GOVERNS, frontmatterOfPlan, PlanProblem, PLAN_ID_PATTERN } from '../../core';
import type { PlanStore } from '../../store';
import { DisposableScope } from '../common/disposable';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** The pause between two closed files' checks (ms). */
const CLOSED_PAUSE_MS = 2;
/** How long typing pauses before an open plan is checked again. */
const TYPING_MS = 300;
/** Statuses whose files are checked for what keeps them from review (the others only when broken). */
/** Statuses whose problems show for a closed file: what keeps it from review, and an approval that does not hold. */
const REVIEWABLE = new Set(['draft', 'proposed', ...APPROVAL_GOVERNS]);

const SEVERITY: Record<PlanProblem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** A plan file of a workspace folder: its store and id, or undefined for any other file. */
function planOf(plans: WorkspacePlans, uri: vscode.Uri): { store: PlanStore; id: string } | undefined {
  if (uri.scheme !== 'file') return undefined;
  const m = /\/\.pi\/plans\/(PLAN-[^/]*)\.md$/.exec(uri.path);
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const store = folder ? plans.storeFor(folder.uri) : undefined;
  return m && store ? { store, id: m[1] } : undefined;
}

/** Whether a plan text says it is proposed (a text whose head does not read is not). */
function isProposed(text: string): boolean {
  try {
    return frontmatterOfPlan(text).status === 'proposed';
  } catch {
    return false;
  }
}

function toDiagnostic(p: PlanProblem): vscode.Diagnostic {
  const r = p.range;
  const d = new vscode.Diagnostic(new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character), p.message, SEVERITY[p.severity]);
  d.source = 'Pi Plans';
  d.code = p.code;
  return d;
}

/**
 * Plan problems in the Problems panel, from the core's `analyze`: an open plan is judged as its
 * buffer shows it (again when typing pauses), a closed one from its file; broken files from the
 * index without reading them. Quick fixes apply the core's edits as one undoable edit.
 */
export class PlanDiagnostics extends DisposableScope implements vscode.CodeActionProvider {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('pi-plans'));
  /** The problems behind each file's diagnostics, for the quick fixes. */
  private readonly problems = new Map<string, PlanProblem[]>();
  /** Whether Pi Plans' submit proposed each open plan, as its check found (the quick fixes judge the buffer the same way). */
  private readonly submitted = new Map<string, boolean>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Files being checked now; a check asked for meanwhile runs after it. */
  private readonly checking = new Map<string, Promise<void>>();
  /** Closed files are read one after another (thousands of drafts must not be read at once); open ones are checked at once. */
  private closedQueue: Promise<void> = Promise.resolve();

  constructor(private readonly plans: WorkspacePlans) {
    super();
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.soon(d.uri, 0)));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && this.soon(e.document.uri, TYPING_MS)));
    // Closed: back to what the file says.
    this.register(vscode.workspace.onDidCloseTextDocument((d) => this.soon(d.uri, 0)));
    this.register(
      plans.onDidChangePlans((e) => {
        for (const f of [...e.added, ...e.changed]) this.soon(vscode.Uri.joinPath(e.folder, '.pi', 'plans', f), 0);
        for (const f of e.removed) this.clear(vscode.Uri.joinPath(e.folder, '.pi', 'plans', f));
      }),
    );
    this.register(plans.onDidLoad(() => this.checkAll()));
    // Whether an approval holds can change without the file (a key trusted, an approval confirmed here).
    this.register(plans.onDidChangeAttention(() => this.checkAll()));
    if (plans.loaded) this.checkAll();
    this.register(vscode.languages.registerCodeActionsProvider({ scheme: 'file', pattern: '**/.pi/plans/PLAN-*.md' }, this, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }));
    this.register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
  }

  /** Every plan file once (after the index loads): broken ones from the index, reviewable ones read. */
  private checkAll(): void {
    for (const e of this.plans.list()) {
      if (!e.valid || REVIEWABLE.has(e.status ?? '')) this.soon(vscode.Uri.joinPath(e.folder, '.pi', 'plans', e.file), 0);
    }
    for (const d of vscode.workspace.textDocuments) this.soon(d.uri, 0);
  }

  private soon(uri: vscode.Uri, ms: number): void {
    if (!planOf(this.plans, uri)) return;
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        const report = (e: unknown) => this.plans.logError(`problems of ${vscode.workspace.asRelativePath(uri)}`, e);
        const isOpen = vscode.workspace.textDocuments.some((d) => d.uri.toString() === key);
        if (isOpen) void this.check(uri).catch(report);
        // Closed files one at a time, with a pause between: thousands of them after loading must not crowd out the views.
        else this.closedQueue = this.closedQueue.then(() => new Promise((r) => setTimeout(r, CLOSED_PAUSE_MS))).then(() => this.check(uri).catch(report));
      }, ms),
    );
  }

  private async check(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    while (this.checking.has(key)) await this.checking.get(key);
    const run = this.compute(uri).finally(() => this.checking.delete(key));
    this.checking.set(key, run);
    await run;
  }

  private async compute(uri: vscode.Uri): Promise<void> {
    const plan = planOf(this.plans, uri);
    if (!plan) return;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    let problems: PlanProblem[];
    if (open) {
      // The buffer's Markdown parse runs on the worker (a large plan being typed must not stall the host).
      const text = open.getText();
      const submitted = isProposed(text) && (await plan.store.submitted(plan.id));
      await this.plans.prepare(text);
      if (open.isClosed || open.getText() !== text) return this.soon(uri, TYPING_MS);
      this.submitted.set(uri.toString(), submitted);
      problems = analyze(text, { config: plan.store.config, keyring: await plan.store.keyring(), submitted }).problems;
    } else {
      const entry = plan.store.entry(plan.id);
      if (!entry) return this.clear(uri);
      if (!entry.valid || !PLAN_ID_PATTERN.test(plan.id)) {
        const line = Math.max((entry.error?.line ?? 1) - 1, 0);
        problems = [{ code: entry.error?.rule ?? entry.error?.code.toLowerCase().replace(/_/g, '-') ?? 'invalid', severity: 'error', message: entry.error?.message ?? 'invalid plan file', range: { start: { line, character: 0 }, end: { line, character: 1000 } }, line: line + 1 }];
      } else if (REVIEWABLE.has(entry.status ?? '')) {
        problems = (await plan.store.analyze(plan.id)).problems;
      } else problems = [];
    }
    // Notes (a step that gets its id on the next write) only where the person is looking.
    if (!open) problems = problems.filter((p) => p.severity !== 'info');
    this.problems.set(uri.toString(), problems);
    this.collection.set(uri, problems.map(toDiagnostic));
  }

  private clear(uri: vscode.Uri): void {
    this.problems.delete(uri.toString());
    this.submitted.delete(uri.toString());
    this.collection.delete(uri);
  }

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const problems = this.problems.get(document.uri.toString()) ?? [];
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'Pi Plans') continue;
      const p = problems.find((x) => x.code === diagnostic.code && x.message === diagnostic.message && x.fix);
      if (!p?.fix) continue;
      // The fix was computed from the text as it was checked: offered only while that is what the buffer holds.
      const fresh = analyze(document.getText(), { config: planOf(this.plans, document.uri)?.store.config, submitted: this.submitted.get(document.uri.toString()) }).problems.find(
        (x) => x.code === p.code && x.message === p.message && x.fix,
      );
      if (!fresh?.fix) continue;
      const action = new vscode.CodeAction(fresh.fix.title, vscode.CodeActionKind.QuickFix);
      action.diagnostics = [diagnostic];
      action.isPreferred = true;
      const edit = new vscode.WorkspaceEdit();
      for (const e of fresh.fix.edits) edit.replace(document.uri, new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character), e.newText);
      action.edit = edit;
      actions.push(action);
    }
    return actions;
  }
}
