import { applyEdits, BodyEdit, parsePlan, PlanDocument, PlacedStep } from '../format/document';
import { PlanError } from '../limits/errors';
import { isFinished } from '../format/policy';
import { FrontmatterValue } from '../format/frontmatter';
import { nextStatus } from '../format/lifecycle';
import { LIMITS } from '../limits/limits';
import { SectionName } from '../format/schema';
import { oneLine, renderStepItem, Step } from '../format/steps';
import { detailsWithDeps, FieldsInput, NewStep, OpContext, OpResult, SECTION_KEYS, SectionsInput, checkDetails, checkNewStep, createPlanText, editPatch, ensureStepIds, findStep, rebuildSteps, result, sectionBody, sectionEdit, stamp, stepEdits, withEol, withShiftedOutline, keepReviewHistory, reviewHistory, stripReviewHistory } from './opsShared';

// ---------- content edits ----------

export type StepOp =
  | ({ op: 'add'; after?: string } & NewStep)
  | { op: 'update'; id: string; text?: string; tool?: string; operation?: string; target?: string; details?: string; dependsOn?: readonly string[] }
  | { op: 'remove'; id: string }
  | { op: 'move'; id: string; after?: string };

/** Adds, updates, removes or moves a step by id. Ids are never reused (the counter is in `step_seq`). */
export function editStep(input: PlanDocument, op: StepOp, ctx: OpContext): OpResult {
  let doc = input;
  const patch = editPatch(doc, ctx);
  doc = ensureStepIds(doc);
  if (op.op === 'update') {
    const s = findStep(doc, op.id);
    const details = op.dependsOn === undefined ? op.details : detailsWithDeps({ details: op.details ?? s.details, dependsOn: op.dependsOn });
    const upd = { ...s, text: op.text ?? s.text, tool: op.tool ?? s.tool, operation: op.operation ?? s.operation, target: op.target ?? s.target, details: details ?? s.details };
    if (op.text === undefined && op.tool === undefined && op.operation === undefined && op.target === undefined && details === undefined && op.dependsOn === undefined) {
      throw new PlanError('INVALID_INPUT', `nothing to update for ${op.id}: give text, tool, operation, target, details or depends_on`);
    }
    checkNewStep(upd);
    checkDetails(details, s.id);
    // The header line is rendered anew; the lines under it only when new details were given.
    const it = doc.outline.steps[s.index];
    const rendered = renderStepItem(upd, s.bullet, doc.eol);
    const headerEnd = rendered.indexOf(doc.eol);
    const edits: BodyEdit[] = [{ start: it.start, end: it.lineEnd, text: headerEnd === -1 ? rendered : rendered.slice(0, headerEnd) }];
    if (details !== undefined || op.dependsOn !== undefined) edits.push({ start: it.lineEnd, end: it.end, text: headerEnd === -1 ? '' : rendered.slice(headerEnd) });
    const text = applyEdits(doc, { ...stamp(input, ctx), ...patch }, edits).text;
    return result(input, keepReviewHistory(input, text), 'edit', { step: s.id });
  }
  const seq: { step: Omit<Step, 'hasId'>; from?: PlacedStep }[] = doc.steps.map((s) => ({ step: s, from: s }));
  let stepSeq = doc.fm.step_seq ?? 0;
  let stepId: string;
  const indexOfAfter = (after: string | undefined) => {
    if (after === undefined) return seq.length;
    if (after === 'start') return 0;
    findStep(doc, after);
    return seq.findIndex((e) => e.step.id === after) + 1;
  };
  if (op.op === 'add') {
    const details = detailsWithDeps(op);
    checkNewStep({ ...op, details });
    checkDetails(details);
    if (doc.steps.length >= LIMITS.steps) throw new PlanError('TOO_LARGE', `${doc.fm.id} has ${LIMITS.steps} steps, the limit: split the work into another plan`);
    stepId = `S${String(++stepSeq).padStart(3, '0')}`;
    const at = indexOfAfter(op.after);
    seq.splice(at, 0, { step: { id: stepId, status: 'pending', text: oneLine(op.text), tool: op.tool, operation: op.operation, target: op.target, details } });
  } else if (op.op === 'remove') {
    const s = findStep(doc, op.id);
    stepId = s.id;
    seq.splice(seq.findIndex((e) => e.step.id === s.id), 1);
  } else {
    const s = findStep(doc, op.id);
    stepId = s.id;
    if (op.after === s.id) throw new PlanError('INVALID_INPUT', `cannot move ${s.id} after itself: name another step, or "start"`);
    const [moved] = seq.splice(seq.findIndex((e) => e.step.id === s.id), 1);
    const at = indexOfAfter(op.after);
    seq.splice(at, 0, moved);
  }
  const text = rebuildSteps(doc, seq, { ...stamp(input, ctx), ...patch, step_seq: stepSeq });
  return result(input, keepReviewHistory(input, text), 'edit', { step: stepId });
}

/** Sets metadata sections and fields. Each given section replaces the old one whole. */
export function setMetadata(input: PlanDocument, sections: SectionsInput, fields: FieldsInput, ctx: OpContext): OpResult {
  const doc = input;
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), ...editPatch(doc, ctx) };
  if (fields.title !== undefined) {
    const t = oneLine(fields.title);
    if (!t) throw new PlanError('INVALID_INPUT', 'the title cannot be empty');
    if (t.length > LIMITS.title) throw new PlanError('TOO_LARGE', `the title is over ${LIMITS.title} characters: shorten it`);
    patch.title = t;
  }
  for (const k of ['planner_model', 'executor_model'] as const) {
    if (fields[k] !== undefined) patch[k] = oneLine(fields[k]!).slice(0, LIMITS.shortField) || undefined;
  }
  if (fields.tools_required !== undefined) patch.tools_required = fields.tools_required.length ? [...fields.tools_required] : undefined;
  const edits: { name: SectionName; body: string }[] = [];
  for (const k of Object.keys(SECTION_KEYS) as (keyof SectionsInput)[]) {
    const v = sections[k];
    if (v === undefined) continue;
    const body = sectionBody(v);
    const cap = k === 'context' ? LIMITS.contextBytes : LIMITS.section;
    if (body.length > cap) throw new PlanError('TOO_LARGE', `${SECTION_KEYS[k]} is over ${cap} characters${k === 'context' ? `: put large context in .pi/plans/artifacts/${doc.fm.id}/ and link it` : ': shorten it'}`);
    edits.push({ name: SECTION_KEYS[k], body });
  }
  // Every section's edit is computed against the same document and applied at once (one parse, in
  // result). Insertions at the same place keep the usual section order; a removal there goes first.
  const byStart = new Map<string, BodyEdit>();
  for (const e of edits) {
    const edit = sectionEdit(doc, e.name, e.body);
    if (edit.start === edit.end && !edit.text) continue;
    const key = edit.start === edit.end ? `insert@${edit.start}` : `${edit.start}-${edit.end}`;
    const prev = byStart.get(key);
    // Two appends at the end of the body: the second follows the first as it would after it.
    byStart.set(key, prev ? { ...prev, text: (edit.start === edit.end ? prev.text : prev.text.replace(/\s+$/, '')) + edit.text } : edit);
  }
  const ordered = [...byStart.values()].sort((a, b) => b.start - a.start || b.end - a.end);
  let body = doc.body;
  for (const e of ordered) body = body.slice(0, e.start) + e.text + body.slice(e.end);
  const text = applyEdits(doc, patch, [{ start: 0, end: doc.body.length, text: body }]).text;
  return result(input, keepReviewHistory(input, text), 'edit');
}

/** The bodies `setContent` writes: in place (`newBody`) or, for an executing plan, its revision's (`revBody`). */
function contentBodies(doc: PlanDocument, markdown: string): { newBody: string; revBody: string } {
  const md = markdown.replace(/^\ufeff/, '');
  if (/^---[ \t]*\r?\n/.test(md)) {
    throw new PlanError('INVALID_INPUT', 'send the Markdown body only, without a "---" frontmatter block: the fields (id, status, version...) are managed for you; set the title with the title parameter');
  }
  if (md.length > LIMITS.fileBytes / 2) throw new PlanError('TOO_LARGE', `the Markdown is over ${LIMITS.fileBytes / 2} characters: split the plan`);
  const eol = doc.eol;
  // The review history is not the author's to rewrite: drop any `## Rejection` sections sent,
  // and keep the plan's own at the end.
  const history = reviewHistory(doc);
  const sent = stripReviewHistory(md.trim());
  const newBody = `${eol}${withEol(sent, eol)}${eol}${history ? `${eol}${withEol(history, eol)}${eol}` : ''}`;
  // A revision is a new file: LF line ends, no BOM, no review history of its own.
  const revBody = `\n${sent.replace(/\r\n/g, '\n')}\n`;
  return { newBody, revBody };
}

/**
 * The plan body `setContent(doc, markdown)` will parse, so that a caller can have its Markdown
 * parse done elsewhere first (the extension host's worker thread). Empty for input it refuses.
 */
export function setContentBodies(doc: PlanDocument, markdown: string): string[] {
  try {
    const b = contentBodies(doc, markdown);
    return [doc.fm.status === 'executing' ? b.revBody : b.newBody];
  } catch {
    return [];
  }
}

/**
 * Replaces the whole body Markdown (seed 000's plan_set_content). Draft and proposed plans are
 * overwritten (proposed stays proposed); rejected goes back to draft; approved back to proposed.
 * An executing plan is not changed in place: a revision is created (a new plan, proposed, with
 * done steps carried over) and the old plan becomes superseded, linked both ways.
 */
export function setContent(doc: PlanDocument, markdown: string, ctx: OpContext, opts: { title?: string; revisionId?: string } = {}): OpResult {
  const { newBody, revBody } = contentBodies(doc, markdown);
  if (doc.fm.status === 'executing') {
    if (!opts.revisionId) throw new PlanError('INVALID_INPUT', 'a revision needs a new plan id');
    nextStatus(doc.fm.id, doc.fm.status, 'revise', ctx.actor);
    const carried = new Map(doc.steps.filter((s) => isFinished(s.status)).map((s) => [s.id, s.status]));
    const created = createPlanText({ id: opts.revisionId, title: opts.title ?? doc.fm.title, status: 'proposed', planner_model: doc.fm.planner_model, executor_model: doc.fm.executor_model, tools_required: doc.fm.tools_required }, ctx.now);
    const base = parsePlan(created);
    let rev = ensureStepIds(parsePlan(applyEdits(base, { supersedes: doc.fm.id, step_seq: Math.max(doc.fm.step_seq ?? 0, 0) }, [{ start: 0, end: base.body.length, text: revBody }]).text));
    const carry = rev.steps.filter((s) => carried.has(s.id) && s.status !== carried.get(s.id));
    if (carry.length) {
      rev = withShiftedOutline(rev, {}, carry.flatMap((s) => stepEdits(rev, s, { status: carried.get(s.id)! })));
    }
    const old = applyEdits(doc, { ...stamp(doc, ctx), status: 'superseded', superseded_by: opts.revisionId, execution_ended_at: ctx.now }).text;
    return result(doc, old, 'status', { created: [{ id: opts.revisionId, text: keepReviewHistory(undefined, rev.text, doc) }] });
  }
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), ...editPatch(doc, ctx) };
  if (opts.title !== undefined) {
    const t = oneLine(opts.title);
    if (!t || t.length > LIMITS.title) throw new PlanError('INVALID_INPUT', `the title must be 1 to ${LIMITS.title} characters`);
    patch.title = t;
  }
  const replaced = parsePlan(applyEdits(doc, patch, [{ start: 0, end: doc.body.length, text: newBody }]).text);
  // Steps written without ids get new ones from the counter; ids the model kept stay.
  const normalized = ensureStepIds(replaced);
  return result(doc, keepReviewHistory(doc, normalized.text), 'edit');
}
