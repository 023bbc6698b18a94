/**
 * The plan editor's messages between the extension host and its webview: one module both sides
 * import. Every inbound message is safe-parsed on arrival and dropped (and logged) when invalid.
 * Plan text is untrusted (a model wrote it): Markdown travels as a sanitized tree of elements
 * and text that the webview builds DOM nodes from, never as an HTML string.
 */
import * as z from 'zod/mini';
import { InvalidViewSchema, PLAN_EDITOR_COMMANDS, PlanViewSchema, EDITABLE_SECTIONS } from '../core/views/planViewModel';

// The view model is the core's: the protocol carries it.
export * from '../core/views/planViewModel';

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
  z.object({
    type: z.literal('command'),
    command: z.enum(PLAN_EDITOR_COMMANDS),
    version: z.number(),
    digest: z.optional(z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/))),
    /** Run checks of this step only. */
    step: z.optional(z.string().check(z.regex(/^S\d{3,4}$/))),
  }),
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
  /** View changes: VS Code's multi-file diff of what the step changed (the trees its `> Changed:` line names). */
  z.object({ type: z.literal('viewChanges'), step: z.string().check(z.regex(/^S\d{3,4}$/)) }),
  z.object({ type: z.literal('rendered'), ms: z.number() }),
]);
export type FromWebview = z.infer<typeof FromWebviewSchema>;
