import { applyEdits, BodyEdit, findSection, parsePlan, PlanDocument, PlacedStep, rememberOutline, frontmatterOfPlan, stepIdFacts } from '../format/document';
import { APPROVAL_FIELDS, ApprovalKeyring, ApprovalSigner, sameContent } from '../rules/approval';
import { PlanError } from '../limits/errors';
import { isReviewHistoryHeadingLine, isReviewHistoryTitle } from '../format/policy';
import { FrontmatterValue, stringifyEntry } from '../format/frontmatter';
import { nextStatus } from '../format/lifecycle';
import { LIMITS } from '../limits/limits';
import { lineStartAt, shiftOutline } from '../format/outline';
import { Actor, DEFAULT_CONFIG, Frontmatter, FRONTMATTER_KEYS, PlansConfig, PlanStatus, SECTION_NAMES, SectionName, StepStatus } from '../format/schema';
import { diffEdits, TextEdit } from '../format/textEdits';
import { withAfterLine } from '../rules/graph';
import { contentIndent, inRecordForm, oneLine, recordBlockOf, recordOf, RecordKey, renderRecordLines, renderStepItem, rewriteHeader, Step } from '../format/steps';

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
  /**
   * The last event of each step in the plan's checkpoint log (given to marks that carry a claim):
   * what a claim's age is measured from, and who holds an in-progress step whose claim line is
   * gone. Absent: not read.
   */
  activity?: ReadonlyMap<string, StepActivity>;
}

/** A step's last event in the checkpoint log: when, and by which session where the log says. */
export interface StepActivity {
  at: string;
  session?: string;
  /** The status that event gave the step. */
  status?: StepStatus;
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
  /** A mark that took over another session's claim: whose, and since when (the checkpoint logs it too). */
  takenOver?: string;
  /** The session that acted (a mark or claim with one), for the checkpoint log. */
  session?: string;
}

/** Fields of a new step. */
export interface NewStep {
  text: string;
  tool?: string;
  operation?: string;
  target?: string;
  details?: string;
  /** What the step waits for: written as its `after:` detail line (empty: `after: none`). */
  dependsOn?: readonly string[];
}

/** A new step's details with its `after:` line when `dependsOn` is given. */
export function detailsWithDeps(s: Pick<NewStep, 'details' | 'dependsOn'>): string | undefined {
  return s.dependsOn === undefined ? s.details : withAfterLine(s.details, s.dependsOn);
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

export const SECTION_KEYS: Record<keyof SectionsInput, SectionName> = {
  goal: 'Goal',
  assumptions: 'Assumptions',
  risks: 'Risks',
  verification: 'Verification',
  files: 'Files',
  context: 'Context',
};

export function sectionBody(v: string | readonly string[]): string {
  if (typeof v === 'string') return v.replace(/\r\n/g, '\n').trim();
  return v.map((i) => `- ${oneLine(i)}`).join('\n');
}

export function withEol(s: string, eol: string): string {
  return eol === '\n' ? s : s.replace(/\r?\n/g, eol);
}

/** What a refusal of text in the store's note form says (the tools and the author's operations). */
export const NOTE_FORM_REFUSED =
  '"> Note:", "> Claimed:", "> Changed:" and "> Check:" lines under a step are the form execution records are written in (pi_plan_execute writes them, and an approval does not cover them), so a plan\'s text cannot carry one';

/** Refuses details sent for a step with a line that would read as one of the store's record lines (see `recordBlockOf`). */
export function checkDetails(details: string | undefined, step?: string): void {
  if (details !== undefined && details.split(/\r?\n/).some(inRecordForm)) {
    throw new PlanError('INVALID_INPUT', `${NOTE_FORM_REFUSED}${step ? ` (${step})` : ''}: write that line another way, e.g. "> Warning: …", and send it again`);
  }
}

export function checkNewStep(s: NewStep): void {
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
  const steps = (input.steps ?? []).map((st) => ({ ...st, details: detailsWithDeps(st) }));
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

export function cfg(ctx: OpContext): PlansConfig {
  return ctx.config ?? DEFAULT_CONFIG;
}

export function stamp(doc: PlanDocument, ctx: OpContext, patch: Record<string, FrontmatterValue | undefined> = {}) {
  return { ...patch, version: doc.fm.version + 1, updated_at: ctx.now };
}

/** The frontmatter patch that voids an approval: every field of its record removed. */
export const APPROVAL_CLEARED: Readonly<Record<string, undefined>> = Object.fromEntries(APPROVAL_FIELDS.map((k) => [k, undefined]));

/** True when a document carries any field of an approval record. */
function hasApprovalRecord(doc: PlanDocument): boolean {
  return APPROVAL_FIELDS.some((k) => doc.fm[k] !== undefined);
}

/** Status patch for a content edit: rejected -> draft, approved -> proposed (approval void). */
export function editPatch(doc: PlanDocument, ctx: OpContext): Record<string, FrontmatterValue | undefined> {
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
export function refuseNulInput(text: string): void {
  if (text.lastIndexOf('\u0000') !== -1) throw new PlanError('INVALID_INPUT', 'a value sent contains a NUL byte: plans are text; send it again without it');
}

/**
 * An operation's result. `contentOf`: a document whose content the result has (the operation
 * changed only execution state: statuses, notes, times), so the new document's content digest is
 * known without hashing the whole text again.
 */
export function result(input: PlanDocument, text: string, event: string, extra: Partial<OpResult> = {}, contentOf?: PlanDocument): OpResult {
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
export function withShiftedOutline(doc: PlanDocument, fmPatch: Record<string, FrontmatterValue | undefined>, edits: BodyEdit[]): PlanDocument {
  const { text, body } = applyEdits(doc, fmPatch, edits);
  rememberOutline(body, shiftOutline(doc.outline, edits, body), doc.outline);
  return parsePlan(text);
}

/**
 * The edits that give a step a new status, its id, a new note or other record lines, on the
 * step's own lines: the header line (checkbox, id, marker) and its record lines (the store's, the
 * item's last; see `recordBlockOf`). Details, blank lines, nested lists, code fences and everything
 * else stay byte for byte. `note: null` removes the note; `record: { Key: null }` removes a line.
 */
export function stepEdits(
  doc: PlanDocument,
  s: PlacedStep,
  change: { status?: StepStatus; addId?: boolean; note?: string | null; record?: Partial<Record<RecordKey, string | null>> },
): BodyEdit[] {
  const it = doc.outline.steps[s.index];
  const body = doc.body;
  const edits: BodyEdit[] = [];
  const header = body.slice(it.start, it.lineEnd);
  const next = rewriteHeader(header, change.status ?? s.status, change.addId && !s.hasId ? s.id : undefined);
  if (next !== header) edits.push({ start: it.start, end: it.lineEnd, text: next });
  const changes = { ...change.record, ...(change.note !== undefined ? { Note: change.note } : {}) };
  if (!Object.keys(changes).length) return edits;
  // The record lines are replaced as a block, written in the store's order, after the item's
  // last line. Every other line, a `>` quote of the author's included, stays as it is.
  const block = it.end > it.lineEnd ? recordBlockOf(body.slice(it.start, it.end)) : undefined;
  const record: Partial<Record<RecordKey, string | null>> = { ...(block ? recordOf(block.lines) : {}), ...changes };
  const lines = renderRecordLines(Object.fromEntries(Object.entries(record).filter(([, v]) => v)) as Record<RecordKey, string>, contentIndent(header));
  const from = block ? it.start + block.sep : it.end;
  const text = lines.map((l) => doc.eol + l).join('');
  if (body.slice(from, it.end) !== text) edits.push({ start: from, end: it.end, text });
  return edits;
}

export function findStep(doc: PlanDocument, id: string): PlacedStep {
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
export function rebuildSteps(
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

export function sectionEdit(doc: PlanDocument, name: SectionName, content: string): BodyEdit {
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

// ---------- review history kept across edits ----------

/** The review history (`## Rejection (vN)`, `## Approval (vN)` sections) of a plan, in order, as text (empty when none). */
export function reviewHistory(doc: PlanDocument): string {
  return doc.outline.sections
    .filter((s) => s.depth === 2 && isReviewHistoryTitle(s.title))
    .map((s) => doc.body.slice(s.start, s.end).trim())
    .join('\n\n');
}

/** Markdown without review history sections (each runs to the next `#`/`##` heading). */
export function stripReviewHistory(md: string): string {
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
export function keepReviewHistory(before: PlanDocument | undefined, text: string, notesBefore: PlanDocument | undefined = before): string {
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
