import * as z from 'zod/mini';
import { PlanError, reviewProblems } from '../core';
import { submitPlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, result, sectionFields, text } from './toolkit';

const stepInput = argsObject({
  text: text(500).check(z.minLength(1)),
  tool: z.optional(text(60)),
  operation: z.optional(text(60)),
  target: z.optional(text(200)),
  details: z.optional(text(2000)),
});

export const createPlanTool = defineTool({
  name: 'pi_plan_create',
  displayName: 'Create Plan',
  toolReferenceName: 'planCreate',
  userDescription: 'Create a plan document in .pi/plans (a draft, or proposed for review).',
  modelDescription:
    'Create a persistent plan (a Markdown file the user reviews). Give title and goal; optionally steps (text, tool, operation, target) and sections. propose=true submits it for review at once (validated); otherwise it is a draft you extend with pi_plan_step/pi_plan_update, then pi_plan_submit. Pass folder (a workspace folder name) when several are open. Returns the id (PLAN-xxxxxxxx) and version; it becomes the active plan.',
  icon: '$(new-file)',
  gated: false,
  schema: argsObject({
    title: text(200).check(z.minLength(1)),
    steps: z.optional(z.array(stepInput).check(z.maxLength(100))),
    ...sectionFields,
    propose: z.optional(z.boolean()),
    folder: z.optional(text(200)),
  }),
  invocationMessage: (i) => `${i.propose ? 'Proposing' : 'Creating'} plan "${i.title}"`,
  run: (i, ctx) =>
    guarded(undefined, async () => {
      const folders = ctx.stores.folders();
      const target = i.folder ? folders.find((f) => f.name === i.folder) : folders[0];
      if (!target) {
        throw new PlanError(
          'NOT_FOUND',
          i.folder
            ? `No workspace folder named ${JSON.stringify(i.folder)} (folders: ${folders.map((f) => f.name).join(', ')}): call pi_plan_create again with "folder" set to one of them.`
            : 'No workspace folder is open: ask the user to open the folder the plan is for, then call pi_plan_create again.',
        );
      }
      if (!i.folder && folders.length > 1) {
        throw new PlanError('INVALID_INPUT', `Several workspace folders are open (${folders.map((f) => f.name).join(', ')}): pass "folder".`);
      }
      const { propose, folder: _f, ...input } = i;
      let doc = await target.store.create(input, 'agent');
      await ctx.active.set(doc.fm.id, target.name);
      if (propose) {
        const problems = reviewProblems(doc, target.store.config);
        if (problems.length) {
          return result(doc, `Created as a draft, not proposed: ${problems.join('; ')}.`);
        }
        doc = (await submitPlan({ store: target.store }, doc.fm.id, { actor: 'agent' })).doc;
      }
      return result(doc, `Created in ${target.name}/.pi/plans/${doc.fm.id}.md; steps: ${doc.steps.map((s) => s.id).join(', ') || 'none'}.`);
    }),
});
