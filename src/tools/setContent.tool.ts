import * as z from 'zod/mini';
import { revisePlan } from '../service';
import { argsObject } from './arguments';
import { defineTool, guarded, idField, locate, placeOf, result, text, versionField } from './toolkit';

export const setContentTool = defineTool({
  name: 'pi_plan_set_content',
  displayName: 'Replace Plan Markdown',
  toolReferenceName: 'planSetContent',
  userDescription: 'Replace a plan\'s whole Markdown body.',
  modelDescription:
    'Replace the whole Markdown body of a plan (## Goal, ## Steps as "1. [ ] S001 text (tool: op → target)", other sections). Keep existing step ids; new steps may omit ids. Rejected -> draft; approved -> proposed. Executing: creates a revision (new plan id, proposed, done steps kept) and supersedes the old one. No frontmatter; title is separate.',
  icon: '$(replace-all)',
  gated: true,
  schema: argsObject({ id: z.optional(idField), markdown: text(120000).check(z.minLength(1)), title: z.optional(text(200)), version: z.optional(versionField) }),
  invocationMessage: (i) => `Replacing the Markdown of ${i.id ?? 'the active plan'}`,
  confirmation: (i) => ({ title: 'Replace the plan\'s Markdown?', message: `The whole body of ${i.id ?? 'the active plan'} is replaced (a proposed plan stays proposed; an executing plan gets a revision).` }),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      const { doc, revision } = await revisePlan(placeOf(ctx, store), id, i.markdown, { title: i.title }, { actor: 'agent', expectedVersion: i.version });
      if (revision) return result(revision, `${id} was executing: this is its revision ${revision.fm.id} (proposed, done steps kept); ${id} is now superseded.`);
      return result(doc, 'Markdown replaced.');
    }),
});
