/** Writes a check's result line on its step through the store (under the plan's lock, as any write). */
import { type Actor, recordCheck } from '../../core';
import type { PlanStore } from '../../store';

export async function recordCheckLine(store: PlanStore, id: string, step: string, command: string, line: string, actor: Actor): Promise<void> {
  await store.update(id, actor, (d, c) => recordCheck(d, step, command, line, c));
}
