// What the hook does rarely and through the store (its lock, its checks, its checkpoint log): marking
// a plan stalled when the loop guard lets an agent go with steps open, and recording a collected
// call as a step of a draft. Loaded only when needed: the store is no part of the hook's start-up.
// In the built CLI these are exported by dist/cli.js, which dist/hook.js loads for them.
import { changeStatus, isPlanError } from '../../core';
import { openNodeStore } from '../../node';
import { editPlanStep } from '../../service';

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
