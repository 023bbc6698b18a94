import * as z from 'zod/mini';
import { DIGEST_PATTERN, PlanError } from '../core';
import { approvePlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, idField, locate, placeOf, result, versionField } from './toolkit';

export const approvePlanTool = defineTool({
  name: 'pi_plan_approve',
  displayName: 'Approve Plan',
  toolReferenceName: 'planApprove',
  userDescription: 'Approve a proposed plan as the agent (only when the user allowed agent approval).',
  modelDescription: 'Approve a proposed plan: the text you read, by the digest pi_plan_get shows. Only if the user turned agent approval on, else ask.',
  icon: '$(pass)',
  gated: false,
  when: 'config.piPlans.agentApproval.enabled',
  schema: argsObject({ id: idField, digest: z.string().check(z.maxLength(71), z.regex(DIGEST_PATTERN, 'the digest pi_plan_get shows')), version: z.optional(versionField) }),
  invocationMessage: (i) => `Approving ${i.id}${i.version !== undefined ? ` at v${i.version}` : ''}`,
  confirmation: (i) => ({ title: `Approve ${i.id} as the agent?`, message: `The plan's text ${i.digest.slice(0, 19)}… is approved and recorded as approved by the agent.` }),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      if (!ctx.settings.agentMayApprove) {
        throw new PlanError('HUMAN_ONLY', `${i.id}: approving a plan is the user's decision; agent approval is off.`);
      }
      const { store, id } = locate(ctx, i.id);
      const { doc } = await approvePlan(placeOf(ctx, store), id, { actor: 'agent', seen: { digest: i.digest, version: i.version }, agentMayApprove: true });
      return result(doc, `Approved by the agent at v${doc.fm.approved_version}.`);
    }),
});
