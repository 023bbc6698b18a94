import { reviewHistoryOf, ReviewComment, signedApprovalNotes } from '../core';
import type { PlanStore } from '../store';

/** A person's decision on a submitted plan, as the review gate sees it. */
export type ReviewOutcome =
  | { kind: 'approved'; version: number; by: string; comments: ReviewComment[]; /** Approved on another machine: a person here confirms it before it runs. */ confirm?: boolean }
  | { kind: 'rejected'; feedback: string; version: number; status: string; comments: ReviewComment[] }
  | { kind: 'changed'; status: string }
  | { kind: 'cancelled' }
  /** No decision within the face's wait limit (an MCP client times out): nothing changed. */
  | { kind: 'waiting'; afterMs: number };

/**
 * Resolves when a proposed plan leaves `proposed`, from the store's change events: a decision
 * made anywhere (an editor, another window, the CLI) reaches it. `signal` ends the wait
 * (the chat request was cancelled); `timeoutMs` bounds it (a face whose clients time out);
 * the plan stays as it is then.
 */
export function waitForDecision(store: PlanStore, id: string, signal: AbortSignal, opts: { timeoutMs?: number } = {}): Promise<ReviewOutcome> {
  return new Promise<ReviewOutcome>((resolve) => {
    let done = false;
    const timer = opts.timeoutMs !== undefined ? setTimeout(() => finish({ kind: 'waiting', afterMs: opts.timeoutMs! }), opts.timeoutMs) : undefined;
    const finish = (o: ReviewOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub.dispose();
      signal.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const check = async () => {
      const e = store.entry(id);
      if (!e || !e.valid) return finish({ kind: 'changed', status: e ? 'invalid' : 'deleted' });
      if (e.status === 'proposed') return;
      const doc = await store.read(id).catch(() => undefined);
      if (!doc) return finish({ kind: 'changed', status: 'unreadable' });
      // The index lagged behind the file (a write it has not caught up with): the file is what counts, and it is still proposed.
      if (doc.fm.status === 'proposed') return;
      const review = reviewHistoryOf(doc).at(-1);
      if (doc.fm.status === 'approved') {
        // Only a person's approval counts: a status line written by a file edit is no decision.
        const standing = await store.approvalStanding(doc);
        if (standing.state !== 'valid' && standing.state !== 'foreign') {
          return finish({ kind: 'changed', status: `approved without a valid approval (${standing.state === 'invalid' ? standing.reason : 'its text changed since'}); nothing may run on it` });
        }
        const version = standing.version;
        // The suggestions only as the signed record names them, and only from an approval that holds here.
        const comments = standing.state === 'valid' ? (signedApprovalNotes(doc, standing)?.notes.comments ?? []) : [];
        return finish({ kind: 'approved', version, by: standing.approver, comments, confirm: standing.state === 'foreign' });
      }
      const last = doc.rejections.at(-1);
      if ((doc.fm.status === 'rejected' || doc.fm.status === 'needs_review') && last) {
        const notes = review?.kind === 'rejection' && review.version === last.version ? review.notes : { feedback: last.feedback, comments: [] };
        return finish({ kind: 'rejected', feedback: notes.feedback, version: last.version, status: doc.fm.status, comments: notes.comments });
      }
      finish({ kind: 'changed', status: doc.fm.status });
    };
    const onAbort = () => finish({ kind: 'cancelled' });
    const sub = store.onDidChangePlans((ev) => {
      if ([...ev.changed, ...ev.removed].includes(`${id}.md`)) void check();
    });
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) onAbort();
    else void check();
  });
}
