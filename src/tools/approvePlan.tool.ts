import * as z from 'zod/mini';
import { PlanError } from '../core';
import { approvePlan } from '../service';
import { defineTool, guarded, idField, locate, placeOf, result, versionField } from './toolkit';

export const approvePlanTool = defineTool({
  name: 'pi_plan_approve',
  displayName: 'Approve Plan',
  toolReferenceName: 'planApprove',
  userDescription: 'Approve a proposed plan as the agent (only when the user allowed agent approval).',
  modelDescription: 'Approve a proposed plan at the version you reviewed. Only works when the user turned on agent approval; otherwise ask the user to approve it.',
  icon: '$(pass)',
  gated: false,
  when: 'config.piPlans.agentApproval.enabled',
  schema: z.object({ id: idField, version: versionField }),
  invocationMessage: (i) => `Approving ${i.id} at v${i.version}`,
  confirmation: (i) => ({ title: `Approve ${i.id} as the agent?`, message: `The plan is approved at v${i.version} and recorded as approved by the agent.` }),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      if (!ctx.settings.agentMayApprove) {
        throw new PlanError('HUMAN_ONLY', `${i.id}: approving a plan is the user's decision; agent approval is off.`);
      }
      const { store, id } = locate(ctx, i.id);
      const { doc } = await approvePlan(placeOf(ctx, store), id, { actor: 'agent', seenVersion: i.version, agentMayApprove: true });
      return result(doc, `Approved by the agent at v${i.version}.`);
    }),
});
