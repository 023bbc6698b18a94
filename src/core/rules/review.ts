/**
 * Reviews as code review has them: comments anchored to a step (`S003`) or a section (`Risks`),
 * written into the plan's review history as plain Markdown, and the comparison of a plan with the
 * version a person last decided on. Pure: the store keeps the snapshots, the faces the drafts.
 */
import { type ApprovalStanding, notesDigest } from './approval';
import { lineAtOffset, lineStarts, type PlanDocument } from '../format/document';
import { isReviewHistoryTitle } from '../format/policy';
import { parseReviewNotes, type ReviewComment, type ReviewNotes } from './reviewNotes';

export { parseReviewNotes, type ReviewComment, type ReviewNotes } from './reviewNotes';

const STEP_ID = /^S\d{3,4}$/;
const ANCHOR = /^(?:S\d{3,4}|[^\s:][^:\n]{0,79})$/;
export const COMMENT_LIMITS = { comments: 100, body: 2000 } as const;

/** True for a step anchor (`S003`); anything else names a section. */
export function isStepAnchor(anchor: string): boolean {
  return STEP_ID.test(anchor);
}

/**
 * The body of a review section: the overall feedback, then one `- anchor: text` line per comment
 * (a comment's further lines indented under it). Plain Markdown: pi-planner and people read it as it is.
 */
export function formatReviewNotes(feedback: string, comments: readonly ReviewComment[]): string {
  const fb = feedback.replace(/\r\n?/g, '\n').trim();
  const lines = comments.map((c) => {
    const [first, ...rest] = c.body.replace(/\r\n?/g, '\n').trim().split('\n');
    return [`- ${c.anchor}: ${first}`, ...rest.map((l) => (l.trim() ? `  ${l}` : ''))].join('\n').replace(/\n+$/, '');
  });
  return [fb, lines.join('\n')].filter(Boolean).join('\n\n');
}

/** Checks comments a person or a tool sends; returns them trimmed, or says what is wrong. */
export function normalizeComments(comments: readonly ReviewComment[] | undefined): ReviewComment[] {
  const out: ReviewComment[] = [];
  for (const c of comments ?? []) {
    const anchor = c.anchor.trim();
    const body = c.body.replace(/\r\n?/g, '\n').trim();
    if (!body) continue;
    if (!ANCHOR.test(anchor)) throw new ReviewInputError(`a comment is anchored to a step id (S003) or a section title without ":" (got "${anchor.slice(0, 80)}")`);
    if (body.length > COMMENT_LIMITS.body) throw new ReviewInputError(`the comment on ${anchor} is over ${COMMENT_LIMITS.body} characters: shorten it`);
    out.push({ anchor, body });
  }
  if (out.length > COMMENT_LIMITS.comments) throw new ReviewInputError(`a review holds at most ${COMMENT_LIMITS.comments} comments`);
  return out;
}

/** A comment that cannot be written (its anchor or length); the operations turn it into a PlanError. */
export class ReviewInputError extends Error {}

/** Where each anchor is in the file: 0-based first and last line (a step's last line includes its details and note; a section's is its heading). */
export interface AnchorPlace {
  anchor: string;
  first: number;
  last: number;
}

/** The anchors of a plan in file order of kind: sections (their headings), then steps. One pass over the text. */
export function anchorPlaces(doc: PlanDocument): AnchorPlace[] {
  const starts = lineStarts(doc.text);
  const lineAt = (offset: number) => lineAtOffset(starts, offset);
  const base = doc.block.bodyStart;
  const out: AnchorPlace[] = [];
  const seen = new Set<string>();
  for (const s of doc.outline.sections) {
    if (s.depth !== 2 || isReviewHistoryTitle(s.title) || seen.has(s.title)) continue;
    seen.add(s.title);
    const line = lineAt(base + s.start);
    out.push({ anchor: s.title, first: line, last: line });
  }
  for (const s of doc.steps) {
    const item = doc.outline.steps[s.index];
    out.push({ anchor: s.id, first: lineAt(base + item.start), last: lineAt(base + Math.max(item.start, item.end - 1)) });
  }
  return out;
}

/** Where each anchor of a plan is: steps by id (their first line) and `##` sections by title (their heading line), 0-based lines of the file. */
export function reviewAnchors(doc: PlanDocument): Map<string, number> {
  return new Map(anchorPlaces(doc).map((p) => [p.anchor, p.first]));
}

/**
 * The anchor a line of the file belongs to, for a new comment: any line of a step (its first
 * line, details and note) is the step's; a section's heading line is the section's.
 */
export function anchorAtLine(doc: PlanDocument, line: number): string | undefined {
  return anchorPlaces(doc).find((p) => line >= p.first && line <= p.last)?.anchor;
}

/** A thread of a reviewer's draft review, as far as its place and submission go: anchored to a step id or a section title, never to a line. */
export interface DraftThreadState {
  anchor: string;
  /** The 0-based line it was last shown on (where an outdated thread stays). */
  line: number;
  resolved: boolean;
  comments: readonly { body: string }[];
}

/**
 * Where each draft thread goes in the plan's current text, in the order given: the line of its
 * anchor (a step's first line, a section's heading), which it follows through added, removed and
 * moved steps and edited text; an anchor that is gone makes it `outdated`, kept on its last line.
 */
export function placeDraftThreads(threads: readonly Pick<DraftThreadState, 'anchor' | 'line'>[], doc: PlanDocument): { line: number; outdated: boolean }[] {
  const anchors = reviewAnchors(doc);
  return threads.map((t) => {
    const line = anchors.get(t.anchor);
    return line === undefined ? { line: t.line, outdated: true } : { line, outdated: false };
  });
}

/**
 * The comments a draft review submits, one per thread (its comments joined): unresolved threads
 * with comments whose anchor is still in the plan. Without the plan (it does not read now) the
 * anchors are not checked.
 */
export function pendingDraft(threads: readonly Pick<DraftThreadState, 'anchor' | 'resolved' | 'comments'>[], doc?: PlanDocument): ReviewComment[] {
  const anchors = doc ? reviewAnchors(doc) : undefined;
  return threads.filter((t) => !t.resolved && t.comments.length && (!anchors || anchors.has(t.anchor))).map((t) => ({ anchor: t.anchor, body: t.comments.map((c) => c.body).join('\n\n') }));
}

/** The review sections of a plan, oldest first, read back. */
export function reviewHistoryOf(doc: PlanDocument): { kind: 'rejection' | 'approval'; version: number; notes: ReviewNotes }[] {
  const out: { kind: 'rejection' | 'approval'; version: number; notes: ReviewNotes }[] = [];
  for (const s of doc.outline.sections) {
    const m = /^(Rejection|Approval) \(v(\d+)\)$/.exec(s.title);
    if (s.depth !== 2 || !m) continue;
    out.push({ kind: m[1] === 'Rejection' ? 'rejection' : 'approval', version: Number(m[2]), notes: parseReviewNotes(doc.body.slice(s.headingEnd, s.end)) });
  }
  return out;
}

/** Each `## Approval (vN)` section of a plan: its index in the outline's sections, version, text and the text's digest (`notesDigest`). */
function approvalSections(doc: PlanDocument): { index: number; title: string; version: number; text: string; digest: string }[] {
  const out: { index: number; title: string; version: number; text: string; digest: string }[] = [];
  doc.outline.sections.forEach((s, index) => {
    const m = /^Approval \(v(\d+)\)$/.exec(s.title);
    if (s.depth !== 2 || !m) return;
    const text = doc.body.slice(s.headingEnd, s.end);
    out.push({ index, title: s.title, version: Number(m[1]), text, digest: notesDigest(text) });
  });
  return out;
}

/**
 * The section (its index in the outline's sections) that holds the approval's suggestions as the
 * person wrote them: the `## Approval (vN)` section, N the approved version, whose text is the one
 * the record's signature covers. Only from a standing whose signature verified (`valid`,
 * `changed`, `foreign` checked with a keyring); a section merely titled like an approval, written
 * into the file by hand, is never it.
 */
export function signedApprovalSection(doc: PlanDocument, standing: ApprovalStanding | undefined): number | undefined {
  // A finished plan: the approval it ran on, when its record still verifies.
  const signed = standing?.state === 'none' ? standing.finished : standing?.state === 'invalid' ? undefined : standing;
  if (!signed?.notes) return undefined;
  const { version, notes } = signed;
  return approvalSections(doc).find((a) => a.version === version && a.digest === notes)?.index;
}

/** The approval's suggestions as the signed record names them (see `signedApprovalSection`). */
export function signedApprovalNotes(doc: PlanDocument, standing: ApprovalStanding | undefined): { kind: 'approval'; version: number; notes: ReviewNotes } | undefined {
  const index = signedApprovalSection(doc, standing);
  const found = approvalSections(doc).find((a) => a.index === index);
  return found ? { kind: 'approval', version: found.version, notes: parseReviewNotes(found.text) } : undefined;
}

/**
 * The titles of a plan's `## Approval (vN)` sections that no signed record covers now (written
 * into the file by hand, or left from an approval that no longer holds): never the person's
 * words as far as anything here can tell, and said so wherever they are shown.
 */
export function unsignedApprovalTitles(doc: PlanDocument, standing: ApprovalStanding | undefined): string[] {
  const signed = signedApprovalSection(doc, standing);
  return approvalSections(doc)
    .filter((a) => a.index !== signed)
    .map((a) => a.title);
}

/**
 * The notes of the review a person made of `version`: its rejection section, or its approval's
 * suggestions as the signed record names them (a section merely titled like an approval is not
 * read as theirs). Undefined when there is none.
 */
export function reviewOfVersion(doc: PlanDocument, version: number, standing: ApprovalStanding | undefined): { kind: 'rejection' | 'approval'; version: number; notes: ReviewNotes } | undefined {
  const rejection = reviewHistoryOf(doc).find((r) => r.kind === 'rejection' && r.version === version);
  if (rejection) return rejection;
  const signed = signedApprovalNotes(doc, standing);
  return signed?.version === version ? signed : undefined;
}

/**
 * The comments an agent still has to act on: those of the latest review while its decision
 * stands: a rejection until the plan is submitted again; an approval's suggestions while the plan
 * is approved or executing and its approval holds (`standing` valid), read only from the section
 * the signed record names (see `signedApprovalNotes`).
 */
export function openReview(doc: PlanDocument, standing?: ApprovalStanding): { kind: 'rejection' | 'approval'; version: number; notes: ReviewNotes } | undefined {
  const s = doc.fm.status;
  if (s === 'approved' || s === 'executing') return standing?.state === 'valid' ? signedApprovalNotes(doc, standing) : undefined;
  const last = reviewHistoryOf(doc).at(-1);
  if (last?.kind === 'rejection' && (s === 'rejected' || s === 'draft' || s === 'needs_review')) return last;
  return undefined;
}

// ---------- what changed since a reviewed version ----------

/** A step's content as a reviewer sees it (its status is progress, not content). */
function stepContent(s: PlanDocument['steps'][number]): string {
  return JSON.stringify([s.text, s.tool ?? '', s.operation ?? '', s.target ?? '', s.details ?? '']);
}

/** The `##` sections' text by title (the Steps section and the review history left out). */
function sectionContents(doc: PlanDocument): Map<string, string> {
  const out = new Map<string, string>();
  doc.outline.sections.forEach((s, i) => {
    if (s.depth !== 2 || i === doc.outline.stepsSection || isReviewHistoryTitle(s.title) || out.has(s.title)) return;
    out.set(s.title, doc.body.slice(s.headingEnd, s.end).trim());
  });
  return out;
}

export interface PlanComparison {
  fromVersion: number;
  toVersion: number;
  added: string[];
  changed: string[];
  removed: string[];
  /** Steps whose place in the order changed (nothing else about them). */
  moved: string[];
  sectionsChanged: string[];
  sectionsAdded: string[];
  sectionsRemoved: string[];
  titleChanged: boolean;
}

/** What changed between a reviewed version and the current one, by step id and section title. */
export function comparePlans(from: PlanDocument, to: PlanDocument): PlanComparison {
  const before = new Map(from.steps.map((s) => [s.id, s]));
  const after = new Map(to.steps.map((s) => [s.id, s]));
  const added = to.steps.filter((s) => !before.has(s.id)).map((s) => s.id);
  const removed = from.steps.filter((s) => !after.has(s.id)).map((s) => s.id);
  const changed = to.steps.filter((s) => before.has(s.id) && stepContent(before.get(s.id)!) !== stepContent(s)).map((s) => s.id);
  // Moved: the kept steps' relative order differs.
  const keptBefore = from.steps.filter((s) => after.has(s.id)).map((s) => s.id);
  const keptAfter = to.steps.filter((s) => before.has(s.id)).map((s) => s.id);
  const moved = keptAfter.filter((id, i) => keptBefore[i] !== id && !changed.includes(id));
  const sb = sectionContents(from);
  const sa = sectionContents(to);
  return {
    fromVersion: from.fm.version,
    toVersion: to.fm.version,
    added,
    changed,
    removed,
    moved,
    sectionsChanged: [...sa].filter(([t, v]) => sb.has(t) && sb.get(t) !== v).map(([t]) => t),
    sectionsAdded: [...sa.keys()].filter((t) => !sb.has(t)),
    sectionsRemoved: [...sb.keys()].filter((t) => !sa.has(t)),
    titleChanged: from.fm.title !== to.fm.title,
  };
}

/**
 * Whether a comment's step or section was revised since the review it was made in: a step
 * changed, moved or removed; a section changed, removed, or added (a comment may ask for a
 * section the plan did not have, "Risks: add a Risks section", and writing it answers it). A
 * section anchor names its title in any case, as every section name does (`findSection`):
 * `risks` is `## Risks`.
 */
export function commentAddressed(c: ReviewComment, cmp: PlanComparison): boolean {
  if (isStepAnchor(c.anchor)) return cmp.changed.includes(c.anchor) || cmp.removed.includes(c.anchor) || cmp.moved.includes(c.anchor);
  const title = c.anchor.toLowerCase();
  const named = (titles: readonly string[]) => titles.some((t) => t.toLowerCase() === title);
  return named(cmp.sectionsChanged) || named(cmp.sectionsRemoved) || named(cmp.sectionsAdded);
}

/** The comparison as lines for a terminal or a model: one line per change, by id. */
export function describeComparison(cmp: PlanComparison): string[] {
  const out: string[] = [];
  if (cmp.titleChanged) out.push('~ title');
  for (const id of cmp.added) out.push(`+ ${id} added`);
  for (const id of cmp.changed) out.push(`~ ${id} changed`);
  for (const id of cmp.moved) out.push(`↕ ${id} moved`);
  for (const id of cmp.removed) out.push(`- ${id} removed`);
  for (const t of cmp.sectionsAdded) out.push(`+ ## ${t} added`);
  for (const t of cmp.sectionsChanged) out.push(`~ ## ${t} changed`);
  for (const t of cmp.sectionsRemoved) out.push(`- ## ${t} removed`);
  return out;
}
