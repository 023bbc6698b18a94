import * as vscode from 'vscode';
import { ApprovalStanding, parsePlan, PLAN_ID_PATTERN, PlanDocument, reviewOfVersion } from '../../core';
import { planView, PlanViewContext } from '../../core/views/planView';
import type { ToWebview } from '../../protocol/planEditor';
import { planWorkFacts, readPlanState } from '../../node';
import type { PlanStore } from '../../store';
import type { ReviewDrafts } from '../common/reviewDrafts';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** What a plan editor's state is drawn from, besides its document. */
export interface PlanEditorSources {
  plans: WorkspacePlans;
  active: WorkspaceActivePlans;
  comments: ReviewDrafts;
}

/**
 * One open plan editor's view: it sends the webview a new state (data, never HTML) after the
 * webview says it is ready and after every change of the document or of what is known about the
 * plan, one state in flight at a time.
 */
export class PlanEditorSession {
  readonly folder: vscode.WorkspaceFolder | undefined;
  readonly id: string | undefined;
  /** The texts drawn last, by content digest: an approval names one, and a refusal can then say what changed since. */
  readonly drawn = new Map<string, string>();
  private ready = false;
  private disposed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Link targets already looked up: whether each is a file of the workspace. */
  private readonly targets = new Map<string, boolean>();
  private changedAt: number | undefined;
  private sending = false;
  private again = false;

  constructor(
    private readonly document: vscode.TextDocument,
    private readonly panel: vscode.WebviewPanel,
    private readonly sources: PlanEditorSources,
  ) {
    this.folder = vscode.workspace.getWorkspaceFolder(document.uri);
    this.id = /(PLAN-[0-9a-f]{8})\.md$/.exec(document.uri.path)?.[1];
  }

  /** The webview said it is ready: the first state goes. */
  start(): void {
    this.ready = true;
    this.soon();
  }

  /**
   * One state in flight at a time: a change sends at once; changes that come while it is built
   * (typing in the text editor beside, a burst of writes) are shown together by the next one.
   */
  soon(): void {
    this.changedAt ??= Date.now();
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    this.timer = setTimeout(async () => {
      do {
        this.again = false;
        await this.send().catch((e) => this.sources.plans.logError('plan editor', e));
      } while (this.again && !this.disposed);
      this.sending = false;
    }, 0);
  }

  /** The panel is gone: nothing more is sent. */
  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
  }

  private store(): PlanStore | undefined {
    return this.folder ? this.sources.plans.storeFor(this.folder.uri) : undefined;
  }

  private async send(): Promise<void> {
    if (!this.ready || this.disposed) return;
    const changed = this.changedAt ?? Date.now();
    this.changedAt = undefined;
    const s = this.store();
    const text = this.document.getText();
    await this.sources.plans.prepare(text);
    const unknown: string[] = [];
    const view = planView(text, await this.viewContext(s, text, unknown));
    if (view.kind === 'plan') this.remember(view.digest, text);
    const message: ToWebview = { type: 'state', state: view, at: { changed, sent: Date.now() } };
    void this.panel.webview.postMessage(message);
    // Targets not seen before: is each a file of the workspace? If so, draw them as links.
    if (unknown.length && this.folder) {
      const folder = this.folder;
      const found = await Promise.all(unknown.map((t) => isWorkspaceFile(folder, t)));
      unknown.forEach((t, i) => this.targets.set(t, found[i]));
      if (found.some(Boolean)) this.soon();
    }
  }

  /** What the view of this text is drawn with; targets not looked up yet are added to `unknown`. */
  private async viewContext(s: PlanStore | undefined, text: string, unknown: string[]): Promise<PlanViewContext> {
    const { plans, active, comments } = this.sources;
    const { folder, id, document } = this;
    const checkpoints = id && s?.entry(id) ? await s.readCheckpoints(id).catch(() => []) : [];
    const reviewed = id && s ? await reviewedFor(s, id, text) : undefined;
    const standing = s ? await standingOf(s, text) : undefined;
    const facts = id && s ? await factsOf(s, text) : undefined;
    const contradicted = id && s ? await contradictedIn(s, text) : undefined;
    return {
      flag: folder && id ? plans.attention(folder.uri, `${id}.md`) : undefined,
      active: !!id && active.list().some((a) => a.id === id),
      dirty: document.isDirty,
      readOnly: !plans.writable || !id || !PLAN_ID_PATTERN.test(id),
      checkpoints,
      threads: comments.counts(document.uri),
      reviewed,
      standing,
      ...facts,
      ...(contradicted?.size ? { contradicted } : {}),
      isFile: (t) => {
        if (!this.targets.has(t)) unknown.push(t);
        return this.targets.get(t) ?? false;
      },
    };
  }

  /** Keeps the last five texts drawn, the newest last. */
  private remember(digest: string, text: string): void {
    this.drawn.delete(digest);
    this.drawn.set(digest, text);
    if (this.drawn.size > 5) this.drawn.delete(this.drawn.keys().next().value as string);
  }
}

/** Whether a relative path names a file inside the workspace folder (never outside it). */
export async function isWorkspaceFile(folder: vscode.WorkspaceFolder, rel: string): Promise<boolean> {
  const clean = rel.replace(/^\.?\//, '');
  if (!clean || clean.length > 500 || clean.split(/[\\/]/).includes('..') || /^[a-z][a-z0-9+.-]*:/i.test(clean) || clean.startsWith('/')) return false;
  try {
    const st = await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, clean));
    return st.type === vscode.FileType.File;
  } catch {
    return false;
  }
}

/**
 * The last version a person decided on before this text's version, with the comments of that
 * review, for the editor's "since the review" marks. Undefined when none is kept or readable.
 */
async function reviewedFor(store: PlanStore, id: string, text: string): Promise<{ text: string; comments: { anchor: string; body: string }[] } | undefined> {
  let doc: PlanDocument;
  try {
    doc = parsePlan(text);
  } catch {
    return undefined;
  }
  const snap = await store.readSnapshot(id, { before: doc.fm.version }).catch(() => undefined);
  if (!snap) return undefined;
  const review = reviewOfVersion(doc, snap.version, await store.approvalStanding(doc).catch(() => undefined));
  return { text: snap.text, comments: review?.notes.comments ?? [] };
}

/** What the files say of the plan now (checks, drift) and its checks' last output lines; none for a text that does not read. */
async function factsOf(store: PlanStore, text: string): Promise<Pick<PlanViewContext, 'facts' | 'checkTails'> | undefined> {
  try {
    const doc = parsePlan(text);
    const runs = readPlanState(store.root, doc.fm.id).checks;
    return { facts: await planWorkFacts(store.root, doc), checkTails: Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, r.tail])) };
  } catch {
    return undefined;
  }
}

/** Where the approval of a plan text stands on this machine (none for a text that does not read). */
async function standingOf(store: PlanStore, text: string): Promise<ApprovalStanding | undefined> {
  try {
    return await store.approvalStanding(parsePlan(text));
  } catch {
    return undefined;
  }
}

/** The steps whose `> Changed:` line the pinned snapshots contradict, for the text shown (none when it does not parse). */
async function contradictedIn(s: PlanStore, text: string): Promise<Set<string> | undefined> {
  let doc;
  try {
    doc = parsePlan(text);
  } catch {
    return undefined;
  }
  return s.contradicted(doc);
}
