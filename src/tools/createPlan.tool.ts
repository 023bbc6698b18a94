import * as z from 'zod/mini';
import { PlanError, reviewProblems } from '../core';
import { submitPlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, dependsOn, guarded, result, sectionFields, text } from './toolkit';

const stepInput = argsObject({
  text: text(500).check(z.minLength(1)),
  tool: z.optional(text(60)),
  operation: z.optional(text(60)),
  target: z.optional(text(200)),
  details: z.optional(text(2000)),
  depends_on: z.optional(text(300)),
});

export const createPlanTool = defineTool({
  name: 'pi_plan_create',
  displayName: 'Create Plan',
  toolReferenceName: 'planCreate',
  userDescription: 'Create a plan document in .pi/plans (a draft, or proposed for review).',
  modelDescription:
    'Create a plan (a Markdown file the user reviews). Give title, goal, optionally steps (text, tool, operation, target, depends_on) and sections. propose=true submits it at once (validated); else it is a draft to extend with pi_plan_step/pi_plan_update, then pi_plan_submit. collect=true: your next edits and commands become its steps, not run. Returns the id.',
  vscodeNote: ' Pass folder if several are open. It becomes the active plan.',
  icon: '$(new-file)',
  gated: false,
  schema: argsObject({
    title: text(200).check(z.minLength(1)),
    steps: z.optional(z.array(stepInput).check(z.maxLength(100))),
    ...sectionFields,
    propose: z.optional(z.boolean()),
    collect: z.optional(z.boolean()),
    folder: z.optional(text(200)),
  }),
  invocationMessage: (i) => `${i.propose ? 'Proposing' : i.collect ? 'Collecting into' : 'Creating'} plan "${i.title}"`,
  run: (i, ctx) =>
    guarded(undefined, async () => {
      if (i.collect && i.propose) {
        throw new PlanError('INVALID_INPUT', 'collect=true records your next edits and commands as steps of a draft, and propose=true submits at once: call pi_plan_create again with one of them (collect, then pi_plan_submit when the plan is complete).');
      }
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
      const { propose, collect, folder: _f, steps, ...rest } = i;
      const input = { ...rest, steps: steps?.map(({ depends_on, ...st }) => ({ ...st, dependsOn: dependsOn(depends_on) })) };
      let doc = await target.store.create(input, 'agent');
      await ctx.active.set(doc.fm.id, target.name);
      if (propose) {
        const problems = reviewProblems(doc, target.store.config);
        if (problems.length) {
          return result(doc, `Created as a draft, not proposed: ${problems.join('; ')}.`);
        }
        doc = (await submitPlan({ store: target.store }, doc.fm.id, { actor: 'agent' })).doc;
      }
      const created = `Created in ${target.name}/.pi/plans/${doc.fm.id}.md; steps: ${doc.steps.map((s) => s.id).join(', ') || 'none'}.`;
      if (!collect) return result(doc, created);
      // The hook (pi-plans hook, PostToolUse of this call) binds this session to the draft in collect mode.
      return result(doc, `${created} Collect mode: each file edit or terminal command you try in this session is now recorded as a step of ${doc.fm.id} instead of being run (where pi-plans hooks run for your agent; without them nothing is intercepted: add steps with pi_plan_step). Go on planning as if you were doing the work, then call pi_plan_submit with id ${doc.fm.id}; if no step was recorded, the draft is cancelled.`);
    }),
});
