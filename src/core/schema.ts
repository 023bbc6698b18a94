import { z } from 'zod';
import { LIMITS } from './limits';

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

export const PlanIdSchema = z.string().regex(PLAN_ID_PATTERN, 'a plan id is PLAN- and 8 lowercase hex digits');
export const StepIdSchema = z.string().regex(STEP_ID_PATTERN, 'a step id is S and 3 digits, e.g. S001');

const timestamp = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 time, e.g. 2026-01-31T12:00:00.000Z');
const short = z.string().max(LIMITS.shortField);
/** A tool name as pi-planner lists it: one word, written plain in YAML. */
export const ToolNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.@/-]*$/, 'a tool name is one word of letters, digits and _ . @ / -');

/** null in hand-written YAML means "absent" (the parse turns a null into undefined, see `Frontmatter`). */
const opt = <T extends z.ZodType>(s: T) => s.nullish();

/**
 * The frontmatter: pi-planner's fields plus the few our lifecycle needs. Unknown keys are
 * ignored here and kept in the file byte for byte.
 */
export const FrontmatterSchema = z.object({
  id: PlanIdSchema,
  title: z.string().min(1).max(LIMITS.title),
  status: z.enum(PLAN_STATUSES),
  version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  created_at: timestamp,
  updated_at: timestamp,
  planner_model: opt(short),
  tools_required: opt(z.array(ToolNameSchema).max(LIMITS.listItems)),
  executor_model: opt(short),
  execution_session: opt(short),
  execution_started_at: opt(timestamp),
  execution_ended_at: opt(timestamp),
  result_summary: opt(z.string().max(LIMITS.resultSummary)),
  /** Highest step number ever issued: ids are never reused after a removal. */
  step_seq: opt(z.number().int().min(0).max(9999)),
  /** Revision links (executing plan -> its revision). */
  supersedes: opt(PlanIdSchema),
  superseded_by: opt(PlanIdSchema),
  /** Who approved, at which version, when. Cleared when the plan changes. */
  approved_by: opt(z.enum(ACTORS)),
  approved_version: opt(z.number().int().min(0)),
  approved_at: opt(timestamp),
  /** Digest of what was approved (title, steps, sections): a later edit outside the store shows as "changed since approval". */
  approved_hash: opt(z.string().regex(/^[0-9a-f]{16}$/, 'a digest of 16 hex digits, written by the approval')),
});
/** The validated frontmatter: a field written as null reads as undefined. */
export type Frontmatter = { [K in keyof z.infer<typeof FrontmatterSchema>]: Exclude<z.infer<typeof FrontmatterSchema>[K], null> };
/** Frontmatter keys in the order a new plan writes them. */
export const FRONTMATTER_KEYS = Object.keys(FrontmatterSchema.shape) as (keyof Frontmatter)[];

/** `.pi/plans.json`: pi-planner's keys plus ours. Unknown keys are ignored. */
export const PlansConfigSchema = z.object({
  guardedTools: z.array(z.string().max(200)).max(200).default([]),
  stale_after_days: z.number().positive().max(36500).default(30),
  executor_timeout_minutes: z.number().positive().max(525600).default(30),
  /** Sections a plan must have (non-empty) before it can be submitted for review. */
  required_sections: z
    .array(z.enum(['Goal', 'Assumptions', 'Risks', 'Verification', 'Files', 'Context']))
    .max(10)
    .default(['Goal']),
});
export type PlansConfig = z.infer<typeof PlansConfigSchema>;
export const DEFAULT_CONFIG: PlansConfig = PlansConfigSchema.parse({});

/** One line of `sessions/PLAN-<id>.jsonl`. Lines of other shapes (pi-planner's) are tolerated. */
export const CheckpointSchema = z.object({
  type: z.string().min(1).max(40),
  plan: PlanIdSchema,
  at: timestamp,
  version: z.number().int().min(0).optional(),
  step: StepIdSchema.optional(),
  status: z.string().max(40).optional(),
  note: z.string().max(LIMITS.note).optional(),
  actor: z.enum(ACTORS).optional(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;
