import { approvalStanding, ApprovalKeyring, standingProblem } from '../rules/approval';
import { parsePlan, PlanDocument } from '../format/document';
import { isPlanError, PlanError } from '../limits/errors';
import { ensureStepIds, reviewProblemList, sectionTextEdits } from '../ops/operations';
import { Checkpoint, DEFAULT_CONFIG, PlansConfig } from '../format/schema';
import { recordBlockOf } from '../format/steps';
import { GRAPH_CODES, graphProblems } from '../rules/graphProblems';
import { diffEdits, positionAt, TextEdit, TextPosition } from '../format/textEdits';

/** How much a problem matters: an error keeps the plan from being read (or, for review, from being proposed). */
export type ProblemSeverity = 'error' | 'warning' | 'info';

/** One problem of a plan text, located, with a stable code and, where one is obvious, a fix. */
export interface PlanProblem {
  /** A stable name for the rule, e.g. `frontmatter-field`, `duplicate-step-id`, `missing-section`. */
  code: string;
  severity: ProblemSeverity;
  /** What is wrong and what to do, as every other message of Pi Plans. */
  message: string;
  range: { start: TextPosition; end: TextPosition };
  /** 1-based line of the start, for `file:line` output. */
  line: number;
  /** True when the problem is the file itself (not a file, too large, not UTF-8): no line of it is at fault. */
  wholeFile?: boolean;
  /** Text edits that fix it, with a title for a quick-fix menu. */
  fix?: { title: string; edits: TextEdit[] };
}

/** What `analyze` found: the parsed plan when it could be read, and every problem. */
export interface Analysis {
  doc?: PlanDocument;
  problems: PlanProblem[];
}

function lineRange(text: string, line: number): { start: TextPosition; end: TextPosition } {
  const lines = text.split('\n');
  const i = Math.min(Math.max(line, 1), lines.length) - 1;
  return { start: { line: i, character: 0 }, end: { line: i, character: lines[i].replace(/\r$/, '').length } };
}

/** A refusal to read a plan as the one problem it is (its rule, or its code as `not-a-file`...), on its line of `text`. */
export function problemFromError(e: PlanError, text = ''): PlanProblem {
  const line = e.details.line ?? 1;
  const p: PlanProblem = { code: e.details.rule ?? e.code.toLowerCase().replace(/_/g, '-'), severity: 'error', message: e.message, range: lineRange(text, line), line };
  if (e.details.line === undefined) p.wholeFile = true;
  return p;
}

/** What `analyze` is told besides the text. */
export interface AnalyzeOptions {
  config?: PlansConfig;
  keyring?: ApprovalKeyring;
  /**
   * Whether this project's submit put the plan up for review (`submittedHere` of its checkpoint
   * log). A proposed plan's missing sections are errors then (the submit checked them, so they
   * were removed since), and warnings otherwise (another tool, such as pi-planner, proposed it).
   */
  submitted?: boolean;
}

/**
 * Every problem of a plan text, located; never throws. A text that cannot be read gives the one
 * problem that stops it (with its line); a readable plan gives what keeps it from review (for a
 * draft or proposed plan: missing sections, no steps, a step without text) and what its next
 * write would change (steps without ids), each with its range and, where obvious, a fix.
 */
export function analyze(text: string, opts: AnalyzeOptions = {}): Analysis {
  let doc: PlanDocument;
  try {
    doc = parsePlan(text);
  } catch (e) {
    if (isPlanError(e)) return { problems: [problemFromError(e, text)] };
    return { problems: [{ code: 'unreadable', severity: 'error', message: `could not read the plan: ${(e as Error).message}`, range: lineRange(text, 1), line: 1 }] };
  }
  const problems: PlanProblem[] = [];
  const at = (offset: number, end = offset) => {
    const start = positionAt(text, offset);
    return { range: { start, end: end === offset ? { line: start.line, character: lineLength(text, offset) } : positionAt(text, end) }, line: start.line + 1 };
  };
  // What keeps a plan from review matters while it is a draft (a warning) or proposed: an error
  // when our submit proposed it (it refuses such a plan, so the text changed since), a warning
  // when another tool did (pi-planner writes no Goal): that plan was never held to this
  // project's rules, and is when it is submitted through Pi Plans.
  const status = doc.fm.status;
  if (status === 'draft' || status === 'proposed') {
    const foreign = status === 'proposed' && !opts.submitted;
    const severity: ProblemSeverity = status === 'proposed' && !foreign ? 'error' : 'warning';
    const after = status === 'draft' ? ' before submitting for review' : foreign ? ' (another tool proposed this plan; a plan submitted through Pi Plans needs it)' : '';
    for (const p of reviewProblemList(doc, opts.config ?? DEFAULT_CONFIG)) {
      if (GRAPH_CODES.has(p.code)) continue; // below, with their fixes, whatever the status
      const anchor = p.step !== undefined ? doc.block.bodyStart + doc.outline.steps[doc.steps.find((s) => s.id === p.step)!.index].start : headerLineOffset(doc);
      const fix = p.section ? { title: `Add a "## ${p.section}" section`, edits: sectionTextEdits(doc, p.section, SECTION_PLACEHOLDER[p.section] ?? 'TODO') } : undefined;
      problems.push({ code: p.code, severity, message: `${p.message}${after}`, ...at(anchor), ...(fix ? { fix } : {}) });
    }
    // A line in the form of the store's record lines on a step not yet worked on: the approval would be refused (see `approve`).
    for (const s of doc.steps) {
      if (s.record === undefined || s.status !== 'pending') continue;
      const it = doc.outline.steps[s.index];
      const note = recordBlockOf(doc.body.slice(it.start, it.end))!;
      problems.push({
        code: 'note-form',
        severity: 'warning',
        message: `${s.id}'s last ${note.lines.length === 1 ? 'line is' : `${note.lines.length} lines are`} in the form execution records are written in (\`> ${note.lines[0].key}: …\`), which an approval does not cover: approving this plan is refused until ${note.lines.length === 1 ? 'that line is' : 'they are'} written another way (for example \`> Warning: …\`) or deleted`,
        ...at(doc.block.bodyStart + it.start + note.start),
      });
    }
  }
  problems.push(...graphProblems(doc, status === 'draft' ? 'warning' : 'error'));
  const approval = approvalProblem(doc, opts.keyring);
  if (approval) problems.push({ ...approval, ...at(statusLineOffset(doc)) });
  const missing = doc.steps.filter((s) => !s.hasId);
  if (missing.length) {
    const fixed = ensureStepIds(doc);
    const edits = diffEdits(text, fixed.text);
    for (const s of missing) {
      problems.push({
        code: 'step-without-id',
        severity: 'info',
        message: `this step has no id yet; the next write gives it ${s.id}`,
        ...at(doc.block.bodyStart + doc.outline.steps[s.index].start),
        fix: { title: `Give ${missing.length === 1 ? 'the step its id' : `the ${missing.length} steps their ids`}`, edits },
      });
    }
  }
  return { doc, problems };
}

/**
 * Whether this project's submit put a plan up for review: its checkpoint log has a `submitted`
 * line, which only the submit writes, after it checked the required sections. (Step ids do not
 * tell: any edit here gives a pi-planner plan's steps their ids without submitting it.)
 */
export function submittedHere(checkpoints: readonly Pick<Checkpoint, 'type'>[]): boolean {
  return checkpoints.some((c) => c.type === 'submitted');
}

/** What a quick fix writes into a section it adds: a prompt for the person to replace. */
const SECTION_PLACEHOLDER: Partial<Record<string, string>> = {
  Goal: 'What this plan achieves, in one or two sentences.',
  Assumptions: '- What this plan takes for granted',
  Risks: '- What could go wrong, and how it is contained',
  Verification: '- How to tell that the plan worked',
  Files: '- The files this plan changes',
  Context: 'What a reader needs to know first.',
};

function lineLength(text: string, offset: number): number {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let end = text.indexOf('\n', offset);
  if (end === -1) end = text.length;
  if (text[end - 1] === '\r') end--;
  return end - lineStart;
}

/**
 * The problem of an approval that does not hold, for a plan whose status an approval governs: an
 * error when its text changed since or it has no valid record, a warning when it was approved on
 * another machine and waits for a confirmation here. Without a keyring, only what the text alone
 * tells (no record, an unsigned one, a changed text) is reported.
 */
function approvalProblem(doc: PlanDocument, keyring: ApprovalKeyring | undefined): Pick<PlanProblem, 'code' | 'severity' | 'message'> | undefined {
  const s = approvalStanding(doc, keyring);
  if (s.state === 'foreign' && !keyring) return undefined;
  const problem = standingProblem(doc, s);
  if (!problem) return undefined;
  if (s.state === 'foreign') return { code: 'approval-unconfirmed', severity: 'warning', message: `${problem} (Pi Plans: Confirm Approval, or \`pi-plans confirm ${doc.fm.id}\`)` };
  return { code: s.state === 'changed' ? 'approval-changed' : 'approval-invalid', severity: 'error', message: `${problem}: it cannot run on this approval; submit it for review again, and a person approves the current text` };
}

/** Where an approval problem is shown: the `status:` line, else the first line. */
function statusLineOffset(doc: PlanDocument): number {
  const m = /^status\s*:/m.exec(doc.block.yaml);
  return m ? doc.block.yamlStart + m.index : 0;
}

/** Where a problem of the whole plan is shown: the `title:` line, else the first line. */
function headerLineOffset(doc: PlanDocument): number {
  const m = /^title\s*:/m.exec(doc.block.yaml);
  return m ? doc.block.yamlStart + m.index : 0;
}
