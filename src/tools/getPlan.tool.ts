import * as z from 'zod/mini';
import { analyze, openReview, rejectionTitle, SECTION_NAMES } from '../core';
import { approvalSuggestions, asData, attentionNote, bodyFor, commentLines, defineTool, guarded, header, idField, locate, nextAction } from './toolkit';

export const getPlanTool = defineTool({
  name: 'pi_plan_get',
  displayName: 'Read Plan',
  toolReferenceName: 'planGet',
  userDescription: 'Read a plan: its status, version, steps and sections.',
  modelDescription:
    'Read a plan (the active plan when no id is given): status, version, step ids and statuses, and its Markdown as data. Use it to reload after context loss or a version conflict. section reads one section of a large plan.',
  icon: '$(book)',
  gated: false,
  readOnly: true,
  schema: z.object({ id: z.optional(idField), section: z.optional(z.enum([...SECTION_NAMES, 'Rejection'])) }),
  invocationMessage: (i) => `Reading ${i.id ?? 'the active plan'}`,
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id);
      const doc = await store.read(id);
      const rejections = doc.rejections.length ? `Review history: ${doc.rejections.map((r) => `rejected at v${r.version}`).join(', ')} (feedback in the data).` : undefined;
      const approved = doc.fm.approved_by ? `Approved by ${doc.fm.approved_by} at v${doc.fm.approved_version}.` : undefined;
      const entry = store.entry(id);
      const flag = attentionNote(entry ? await store.attention(entry) : undefined);
      const attention = flag ? `Attention: ${flag}.` : undefined;
      // The same problems the editor's Problems view and `pi-plans validate` show (notes left out).
      const found = analyze(doc.text, { config: store.config }).problems.filter((p) => p.severity !== 'info');
      const problems = found.length ? `Problems: ${found.map((p) => `line ${p.line}: ${p.message}`).join('; ')}.` : undefined;
      // The last review's comments, beside the steps they concern, while its decision stands.
      const open = openReview(doc);
      const comments =
        open?.kind === 'approval'
          ? approvalSuggestions(doc, open.version, open.notes.comments)
          : open?.notes.comments.length
            ? [`Review comments to act on (rejection of v${open.version}); revise, then pi_plan_submit:`, ...commentLines(doc, open.notes.comments)].join('\n')
            : undefined;
      const section = i.section === 'Rejection' ? doc.rejections.map((r) => `## ${rejectionTitle(r.version)}\n${r.feedback}`).join('\n\n') || '(no rejections)' : bodyFor(doc, i.section);
      return [header(doc), approved, attention, problems, rejections, comments, nextAction(doc), asData(doc, section)].filter(Boolean).join('\n');
    }),
});
