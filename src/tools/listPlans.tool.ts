import * as z from 'zod/mini';
import { PLAN_STATUSES } from '../core';
import { argsObject } from './arguments';
import { attentionNote, defineTool, guarded } from './toolkit';

export const listPlansTool = defineTool({
  name: 'pi_plan_list',
  displayName: 'List Plans',
  toolReferenceName: 'planList',
  userDescription: 'List the plans of the workspace, optionally by status.',
  modelDescription: 'List plans (id, status, version, steps done, title), optionally by status; invalid files with their reason.',
  icon: '$(list-unordered)',
  gated: false,
  readOnly: true,
  schema: argsObject({ status: z.optional(z.array(z.enum(PLAN_STATUSES)).check(z.maxLength(11))) }),
  invocationMessage: (i) => `Listing plans${i.status?.length ? ` (${i.status.join(', ')})` : ''}`,
  run: (i, ctx) =>
    guarded(undefined, async () => {
      const active = new Set(ctx.active.list().map((a) => a.id));
      const rows: string[] = [];
      // A row names its flag ("stalled"); what each flag means and the call that answers it is said
      // once, after the rows: a folder with thousands of flagged plans repeats no explanation.
      const notes = new Set<string>();
      for (const { name, store } of ctx.stores.folders()) {
        const entries = store.list({ status: i.status });
        const flags = await store.attentionOfAll(entries);
        for (const [k, e] of entries.entries()) {
          const note = attentionNote(flags[k]);
          if (note) notes.add(note);
          const flag = note?.slice(0, note.indexOf(':'));
          rows.push(
            e.valid
              ? `- ${e.id}${active.has(e.id) ? ' (active)' : ''} · ${e.status} · v${e.version} · ${e.stepsDone}/${e.steps} steps · ${JSON.stringify(e.title)} · ${name}${flag ? ` · ${flag}` : ''}`
              : `- ${e.id} · INVALID (${e.error?.message}${e.error?.line ? `, line ${e.error.line}` : ''}) · ${name}`,
          );
        }
      }
      const legend = notes.size ? `\n\n${[...notes].map((n) => `${n.charAt(0).toUpperCase()}${n.slice(1)}.`).join('\n')}` : '';
      return rows.length ? `${rows.length === 1 ? '1 plan' : `${rows.length} plans`}:\n${rows.join('\n')}${legend}` : `No plans${i.status?.length ? ` with status ${i.status.join(', ')}` : ''}. Create one with pi_plan_create.`;
    }),
});
