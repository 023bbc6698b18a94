import * as z from 'zod/mini';
import { PlanError } from '../core';
import { editPlanStep } from '../service';
import { argsObject } from './arguments';
import { defineTool, dependsOn, guarded, idField, locate, placeOf, result, stepIdField, text, versionField } from './toolkit';


export const editStepTool = defineTool({
  name: 'pi_plan_step',
  displayName: 'Edit Plan Step',
  toolReferenceName: 'planStep',
  userDescription: 'Add, update, remove or move a step of a plan.',
  modelDescription:
    'Change a plan\'s steps by id. op=add (text; optional tool+operation+target, details; after: step id or "start", default end; depends_on: "S001, S003" or "none", what it waits for) returns the new id. op=update/remove/move (step; its fields, or after). Ids are never reused. Not while executing (pi_plan_set_content revises). In every tool, version (the one you last saw) guards edits.',
  vscodeNote: ' id defaults to the active plan.',
  icon: '$(list-ordered)',
  gated: true,
  schema: argsObject({
    id: z.optional(idField),
    op: z.enum(['add', 'update', 'remove', 'move']),
    step: z.optional(stepIdField),
    text: z.optional(text(500)),
    tool: z.optional(text(60)),
    operation: z.optional(text(60)),
    target: z.optional(text(200)),
    details: z.optional(text(2000)),
    after: z.optional(z.union([stepIdField, z.literal('start')])),
    depends_on: z.optional(text(300)),
    version: z.optional(versionField),
  }),
  invocationMessage: (i) => `${{ add: 'Adding a step to', update: `Updating ${i.step} in`, remove: `Removing ${i.step} from`, move: `Moving ${i.step} in` }[i.op]} ${i.id ?? 'the active plan'}`,
  confirmation: (i) => (i.op === 'remove' ? { title: `Remove step ${i.step}?`, message: `Step ${i.step} is removed from ${i.id ?? 'the active plan'}; its id is never reused.` } : undefined),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      // What is missing, and the call with it (the step ids are in pi_plan_get).
      if (i.op !== 'add' && !i.step) {
        throw new PlanError('INVALID_INPUT', `op=${i.op} needs "step": call pi_plan_step {"id":"${id}","op":"${i.op}","step":"<step id>", ...} (pi_plan_get {"id":"${id}"} lists the step ids).`);
      }
      if (i.op === 'add' && !i.text) throw new PlanError('INVALID_INPUT', `op=add needs "text": call pi_plan_step {"id":"${id}","op":"add","text":"..."}.`);
      const op =
        i.op === 'add'
          ? { op: 'add' as const, text: i.text!, tool: i.tool, operation: i.operation, target: i.target, details: i.details, after: i.after, dependsOn: dependsOn(i.depends_on) }
          : i.op === 'update'
            ? { op: 'update' as const, id: i.step!, text: i.text, tool: i.tool, operation: i.operation, target: i.target, details: i.details, dependsOn: dependsOn(i.depends_on) }
            : i.op === 'remove'
              ? { op: 'remove' as const, id: i.step! }
              : { op: 'move' as const, id: i.step!, after: i.after };
      const { doc, result: r } = await editPlanStep(placeOf(ctx, store), id, op, { actor: 'agent', expectedVersion: i.version });
      return result(doc, `${i.op === 'add' ? 'Added' : i.op === 'update' ? 'Updated' : i.op === 'remove' ? 'Removed' : 'Moved'} ${r.step}. Steps: ${doc.steps.map((s) => s.id).join(', ') || 'none'}.`);
    }),
});
