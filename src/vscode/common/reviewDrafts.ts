import * as vscode from 'vscode';
import type { PlanDocument, ReviewComment } from '../../core';

/**
 * The review comments a person drafts on a plan before deciding on it, as the surfaces that show
 * or send them see them: the plan editor counts them and starts a thread at a step, and every
 * decision (approve, reject, from any surface) sends the pending ones. The review surface keeps
 * them (`ReviewComments`) and provides them here.
 */
export interface ReviewDrafts {
  /** A plan's draft review changed. */
  readonly onDidChange: vscode.Event<vscode.Uri>;
  /** The drafts of the plan at `uri` still to send with a decision (unresolved, their anchor still in `doc`). */
  pending(uri: vscode.Uri, doc?: PlanDocument): ReviewComment[];
  /** Threads per anchor (unresolved), for the plan editor's counts. */
  counts(uri: vscode.Uri): Record<string, number>;
  /** Opens a new draft thread at a line of the plan's text. */
  startThread(uri: vscode.Uri, line: number): void;
  /** Removes the plan's drafts (they were sent). */
  clear(uri: vscode.Uri): Promise<void>;
}

let provided: ReviewDrafts | undefined;

/** Makes `drafts` the ones decisions send (the review surface, once per window). */
export function provideReviewDrafts(drafts: ReviewDrafts): vscode.Disposable {
  provided = drafts;
  return { dispose: () => void (provided === drafts && (provided = undefined)) };
}

/** The draft comments of a plan that go with a decision now (unresolved, anchor still there), and how to clear them after. */
export async function draftCommentsFor(store: { pathOf(id: string): string; read(id: string): Promise<PlanDocument> }, id: string): Promise<{ comments: ReviewComment[]; clear: () => Promise<void> }> {
  const drafts = provided;
  const uri = vscode.Uri.file(store.pathOf(id));
  if (!drafts) return { comments: [], clear: async () => undefined };
  const doc = await store.read(id).catch(() => undefined);
  return { comments: drafts.pending(uri, doc), clear: () => drafts.clear(uri) };
}
