import * as vscode from 'vscode';
import { anchorAtLine, anchorPlaces, isStepAnchor, parsePlan, pendingDraft, placeDraftThreads, PlanDocument, reviewAnchors, ReviewComment } from '../../core';
import { DisposableScope } from '../common/disposable';
import { COMMANDS, COMMENT_IDS } from '../common/ids';
import { provideReviewDrafts, ReviewDrafts } from '../common/reviewDrafts';

/** A comment of the reviewer's draft review, as kept in workspace state. */
interface DraftComment {
  id: string;
  body: string;
  at: string;
}

/** A thread of the draft review: anchored to a step id or a section title, never to a line. */
interface DraftThread {
  id: string;
  anchor: string;
  /** The line it was last shown on (where an outdated thread stays). */
  line: number;
  resolved: boolean;
  comments: DraftComment[];
}

const STATE_KEY = 'piPlans.reviewDrafts';
const PLAN_FILE = /[\\/]\.pi[\\/]plans[\\/]PLAN-[0-9a-f]{8}\.md$/;

/** A live comment: VS Code's Comment with the ids that find it in the draft. */
class LiveComment implements vscode.Comment {
  mode = vscode.CommentMode.Preview;
  author = { name: vscode.l10n.t('You') };
  label = vscode.l10n.t('Draft');
  contextValue = COMMENT_IDS.comment;
  /** The text before an edit began (Cancel restores it). */
  saved: string;
  constructor(
    readonly id: string,
    public body: string | vscode.MarkdownString,
    readonly threadId: string,
    readonly timestamp: Date,
  ) {
    this.saved = typeof body === 'string' ? body : body.value;
  }
}

/**
 * The reviewer's comments on plan files (a `CommentController` over the text editor): a person
 * comments on a step's lines or a section heading with the gutter's `+`, replies, edits, deletes,
 * resolves. Comments are a draft, kept in workspace state (they survive a reload) and written into
 * the plan only when the review is submitted (Reject… / Approve, which take `pending()`). A thread
 * follows its step id or section title as lines move, and is shown as outdated when its step goes.
 */
export class ReviewComments extends DisposableScope implements ReviewDrafts {
  /** The window's draft review (one per extension host): every submission path takes its comments through `draftCommentsFor`. */
  private readonly controller: vscode.CommentController;
  /** Drafts by plan file (uri string). */
  private drafts: Record<string, DraftThread[]>;
  private readonly live = new Map<string, vscode.CommentThread>();
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
  /** A plan's draft review changed (the plan editor shows the counts). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {
    super();
    this.register(provideReviewDrafts(this));
    this.drafts = state.get<Record<string, DraftThread[]>>(STATE_KEY) ?? {};
    this.controller = this.register(vscode.comments.createCommentController(COMMENT_IDS.controller, vscode.l10n.t('Plan review')));
    this.controller.options = {
      prompt: vscode.l10n.t('Comment on this step…'),
      placeHolder: vscode.l10n.t('What should change here? (a draft until you approve or reject the plan)'),
    };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => {
        const doc = planOf(document);
        if (!doc) return [];
        // Every line of a step (its text, details, note) takes a comment on the step; a section's heading on the section.
        return anchorPlaces(doc).map((p) => new vscode.Range(p.first, 0, p.last, 0));
      },
    };
    for (const [uri, threads] of Object.entries(this.drafts)) for (const t of threads) this.show(vscode.Uri.parse(uri), t);
    for (const d of vscode.workspace.textDocuments) this.follow(d);
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.follow(d)));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.follow(e.document)));
    this.registerCommands();
  }

  /** The unresolved comments of a plan's draft review whose anchor still exists, one per thread, for a submission. */
  pending(uri: vscode.Uri, doc?: PlanDocument): ReviewComment[] {
    return pendingDraft(this.drafts[uri.toString()] ?? [], doc);
  }

  /** Threads per anchor (unresolved), for the plan editor's counts. */
  counts(uri: vscode.Uri): Record<string, number> {
    const out: Record<string, number> = {};
    for (const t of this.drafts[uri.toString()] ?? []) if (!t.resolved && t.comments.length) out[t.anchor] = (out[t.anchor] ?? 0) + 1;
    return out;
  }

  /**
   * Opens a new, empty thread on a line (the plan editor's "Comment"): its reply box takes the
   * first comment, which anchors it to the step or section of that line, like the gutter's "+".
   */
  startThread(uri: vscode.Uri, line: number): void {
    const thread = this.controller.createCommentThread(uri, new vscode.Range(line, 0, line, 0), []);
    thread.canReply = true;
    thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
  }

  /** After a submission: the draft is in the plan now; its threads go. */
  async clear(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    for (const t of this.drafts[key] ?? []) {
      this.live.get(t.id)?.dispose();
      this.live.delete(t.id);
    }
    delete this.drafts[key];
    await this.save(uri);
  }

  private async save(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    if (this.drafts[key] && !this.drafts[key].length) delete this.drafts[key];
    await this.state.update(STATE_KEY, this.drafts);
    this.changed.fire(uri);
  }

  /** Moves a plan's threads to their anchors' current lines; an anchor that is gone makes its thread outdated. */
  private follow(document: vscode.TextDocument): void {
    const threads = this.drafts[document.uri.toString()];
    if (!threads?.length) return;
    const doc = planOf(document);
    if (!doc) return; // an invalid text: threads stay where they were until it reads again
    const places = placeDraftThreads(threads, doc);
    let moved = false;
    for (const [i, t] of threads.entries()) {
      const { line, outdated } = places[i];
      if (line !== t.line) {
        t.line = line;
        moved = true;
      }
      const live = this.live.get(t.id);
      if (!live) continue;
      const at = Math.min(t.line, document.lineCount - 1);
      if (live.range.start.line !== at) live.range = new vscode.Range(at, 0, at, 0);
      const label = threadLabel(t, outdated);
      if (live.label !== label) live.label = label;
      live.canReply = !outdated;
    }
    if (moved) void this.state.update(STATE_KEY, this.drafts);
  }

  private show(uri: vscode.Uri, t: DraftThread): vscode.CommentThread {
    const thread = this.controller.createCommentThread(uri, new vscode.Range(t.line, 0, t.line, 0), t.comments.map((c) => new LiveComment(c.id, c.body, t.id, new Date(c.at))));
    thread.label = threadLabel(t, false);
    thread.contextValue = t.resolved ? COMMENT_IDS.resolvedThread : COMMENT_IDS.thread;
    thread.state = t.resolved ? vscode.CommentThreadState.Resolved : vscode.CommentThreadState.Unresolved;
    thread.collapsibleState = t.resolved ? vscode.CommentThreadCollapsibleState.Collapsed : vscode.CommentThreadCollapsibleState.Expanded;
    this.live.set(t.id, thread);
    return thread;
  }

  private find(thread: vscode.CommentThread): { key: string; t: DraftThread } | undefined {
    for (const [id, live] of this.live) {
      if (live !== thread) continue;
      for (const [key, threads] of Object.entries(this.drafts)) {
        const t = threads.find((x) => x.id === id);
        if (t) return { key, t };
      }
    }
    return undefined;
  }

  private registerCommands(): void {
    const commands = [
      vscode.commands.registerCommand(COMMANDS.addComment, (reply: vscode.CommentReply) => this.addComment(reply)),
      vscode.commands.registerCommand(COMMANDS.deleteComment, (c: LiveComment) => this.deleteComment(c)),
      vscode.commands.registerCommand(COMMANDS.deleteThread, (thread: vscode.CommentThread) => this.deleteThread(thread)),
      vscode.commands.registerCommand(COMMANDS.editComment, (c: LiveComment) => this.setMode(c, vscode.CommentMode.Editing)),
      vscode.commands.registerCommand(COMMANDS.cancelEditComment, (c: LiveComment) => this.cancelEdit(c)),
      vscode.commands.registerCommand(COMMANDS.saveComment, (c: LiveComment) => this.saveComment(c)),
      vscode.commands.registerCommand(COMMANDS.resolveThread, (thread: vscode.CommentThread) => this.resolve(thread, true)),
      vscode.commands.registerCommand(COMMANDS.unresolveThread, (thread: vscode.CommentThread) => this.resolve(thread, false)),
    ];
    for (const c of commands) this.register(c);
  }

  /** A reply: a comment added to one of our threads, or the first of a new thread from the gutter. */
  private async addComment(reply: vscode.CommentReply): Promise<void> {
    const text = reply.text.trim();
    if (!text) return;
    const found = this.find(reply.thread);
    const comment: DraftComment = { id: newId(), body: text, at: new Date().toISOString() };
    if (found) {
      // Kept first, then shown: a comment on screen survives a reload that follows at once.
      found.t.comments.push(comment);
      await this.save(reply.thread.uri);
      reply.thread.comments = [...reply.thread.comments, new LiveComment(comment.id, comment.body, found.t.id, new Date(comment.at))];
      return;
    }
    await this.startDraftThread(reply, comment);
  }

  /** A new thread from the gutter: anchored to the step or section of its line, and made ours. */
  private async startDraftThread(reply: vscode.CommentReply, comment: DraftComment): Promise<void> {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === reply.thread.uri.toString());
    const doc = document ? planOf(document) : undefined;
    const anchor = doc ? anchorAtLine(doc, reply.thread.range.start.line) : undefined;
    if (!anchor) {
      reply.thread.dispose();
      void vscode.window.showWarningMessage(vscode.l10n.t('Comment on a step or a section heading: this line is neither (or the plan cannot be read now).'));
      return;
    }
    const line = reviewAnchors(doc!).get(anchor)!;
    const t: DraftThread = { id: newId(), anchor, line, resolved: false, comments: [comment] };
    const key = reply.thread.uri.toString();
    (this.drafts[key] ??= []).push(t);
    this.live.set(t.id, reply.thread);
    await this.save(reply.thread.uri);
    // VS Code's new thread becomes ours: its comments, label and place.
    reply.thread.range = new vscode.Range(line, 0, line, 0);
    reply.thread.comments = [new LiveComment(comment.id, comment.body, t.id, new Date(comment.at))];
    reply.thread.label = threadLabel(t, false);
    reply.thread.contextValue = COMMENT_IDS.thread;
    reply.thread.state = vscode.CommentThreadState.Unresolved;
  }

  /** Deletes a comment; a thread left without comments goes with it. */
  private async deleteComment(c: LiveComment): Promise<void> {
    for (const [key, threads] of Object.entries(this.drafts)) {
      const t = threads.find((x) => x.id === c.threadId);
      if (!t) continue;
      t.comments = t.comments.filter((x) => x.id !== c.id);
      const live = this.live.get(t.id);
      if (!t.comments.length) {
        this.drafts[key] = threads.filter((x) => x !== t);
        live?.dispose();
        this.live.delete(t.id);
      } else if (live) live.comments = live.comments.filter((x) => (x as LiveComment).id !== c.id);
      await this.save(vscode.Uri.parse(key));
      return;
    }
  }

  private async deleteThread(thread: vscode.CommentThread): Promise<void> {
    const found = this.find(thread);
    if (!found) return thread.dispose();
    this.drafts[found.key] = this.drafts[found.key].filter((x) => x !== found.t);
    thread.dispose();
    this.live.delete(found.t.id);
    await this.save(vscode.Uri.parse(found.key));
  }

  /** Cancel an edit: the comment's text before it began. */
  private cancelEdit(c: LiveComment): void {
    c.body = c.saved;
    this.setMode(c, vscode.CommentMode.Preview);
  }

  /** Save an edit (an emptied comment keeps its text). */
  private async saveComment(c: LiveComment): Promise<void> {
    const body = (typeof c.body === 'string' ? c.body : c.body.value).trim();
    for (const [key, threads] of Object.entries(this.drafts)) {
      const kept = threads.find((x) => x.id === c.threadId)?.comments.find((x) => x.id === c.id);
      if (!kept) continue;
      if (body) kept.body = body;
      c.body = kept.body;
      c.saved = kept.body;
      this.setMode(c, vscode.CommentMode.Preview);
      await this.save(vscode.Uri.parse(key));
      return;
    }
  }

  private async resolve(thread: vscode.CommentThread, resolved: boolean): Promise<void> {
    const found = this.find(thread);
    if (!found) return;
    found.t.resolved = resolved;
    thread.state = resolved ? vscode.CommentThreadState.Resolved : vscode.CommentThreadState.Unresolved;
    thread.collapsibleState = resolved ? vscode.CommentThreadCollapsibleState.Collapsed : vscode.CommentThreadCollapsibleState.Expanded;
    thread.label = threadLabel(found.t, false);
    thread.contextValue = resolved ? COMMENT_IDS.resolvedThread : COMMENT_IDS.thread;
    await this.save(vscode.Uri.parse(found.key));
  }

  /** Redraws a comment in a mode (VS Code redraws a thread when its comments array is set). */
  private setMode(c: LiveComment, mode: vscode.CommentMode): void {
    const thread = this.live.get(c.threadId);
    if (!thread) return;
    thread.comments = thread.comments.map((x) => {
      if ((x as LiveComment).id === c.id) (x as LiveComment).mode = mode;
      return x;
    });
  }
}

/** A new comment's or thread's id: 12 random hex digits. */
function newId(): string {
  return [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function threadLabel(t: DraftThread, outdated: boolean): string {
  if (outdated) return vscode.l10n.t('Outdated: {0} is no longer in the plan (not sent with the review)', t.anchor);
  const where = isStepAnchor(t.anchor) ? t.anchor : `## ${t.anchor}`;
  return t.resolved ? vscode.l10n.t('{0} · resolved (not sent)', where) : vscode.l10n.t('{0} · draft (sent when you approve or reject)', where);
}

/** The plan in a document, if it is a plan file that reads; undefined otherwise. */
function planOf(document: vscode.TextDocument): PlanDocument | undefined {
  if (!PLAN_FILE.test(document.uri.path)) return undefined;
  try {
    return parsePlan(document.getText());
  } catch {
    return undefined;
  }
}
