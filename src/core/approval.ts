import type { PlanDocument } from './document';
import { isReviewHistoryTitle } from './policy';

/**
 * What a person approves, as one string: the title, each step's text, annotation and details in
 * order, and every section but the review history (`Rejection (vN)`, `Approval (vN)`) and the
 * Steps list itself. Left out on purpose: what execution and our own writes change after an
 * approval (step statuses, notes, ids given to pi-planner steps, version, times, status), and
 * line ends (CRLF or LF) and trailing spaces.
 */
export function approvedContent(doc: PlanDocument): string {
  const norm = (s: string | undefined) => (s ?? '').replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').trim();
  const parts: string[] = [`title:${norm(doc.fm.title)}`];
  for (const s of doc.steps) parts.push(`step:${norm(s.text)}|${s.tool ?? ''}|${s.operation ?? ''}|${norm(s.target)}|${norm(s.details)}`);
  const { sections, stepsSection } = doc.outline;
  sections.forEach((sec, i) => {
    if (i === stepsSection || isReviewHistoryTitle(sec.title)) return;
    parts.push(`section:${sec.depth}:${norm(sec.title)}:${norm(doc.body.slice(sec.headingEnd, sec.end))}`);
  });
  return parts.join('\n');
}

/**
 * A short digest of `approvedContent` (two 32-bit FNV-1a lanes, 16 hex digits). It tells an edit
 * made after the approval from none; it is not a signature (whoever can write the file can write
 * the field too).
 */
export function approvalDigest(doc: PlanDocument): string {
  const text = approvedContent(doc);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** Statuses in which an approval still governs what the agent does. */
const APPROVAL_MATTERS = new Set(['approved', 'executing', 'stalled', 'failed']);

/**
 * True when a plan's text changed since a person approved it (outside the store: an agent's or
 * a person's file edit that kept the version). Plans approved before digests were recorded, and
 * plans whose approval no longer governs anything, are never flagged.
 */
export function changedSinceApproval(doc: PlanDocument): boolean {
  const want = doc.fm.approved_hash;
  return want !== undefined && APPROVAL_MATTERS.has(doc.fm.status) && approvalDigest(doc) !== want;
}
