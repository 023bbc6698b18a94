import * as z from 'zod/mini';
import { updatePlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, idField, locate, placeOf, result, sectionFields, text, versionField } from './toolkit';

export const updatePlanTool = defineTool({
  name: 'pi_plan_update',
  displayName: 'Update Plan Sections',
  toolReferenceName: 'planUpdate',
  userDescription: 'Set a plan\'s title, goal, assumptions, risks, verification, files, context or required tools.',
  modelDescription:
    'Set plan metadata. Each given section replaces the old one whole (lists become "- item" lines; an empty value removes the section): goal, assumptions, risks, verification, files, context; fields title, tools_required, executor_model. Not while executing.',
  icon: '$(edit)',
  gated: true,
  schema: argsObject({
    id: z.optional(idField),
    title: z.optional(text(200)),
    ...sectionFields,
    executor_model: z.optional(text(200)),
    version: z.optional(versionField),
  }),
  invocationMessage: (i) => `Updating ${i.id ?? 'the active plan'}`,
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      const { id: _i, version, title, tools_required, executor_model, ...sections } = i;
      const { doc } = await updatePlan(placeOf(ctx, store), id, sections, { title, tools_required, executor_model }, { actor: 'agent', expectedVersion: version });
      return result(doc, 'Updated.');
    }),
});
