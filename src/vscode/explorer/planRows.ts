import type * as vscode from 'vscode';
import type { AttentionFlag } from '../../core';
import type { IndexEntry } from '../../store';

// The plan explorer's rows (planTree.ts): its groups and where a plan goes, the kinds of node, and
// the widths and page size its rows are drawn with.

/** The explorer's groups, in the order a reviewer needs them. */
export type GroupKey = 'review' | 'invalid' | 'executing' | 'stalled' | 'failed' | 'approved' | 'draft' | 'rejected' | 'finished';
export const GROUPS: readonly { key: GroupKey; label: string; collapsed?: boolean }[] = [
  { key: 'review', label: 'Awaiting review' },
  { key: 'invalid', label: 'Invalid files' },
  { key: 'executing', label: 'Executing' },
  { key: 'stalled', label: 'Stalled' },
  { key: 'failed', label: 'Failed' },
  { key: 'approved', label: 'Approved' },
  { key: 'draft', label: 'Drafts' },
  { key: 'rejected', label: 'Rejected' },
  { key: 'finished', label: 'Finished', collapsed: true },
];

/** Where a plan goes: by status, an executing plan without activity with the stalled ones. */
export function groupOf(e: IndexEntry, flag: AttentionFlag | undefined): GroupKey {
  if (!e.valid || !e.status) return 'invalid';
  switch (e.status) {
    case 'proposed':
    case 'needs_review':
      return 'review';
    case 'executing':
      return flag === 'stalled' ? 'stalled' : 'executing';
    case 'completed':
    case 'cancelled':
    case 'superseded':
      return 'finished';
    default:
      return e.status;
  }
}

/**
 * How wide a label the default side bar (300 px) shows whole, in ems of the workbench font: a plan
 * row (two levels in), a step row (three); a multi-root workspace's folder level takes 0.62 em more.
 * Measured at rest and with one inline button shown (20 px each; a proposal's two, on its hovered
 * or focused row, take the end of a label longer than 13.6 em).
 */
export const LABEL_EM = { plan: 14.8, step: 14.4, folderLevel: 0.62 };

/** A large group shows this many rows, then "Show more". */
export const PAGE = 200;
/** Statuses whose drift is watched and whose checks may run (src/node/work/planDrift.ts, core/checks.ts). */
export const CHECKED: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled']);

export interface FolderNode {
  kind: 'folder';
  key: string;
  folder: vscode.Uri;
  name: string;
}
export interface GroupNode {
  kind: 'group';
  key: string;
  folder: vscode.Uri;
  group: GroupKey;
}
/** A plan row; `id` and `version` make it a valid argument of every plan command. */
export interface PlanNode {
  kind: 'plan';
  key: string;
  folder: vscode.Uri;
  /** The group it is shown in: part of its key, so a plan moving between groups is two rows, never one id twice. */
  group: GroupKey;
  file: string;
  id: string;
  version?: number;
  /** For an invalid file: the broken line, which opening it goes to. */
  errorLine?: number;
}
export interface StepNode {
  kind: 'step';
  key: string;
  parent: PlanNode;
  id: string;
  version?: number;
  step: string;
}
export interface MoreNode {
  kind: 'more';
  key: string;
  parent: GroupNode;
  remaining: number;
}
export type Node = FolderNode | GroupNode | PlanNode | StepNode | MoreNode;

/** The rows of one folder, grouped and sorted once per change (not once per expanded group). */
export type Snapshot = Map<string, Map<GroupKey, IndexEntry[]>>;
