/**
 * A review's notes as the plan file keeps them (`## Rejection (vN)` / `## Approval (vN)` sections:
 * the feedback, then one `- anchor: text` line per comment), read without a Markdown parse: the
 * full reading (review.ts, over the parsed outline) and the agent hook's quick count (which must
 * not load the Markdown stack) share it.
 */
import { isReviewHistoryHeadingLine } from '../format/policy';
import { fenceAt } from '../format/steps';

/** One comment of a review, anchored to a step id or a section title. */
export interface ReviewComment {
  anchor: string;
  body: string;
}

/** What a review section (`## Rejection (vN)` / `## Approval (vN)`) says. */
export interface ReviewNotes {
  feedback: string;
  comments: ReviewComment[];
}

/** A comment line: `- S003: …` or `- Risks: …` (a section title without a colon or line break). */
const COMMENT_LINE = /^- (S\d{3,4}|[^\s:][^:\n]{0,79}): (.*)$/;

/**
 * Reads a review section back: the comments are the last block of `- anchor: text` lines (with
 * their indented continuation lines); everything before it is the feedback. A section written
 * by hand or by pi-planner without such lines is all feedback.
 */
export function parseReviewNotes(text: string): ReviewNotes {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '').split('\n');
  const comments: ReviewComment[] = [];
  let i = lines.length;
  // Walk back over the trailing block: continuation lines belong to the comment line above them.
  let pending: string[] = [];
  while (i > 0) {
    const line = lines[i - 1];
    const m = COMMENT_LINE.exec(line);
    if (m) {
      comments.unshift({ anchor: m[1], body: [m[2], ...pending].join('\n').trim() });
      pending = [];
      i--;
      continue;
    }
    if (/^ {2}\S/.test(line) || (line === '' && pending.length)) {
      pending.unshift(line.slice(2));
      i--;
      continue;
    }
    break;
  }
  if (!comments.length) return { feedback: text.trim(), comments: [] };
  // Continuation lines above the first comment line were not part of the block.
  if (pending.length) i += pending.length;
  return { feedback: lines.slice(0, i).join('\n').trim(), comments };
}

/** A `#` or `##` heading line: where a `##` section ends. */
const SECTION_HEADING = /^#{1,2}(?:[ \t]|\r?$)/;

/**
 * The number of comments an agent still has to act on while a plan is being revised: those of its
 * last review-history section when that is a rejection and the plan is rejected, a draft again or
 * needs review (core `openReview`, for these statuses). Read from the body without a Markdown
 * parse (headings outside fences): exact for the files the store writes; the full parse is the
 * authority when the plan is opened. An approval's suggestions count only with the signed record
 * behind them, which the store checks: not here.
 */
export function quickRejectionComments(body: string, status: string): number {
  if (status !== 'rejected' && status !== 'draft' && status !== 'needs_review') return 0;
  let last: { rejection: boolean; start: number; end: number } | undefined;
  let inFence = false;
  for (let pos = 0; pos < body.length; ) {
    let end = body.indexOf('\n', pos);
    if (end === -1) end = body.length;
    if (fenceAt(body, pos)) inFence = !inFence;
    else if (!inFence && body.charCodeAt(pos) === 0x23 /* # */) {
      const line = body.slice(pos, end);
      if (last && last.end < 0 && SECTION_HEADING.test(line)) last.end = pos;
      if (isReviewHistoryHeadingLine(line)) last = { rejection: line.startsWith('## Rejection'), start: end + 1, end: -1 };
    }
    pos = end + 1;
  }
  if (!last?.rejection) return 0;
  return parseReviewNotes(body.slice(Math.min(last.start, body.length), last.end < 0 ? body.length : last.end)).comments.length;
}
