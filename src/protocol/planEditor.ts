/**
 * The plan editor's messages between the extension host and its webview: one module both sides
 * import. Every inbound message is safe-parsed on arrival and dropped (and logged) when invalid.
 * Plan text is untrusted (a model wrote it): Markdown travels as a sanitized tree of elements
 * and text that the webview builds DOM nodes from, never as an HTML string.
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
export const PLAN_EDITOR_COMMANDS = ['approve', 'saveToApprove', 'reject', 'confirm', 'withdraw', 'startWork', 'execute', 'retry', 'resume', 'reopen', 'clone', 'cancel', 'archive'] as const;
export type PlanEditorCommand = (typeof PLAN_EDITOR_COMMANDS)[number];

/** What each command is called wherever a person sees it (the plan editor, the CodeLens). */
export const COMMAND_LABELS: Record<PlanEditorCommand, string> = {
  approve: 'Approve',
  saveToApprove: 'Save to approve',
  reject: 'Reject…',
  confirm: 'Confirm approval…',
  withdraw: 'Withdraw approval',
  startWork: 'Start plan work',
  execute: 'Execute in Copilot',
  retry: 'Retry',
  resume: 'Resume',
  reopen: 'Reopen as draft',
  clone: 'Clone',
  cancel: 'Cancel…',
  archive: 'Archive',
};

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
  /** Marks noticed from outside the file: active, stalled, stale, changed since approval. */
  marks: z.array(z.string()),
  done: z.number(),
  total: z.number(),
  goal: z.optional(z.array(ViewNodeSchema)),
  steps: z.array(StepViewSchema),
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
  /** Steps and the goal can be edited here (a draft or a proposal: an edit keeps its status). */
  editable: z.boolean(),
  /** The goal's Markdown as written, for its edit box. */
  goalText: z.optional(z.string()),
  dirty: z.boolean(),
  readOnly: z.boolean(),
});
export type PlanView = z.infer<typeof PlanViewSchema>;

export const InvalidViewSchema = z.object({ kind: z.literal('invalid'), message: z.string(), line: z.optional(z.number()) });
export type InvalidView = z.infer<typeof InvalidViewSchema>;

/** Host -> webview. */
export const ToWebviewSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('state'),
    state: z.union([PlanViewSchema, InvalidViewSchema]),
    /** Epoch ms: when the host saw the change this state shows, and when it posted it (the bench's figures). */
    at: z.optional(z.object({ changed: z.number(), sent: z.number() })),
  }),
  /** The link the view asked to open is dealt with (opened, or the person's question answered), and the focus is back in the view. */
  z.object({ type: z.literal('linkDone'), href: z.string() }),
]);
export type ToWebview = z.infer<typeof ToWebviewSchema>;

/** Webview -> host. */
export const FromWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** A command on the plan shown; `digest` is the shown text's (an approval approves exactly it). */
  z.object({ type: z.literal('command'), command: z.enum(PLAN_EDITOR_COMMANDS), version: z.number(), digest: z.optional(z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/))) }),
  z.object({ type: z.literal('reject'), feedback: z.string().check(z.minLength(1), z.maxLength(20_000)), version: z.number() }),
  z.object({ type: z.literal('mark'), step: z.string().check(z.regex(/^S\d{3,4}$/)), status: z.enum(['in_progress', 'done', 'blocked', 'skipped']), version: z.number() }),
  z.object({ type: z.literal('openLink'), href: z.string().check(z.maxLength(2000)) }),
  z.object({
    type: z.literal('editStep'),
    op: z.enum(['add', 'update', 'remove', 'move']),
    step: z.optional(z.string().check(z.regex(/^S\d{3,4}$/))),
    text: z.optional(z.string().check(z.maxLength(500))),
    tool: z.optional(z.string().check(z.maxLength(60))),
    operation: z.optional(z.string().check(z.maxLength(60))),
    target: z.optional(z.string().check(z.maxLength(200))),
    /** For move and add: the step it goes after, or "start". */
    after: z.optional(z.string().check(z.regex(/^(S\d{3,4}|start)$/))),
    version: z.number(),
  }),
  z.object({ type: z.literal('editGoal'), text: z.string().check(z.maxLength(20_000)), version: z.number() }),
  z.object({ type: z.literal('editSection'), key: z.enum(EDITABLE_SECTIONS), text: z.string().check(z.maxLength(50_000)), version: z.number() }),
  z.object({ type: z.literal('openAsText') }),
  /** Comment on a step or a section: the text editor opens there with a new comment. */
  z.object({ type: z.literal('comment'), anchor: z.string().check(z.maxLength(120)) }),
  z.object({ type: z.literal('compare') }),
  z.object({ type: z.literal('rendered'), ms: z.number() }),
]);
export type FromWebview = z.infer<typeof FromWebviewSchema>;
