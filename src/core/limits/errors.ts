/**
 * Typed errors: every failure a caller can act on carries a code, the file and line when a
 * file is at fault, and a message that names the fix (for a model: what to call next).
 */
export type PlanErrorCode =
  | 'INVALID_ID'
  | 'NOT_FOUND'
  | 'INVALID_FILE'
  | 'TOO_LARGE'
  | 'INVALID_INPUT'
  | 'INVALID_TRANSITION'
  | 'HUMAN_ONLY'
  | 'VERSION_CONFLICT'
  | 'STALE_APPROVAL'
  | 'CHANGED_SINCE_APPROVAL'
  /** Marked approved or executing without an approval record that holds (none, unsigned, forged). */
  | 'APPROVAL_INVALID'
  /** Approved on another machine by a key not trusted here: a person here confirms it first. */
  | 'APPROVAL_UNCONFIRMED'
  /** Review history (`## Approval (vN)`, `## Rejection (vN)`) sent through a field that is not a person's review. */
  | 'REVIEW_HISTORY'
  | 'VALIDATION_FAILED'
  /** A step marked in progress (or done from pending) while a step it waits for is open. */
  | 'STEP_WAITING'
  /** A step in progress that another session holds (its `> Claimed:` record line). */
  | 'STEP_CLAIMED'
  | 'UNSAFE_PATH'
  | 'NOT_A_FILE'
  | 'EDIT_CONFLICT'
  /** A plan's lock cannot be taken or cleared: something else sits where it goes, or its owner is alive. */
  | 'LOCKED'
  | 'IO';

export interface PlanErrorDetails {
  /** Path of the file at fault, relative to the workspace folder when known. */
  file?: string;
  /** 1-based line in that file. */
  line?: number;
  /** For VALIDATION_FAILED: every problem found, so a model can fix them in one pass. */
  problems?: string[];
  /** For VERSION_CONFLICT: the version on disk. */
  currentVersion?: number;
  /** For a file at fault: which rule it breaks, a stable name editors show and filter by (e.g. `duplicate-step-id`). */
  rule?: string;
}

/** The one error type of the core and the store. `message` always says what to do next. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    readonly code: PlanErrorCode,
    message: string,
    readonly details: PlanErrorDetails = {},
  ) {
    super(message);
  }

  /** `file:line: message`, the form editors and CI logs link to. */
  toLocatedString(): string {
    const where = this.details.file ? `${this.details.file}${this.details.line ? `:${this.details.line}` : ''}: ` : '';
    return `${where}${this.message}`;
  }

  /** A copy that names `file` (line numbers offset by `lineOffset`). */
  inFile(file: string, lineOffset = 0): PlanError {
    const line = this.details.line !== undefined ? this.details.line + lineOffset : undefined;
    return new PlanError(this.code, this.message, { ...this.details, file, line });
  }
}

/**
 * True when `e` is a PlanError (of `code`, when given). Checked by shape, not class, so errors
 * from another bundle of this code (another extension host module, a test bundle) count too.
 */
export function isPlanError(e: unknown, code?: PlanErrorCode): e is PlanError {
  const ok = e instanceof PlanError || (e instanceof Error && e.name === 'PlanError' && typeof (e as PlanError).code === 'string' && typeof (e as PlanError).details === 'object');
  return ok && (code === undefined || (e as PlanError).code === code);
}
