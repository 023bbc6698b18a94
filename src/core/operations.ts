import {
  applyEdits,
  BodyEdit,
  findSection,
  parsePlan,
  PlanDocument,
  PlacedStep,
  rememberOutline,
  rememberStepsAfterEdit,
  sectionText,
  frontmatterOfPlan,
  stepIdFacts,
} from './document';
import { APPROVAL_FIELDS, APPROVAL_GOVERNS, approvalPayload, approvalStanding, ApprovalKeyring, ApprovalSigner, contentDigest, notesDigest, sameContent, shortDigest, standingProblem } from './approval';
import { PlanError } from './errors';
import { isFinished, isReviewHistoryHeadingLine, isReviewHistoryTitle, rejectionTitle } from './policy';
import { comparePlans, describeComparison } from './review';
import { formatReviewNotes, normalizeComments, ReviewComment, ReviewInputError } from './review';
import { FrontmatterValue, stringifyEntry } from './frontmatter';
import { nextStatus, PlanAction } from './lifecycle';
import { LIMITS } from './limits';
import { lineStartAt, shiftOutline } from './outline';
import {
  Actor,
  DEFAULT_CONFIG,
  Frontmatter,
  FRONTMATTER_KEYS,
  PlansConfig,
  PlanStatus,
  SECTION_NAMES,
  SectionName,
  StepStatus,
} from './schema';
import { diffEdits, TextEdit } from './textEdits';
import { contentIndent, inNoteForm, noteLineOf, oneLine, renderNoteLine, renderStepItem, rewriteHeader, Step } from './steps';

/** Who acts and when. Time is passed in: the core has no clock. */
export interface OpContext {
  /** ISO 8601 time of the operation. */
  now: string;
  actor: Actor;
  config?: PlansConfig;
  /** The user's application-scoped opt-in that lets an agent approve. */
  agentMayApprove?: boolean;
  /**
   * How approvals are checked and signed here: the keyring every transition that runs a plan
   * consults (start, resume, marks, completion, resubmission), and the signer an approval uses.
   * Without a keyring no approval is ever valid.
   */
  approvals?: { keyring?: ApprovalKeyring; signer?: ApprovalSigner };
}

/**
 * What an operation produced: the new text of the plan and its parse, the edits that turn the
 * text it was given into it (whole changed lines only: an editor applies them as one undoable
 * edit), and what happened (for the checkpoint log).
 */
export interface OpResult {
  text: string;
  /** The new text, parsed. */
  readonly doc?: PlanDocument;
  /** Replacements of the changed lines of the text the operation was given. */
  readonly edits?: readonly TextEdit[];
  status: PlanStatus;
  /** A checkpoint `type` for this event, e.g. `step`, `status`. */
  event: string;
  /** The step acted on, if any. */
  step?: string;
  /** A mark's new status of that step (the checkpoint logs it, not the plan's). */
  stepStatus?: StepStatus;
  note?: string;
  /** Plans created by this operation (a revision), with their text. */
  created?: { id: string; text: string }[];
  /** True when marking the last open step completed the plan. */
  autoCompleted?: boolean;
}

/** Fields of a new step. */
export interface NewStep {
  text: string;
  tool?: string;
  operation?: string;
  target?: string;
  details?: string;
}

/** Metadata a plan carries in sections (lists are written as `- item` lines). */
export interface SectionsInput {
  goal?: string;
  assumptions?: string | readonly string[];
  risks?: string | readonly string[];
  verification?: string | readonly string[];
  files?: string | readonly string[];
  context?: string;
}

/** Frontmatter fields a plan author may set. */
export interface FieldsInput {
  title?: string;
  planner_model?: string;
  executor_model?: string;
  tools_required?: readonly string[];
}

export interface CreateInput extends SectionsInput, FieldsInput {
  id: string;
  title: string;
  steps?: readonly NewStep[];
  status?: 'draft' | 'proposed';
}

const SECTION_KEYS: Record<keyof SectionsInput, SectionName> = {
  goal: 'Goal',
  assumptions: 'Assumptions',
  risks: 'Risks',
  verification: 'Verification',
  files: 'Files',
  context: 'Context',
};

function sectionBody(v: string | readonly string[]): string {
  if (typeof v === 'string') return v.replace(/\r\n/g, '\n').trim();
  return v.map((i) => `- ${oneLine(i)}`).join('\n');
}

function withEol(s: string, eol: string): string {
  return eol === '\n' ? s : s.replace(/\r?\n/g, eol);
}

/** What a refusal of text in the store's note form says (the tools and the author's operations). */
const NOTE_FORM_REFUSED =
  '"> Note:" lines under a step are the form execution notes are written in (pi_plan_execute op=mark writes them, and an approval does not cover them), so a plan\'s text cannot carry one';

/** Refuses details sent for a step with a line that would read as the store's note (see `noteLineOf`). */
function checkDetails(details: string | undefined, step?: string): void {
  if (details !== undefined && details.split(/\r?\n/).some(inNoteForm)) {
    throw new PlanError('INVALID_INPUT', `${NOTE_FORM_REFUSED}${step ? ` (${step})` : ''}: write that line another way, e.g. "> Warning: …", and send it again`);
  }
}

function checkNewStep(s: NewStep): void {
  if (!s.text || !s.text.trim()) throw new PlanError('INVALID_INPUT', 'a step needs text: say what the step does');
  if (oneLine(s.text).length > LIMITS.stepText) throw new PlanError('TOO_LARGE', `step text is over ${LIMITS.stepText} characters: shorten it and put detail in "details"`);
  if ((s.details ?? '').length > LIMITS.stepDetails) throw new PlanError('TOO_LARGE', `step details are over ${LIMITS.stepDetails} characters: shorten them`);
  if ((s.tool && !s.operation) || (!s.tool && s.operation)) throw new PlanError('INVALID_INPUT', 'give both "tool" and "operation" for a step annotation, or neither');
  if (s.target !== undefined && !/^(?:[^()\r\n]|\([^()\r\n]*\))+$/.test(s.target.trim())) {
    throw new PlanError('INVALID_INPUT', `the target "${oneLine(s.target).slice(0, 60)}" must be one line with parentheses only in pairs; rewrite it`);
  }
  for (const w of [s.tool, s.operation]) {
    if (w !== undefined && !/^[^\s():]{1,60}$/.test(w)) throw new PlanError('INVALID_INPUT', `"${w}" must be one word (no spaces, colons or parentheses)`);
  }
}

/** The text of a new plan file (LF line ends), built from its parts. */
export function createPlanText(input: CreateInput, now: string): string {
  const steps = input.steps ?? [];
  steps.forEach(checkNewStep);
  steps.forEach((st) => checkDetails(st.details));
  if (steps.length > LIMITS.steps) throw new PlanError('TOO_LARGE', `at most ${LIMITS.steps} steps in one plan: split it`);
  const fm: Partial<Frontmatter> = {
    id: input.id,
    title: oneLine(input.title),
    status: input.status ?? 'draft',
    version: 1,
    created_at: now,
    updated_at: now,
    planner_model: input.planner_model,
    tools_required: input.tools_required?.length ? [...input.tools_required] : undefined,
    executor_model: input.executor_model,
    step_seq: steps.length,
  };
  const head = FRONTMATTER_KEYS.filter((k) => fm[k] !== undefined)
    .map((k) => stringifyEntry(k, fm[k] as FrontmatterValue, '\n'))
    .join('\n');
  const sections: string[] = [];
  for (const name of SECTION_NAMES) {
    if (name === 'Steps') {
      if (steps.length) {
        const items = steps.map((s, i) =>
          renderStepItem({ ...s, id: `S${String(i + 1).padStart(3, '0')}`, status: 'pending' }, `${i + 1}.`, '\n'),
        );
        sections.push(`## Steps\n${items.join('\n')}\n`);
      }
      continue;
    }
    const key = (Object.keys(SECTION_KEYS) as (keyof SectionsInput)[]).find((k) => SECTION_KEYS[k] === name)!;
    const v = input[key];
    if (v !== undefined && sectionBody(v)) sections.push(`## ${name}\n${sectionBody(v)}\n`);
  }
  const text = `---\n${head}\n---\n\n${sections.join('\n')}`;
  return keepReviewHistory(undefined, text);
}

// ---------- helpers shared by the operations ----------

function cfg(ctx: OpContext): PlansConfig {
  return ctx.config ?? DEFAULT_CONFIG;
}

function stamp(doc: PlanDocument, ctx: OpContext, patch: Record<string, FrontmatterValue | undefined> = {}) {
  return { ...patch, version: doc.fm.version + 1, updated_at: ctx.now };
}

/** The frontmatter patch that voids an approval: every field of its record removed. */
const APPROVAL_CLEARED: Readonly<Record<string, undefined>> = Object.fromEntries(APPROVAL_FIELDS.map((k) => [k, undefined]));

/** True when a document carries any field of an approval record. */
function hasApprovalRecord(doc: PlanDocument): boolean {
  return APPROVAL_FIELDS.some((k) => doc.fm[k] !== undefined);
}

/** Status patch for a content edit: rejected -> draft, approved -> proposed (approval void). */
function editPatch(doc: PlanDocument, ctx: OpContext): Record<string, FrontmatterValue | undefined> {
  const to = nextStatus(doc.fm.id, doc.fm.status, 'edit', ctx.actor);
  const patch: Record<string, FrontmatterValue | undefined> = {};
  if (to !== doc.fm.status) patch.status = to;
  if (hasApprovalRecord(doc)) Object.assign(patch, APPROVAL_CLEARED);
  return patch;
}

/**
 * Refuses an operation's new text with a NUL byte: the plan it started from had none (a file with
 * one does not read), so it came with the caller's values; the caller is told, not sent to fix a
 * file that is fine.
 */
function refuseNulInput(text: string): void {
  if (text.lastIndexOf('\u0000') !== -1) throw new PlanError('INVALID_INPUT', 'a value sent contains a NUL byte: plans are text; send it again without it');
}

/**
 * An operation's result. `contentOf`: a document whose content the result has (the operation
 * changed only execution state: statuses, notes, times), so the new document's content digest is
 * known without hashing the whole text again.
 */
function result(input: PlanDocument, text: string, event: string, extra: Partial<OpResult> = {}, contentOf?: PlanDocument): OpResult {
  let doc: PlanDocument | undefined;
  let edits: TextEdit[] | undefined;
  refuseNulInput(text);
  // Only the frontmatter is read now; the parse of the body (a Markdown parse when its outline is
  // not known) waits until the result is asked for, so a caller can have it computed elsewhere.
  const status = frontmatterOfPlan(text).status;
  return {
    text,
    status,
    event,
    ...extra,
    get doc() {
      if (!doc) {
        doc = parsePlan(text);
        if (contentOf) sameContent(contentOf, doc);
      }
      return doc;
    },
    // Computed when asked for: the store writes the text and never needs them.
    get edits() {
      return (edits ??= diffEdits(input.text, text));
    },
  };
}

/** A copy of the document whose steps all carry ids (pi-planner steps get theirs on the first write). */
export function ensureStepIds(doc: PlanDocument): PlanDocument {
  const { anyMissing, maxId } = stepIdFacts(doc.steps);
  if (!anyMissing && (doc.fm.step_seq ?? 0) >= maxId) return doc;
  const missing = doc.steps.filter((s) => !s.hasId);
  const edits = missing.flatMap((s) => stepEdits(doc, s, { addId: true }));
  return withShiftedOutline(doc, { step_seq: Math.max(doc.fm.step_seq ?? 0, maxId) }, edits);
}

/**
 * Applies edits of step header and note lines only (ids, statuses, notes) and parses the result
 * without a Markdown parse: such edits keep the block structure, so the outline is shifted (the
 * property tests hold it equal to a fresh parse).
 */
function withShiftedOutline(doc: PlanDocument, fmPatch: Record<string, FrontmatterValue | undefined>, edits: BodyEdit[]): PlanDocument {
  const { text, body } = applyEdits(doc, fmPatch, edits);
  rememberOutline(body, shiftOutline(doc.outline, edits, body), doc.outline);
  return parsePlan(text);
}

/**
 * The edits that give a step a new status, its id, or a new note, on the step's own lines: the
 * header line (checkbox, id, marker) and its note line. Details, blank lines, nested lists, code
 * fences and everything else stay byte for byte. `note: null` removes the note.
 */
function stepEdits(doc: PlanDocument, s: PlacedStep, change: { status?: StepStatus; addId?: boolean; note?: string | null }): BodyEdit[] {
  const it = doc.outline.steps[s.index];
  const body = doc.body;
  const edits: BodyEdit[] = [];
  const header = body.slice(it.start, it.lineEnd);
  const next = rewriteHeader(header, change.status ?? s.status, change.addId && !s.hasId ? s.id : undefined);
  if (next !== header) edits.push({ start: it.start, end: it.lineEnd, text: next });
  if (change.note === undefined) return edits;
  // The note is the store's own last line (see `noteLineOf`): replaced, removed or added after the
  // item's last line. Every other line, a `>` quote of the author's included, stays as it is.
  const line = change.note ? renderNoteLine(change.note, contentIndent(header)) : undefined;
  const note = it.end > it.lineEnd ? noteLineOf(body.slice(it.start, it.end)) : undefined;
  if (!note) {
    if (line) edits.push({ start: it.end, end: it.end, text: doc.eol + line });
  } else if (line) edits.push({ start: it.start + note.start, end: it.end, text: line });
  else edits.push({ start: it.start + note.sep, end: it.end, text: '' }); // the whole line, with the break before it
  return edits;
}

function findStep(doc: PlanDocument, id: string): PlacedStep {
  const s = doc.steps.find((x) => x.id === id);
  if (!s) {
    const ids = doc.steps.map((x) => x.id);
    throw new PlanError(
      'NOT_FOUND',
      `${doc.fm.id} has no step ${id}${ids.length ? ` (its steps: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', ...' : ''})` : ' (it has no steps yet)'}: read the plan for the current step ids`,
    );
  }
  return s;
}

/** A step item's lines as written, renumbered to `bullet` (continuation lines follow a wider or narrower bullet). */
export function renumbered(block: string, from: string, bullet: string): string {
  const m = /^([ \t]*)(\S+)/.exec(block);
  if (!m || m[2] !== from || from === bullet) return block;
  const delta = bullet.length - from.length;
  const first = block.indexOf('\n');
  const head = m[1] + bullet + block.slice(m[0].length, first === -1 ? block.length : first);
  if (first === -1) return head;
  const indent = m[1].length + from.length + 1;
  // Lines indented into the item move with its content; other lines (lazy ones, blank ones) stay.
  const rest = block.slice(first).replace(/\n([ ]+)(?=\S)/g, (all, sp: string) => {
    if (sp.length < indent) return all;
    return '\n' + (delta > 0 ? sp + ' '.repeat(delta) : sp.slice(0, Math.max(indent + delta, sp.length + delta)));
  });
  return head + rest;
}

/**
 * Re-lays the Steps list as `seq`. Existing items keep their lines as written (with their blank
 * lines), renumbered where their position changed; new items are rendered.
 */
function rebuildSteps(
  doc: PlanDocument,
  seq: readonly { step: Omit<Step, 'hasId'>; from?: PlacedStep }[],
  patch: Record<string, FrontmatterValue | undefined>,
): string {
  const items = doc.outline.steps;
  const body = doc.body;
  const eol = doc.eol;
  const first = doc.steps[0];
  const ordered = items.length ? items[0].ordered : true;
  const m = first ? /^(\d+)([.)])$/.exec(first.bullet) : null;
  const startNum = m ? Number(m[1]) : 1;
  const delim = m ? m[2] : '.';
  const blockOf = (i: number) => body.slice(lineStartAt(body, items[i].start), i + 1 < items.length ? lineStartAt(body, items[i + 1].start) : items[i].end);
  const pieces = seq.map((e, i) => {
    const bullet = ordered ? `${startNum + i}${delim}` : (e.from?.bullet ?? first?.bullet ?? '-');
    if (e.from) return renumbered(blockOf(e.from.index), e.from.bullet, bullet);
    return renderStepItem(e.step, bullet, eol);
  });
  // Every piece but the last ends with a line break; the last ends where the old list ended.
  const text = pieces
    .map((p, i) => (i + 1 < pieces.length ? (p.endsWith('\n') ? p : p + eol) : p.replace(/(?:\r?\n[ \t]*)+$/, '')))
    .join('');
  if (items.length) return applyEdits(doc, patch, [{ start: lineStartAt(body, items[0].start), end: items[items.length - 1].end, text }]).text;
  return setSectionText(doc, 'Steps', text, patch);
}

/** Sets a `##` section's content (creating the section in its usual place when absent). */
function setSectionText(doc: PlanDocument, name: SectionName, content: string, patch: Record<string, FrontmatterValue | undefined>): string {
  return applyEdits(doc, patch, [sectionEdit(doc, name, content)]).text;
}

function sectionEdit(doc: PlanDocument, name: SectionName, content: string): BodyEdit {
  const eol = doc.eol;
  const c = withEol(content.trim(), eol);
  const sec = findSection(doc, name);
  if (sec) {
    const isLast = sec.end >= doc.body.length;
    if (!c) {
      // An emptied section is removed with its heading.
      return { start: sec.headingStart, end: sec.end, text: '' };
    }
    return { start: sec.start, end: sec.end, text: `${eol}${c}${eol}${isLast ? '' : eol}` };
  }
  if (!c) return { start: 0, end: 0, text: '' };
  // Insert before the first section that comes later in the usual order, or before the review history.
  const order = SECTION_NAMES.indexOf(name);
  const later = doc.outline.sections.find((s) => {
    const i = SECTION_NAMES.findIndex((n) => n.toLowerCase() === s.title.toLowerCase());
    return (i > order && s.depth === 2) || (s.depth === 2 && isReviewHistoryTitle(s.title));
  });
  const block = `## ${name}${eol}${c}${eol}`;
  if (later) return { start: later.start, end: later.start, text: `${block}${eol}` };
  const body = doc.body;
  const trimmedEnd = body.replace(/\s+$/, '').length;
  const lead = trimmedEnd === 0 ? eol : `${eol}${eol}`;
  return { start: trimmedEnd, end: body.length, text: `${lead}${block}` };
}

// ---------- content edits ----------

export type StepOp =
  | ({ op: 'add'; after?: string } & NewStep)
  | { op: 'update'; id: string; text?: string; tool?: string; operation?: string; target?: string; details?: string }
  | { op: 'remove'; id: string }
  | { op: 'move'; id: string; after?: string };

/** Adds, updates, removes or moves a step by id. Ids are never reused (the counter is in `step_seq`). */
export function editStep(input: PlanDocument, op: StepOp, ctx: OpContext): OpResult {
  let doc = input;
  const patch = editPatch(doc, ctx);
  doc = ensureStepIds(doc);
  if (op.op === 'update') {
    const s = findStep(doc, op.id);
    const upd = { ...s, text: op.text ?? s.text, tool: op.tool ?? s.tool, operation: op.operation ?? s.operation, target: op.target ?? s.target, details: op.details ?? s.details };
    if (op.text === undefined && op.tool === undefined && op.operation === undefined && op.target === undefined && op.details === undefined) {
      throw new PlanError('INVALID_INPUT', `nothing to update for ${op.id}: give text, tool, operation, target or details`);
    }
    checkNewStep(upd);
    checkDetails(op.details, s.id);
    // The header line is rendered anew; the lines under it only when new details were given.
    const it = doc.outline.steps[s.index];
    const rendered = renderStepItem(upd, s.bullet, doc.eol);
    const headerEnd = rendered.indexOf(doc.eol);
    const edits: BodyEdit[] = [{ start: it.start, end: it.lineEnd, text: headerEnd === -1 ? rendered : rendered.slice(0, headerEnd) }];
    if (op.details !== undefined) edits.push({ start: it.lineEnd, end: it.end, text: headerEnd === -1 ? '' : rendered.slice(headerEnd) });
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
    checkNewStep(op);
    checkDetails(op.details);
    if (doc.steps.length >= LIMITS.steps) throw new PlanError('TOO_LARGE', `${doc.fm.id} has ${LIMITS.steps} steps, the limit: split the work into another plan`);
    stepId = `S${String(++stepSeq).padStart(3, '0')}`;
    const at = indexOfAfter(op.after);
    seq.splice(at, 0, { step: { id: stepId, status: 'pending', text: oneLine(op.text), tool: op.tool, operation: op.operation, target: op.target, details: op.details } });
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

/** The review history (`## Rejection (vN)`, `## Approval (vN)` sections) of a plan, in order, as text (empty when none). */
function reviewHistory(doc: PlanDocument): string {
  return doc.outline.sections
    .filter((s) => s.depth === 2 && isReviewHistoryTitle(s.title))
    .map((s) => doc.body.slice(s.start, s.end).trim())
    .join('\n\n');
}

/** Markdown without review history sections (each runs to the next `#`/`##` heading). */
function stripReviewHistory(md: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of md.split('\n')) {
    if (isReviewHistoryHeadingLine(line)) skipping = true;
    else if (/^#{1,2}[ \t]/.test(line)) skipping = false;
    if (!skipping) out.push(line);
  }
  return out.join('\n').trim();
}

/**
 * The review history of a document as text: every section (of depth 1 or 2, however its heading
 * is written) titled like a review, `Approval (vN)` or `Rejection (vN)`, in order.
 */
function reviewHistorySections(doc: PlanDocument): string[] {
  return doc.outline.sections.filter((s) => isReviewHistoryTitle(s.title)).map((s) => `${s.depth}:${doc.body.slice(s.start, s.end).replace(/\r\n?/g, '\n').trim()}`);
}

/**
 * Notes are written by marks only: an operation of the author (create, a step edit, a replaced
 * body, a revision) may keep the notes a step had, never add or change one, so no text in the
 * store's note form (which the approval digest leaves out) is the author's.
 */
function keepNotes(before: PlanDocument | undefined, after: PlanDocument): void {
  const had = new Map(before?.steps.map((s) => [s.id, s.note]) ?? []);
  const added = after.steps.filter((s) => s.note !== undefined && had.get(s.id) !== s.note);
  if (added.length) throw new PlanError('INVALID_INPUT', `${NOTE_FORM_REFUSED} (${added.map((s) => s.id).join(', ')}): write that line another way, e.g. "> Warning: …", or leave it out, and send it again`);
}

/**
 * Review history is written by a person's review only (approve, reject): an operation of the
 * author (create, update, a step edit, a replaced body) that would add, change or remove a
 * section titled `Approval (vN)` or `Rejection (vN)` is refused, so no text reaches the agent
 * dressed as a person's words. Returns the text when it keeps the history of `before` (none for a new plan).
 */
function keepReviewHistory(before: PlanDocument | undefined, text: string, notesBefore: PlanDocument | undefined = before): string {
  refuseNulInput(text);
  const parsed = parsePlan(text);
  keepNotes(notesBefore, parsed);
  const after = reviewHistorySections(parsed);
  const was = before ? reviewHistorySections(before) : [];
  if (after.length === was.length && after.every((s, i) => s === was[i])) return text;
  const added = after.find((s) => !was.includes(s));
  const title = added ? /^\d:#*\s*([^\n]*)/.exec(added)?.[1]?.replace(/[\s#=-]+$/, '') : undefined;
  throw new PlanError(
    'REVIEW_HISTORY',
    `${title ? `"${title}" is` : 'that text is'} a review history heading: approvals and rejections are written only by a person's review, never through a plan's text. Remove that heading (write "Approval notes" or similar instead) and send it again.`,
  );
}

// ---------- review ----------

/** One thing that keeps a plan from review: a stable code, what to do, and the step it concerns. */
export interface ReviewProblem {
  code: 'missing-section' | 'no-steps' | 'step-without-text';
  message: string;
  step?: string;
  /** For `missing-section`: which one. */
  section?: SectionName;
}

/** What keeps a plan from review (the one rule submit, `analyze` and the editors share). Empty when ready. */
export function reviewProblemList(doc: PlanDocument, config: PlansConfig = DEFAULT_CONFIG): ReviewProblem[] {
  const problems: ReviewProblem[] = [];
  for (const name of config.required_sections) {
    if (!sectionText(doc, name)) problems.push({ code: 'missing-section', message: `add a "## ${name}" section${name === 'Goal' ? ' saying what the plan achieves' : ''}`, section: name });
  }
  if (!doc.steps.length) problems.push({ code: 'no-steps', message: 'add at least one step' });
  for (const s of doc.steps) if (!s.text) problems.push({ code: 'step-without-text', message: `step ${s.id} has no text: say what it does`, step: s.id });
  return problems;
}

/**
 * The edits that give a plan a section with `content` where the usual order puts it (or replace
 * the section's content), as a person's edit: no version bump, every other line as it is.
 */
export function sectionTextEdits(doc: PlanDocument, name: SectionName, content: string): TextEdit[] {
  return diffEdits(doc.text, applyEdits(doc, {}, [sectionEdit(doc, name, content)]).text);
}

/** What keeps a plan from review, as a list a model can fix in one pass. Empty when ready. */
export function reviewProblems(doc: PlanDocument, config: PlansConfig = DEFAULT_CONFIG): string[] {
  return reviewProblemList(doc, config).map((p) => p.message);
}

/** draft -> proposed after validation; a plan with no steps is cancelled (seed 001). */
export function submit(doc: PlanDocument, ctx: OpContext): OpResult {
  // A plan whose approval does not hold (its text changed after the approval, or it was marked
  // approved without one) goes back to review as it is now, from any status an approval governs:
  // what it says was never approved, so nothing runs on it until a person approves it.
  const standing = APPROVAL_GOVERNS.has(doc.fm.status) ? approvalStanding(doc, ctx.approvals?.keyring).state : 'none';
  const resubmit = standing === 'changed' || standing === 'invalid';
  const to = resubmit ? 'proposed' : nextStatus(doc.fm.id, doc.fm.status, 'submit', ctx.actor);
  const d = ensureStepIds(doc);
  if (!d.steps.length) {
    const text = applyEdits(d, { ...stamp(doc, ctx), status: 'cancelled', result_summary: 'Cancelled on submit: the plan had no steps.' }).text;
    return result(doc, text, 'status', { note: 'no steps: cancelled' });
  }
  const problems = reviewProblems(d, cfg(ctx));
  if (problems.length) {
    throw new PlanError('VALIDATION_FAILED', `${doc.fm.id} is not ready for review; it stays a draft. Fix: ${problems.join('; ')}. Then submit again.`, { problems });
  }
  const note = standing === 'changed' ? 'changed since approval: submitted again' : 'its approval was not valid: submitted for review';
  // Its own checkpoint type: the log then says which proposals passed this check (see `submittedHere`).
  return result(doc, applyEdits(d, { ...stamp(doc, ctx), status: to, ...(resubmit ? APPROVAL_CLEARED : {}) }).text, 'submitted', resubmit ? { note } : {});
}

/** What a reviewer saw: the content digest of the text they were shown (and, optionally, its version and the text itself). */
export interface SeenPlan {
  digest: string;
  version?: number;
  /** The text shown, when the face has it: a refusal then says what changed since. */
  text?: string;
}

/**
 * Refuses to approve a plan with a line in the store's note form on a step no mark has touched
 * (pending): the digest leaves such a line out, so whatever it says would not be approved, and
 * could be rewritten after the approval without voiding it. A note on a step that was worked on
 * is the record of an earlier run (a plan sent back to review keeps it): execution state.
 */
function refuseUnmarkedNotes(doc: PlanDocument): void {
  const bad = doc.steps.filter((s) => s.note !== undefined && s.status === 'pending').map((s) => s.id);
  if (!bad.length) return;
  const who = bad.length === 1 ? `${bad[0]}'s last line is` : `the last lines of ${bad.join(', ')} are`;
  throw new PlanError(
    'INVALID_INPUT',
    `${doc.fm.id} cannot be approved: ${who} in the form execution notes are written in (\`> Note: …\`), which an approval does not cover, on a step not yet worked on. If it says something the agent must follow, write it another way (for example \`> Warning: …\`); if it is a note left from an earlier run, delete the line. Then review the plan again.`,
  );
}

/** Refuses a decision on a text other than the one the reviewer saw, saying what changed when it can. */
function refuseIfNotSeen(doc: PlanDocument, seen: SeenPlan, what: string): void {
  const now = contentDigest(doc);
  if (seen.version !== undefined && seen.version !== doc.fm.version) {
    throw new PlanError('STALE_APPROVAL', `the plan changed since you opened it: you reviewed v${seen.version}, ${doc.fm.id} is now v${doc.fm.version}. Review the current version, then ${what} it.`, { currentVersion: doc.fm.version });
  }
  if (seen.digest === now) return;
  let changes = '';
  if (seen.text !== undefined) {
    try {
      const then = parsePlan(seen.text);
      if (contentDigest(then) === seen.digest) {
        const lines = describeComparison(comparePlans(then, doc));
        changes = lines.length ? ` What changed: ${lines.join('; ')}.` : ' What changed: text outside the steps and sections (the preamble, a paragraph, a field).';
      }
    } catch {
      /* the shown text does not read: no details */
    }
  }
  throw new PlanError(
    'STALE_APPROVAL',
    `the text of ${doc.fm.id} changed since you read it (you reviewed ${shortDigest(seen.digest)}, it is now ${shortDigest(now)} at v${doc.fm.version}).${changes} Review the current text, then ${what} it.`,
    { currentVersion: doc.fm.version },
  );
}

/**
 * proposed -> approved, on exactly the text the reviewer saw (`seen.digest`; a stale digest is
 * refused with what changed). The approval is a signed record (see core/approval.ts): the digest
 * of the approved text (review notes and step ids included), who approved, when, the signer's key
 * and signature. Comments made with an approval are suggestions, not conditions: they are written
 * as an `## Approval (vN)` section the agent reads when it starts, and the record covers them.
 */
export function approve(doc: PlanDocument, seen: SeenPlan, ctx: OpContext, review: { note?: string; comments?: readonly ReviewComment[] } = {}): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, 'approve', ctx.actor, { agentMayApprove: ctx.agentMayApprove });
  refuseIfNotSeen(doc, seen, 'approve');
  const signer = ctx.approvals?.signer;
  if (!signer) throw new PlanError('APPROVAL_INVALID', `${doc.fm.id} cannot be approved here: no approval key is available to sign the approval`);
  refuseUnmarkedNotes(doc);
  const notes = reviewNotesText(review.note ?? '', review.comments);
  // Ids first (a pi-planner plan's steps get theirs now, not when it starts: the approved text has them).
  const d = ensureStepIds(doc);
  const patch = { ...stamp(doc, ctx), status: to, approved_by: ctx.actor, approved_version: doc.fm.version, approved_at: ctx.now };
  const approved = parsePlan(applyEdits(d, patch, notes ? [appendSection(d, `Approval (v${doc.fm.version})`, notes)] : []).text);
  const digest = contentDigest(approved);
  // The suggestions are signed too (their digest, or none): only this section is the person's words.
  const notesSigned = notes ? notesDigest(notes) : undefined;
  const claim = { id: doc.fm.id, version: doc.fm.version, digest, by: ctx.actor, approver: signer.approver, at: ctx.now, notes: notesSigned ?? 'none' };
  const record = { approved_hash: digest, approver: signer.approver, approval_key: signer.key, approval_sig: signer.sign(approvalPayload(claim)), approval_notes: notesSigned };
  const text = applyEdits(approved, record).text;
  return result(doc, text, 'status', notes ? { note: notes } : {}, approved);
}

/**
 * proposed -> rejected (or needs_review on the third rejection): one `## Rejection (vN)` section
 * with the feedback, then a `- S003: …` line per comment. Feedback or at least one comment is needed.
 */
export function reject(doc: PlanDocument, feedback: string, ctx: OpContext, seen?: number | SeenPlan, comments?: readonly ReviewComment[]): OpResult {
  const fb = reviewNotesText(feedback, comments);
  if (!fb) throw new PlanError('INVALID_INPUT', 'a rejection needs feedback: say what must change');
  const to = nextStatus(doc.fm.id, doc.fm.status, 'reject', ctx.actor, { rejectionCount: doc.rejections.length });
  if (typeof seen === 'number' && seen !== doc.fm.version) {
    throw new PlanError('STALE_APPROVAL', `the plan changed since you opened it: you reviewed v${seen}, ${doc.fm.id} is now v${doc.fm.version}. Review the current version first.`, { currentVersion: doc.fm.version });
  }
  if (seen !== undefined && typeof seen !== 'number') refuseIfNotSeen(doc, seen, 'reject');
  const text = applyEdits(doc, { ...stamp(doc, ctx), status: to }, [appendSection(doc, rejectionTitle(doc.fm.version), fb)]).text;
  return result(doc, text, 'status', { note: fb });
}

/** A review's text (feedback and comment lines), checked against the limits. */
function reviewNotesText(feedback: string, comments: readonly ReviewComment[] | undefined): string {
  let list: ReviewComment[];
  try {
    list = normalizeComments(comments);
  } catch (e) {
    if (e instanceof ReviewInputError) throw new PlanError('INVALID_INPUT', e.message);
    throw e;
  }
  const text = formatReviewNotes(feedback, list);
  if (text.length > LIMITS.feedback) throw new PlanError('TOO_LARGE', `feedback is over ${LIMITS.feedback} characters: shorten it`);
  return text;
}

/** An edit that appends a `## title` section with `text` at the end of the body. */
function appendSection(doc: PlanDocument, title: string, text: string): BodyEdit {
  const eol = doc.eol;
  const trimmedEnd = doc.body.replace(/\s+$/, '').length;
  return { start: trimmedEnd, end: doc.body.length, text: `${trimmedEnd ? `${eol}${eol}` : eol}## ${title}${eol}${withEol(text, eol)}${eol}` };
}

/** A plain status change that the transition table allows (cancel, reopen, retry, resume, stall, withdraw). */
export function changeStatus(doc: PlanDocument, action: Extract<PlanAction, 'cancel' | 'reopen' | 'retry' | 'resume' | 'stall' | 'withdraw'>, ctx: OpContext, reason?: string): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, action, ctx.actor);
  if (action === 'resume') requireApproval(doc, ctx, 'resumed');
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), status: to };
  if (action === 'cancel') {
    if (reason) patch.result_summary = oneLine(reason).slice(0, LIMITS.resultSummary);
    if (doc.fm.status === 'executing') patch.execution_ended_at = ctx.now;
  }
  if (action === 'retry') {
    patch.execution_ended_at = undefined;
    patch.result_summary = undefined;
  }
  if (action === 'resume') patch.execution_ended_at = undefined;
  // Withdrawing an approval puts the plan back up for review, as if it had never been approved.
  if (action === 'reopen' || action === 'withdraw') Object.assign(patch, APPROVAL_CLEARED);
  return result(doc, applyEdits(doc, patch).text, 'status', { note: reason });
}

// ---------- execution ----------

/** approved -> executing. */
export function startExecution(doc: PlanDocument, ctx: OpContext, session?: string): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, 'start', ctx.actor);
  requireApproval(doc, ctx, 'started');
  const d = ensureStepIds(doc);
  const patch: Record<string, FrontmatterValue | undefined> = { ...stamp(doc, ctx), status: to, execution_started_at: ctx.now, execution_ended_at: undefined };
  if (session) patch.execution_session = oneLine(session).slice(0, LIMITS.shortField);
  return result(doc, applyEdits(d, patch).text, 'status');
}

/**
 * Nothing runs on an approval that does not hold: start, resume, marks and completion refuse a
 * plan whose approved text changed, that was marked approved without a valid record, or whose
 * approval was signed elsewhere and not yet confirmed here. The message names what to do.
 */
function requireApproval(doc: PlanDocument, ctx: OpContext, what: string): void {
  const keyring = ctx.approvals?.keyring;
  if (!keyring) throw new PlanError('APPROVAL_INVALID', `${doc.fm.id} cannot be ${what} here: approvals cannot be checked without the user's approval keys`);
  const s = approvalStanding(doc, keyring);
  const problem = standingProblem(doc, s);
  if (!problem) return;
  if (s.state === 'foreign') {
    throw new PlanError('APPROVAL_UNCONFIRMED', `${problem}, so it cannot be ${what} yet. Ask the user to confirm it (Pi Plans: Confirm Approval in VS Code, or \`pi-plans confirm ${doc.fm.id}\` in a terminal).`);
  }
  const again = 'submit it for review again (pi_plan_submit): a person approves the current text';
  throw new PlanError(s.state === 'changed' ? 'CHANGED_SINCE_APPROVAL' : 'APPROVAL_INVALID', `${problem}, so it cannot be ${what}. To go on, ${again}.`);
}

/** Marks a step (executing only). Marking the last open step done or skipped completes the plan. */
export function markStep(input: PlanDocument, stepId: string, status: StepStatus, ctx: OpContext, note?: string): OpResult {
  nextStatus(input.fm.id, input.fm.status, 'mark_step', ctx.actor);
  requireApproval(input, ctx, 'marked');
  if (note !== undefined && note.length > LIMITS.note) throw new PlanError('TOO_LARGE', `the note is over ${LIMITS.note} characters: shorten it`);
  const doc = ensureStepIds(input);
  const s = findStep(doc, stepId);
  const updated = { ...s, status, note: note !== undefined ? oneLine(note) || undefined : s.note };
  const finishing = isFinished(status) && doc.steps.every((x) => x.id === s.id || isFinished(x.status));
  const patch: Record<string, FrontmatterValue | undefined> = stamp(input, ctx);
  if (finishing) {
    patch.status = 'completed';
    patch.execution_ended_at = ctx.now;
    patch.result_summary = doc.fm.result_summary ?? 'All steps done.';
  }
  const edits = stepEdits(doc, s, { status, note: note !== undefined ? (updated.note ?? null) : undefined });
  const { text, body } = applyEdits(doc, patch, edits);
  // The hot path: the header and note lines change, the block structure does not; no Markdown
  // parse, and of the steps only this one is read again.
  const outline = shiftOutline(doc.outline, edits, body);
  rememberOutline(body, outline, doc.outline);
  rememberStepsAfterEdit(doc.body, body, outline, [s.index]);
  return result(input, text, 'step', { step: s.id, stepStatus: status, note: updated.note, autoCompleted: finishing }, doc === input ? input : undefined);
}

/** executing -> completed or failed, with a result summary (required for a failure). */
export function finishExecution(doc: PlanDocument, outcome: 'complete' | 'fail', summary: string | undefined, ctx: OpContext): OpResult {
  const to = nextStatus(doc.fm.id, doc.fm.status, outcome, ctx.actor);
  // Failing is always possible (it stops the run); completing claims the approved work was done.
  if (outcome === 'complete') requireApproval(doc, ctx, 'completed');
  const s = summary ? oneLine(summary) : '';
  if (outcome === 'fail' && !s) throw new PlanError('INVALID_INPUT', 'say why the plan failed: give a summary');
  if (s.length > LIMITS.resultSummary) throw new PlanError('TOO_LARGE', `the summary is over ${LIMITS.resultSummary} characters: shorten it`);
  return result(doc, applyEdits(doc, { ...stamp(doc, ctx), status: to, execution_ended_at: ctx.now, result_summary: s || undefined }).text, 'status', { note: s || undefined }, doc);
}

/** A new proposed plan from a finished, rejected or failed one: same steps (all pending), no review history. */
export function clonePlan(doc: PlanDocument, newId: string, ctx: OpContext): string {
  nextStatus(doc.fm.id, doc.fm.status, 'clone', ctx.actor);
  const src = ensureStepIds(doc);
  const created = parsePlan(createPlanText({ id: newId, title: src.fm.title, status: 'proposed', planner_model: src.fm.planner_model, executor_model: src.fm.executor_model, tools_required: src.fm.tools_required }, ctx.now));
  // Body: the source body without its review history, every step pending, no notes.
  const drop = src.outline.sections.filter((s) => s.depth === 2 && isReviewHistoryTitle(s.title));
  const edits: BodyEdit[] = [
    ...drop.map((s) => ({ start: s.start, end: s.end, text: '' })),
    ...src.steps.flatMap((s) => stepEdits(src, s, { status: 'pending', note: null })),
  ];
  // A clone is a new file: LF line ends, no BOM.
  const body = applyEdits(src, {}, edits).body.replace(/\r\n/g, '\n').replace(/\s+$/, '') + '\n';
  return parsePlan(applyEdits(created, { step_seq: src.fm.step_seq ?? 0 }, [{ start: 0, end: created.body.length, text: body.startsWith('\n') ? body : '\n' + body }]).text).text;
}

// ---------- detection ----------

/** True when an executing plan has shown no activity (checkpoint, write, start) for the configured timeout. */
export function isStalled(fm: Frontmatter, lastActivity: string | undefined, now: string, config: PlansConfig = DEFAULT_CONFIG): boolean {
  if (fm.status !== 'executing') return false;
  const times = [lastActivity, fm.execution_started_at, fm.updated_at].filter(Boolean).map((t) => Date.parse(t!));
  const last = Math.max(...times.filter((t) => !Number.isNaN(t)));
  return Date.parse(now) - last > config.executor_timeout_minutes * 60_000;
}

/** True when a proposed plan has waited for review longer than `stale_after_days`. */
export function isStale(fm: Frontmatter, now: string, config: PlansConfig = DEFAULT_CONFIG): boolean {
  return fm.status === 'proposed' && Date.parse(now) - Date.parse(fm.updated_at) > config.stale_after_days * 86_400_000;
}
