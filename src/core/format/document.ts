import { PlanError } from '../limits/errors';
import { lineOf } from './planText';
export { decodePlanBytes, fileTooLarge, lineAtOffset, lineOf, lineStarts } from './planText';
import { FrontmatterBlock, FrontmatterValue, frontmatterHeadEnd, patchFrontmatterYaml, plainMapping, splitFrontmatter } from './frontmatter';
import { LIMITS } from '../limits/limits';
import { inspectMarkdown, knownRefusal, MarkdownRefusal, parseFailure, rememberRefusal, workBudget } from '../markdown/markdownGuard';
import { rejectedVersionOf } from './policy';
import { computeOutline, Outline } from './outline';
import { Frontmatter, FrontmatterSchema, SectionName, PLAN_ID_PATTERN } from './schema';
import { parseStepItem, quickStepCounts, Step, stepNumber } from './steps';

/** A step with where it sits in the plan. */
export interface PlacedStep extends Step {
  /** Position in the Steps section (0-based). */
  index: number;
  /** `1.` / `-` as written. */
  bullet: string;
}

/** A rejection recorded in the review history (`## Rejection (vN)`). */
export interface Rejection {
  version: number;
  feedback: string;
}

/** A parsed plan file: validated fields plus the positions edits splice at. Immutable. */
export interface PlanDocument {
  readonly text: string;
  readonly eol: '\n' | '\r\n';
  readonly bom: boolean;
  readonly fm: Frontmatter;
  readonly block: FrontmatterBlock;
  readonly body: string;
  readonly outline: Outline;
  readonly steps: readonly PlacedStep[];
  readonly rejections: readonly Rejection[];
}

const outlineCache = new Map<string, Outline>();
const OUTLINE_CACHE_SIZE = 64;
/**
 * The bodies the caches may hold, in characters: a few large plans (a 1,000-step body is about
 * 90 KB, its parsed steps several times that) must not keep megabytes alive in a process that
 * works on one plan. The two newest entries stay whatever their size (an update's before and after).
 */
const CACHE_CHARS = 512 * 1024;
let cachedChars = 0;

function evictOldest(): void {
  const oldest = outlineCache.keys().next().value as string;
  outlineCache.delete(oldest);
  stepsCache.delete(oldest);
  cachedChars -= oldest.length;
}

/** The outline of a body, from the cache when the same body was parsed before. */
export function outlineFor(body: string): Outline {
  const hit = outlineCache.get(body);
  if (hit) {
    outlineCache.delete(body);
    outlineCache.set(body, hit);
    return hit;
  }
  const o = computeOutline(body);
  rememberOutline(body, o);
  return o;
}

/** Whether every step of a list carries an id, and the highest step number: by list (lists are shared and never change). */
const idFacts = new WeakMap<readonly PlacedStep[], { anyMissing: boolean; maxId: number }>();

/** `idFacts` of a document's steps, worked out once per list of steps. */
export function stepIdFacts(steps: readonly PlacedStep[]): { anyMissing: boolean; maxId: number } {
  let f = idFacts.get(steps);
  if (!f) {
    f = { anyMissing: false, maxId: 0 };
    for (const s of steps) {
      if (!s.hasId) f.anyMissing = true;
      f.maxId = Math.max(f.maxId, stepNumber(s.id));
    }
    idFacts.set(steps, f);
  }
  return f;
}

/** Parsed steps by body, beside the outline cache (same bound); only for bodies whose outline is cached. */
const stepsCache = new Map<string, readonly PlacedStep[]>();

function rememberSteps(body: string, steps: readonly PlacedStep[]): void {
  if (!outlineCache.has(body)) return;
  stepsCache.set(body, steps);
}

/**
 * After an edit that changed only the items at `changed` (their header and note lines: no id, no
 * text length, no structure changes), the new body's steps are the old body's with those items
 * parsed again: a step update then parses one step, not all of them. Does nothing when the old
 * body's steps are not cached. The property tests hold the result equal to a fresh parse.
 */
export function rememberStepsAfterEdit(oldBody: string, newBody: string, newOutline: Outline, changed: readonly number[]): void {
  const old = stepsCache.get(oldBody);
  if (!old || old.length !== newOutline.steps.length) return;
  const next = old.slice();
  for (const i of changed) {
    const it = newOutline.steps[i];
    // From a copy of its own source: the list keeps the other steps of older bodies, and a step
    // sliced from each new body would keep every body since alive (one per update).
    next[i] = placedStep(detached(newBody.slice(it.start, it.end)), i);
    if (next[i].id !== old[i].id || next[i].hasId !== old[i].hasId) return; // not the kind of edit this is for
  }
  // The same ids: the same facts about them.
  const facts = idFacts.get(old);
  if (facts) idFacts.set(next, facts);
  rememberSteps(newBody, next);
}

/** A step item's source parsed, with its position, frozen (shared by every document of the same body). */
function placedStep(src: string, index: number): PlacedStep {
  // The fresh object gets its position added, not copied into a larger one (a spread costs
  // ~2 us and a kilobyte of garbage per step in V8).
  const s = parseStepItem(src, index) as PlacedStep;
  s.index = index;
  return Object.freeze(s);
}

/** The outline of `body` if it is cached (never parses). */
export function knownOutline(body: string): Outline | undefined {
  return outlineCache.get(body);
}

/** True when the outline of `body` is cached (a parse of a text with this body needs no Markdown parse). */
export function hasOutline(body: string): boolean {
  return outlineCache.has(body);
}

/**
 * Where a plan text's body starts, and the body, without validating anything: what an outline
 * computed elsewhere (another thread) is keyed by. Undefined when the text has no frontmatter.
 */
export function bodyOf(text: string): string | undefined {
  try {
    return text.slice(splitFrontmatter(text).block.bodyStart);
  } catch {
    return undefined;
  }
}

/**
 * Outlines whose body passed the cheap step count (`quickStepCounts`, which refuses a hostile
 * count before any Markdown parse): a parse may skip the count for them only. An outline shifted
 * by step header and note edits inherits it (those edits keep every item line an item line);
 * one computed elsewhere (the parser worker) has not passed it.
 */
const counted = new WeakSet<Outline>();

/**
 * Records a known outline for `body`: computed elsewhere, or, with `shiftedFrom`, shifted by an
 * edit from that outline rather than parsed again (it then passed the step count if that did).
 */
export function rememberOutline(body: string, outline: Outline, shiftedFrom?: Outline): void {
  if (shiftedFrom && counted.has(shiftedFrom)) counted.add(outline);
  // Step header and note edits keep the pre-scan's verdict if the edited items pass it alone.
  const scanned = shiftedFrom && guarded.get(shiftedFrom);
  const work = scanned && workAfterItemEdits(scanned, shiftedFrom, body, outline);
  if (work !== undefined) guarded.set(outline, { work, body });
  if (outlineCache.has(body)) outlineCache.delete(body);
  else cachedChars += body.length;
  outlineCache.set(body, outline);
  while (outlineCache.size > OUTLINE_CACHE_SIZE || (cachedChars > CACHE_CHARS && outlineCache.size > 2)) evictOldest();
}

/**
 * Outlines whose body passed the Markdown pre-scan (markdownGuard), with the scan's work estimate
 * and that body: a parse of a body whose outline is known skips the scan only for these. An
 * outline computed elsewhere (the worker, a cache on disk) has its body scanned once; one shifted
 * by step header and note edits inherits the verdict when the edited items pass the scan alone
 * (see workAfterItemEdits), so a step update does not scan the whole plan again.
 */
const guarded = new WeakMap<Outline, { work: number; body: string }>();

/** Slack per shift for what an item scanned alone does not see: the lines it moved (list items cost by their line). */
const SHIFT_SLACK = 2_000;

/**
 * The work estimate of `body` (whose outline `outline` was shifted from `parent`'s by edits inside
 * step items): the parent's, plus what the edited items cost now less what they cost before, each
 * scanned alone (an item's paragraphs, quotes and lazy lines are its own). Undefined when the
 * edits are not of that kind, an edited item is over a cap alone, or the estimate nears the
 * budget: the next parse then scans the whole body.
 */
function workAfterItemEdits(parent: { work: number; body: string }, parentOutline: Outline, body: string, outline: Outline): number | undefined {
  const old = parent.body;
  if (parentOutline.steps.length !== outline.steps.length) return undefined;
  const from = commonPrefix(old, body);
  const tail = commonSuffix(old, body, from);
  const to = body.length - tail;
  const oldTo = old.length - tail;
  if (from === to && from === oldTo) return parent.work; // the same body
  let work = parent.work + SHIFT_SLACK;
  let lo = Infinity;
  let hi = -1;
  let oldLo = Infinity;
  let oldHi = -1;
  for (let i = 0; i < outline.steps.length; i++) {
    const it = outline.steps[i];
    if (it.end < from || it.start > to) continue;
    const now = inspectMarkdown(body.slice(it.start, it.end));
    if (now.refusal) return undefined;
    const was = parentOutline.steps[i];
    work += now.counts.work - inspectMarkdown(old.slice(was.start, was.end)).counts.work;
    lo = Math.min(lo, it.start);
    hi = Math.max(hi, it.end);
    oldLo = Math.min(oldLo, was.start);
    oldHi = Math.max(oldHi, was.end);
  }
  // Every changed character, in the old body and the new, is inside the items scanned (an item
  // ends at its last non-blank line: the line break before a note added after it is the item's).
  if (from < lo || to > hi + 2 || oldTo > oldHi + 2) return undefined;
  return work <= 0.8 * workBudget(body.length) ? work : undefined;
}

/** How many leading characters `a` and `b` share (compared a block at a time, natively). */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (let step = 4096; step >= 1; step >>= 4) while (i + step <= n && a.slice(i, i + step) === b.slice(i, i + step)) i += step;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** How many trailing characters `a` and `b` share, not reaching back past `floor` in either. */
function commonSuffix(a: string, b: string, floor: number): number {
  const n = Math.min(a.length, b.length) - floor;
  let i = 0;
  for (let step = 4096; step >= 1; step >>= 4) while (i + step <= n && a.slice(a.length - i - step, a.length - i) === b.slice(b.length - i - step, b.length - i)) i += step;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** A pre-scan refusal of a body as the refusal of the file: its line in the file (the body starts at `bodyStart`). */
function markdownRefused(r: MarkdownRefusal, text: string, block: FrontmatterBlock): PlanError {
  return new PlanError(r.code, r.message, { line: lineOf(text, block.bodyStart) + r.line - 1, rule: r.rule });
}

/**
 * The outline of a body, never parsed unchecked: a body refused before (by the scan, a failed
 * parse, or the parser worker's time budget) is refused at once; any other is scanned before its
 * Markdown parse (markdownGuard), and a parse that throws (a stack overflow) is remembered as a
 * refusal. `fresh` trusts and keeps nothing.
 */
function checkedOutline(text: string, block: FrontmatterBlock, body: string, fresh: boolean): Outline {
  const known = fresh ? undefined : outlineCache.get(body);
  if (known && guarded.has(known)) return outlineFor(body);
  const before = fresh ? undefined : knownRefusal(body);
  if (before) throw markdownRefused(before, text, block);
  const scan = inspectMarkdown(body, { sections: true });
  if (scan.refusal) {
    if (!fresh) rememberRefusal(body, scan.refusal);
    throw markdownRefused(scan.refusal, text, block);
  }
  let outline: Outline;
  try {
    outline = fresh ? computeOutline(body) : outlineFor(body);
  } catch (e) {
    const r = parseFailure(e);
    if (!fresh) rememberRefusal(body, r);
    throw markdownRefused(r, text, block);
  }
  if (!fresh) guarded.set(outline, { work: scan.counts.work, body });
  return outline;
}

const CONFLICT_RE = /^<{7}(?: |\r?$)/m;
/** The first merge-conflict marker line, if any (a cheap scan first: most files have none). */
const CONFLICT = { exec: (t: string) => (t.includes('<<<<<<<') ? CONFLICT_RE.exec(t) : null) };

/**
 * Parses and validates a plan file's text. Throws PlanError (INVALID_FILE / TOO_LARGE) with the
 * line and a message that names the fix. Never evaluates code. Outlines are cached by body text;
 * `fresh` parses the frontmatter and the Markdown again whatever the caches hold, and caches nothing.
 */
export function parsePlan(text: string, file?: string, opts: { fresh?: boolean } = {}): PlanDocument {
  try {
    return parseUnlocated(text, opts.fresh === true);
  } catch (e) {
    if (e instanceof PlanError) throw file ? e.inFile(file) : e;
    throw new PlanError('INVALID_FILE', `could not read the plan: ${(e as Error).message}`, { file });
  }
}

/** Validated frontmatter by the text of the head it came from (frozen: documents share it). */
const headCache = new Map<string, { fm: Frontmatter; block: FrontmatterBlock }>();
const HEAD_CACHE_SIZE = 256;

function freezeFrontmatter(fm: Frontmatter): Frontmatter {
  for (const v of Object.values(fm)) if (Array.isArray(v)) Object.freeze(v);
  return Object.freeze(fm);
}

/**
 * How a read uses the head cache: `cache` looks up and remembers; `lookup` only looks up (a text
 * this process wrote); `scan` neither (an index scan reads thousands of heads once each, and a
 * lookup hashes the head); `fresh` neither, and splits with gray-matter (a check that trusts nothing).
 */
type HeadUse = 'cache' | 'fresh' | 'lookup' | 'scan';

/**
 * The frontmatter of a text: gray-matter, safe YAML and zod the first time a head is seen, a
 * lookup after that (an update re-reads the head it has just written, three or four times over).
 */
function frontmatterOf(text: string, use: HeadUse = 'cache'): { fm: Frontmatter; block: FrontmatterBlock } {
  const end = frontmatterHeadEnd(text);
  const key = end > 0 ? text.slice(0, end) : undefined;
  const hit = key === undefined || use === 'fresh' || use === 'scan' ? undefined : headCache.get(key);
  if (hit) return hit;
  // A head kept in the cache is parsed from a copy of its own: the key, the YAML and the values
  // parsed from it would otherwise be slices of the whole text and keep every version of a large
  // plan alive (an update process on a 1,000-step plan held 150 MB after 600 updates).
  const own = key !== undefined && use === 'cache' ? detached(key) : undefined;
  const { data, block } = splitFrontmatter(own ?? text, use !== 'fresh');
  const fm = validateFrontmatter(data, block, text);
  // Only what the cache shares is frozen; an index scan reads thousands of heads once each.
  if (own === undefined || block.bodyStart !== end) return { fm, block };
  const head = { fm: freezeFrontmatter(fm), block };
  rememberHead(own, head);
  return head;
}

/**
 * The head of a patched text, known without a parse: the document's frontmatter with the patch
 * applied, checked by the schema, and the block moved by the patch. `patchFrontmatterYaml` writes
 * YAML that reads back as the patch (its property test), so a YAML parse of the new head would
 * give the same when the old YAML is a plain mapping (`plainMapping`); the property tests in
 * frontmatterPatch.test.ts and reviewFindings.test.ts hold the two equal on random plans, patches
 * and hand-written heads. Remembered only where the full parse would cache the head, under the
 * size cap; anything else (and anything the schema refuses) is left to that parse and its error.
 */
function rememberPatchedHead(doc: PlanDocument, patch: Readonly<Record<string, FrontmatterValue | undefined>>, head: string, yaml: string): void {
  const oldEnd = frontmatterHeadEnd(doc.text);
  if (oldEnd !== doc.block.bodyStart || yaml.length + 4 > LIMITS.frontmatterChars || !plainMapping(doc.block.yaml)) return;
  const key = detached(head);
  if (frontmatterHeadEnd(key) !== key.length || headCache.has(key)) return;
  const merged: Record<string, unknown> = { ...doc.fm };
  for (const k in patch) {
    if (patch[k] === undefined) delete merged[k];
    else merged[k] = patch[k];
  }
  const r = FrontmatterSchema.safeParse(merged);
  if (!r.success) return;
  const { yamlStart } = doc.block;
  const block = { yamlStart, yamlEnd: yamlStart + yaml.length, bodyStart: key.length, yaml: key.slice(yamlStart, yamlStart + yaml.length) };
  rememberHead(key, { fm: freezeFrontmatter(absentNulls(r.data)), block });
}

/** The schema's output as a Frontmatter: null in hand-written YAML means "absent", so the key stays, undefined. */
function absentNulls(data: unknown): Frontmatter {
  const fm = data as Record<string, unknown>;
  for (const k in fm) if (fm[k] === null) fm[k] = undefined;
  return fm as Frontmatter;
}

/** A string that holds its own characters, not a slice that keeps a larger one alive. */
export function detached(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

function rememberHead(key: string, head: { fm: Frontmatter; block: FrontmatterBlock }): void {
  headCache.set(key, head);
  if (headCache.size > HEAD_CACHE_SIZE) headCache.delete(headCache.keys().next().value as string);
}

/**
 * What every read does before looking at the body: the size cap, merge-conflict markers, the
 * frontmatter (gray-matter, safe YAML, zod), and the step count (cheap scan) against its cap.
 * `counts: false` skips the scan (the caller knows the count, or does not need it).
 */
function readHead(text: string, counts = true, use: HeadUse = 'cache'): { fm: Frontmatter; block: FrontmatterBlock; body: string; quick: { total: number; done: number } } {
  if (text.length > LIMITS.fileBytes) {
    throw new PlanError('TOO_LARGE', `the plan is ${text.length} characters, over the ${LIMITS.fileBytes} limit: split it`, { rule: 'file-too-large' });
  }
  // lastIndexOf: twice as fast as indexOf for a NUL in V8 (a plan text has none to find).
  if (text.lastIndexOf('\0') !== -1) {
    const line = lineOf(text, text.indexOf('\0'));
    throw new PlanError('INVALID_FILE', `the file contains a NUL byte (line ${line}): remove it; plans are text`, { line, rule: 'nul-byte' });
  }
  // A lone CR (old Mac line ends) as the first line end: the whole file is one line to every
  // other reader, and the frontmatter's error would name the wrong thing.
  const cr = text.indexOf('\r');
  if (cr !== -1 && text.charCodeAt(cr + 1) !== 0x0a) {
    const lf = text.indexOf('\n');
    if (lf === -1 || cr < lf) {
      throw new PlanError('INVALID_FILE', 'the file uses lone CR line ends: convert them to LF or CRLF', { line: 1, rule: 'lone-cr' });
    }
  }
  const conflict = CONFLICT.exec(text);
  if (conflict) {
    throw new PlanError('INVALID_FILE', 'the file has merge-conflict markers: resolve the conflict, then save', {
      rule: 'merge-conflict',
      line: lineOf(text, conflict.index),
    });
  }
  const { fm, block } = frontmatterOf(text, use);
  const body = text.slice(block.bodyStart);
  return { fm, block, body, quick: counts ? countSteps(text, block, body) : { total: -1, done: -1 } };
}

/** The cheap step count of a body; a hostile count is refused before the Markdown parse, which grows with it. */
function countSteps(text: string, block: FrontmatterBlock, body: string): { total: number; done: number } {
  const quick = quickStepCounts(body);
  if (quick.total > LIMITS.steps) {
    throw new PlanError('TOO_LARGE', `the plan has ${quick.total} steps, over the ${LIMITS.steps}-step limit: split it into several plans`, { line: lineOf(text, block.bodyStart), rule: 'too-many-steps' });
  }
  return quick;
}

/** The validated frontmatter of a plan text, without reading its body (same errors as parsePlan's for the head). */
export function frontmatterOfPlan(text: string): Frontmatter {
  return readHead(text, false).fm;
}

function parseUnlocated(text: string, fresh: boolean): PlanDocument {
  // A body whose outline is known has had its steps counted: the cheap scan would say the same.
  const { fm, block, body } = readHead(text, false, fresh ? 'fresh' : 'cache');
  const known = fresh ? undefined : outlineCache.get(body);
  if (!known || !counted.has(known)) countSteps(text, block, body);
  const nl = text.indexOf('\n');
  const eol = nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
  // `fresh`: a parse that trusts no cache, for checking a text before it is written. Either way
  // the Markdown is scanned before it is parsed (or found refused before): see checkedOutline.
  const outline = checkedOutline(text, block, body, fresh);
  if (!fresh) counted.add(outline);
  if (outline.steps.length > LIMITS.steps) {
    throw new PlanError('TOO_LARGE', `the plan has ${outline.steps.length} steps, over the ${LIMITS.steps}-step limit: split it into several plans`, {
      rule: 'too-many-steps',
      line: lineOf(text, block.bodyStart + outline.steps[LIMITS.steps].start),
    });
  }
  // The steps as the body writes them, checked once per body: the same body (a re-read of what
  // was just written, the parse of an operation's own result) costs a copy, not a parse per step.
  const cacheable = !fresh && outline === outlineCache.get(body);
  let parsed: readonly PlacedStep[] | undefined = cacheable ? stepsCache.get(body) : undefined;
  if (!parsed) {
    const list: PlacedStep[] = [];
    const ids = new Set<string>();
    for (const [index, it] of outline.steps.entries()) {
      const s = placedStep(body.slice(it.start, it.end), index);
      const line = () => lineOf(text, block.bodyStart + it.start);
      if (s.hasId && ids.has(s.id)) {
        throw new PlanError('INVALID_FILE', `step id ${s.id} is used twice: give the second one a new id or remove it`, { line: line(), rule: 'duplicate-step-id' });
      }
      if (s.text.length > LIMITS.stepText) {
        throw new PlanError('TOO_LARGE', `step ${s.id} text is ${s.text.length} characters, over ${LIMITS.stepText}: shorten it, or move detail to its details`, { line: line(), rule: 'step-text-too-long' });
      }
      if (s.hasId) ids.add(s.id);
      list.push(s);
    }
    if (cacheable) rememberSteps(body, list);
    parsed = list;
  }
  // Steps are frozen and shared between documents of the same body. Steps written without an id
  // (pi-planner's form) get, in copies, the ids the next write will give them: from the counter,
  // in order, never one that was issued before.
  let steps = parsed;
  if (parsed.some((s) => !s.hasId)) {
    let next = Math.max(fm.step_seq ?? 0, 0, ...parsed.filter((s) => s.hasId).map((s) => Number(s.id.slice(1))));
    steps = parsed.map((s) => (s.hasId ? s : Object.freeze({ ...s, id: `S${String(++next).padStart(3, '0')}` })));
  }
  const rejections: Rejection[] = [];
  for (const sec of outline.sections) {
    const rejected = rejectedVersionOf(sec.title);
    if (rejected !== undefined) rejections.push({ version: rejected, feedback: body.slice(sec.headingEnd, sec.end).trim() });
    if (sec.depth === 2 && sec.title.toLowerCase() === 'context' && sec.end - sec.headingEnd > LIMITS.contextBytes) {
      throw new PlanError('TOO_LARGE', `## Context is over ${LIMITS.contextBytes / 1024} KB: move large context into .pi/plans/artifacts/${fm.id}/ and link it`, {
        rule: 'context-too-large',
        line: lineOf(text, block.bodyStart + sec.start),
      });
    }
  }
  return { text, eol, bom: text.charCodeAt(0) === 0xfeff, fm, block, body, outline, steps, rejections };
}

function validateFrontmatter(data: unknown, block: FrontmatterBlock, text: string): Frontmatter {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new PlanError('INVALID_FILE', 'frontmatter must be YAML fields: write them as "key: value" lines', { line: 2, rule: 'frontmatter-not-fields' });
  }
  const r = FrontmatterSchema.safeParse(data);
  if (r.success) return absentNulls(r.data);
  const issue = r.error.issues[0];
  const key = String(issue.path[0] ?? '');
  const keyAt = key ? new RegExp(`^${key.replace(/[^\w]/g, '\\$&')}\\s*:`, 'm').exec(block.yaml) : null;
  const line = keyAt ? lineOf(text, block.yamlStart + keyAt.index) : 2;
  const what = issue.code === 'invalid_type' && (data as Record<string, unknown>)[key] === undefined
    ? `the field "${key}" is missing: add it`
    : `the field "${key}" is invalid (${issue.message}): fix its value`;
  throw new PlanError('INVALID_FILE', `${what}`, { line, rule: 'frontmatter-field' });
}

/** A text replacement at offsets into the body. */
export interface BodyEdit {
  start: number;
  end: number;
  text: string;
}

/** Applies a frontmatter patch and body edits (non-overlapping) and returns the new text. */
export function applyEdits(
  doc: PlanDocument,
  fmPatch: Readonly<Record<string, FrontmatterValue | undefined>>,
  bodyEdits: readonly BodyEdit[] = [],
): { text: string; body: string } {
  const patched = Object.keys(fmPatch).length > 0;
  const yaml = patched ? patchFrontmatterYaml(doc.block.yaml, fmPatch, doc.eol) : doc.block.yaml;
  const head = doc.text.slice(0, doc.block.yamlStart) + yaml + doc.text.slice(doc.block.yamlEnd, doc.block.bodyStart);
  if (patched) rememberPatchedHead(doc, fmPatch, head, yaml);
  if (!bodyEdits.length) return { text: head + doc.body, body: doc.body };
  // One pass over the old body, in order: every piece is a slice of the old body or an edit's
  // text, so nothing is copied here (a splice of a splice would copy the whole body each time).
  const sorted = [...bodyEdits].sort((a, b) => a.start - b.start);
  let text = head;
  let at = 0;
  for (const e of sorted) {
    text += doc.body.slice(at, e.start) + e.text;
    at = e.end;
  }
  text += doc.body.slice(at);
  // The body is a slice of the text: the pieces are copied into one flat string once (the slice
  // does it), not once for the body and again for the text. A plan with one character outside
  // Latin-1 (an annotation's arrow) is a two-byte string: a 1,000-step plan's copy is 180 KB.
  return { text, body: text.slice(head.length) };
}

/** Offsets of a named `##` section's content (after its heading line), or undefined. */
export function findSection(doc: PlanDocument, name: SectionName | string): { start: number; end: number; headingStart: number } | undefined {
  const sec = doc.outline.sections.find((s) => s.depth === 2 && s.title.toLowerCase() === name.toLowerCase());
  return sec ? { start: sec.headingEnd, end: sec.end, headingStart: sec.start } : undefined;
}

/** The trimmed text of a `##` section, or undefined when absent. */
export function sectionText(doc: PlanDocument, name: SectionName | string): string | undefined {
  const s = findSection(doc, name);
  return s ? doc.body.slice(s.start, s.end).trim() : undefined;
}

/** True when `id` is a well-formed plan id. Checked before any path is built from it. */
export function isPlanId(id: unknown): id is string {
  return typeof id === 'string' && PLAN_ID_PATTERN.test(id);
}

/** What the index needs of a plan, read without a Markdown parse. */
export interface PlanSummary {
  fm: Frontmatter;
  steps: number;
  stepsDone: number;
}

/**
 * Reads frontmatter and counts steps without remark: the index's fast path. Refuses what
 * parsePlan refuses in the frontmatter (same errors); the body is only scanned. `known`: a text
 * this process parsed (one it wrote), whose head is looked up in the cache rather than parsed.
 */
export function summarizePlan(text: string, file?: string, known = false): PlanSummary {
  try {
    const { fm, quick } = readHead(text, true, known ? 'lookup' : 'scan');
    return { fm, steps: quick.total, stepsDone: quick.done };
  } catch (e) {
    if (e instanceof PlanError) throw file ? e.inFile(file) : e;
    throw new PlanError('INVALID_FILE', `could not read the plan: ${(e as Error).message}`, { file });
  }
}
