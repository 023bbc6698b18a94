import * as z from 'zod/mini';
import { DIGEST_PATTERN, PlanError } from '../core';
import { approvePlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, idField, locate, placeOf, result, versionField } from './toolkit';

/** The refusal of every approval by an agent while the user has not turned agent approval on. */
const AGENT_APPROVAL_OFF =
  "approving a plan is the user's decision, and agent approval is off. Ask the user to approve it (the plan editor's Approve in VS Code, or pi-plans approve in a terminal); pi_plan_approve refuses every call until the user turns agent approval on.";

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
  refusedNow: (settings) => (settings.agentMayApprove ? undefined : AGENT_APPROVAL_OFF),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      if (!ctx.settings.agentMayApprove) throw new PlanError('HUMAN_ONLY', `${i.id}: ${AGENT_APPROVAL_OFF}`);
      const { store, id } = locate(ctx, i.id);
      const { doc } = await approvePlan(placeOf(ctx, store), id, { actor: 'agent', seen: { digest: i.digest, version: i.version }, agentMayApprove: true });
      return result(doc, `Approved by the agent at v${doc.fm.approved_version}.`);
    }),
});
