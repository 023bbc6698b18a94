// What the hook does rarely and through the store (its lock, its checks, its checkpoint log, the
// user's approval keys): checking that a plan's approval stands (once per text of the plan file: the
// hook caches the verdict), marking a plan stalled when the loop guard lets an agent go with steps
// open, and recording a collected call as a step of a draft. Loaded only when needed: the store is no part of the hook's start-up.
// In the built CLI these are exported by dist/cli.js, which dist/hook.js loads for them.
import { changeStatus, decodePlanBytes, isPlanError, openReview, parsePlan } from '../../core';
import { NodeApprovalKeys, openNodeStore, userConfigDir } from '../../node';
import { terminalSecret } from '../../node/ports/terminal';
import { editPlanStep } from '../../service';
import { approvalKeyProtected, protectionByHost } from '../install/protection';
import type { HookHost } from '../host';
import type { Protection } from '../setup/protection';

/**
 * A person's act at a terminal (the hook's release): where the approval key is protected, its
 * passphrase is asked and must unlock it (what an agent typing into a pseudo-terminal does not
 * have). Throws a PlanError when it does not; nothing asked while the key is plain.
 */
export async function personUnlocks(): Promise<void> {
  const secret = terminalSecret();
  const keys = new NodeApprovalKeys(userConfigDir(), () => [], true, secret ? { passphrase: (why) => secret(`Passphrase of your approval key (to ${why}): `) } : undefined);
  if (keys.identity(false).protected) await keys.signer();
}

/** How each host's sessions in the workspace are kept to their plans (install/protection.ts), and whether the approval key is protected. */
export function protection(root: string): { byHost: Record<HookHost, Protection>; keyProtected: boolean } {
  return { byHost: protectionByHost(root), keyProtected: approvalKeyProtected() };
}

/** Marks an executing plan stalled with the reason (under the lock; refused quietly when it is no longer executing). Returns the new status, or why not. */
export async function markStalled(root: string, id: string, reason: string): Promise<string> {
  const store = await openNodeStore(root, { index: false });
  try {
    const { doc } = await store.update(id, 'agent', (d, ctx) => changeStatus(d, 'stall', ctx, reason));
    return doc.fm.status;
  } catch (e) {
    if (isPlanError(e)) return `not marked stalled: ${e.message}`;
    throw e;
  }
}

/** Appends a step to a plan (collect mode) through the service's add-step use case; returns the new step's id. */
export async function addCollectedStep(root: string, id: string, step: { text: string; tool?: string; operation?: string; target?: string }): Promise<string> {
  const store = await openNodeStore(root, { index: false });
  const { result } = await editPlanStep({ store }, id, { op: 'add', ...step }, { actor: 'agent' });
  const added = result.step;
  if (!added) throw new Error(`the step was added to ${id} but its id was not reported`);
  return added;
}

/** Where a plan's approval stands, for the hook: the store's verdict (see core `approvalStanding`) and, when it does not let the plan run, a few words on why. */
export interface ApprovalVerdict {
  state: 'none' | 'valid' | 'foreign' | 'changed' | 'invalid';
  /** invalid: the reason; changed: who approved which version; foreign: who approved it, elsewhere. */
  detail?: string;
  /** valid: the approval's suggestions the agent still has to act on (core `openReview`). */
  openComments?: number;
}

/**
 * Whether the approval of the plan in `bytes` (the plan file's bytes exactly as the hook read and
 * hashed them, so the verdict is about that text and no other) stands, checked by the store with
 * the user's keys, as `pi-plans show` and `validate` do. Throws when the text cannot be read as a
 * plan (the hook then fails open and says why).
 */
export async function approvalVerdict(root: string, id: string, bytes: Uint8Array): Promise<ApprovalVerdict> {
  const rel = `.pi/plans/${id}.md`;
  const doc = parsePlan(decodePlanBytes(bytes, rel), rel);
  if (doc.fm.id !== id) throw new Error(`${rel} names another plan (${doc.fm.id}) in its frontmatter`);
  const store = await openNodeStore(root, { index: false });
  const s = await store.approvalStanding(doc);
  switch (s.state) {
    case 'invalid':
      return { state: s.state, detail: s.reason };
    case 'changed':
      return { state: s.state, detail: `${s.approver ?? 'a person'} approved v${s.version ?? '?'}` };
    case 'foreign':
      return { state: s.state, detail: `approved by ${s.approver} at v${s.version} on another machine` };
    case 'valid':
      return { state: s.state, openComments: openReview(doc, s)?.notes.comments.length ?? 0 };
    default:
      return { state: s.state };
  }
}
