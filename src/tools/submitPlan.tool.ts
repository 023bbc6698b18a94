import * as z from 'zod/mini';
import { submitPlan } from '../service';
import type { ReviewOutcome } from './context';
import { argsObject } from './arguments';
import { approvalSuggestions, commentLines, defineTool, guarded, idField, locate, placeOf, result, versionField } from './toolkit';

export const submitPlanTool = defineTool({
  name: 'pi_plan_submit',
  displayName: 'Submit Plan for Review',
  toolReferenceName: 'planSubmit',
  userDescription: 'Submit a draft for the user\'s review and (by default) wait for the decision.',
  modelDescription:
    'Finalize a draft: validates it (goal, a step, required sections) and moves it to proposed for the user\'s review; problems come back as a list to fix. A plan with no steps is cancelled. It waits for the decision (approved, or rejected with feedback) if the user\'s setting says so. On a proposed plan it waits again.',
  icon: '$(check)',
  gated: false,
  schema: argsObject({ id: z.optional(idField), version: z.optional(versionField), wait: z.optional(z.boolean()) }),
  invocationMessage: (i) => `Submitting ${i.id ?? 'the active plan'} for review`,
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id);
      // Submitted already (a wait that ended, a restart): waiting again for the decision is what is asked.
      const current = await store.read(id);
      const again = current.fm.status === 'proposed' && (i.version === undefined || i.version === current.fm.version);
      const { doc, cancelled, untouched } = again ? { doc: current, cancelled: false, untouched: [] } : await submitPlan(placeOf(ctx, store), id, { actor: 'agent', expectedVersion: i.version });
      if (cancelled) return result(doc, `${id} had no steps (in collect mode: no edit or command was recorded), so it was cancelled, not submitted: there is nothing to review. Create a new plan when there is work to plan.`);
      // Comments of the last rejection on steps or sections this revision did not change.
      const unaddressed = untouched.length ? [`Not changed since the rejection (the reviewer may ask again):`, ...commentLines(doc, untouched)].join('\n') : undefined;
      const wait = (i.wait ?? ctx.settings.waitForReview) && ctx.review;
      if (!wait) return result(doc, again ? `${id} is submitted already: awaiting the user's review.` : 'Submitted: awaiting the user\'s review.', unaddressed);
      const outcome: ReviewOutcome = await ctx.review!.awaitDecision(store, id, ctx.signal ?? new AbortController().signal);
      const now = await store.read(id);
      switch (outcome.kind) {
        case 'approved':
          return result(
            now,
            `Approved by ${outcome.by} at v${outcome.version}.${outcome.confirm ? ' It was approved on another machine: the user confirms that approval here before it runs.' : ''}`,
            unaddressed,
            approvalSuggestions(now, outcome.version, outcome.comments),
          );
        case 'rejected':
          return result(
            now,
            `Rejected at v${outcome.version}${now.fm.status === 'needs_review' ? ' for the third time (needs_review)' : ''}.${outcome.feedback ? ' Feedback:' : ''}`,
            outcome.feedback ? `<feedback>${outcome.feedback}</feedback>` : undefined,
            unaddressed,
            outcome.comments.length ? ['Comments by step and section; revise each, then submit again:', ...commentLines(now, outcome.comments)].join('\n') : undefined,
          );
        // Every answer names the comments this revision left alone: the wait may end without a decision.
        case 'changed':
          return result(now, `The review ended: the plan is now ${outcome.status}.`, unaddressed);
        case 'waiting':
          return result(now, `Still awaiting the user's review after ${Math.round(outcome.afterMs / 1000)} s; nothing changed. To wait again, call pi_plan_submit {"id":"${id}"}.`, unaddressed);
        default:
          return result(now, 'Stopped waiting (the request was cancelled); the plan stays proposed and the user can still decide.', unaddressed);
      }
    }),
});
