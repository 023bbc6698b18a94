import * as z from 'zod/mini';
import { en } from 'zod/locales';

// zod/mini: the same validation as zod's classic API at a tenth of the memory it takes to load
// (every process that reads plans loads this); English messages, as the classic API gives them.
z.config(en());
import { LIMITS } from '../limits/limits';

/** Every plan status, the union of the seeds (see docs/plan-format.md for the transitions). */
export const PLAN_STATUSES = [
  'draft',
  'proposed',
  'approved',
  'executing',
  'completed',
  'failed',
  'stalled',
  'rejected',
  'needs_review',
  'cancelled',
  'superseded',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Statuses a plan never leaves. */
export const TERMINAL_STATUSES: readonly PlanStatus[] = ['completed', 'cancelled', 'superseded'];

export const STEP_STATUSES = ['pending', 'in_progress', 'blocked', 'done', 'failed', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** Who acted: a person in the editor UI, a person in a terminal, or an agent through a tool. */
export const ACTORS = ['user', 'cli', 'agent'] as const;
export type Actor = (typeof ACTORS)[number];

export const PLAN_ID_PATTERN = /^PLAN-[0-9a-f]{8}$/;
export const STEP_ID_PATTERN = /^S\d{3,4}$/;

/** Metadata sections a plan may carry besides Steps, in the order a new plan writes them. */
export const SECTION_NAMES = ['Goal', 'Steps', 'Assumptions', 'Risks', 'Verification', 'Files', 'Context'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export const PlanIdSchema = z.string().check(z.regex(PLAN_ID_PATTERN, 'a plan id is PLAN- and 8 lowercase hex digits'));
export const StepIdSchema = z.string().check(z.regex(STEP_ID_PATTERN, 'a step id is S and 3 digits, e.g. S001'));

const timestamp = z.string().check(
  z.maxLength(40),
  z.refine((s: string) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 time, e.g. 2026-01-31T12:00:00.000Z'),
);
const short = z.string().check(z.maxLength(LIMITS.shortField));
/** A tool name as pi-planner lists it: one word, written plain in YAML. */
export const ToolNameSchema = z.string().check(
  z.minLength(1),
  z.maxLength(100),
  z.regex(/^[A-Za-z0-9_][A-Za-z0-9_.@/-]*$/, 'a tool name is one word of letters, digits and _ . @ / -'),
);

/** null in hand-written YAML means "absent" (the parse turns a null into undefined, see `Frontmatter`). */
const opt = <T extends z.ZodMiniType>(s: T) => z.nullish(s);

/**
 * The frontmatter: pi-planner's fields plus the few our lifecycle needs. Unknown keys are
 * ignored here and kept in the file byte for byte.
 */
export const FrontmatterSchema = z.object({
  id: PlanIdSchema,
  title: z.string().check(z.minLength(1), z.maxLength(LIMITS.title)),
  status: z.enum(PLAN_STATUSES),
  version: z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
  created_at: timestamp,
  updated_at: timestamp,
  planner_model: opt(short),
  tools_required: opt(z.array(ToolNameSchema).check(z.maxLength(LIMITS.listItems))),
  executor_model: opt(short),
  execution_session: opt(short),
  execution_started_at: opt(timestamp),
  execution_ended_at: opt(timestamp),
  result_summary: opt(z.string().check(z.maxLength(LIMITS.resultSummary))),
  /** Highest step number ever issued: ids are never reused after a removal. */
  step_seq: opt(z.int().check(z.minimum(0), z.maximum(9999))),
  /** Revision links (executing plan -> its revision). */
  supersedes: opt(PlanIdSchema),
  superseded_by: opt(PlanIdSchema),
  /** Who approved, at which version, when. Cleared when the plan changes. */
  approved_by: opt(z.enum(ACTORS)),
  approved_version: opt(z.int().check(z.minimum(0))),
  approved_at: opt(timestamp),
  /** Content digest of the approved text (`sha256:…`, see core/approval.ts; 16 hex digits from older versions, never trusted). */
  approved_hash: opt(z.string().check(z.regex(/^(?:sha256:[0-9a-f]{64}|[0-9a-f]{16})$/, 'a digest written by the approval: sha256: and 64 hex digits'))),
  /** The approving person's name, as their key's owner gave it. */
  approver: opt(short),
  /** The public key that signed the approval: `ed25519:` and 43 base64url characters. */
  approval_key: opt(z.string().check(z.regex(/^ed25519:[A-Za-z0-9_-]{43}$/, 'a signer key written by the approval'))),
  /** The Ed25519 signature of the approval record (base64url). */
  approval_sig: opt(z.string().check(z.regex(/^[A-Za-z0-9_-]{86}$/, 'a signature written by the approval'))),
  /** The digest of the approval's suggestions (its `## Approval (vN)` section), which the signature covers; absent when it has none. */
  approval_notes: opt(z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/, 'a digest written by the approval: sha256: and 64 hex digits'))),
});
/** The validated frontmatter: a field written as null reads as undefined. */
export type Frontmatter = { [K in keyof z.infer<typeof FrontmatterSchema>]: Exclude<z.infer<typeof FrontmatterSchema>[K], null> };
/** Frontmatter keys in the order a new plan writes them. */
export const FRONTMATTER_KEYS = Object.keys(FrontmatterSchema.shape) as (keyof Frontmatter)[];

/** `.pi/plans.json`: pi-planner's keys plus ours. Unknown keys are ignored. */
export const PlansConfigSchema = z.object({
  guardedTools: z._default(z.array(z.string().check(z.maxLength(200))).check(z.maxLength(200)), []),
  stale_after_days: z._default(z.number().check(z.positive(), z.maximum(36500)), 30),
  executor_timeout_minutes: z._default(z.number().check(z.positive(), z.maximum(525600)), 30),
  /** Sections a plan must have (non-empty) before it can be submitted for review. */
  required_sections: z._default(z.array(z.enum(['Goal', 'Assumptions', 'Risks', 'Verification', 'Files', 'Context'])).check(z.maxLength(10)), ['Goal']),
});
export type PlansConfig = z.infer<typeof PlansConfigSchema>;
export const DEFAULT_CONFIG: PlansConfig = PlansConfigSchema.parse({});

/** One line of `sessions/PLAN-<id>.jsonl`. Lines of other shapes (pi-planner's) are tolerated. */
export const CheckpointSchema = z.object({
  type: z.string().check(z.minLength(1), z.maxLength(40)),
  plan: PlanIdSchema,
  at: timestamp,
  version: z.optional(z.int().check(z.minimum(0))),
  step: z.optional(StepIdSchema),
  status: z.optional(z.string().check(z.maxLength(40))),
  note: z.optional(z.string().check(z.maxLength(LIMITS.note))),
  actor: z.optional(z.enum(ACTORS)),
  /** The session that acted (a mark or claim with one): who holds a step when its claim line is gone. */
  session: z.optional(z.string().check(z.maxLength(80))),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;
