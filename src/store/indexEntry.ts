import type { Actor, PlanStatus } from '../core';

/** One row of the index: what a list or a tree shows without opening the plan. */
export interface IndexEntry {
  /** File name in the plans folder, e.g. `PLAN-1a2b3c4d.md`. */
  file: string;
  /** The id the file name says. */
  id: string;
  valid: boolean;
  /** Why the file is invalid, with the line, when it is. */
  error?: { code: string; message: string; line?: number; rule?: string };
  title?: string;
  status?: PlanStatus;
  version?: number;
  createdAt?: string;
  updatedAt?: string;
  steps: number;
  stepsDone: number;
  approvedBy?: Actor;
  approvedVersion?: number;
  /** The digest recorded with the approval (see `changedSinceApproval`). */
  approvedHash?: string;
  supersedes?: string;
  supersededBy?: string;
  size: number;
  mtimeMs: number;
}
