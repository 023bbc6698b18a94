import * as z from 'zod/mini';
import { changePlanStatus } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, idField, locate, placeOf, result, text, versionField } from './toolkit';

export const cancelPlanTool = defineTool({
  name: 'pi_plan_cancel',
  displayName: 'Cancel Plan',
  toolReferenceName: 'planCancel',
  userDescription: 'Cancel or withdraw a plan (asks for confirmation).',
  modelDescription: 'Cancel a plan (withdraw your own proposal, or stop a draft, approved or executing plan) with a reason. Final: clone it to start again.',
  icon: '$(close)',
  gated: false,
  schema: argsObject({ id: z.optional(idField), reason: z.optional(text(1000)), version: z.optional(versionField) }),
  invocationMessage: (i) => `Cancelling ${i.id ?? 'the active plan'}`,
  confirmation: (i) => ({ title: `Cancel ${i.id ?? 'the active plan'}?`, message: `The plan becomes cancelled (final).${i.reason ? ` Reason: ${i.reason}` : ''}` }),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id);
      const { doc } = await changePlanStatus(placeOf(ctx, store), id, 'cancel', { actor: 'agent', expectedVersion: i.version, reason: i.reason });
      return result(doc, 'Cancelled.');
    }),
});
