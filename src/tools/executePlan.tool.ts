import * as z from 'zod/mini';
import { openReview, PlanError, unverifiedWords } from '../core';
import { finishPlan, markPlanStep, startPlan } from '../service';
import { argsObject } from './arguments';
import { approvalSuggestions, defineTool, guarded, idField, locate, nextStep, placeOf, result, stepIdField, text, versionField } from './toolkit';

/** The statuses a mark sets. */
const STEP_MARKS = ['in_progress', 'done', 'blocked', 'failed', 'skipped', 'pending'] as const;

export const executePlanTool = defineTool({
  name: 'pi_plan_execute',
  displayName: 'Track Plan Execution',
  toolReferenceName: 'planExecute',
  userDescription: 'Start an approved plan, mark its steps, complete or fail it.',
  modelDescription:
    'Track execution of an approved plan. op=start; op=mark (step, status, optional note) after each step, the last step done completes the plan; op=complete or op=fail with summary. Each result names the next step and the call for it.',
  icon: '$(run)',
  gated: true,
  schema: argsObject({
    id: z.optional(idField),
    op: z.enum(['start', 'mark', 'complete', 'fail']),
    step: z.optional(stepIdField),
    status: z.optional(z.enum(STEP_MARKS)),
    note: z.optional(z.string().check(z.maxLength(1000))),
    summary: z.optional(text(4000)),
    version: z.optional(versionField),
  }),
  invocationMessage: (i) =>
    i.op === 'mark' ? `Marking ${i.step} ${i.status?.replace('_', ' ')} in ${i.id ?? 'the active plan'}` : `${{ start: 'Starting', complete: 'Completing', fail: 'Failing' }[i.op]} ${i.id ?? 'the active plan'}`,
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      const place = placeOf(ctx, store);
      const act = { actor: 'agent' as const, expectedVersion: i.version };
      if (i.op === 'start') {
        const { doc } = await startPlan(place, id, act);
        // The approval's suggestions, as its signed record names them: the agent sees them as it starts.
        const open = openReview(doc, await store.approvalStanding(doc));
        return result(doc, 'Execution started.', open?.kind === 'approval' ? approvalSuggestions(doc, open.version, open.notes.comments) : undefined);
      }
      if (i.op === 'mark') {
        if (!i.step || !i.status) {
          // The call to make, with the step it most likely means: the one given, else the next open one.
          const step = i.step ?? nextStep(await store.read(id))?.id ?? '<step id>';
          throw new PlanError(
            'INVALID_INPUT',
            `op=mark needs "step" and "status": call pi_plan_execute {"id":"${id}","op":"mark","step":"${step}","status":"${i.status ?? 'done'}"} (status: ${STEP_MARKS.join(', ').replace(/, (\w+)$/, ' or $1')}).`,
          );
        }
        const { doc, result: r } = await markPlanStep(place, id, i.step, i.status, i.note, act);
        // A step marked done whose approved check has not passed on the files now: allowed, and said.
        const facts = i.status === 'done' && ctx.facts ? await ctx.facts.of(store, doc).catch(() => undefined) : undefined;
        return result(doc, `${i.step} is ${i.status.replace('_', ' ')}${r.autoCompleted ? '; every step is done, so the plan is completed' : ''}.`, unverifiedWords(id, r.step ?? i.step, facts));
      }
      const { doc } = await finishPlan(place, id, i.op, i.summary, act);
      return result(doc, i.op === 'complete' ? 'Completed.' : 'Marked failed; the user may retry or resume it.');
    }),
});
