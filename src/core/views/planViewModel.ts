/**
 * What the plan editor draws, as the core computes it (`planView`): a plan's view model, or why
 * the plan cannot be drawn. Plain data a webview builds DOM nodes from: plan text is untrusted (a
 * model wrote it), so Markdown is a sanitized tree of elements and text, never an HTML string.
 * The zod schemas let the webview check what arrives (see `src/protocol/planEditor.ts`); this file
 * imports nothing of the rest of the core, so the webview's bundle carries only it.
 */
import * as z from 'zod/mini';

/** A node of sanitized Markdown: an element (tag and string attributes) or text. */
export type ViewNode = { t: string; a?: Record<string, string>; c?: ViewNode[] } | string;
export const ViewNodeSchema: z.ZodMiniType<ViewNode> = z.union([
  z.string(),
  z.object({
    t: z.string().check(z.regex(/^[a-z][a-z0-9]*$/)),
    a: z.optional(z.record(z.string(), z.string())),
    get c() {
      return z.optional(z.array(ViewNodeSchema));
    },
  }),
]);

/** The sections the editor edits as Markdown (besides the goal), by their key in the core's input. */
export const EDITABLE_SECTIONS = ['assumptions', 'risks', 'verification', 'files', 'context'] as const;

/** The person's commands the editor offers (the core decides which apply now). */
export const PLAN_EDITOR_COMMANDS = ['approve', 'saveToApprove', 'reject', 'confirm', 'withdraw', 'startWork', 'endWork', 'execute', 'retry', 'resume', 'reopen', 'clone', 'cancel', 'archive', 'runChecks', 'acknowledgeDrift'] as const;
export type PlanEditorCommand = (typeof PLAN_EDITOR_COMMANDS)[number];

/** What each command is called wherever a person sees it (the plan editor, the CodeLens). */
export const COMMAND_LABELS: Record<PlanEditorCommand, string> = {
  approve: 'Approve',
  saveToApprove: 'Save to approve',
  reject: 'Reject…',
  confirm: 'Confirm approval…',
  withdraw: 'Withdraw approval',
  startWork: 'Start plan work',
  endWork: 'End plan work',
  execute: 'Execute in Copilot',
  retry: 'Retry',
  resume: 'Resume',
  reopen: 'Reopen as draft',
  clone: 'Clone',
  cancel: 'Cancel…',
  archive: 'Archive',
  runChecks: 'Run checks',
  acknowledgeDrift: 'Acknowledge drift…',
};

/**
 * Words with times in them, as the editor draws a record line: text, and ISO times it writes in
 * the reader's locale (the ISO time in their tooltip), as the header and the timeline do.
 */
const WordsSchema = z.array(z.union([z.string(), z.object({ at: z.string() })]));
export type Words = z.infer<typeof WordsSchema>;

const StepViewSchema = z.object({
  id: z.string(),
  status: z.string(),
  text: z.array(ViewNodeSchema),
  tool: z.optional(z.string()),
  operation: z.optional(z.string()),
  target: z.optional(z.string()),
  /** The target is a file of the workspace: shown as a link that opens it. */
  targetIsFile: z.optional(z.boolean()),
  details: z.optional(z.array(ViewNodeSchema)),
  note: z.optional(z.string()),
  /** Its approved check (`verify:`) and how its last result reads on the files now (issue 30). */
  check: z.optional(
    z.object({
      command: z.string(),
      reading: z.enum(['passed', 'failed', 'stale', 'not run']),
      /** Done, and the check has not passed on the current files. */
      unverified: z.boolean(),
      /** The record line's text (`passed · exit 0 · 3.2 s · tree … · time`). */
      record: z.optional(z.string()),
      /** The last lines of its output, as kept beside the plan. */
      tail: z.optional(z.array(z.string())),
    }),
  ),
  /** The step's record lines other than its note (its claim, changes, check), in the file's order; `words`: the line said plainly (who holds it, when), where it reads. */
  record: z.optional(z.array(z.object({ key: z.string(), text: z.string(), words: z.optional(WordsSchema) }))),
  /** What the step changed, as its `> Changed:` line says, and its evidence flag (a step done). */
  evidence: z.optional(
    z.object({
      flag: z.optional(z.enum(['changed', 'no evidence', 'no change, explained', 'checked'])),
      recorded: z.boolean(),
      why: z.optional(z.string()),
      /** The files the line names, as it names them ("src/a.ts (+2 −0)"). */
      files: z.array(z.string()),
      /** How many files changed in all, and the lines. */
      count: z.number(),
      added: z.number(),
      removed: z.number(),
      notBySession: z.optional(z.array(z.string())),
      /** Steps another session worked on while this one ran (no hooks told their files apart): some files may be theirs. */
      alongside: z.optional(z.array(z.string())),
      /** The trees are named: View changes can show the diff. */
      canView: z.boolean(),
    }),
  ),
  /** The step's text as written (Markdown), for its edit box. */
  source: z.string(),
  /** What a person may mark it as now (while its plan executes). */
  marks: z.array(z.string()),
  /** Unresolved threads of the reviewer's draft review on this step. */
  threads: z.optional(z.number()),
  /** What happened to it since the last reviewed version. */
  since: z.optional(z.enum(['added', 'changed', 'moved'])),
  /** Text of the Steps section after this step and before the next one (or the section's end): drawn, since the agent reads it. */
  after: z.optional(z.array(ViewNodeSchema)),
  /** In a plan that uses `after:` lines: the steps this one waits for (its own, or the step before it). */
  waitsFor: z.optional(z.array(z.string())),
  /** In such a plan: it can start now (pending, every step it waits for done or skipped). */
  runnable: z.optional(z.boolean()),
});
export type StepView = z.infer<typeof StepViewSchema>;

export const PlanViewSchema = z.object({
  kind: z.literal('plan'),
  id: z.string(),
  title: z.string(),
  status: z.string(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  plannerModel: z.optional(z.string()),
  executorModel: z.optional(z.string()),
  toolsRequired: z.array(z.string()),
  approvedBy: z.optional(z.string()),
  approvedVersion: z.optional(z.number()),
  /** The content digest of the text this view was drawn from: the plan editor's Approve approves exactly it. */
  digest: z.string(),
  /** Where the approval stands, for a plan an approval governs: valid, or why not (said plainly). */
  approval: z.optional(z.object({ state: z.enum(['valid', 'foreign', 'changed', 'invalid']), text: z.string() })),
  /** Text before the first heading: the agent reads it, so the reviewer sees it. */
  preamble: z.optional(z.array(ViewNodeSchema)),
  /** Text of the Steps section before its first step. */
  stepsIntro: z.optional(z.array(ViewNodeSchema)),
  /** The targets changed since approval by something other than the plan's own steps, in words (issue 30). */
  drifted: z.optional(z.string()),
  /** Marks noticed from outside the file: active, stalled, stale, changed since approval, drifted, unverified. */
  marks: z.array(z.string()),
  done: z.number(),
  total: z.number(),
  goal: z.optional(z.array(ViewNodeSchema)),
  steps: z.array(StepViewSchema),
  /** In a plan that uses `after:` lines: the waves, step ids by layer (steps that can run together), read from the graph. */
  waves: z.optional(z.array(z.array(z.string()))),
  /** A finished plan's evidence: file changes and lines over its steps, steps with no evidence. */
  evidenceSummary: z.optional(z.object({ files: z.number(), added: z.number(), removed: z.number(), noEvidence: z.number(), explained: z.number() })),
  /** The other sections in the file's order, rendered (Assumptions, Risks, … and the author's own). */
  sections: z.array(
    z.object({
      title: z.string(),
      body: z.array(ViewNodeSchema),
      key: z.optional(z.enum(EDITABLE_SECTIONS)),
      source: z.optional(z.string()),
      threads: z.optional(z.number()),
      since: z.optional(z.enum(['added', 'changed'])),
    }),
  ),
  /** The comparison with the last version a person approved or rejected, when one is kept. */
  review: z.optional(
    z.object({
      fromVersion: z.number(),
      removed: z.array(z.object({ id: z.string(), text: z.string() })),
      /** The comments of that review, each with whether the revision changed its step or section. */
      comments: z.array(z.object({ anchor: z.string(), body: z.string(), addressed: z.boolean() })),
      changes: z.number(),
    }),
  ),
  /** The review history (a person's rejections and approvals with their notes), oldest first. */
  history: z.array(
    z.object({
      kind: z.enum(['rejection', 'approval']),
      version: z.number(),
      body: z.array(ViewNodeSchema),
      /** An approval section no signed approval record names (written into the file, or of an approval that no longer holds): not shown as the person's. */
      unsigned: z.optional(z.boolean()),
    }),
  ),
  /** The checkpoint log, one wording per event (`at`: ISO, written in the reader's locale by the webview); `note`: the event's own words (a step's note, a review's feedback). */
  timeline: z.array(z.object({ at: z.string(), text: z.string(), note: z.optional(z.string()) })),
  resultSummary: z.optional(z.string()),
  commands: z.array(z.enum(PLAN_EDITOR_COMMANDS)),
  /** The one command drawn as the primary action (one of `commands`): none while nothing needs the person (an agent at work). */
  primary: z.optional(z.enum(PLAN_EDITOR_COMMANDS)),
  /** Steps and the goal can be edited here (a draft or a proposal: an edit keeps its status). */
  editable: z.boolean(),
  /** The goal's Markdown as written, for its edit box. */
  goalText: z.optional(z.string()),
  dirty: z.boolean(),
  readOnly: z.boolean(),
});
export type PlanView = z.infer<typeof PlanViewSchema>;

/** A number and the word after it, never split over two lines. */
const whole = (n: number, word: string) => `${n}\u00a0${word}`;

/**
 * A finished plan's evidence in plain words, one sentence per fact (the plan editor's Result, the
 * explorer's tooltip): how many files the steps changed and the lines, the steps done with nothing
 * recorded and no reason, the steps that changed nothing and say why. A file two steps changed counts twice.
 */
export function evidenceSummaryWords(e: { files: number; added: number; removed: number; noEvidence: number; explained: number }): string[] {
  const s = (n: number, one: string, many: string) => whole(n, n === 1 ? one : many);
  const out = [e.files ? `The steps changed ${s(e.files, 'file', 'files')}: ${s(e.added, 'line', 'lines')} added, ${whole(e.removed, 'removed')}.` : 'The steps changed no file.'];
  if (e.noEvidence) out.push(`${s(e.noEvidence, 'step was', 'steps were')} marked done with no change recorded and no note saying why.`);
  if (e.explained) out.push(`${s(e.explained, 'step', 'steps')} changed nothing, and ${e.explained === 1 ? 'its note says' : 'their notes say'} why.`);
  return out;
}

export const InvalidViewSchema = z.object({ kind: z.literal('invalid'), message: z.string(), line: z.optional(z.number()) });
export type InvalidView = z.infer<typeof InvalidViewSchema>;
