import { z } from 'zod';
import { setContent } from '../core';
import { defineTool, guarded, idField, locate, result, text, versionField } from './toolkit';

export const setContentTool = defineTool({
  name: 'pi_plan_set_content',
  displayName: 'Replace Plan Markdown',
  toolReferenceName: 'planSetContent',
  userDescription: 'Replace a plan\'s whole Markdown body.',
  modelDescription:
    'Replace the whole Markdown body of a plan (## Goal, ## Steps as "1. [ ] S001 text (tool: op → target)", other sections). Keep existing step ids; new steps may omit ids. Draft/proposed: overwritten. Rejected -> draft; approved -> back to proposed. Executing: creates a revision (new plan id, proposed, done steps kept) and supersedes the old one. No frontmatter; title is separate.',
  icon: '$(replace-all)',
  gated: true,
  schema: z.object({ id: idField.optional(), markdown: text(120000).min(1), title: text(200).optional(), version: versionField.optional() }),
  invocationMessage: (i) => `Replacing the Markdown of ${i.id ?? 'the active plan'}`,
  confirmation: (i) => ({ title: 'Replace the plan\'s Markdown?', message: `The whole body of ${i.id ?? 'the active plan'} is replaced (a proposed plan stays proposed; an executing plan gets a revision).` }),
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      const newId = store.newPlanId();
      const { doc, result: r } = await store.update(id, 'agent', (d, c) => setContent(d, i.markdown, c, { title: i.title, revisionId: newId }), { expectedVersion: i.version });
      const created = r.created?.[0];
      if (created) {
        const rev = await store.read(created.id);
        const folder = ctx.active.list().find((a) => a.id === id)?.folder ?? ctx.stores.folders().find((f) => f.store === store)?.name ?? '';
        await ctx.active.clear(id);
        await ctx.active.set(created.id, folder);
        return result(rev, `${id} was executing: this is its revision ${created.id} (proposed, done steps kept); ${id} is now superseded.`);
      }
      return result(doc, 'Markdown replaced.');
    }),
});
