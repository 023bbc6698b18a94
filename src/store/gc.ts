/**
 * What `pi-plans gc` removes, decided from a listing (no I/O here): the records Pi Plans keeps per
 * plan or per call, each of a kind with its policy, and the plan files of the workspace with their
 * statuses. The listing and the removal are the faces' (src/node/gcRecords.ts, src/hosts/hook/gcRecords.ts).
 *
 * The rules, and why each holds against an agent that can write any file of the workspace and run
 * any command the person could:
 * - A record that belongs to a plan goes only when that plan is **finished**: every file of its id
 *   (in `.pi/plans/` and `.pi/plans/archive/`) reads, and says completed, cancelled or superseded
 *   (the statuses a plan never leaves). A plan whose file does not read, or that has no file here
 *   (deleted, or on another branch), is not finished: its records stay. A rejected plan is not
 *   finished either: its next round is compared with the review copy of the version rejected.
 * - A record of a call or a session (the hook's call records, the sessions' bindings) goes only
 *   once expired by the rule its owner applies on its own (the lister says so): gc removes earlier
 *   only what the next hook call would.
 * - Kinds whose records prove or guard a decision (the person's decision ledger, the versions the
 *   hook has seen, the confirmations) are listed with their sizes and bounds, and never removed:
 *   with a decision or a seen version gone, old bytes written back over a finished plan (an
 *   approved, executing copy from git) could count again. Removal can only ever make an answer
 *   more restrictive or cost a recomputation, never make an approval valid or free a session.
 * - What a finished plan loses is a record for people: the comparison with its reviewed versions,
 *   its event log, its checks' output, and its steps' snapshots (its `> Changed:` lines stay in the
 *   plan, but are no longer checked against the snapshots, whose files git prunes later). No
 *   approval is judged from any of them. gc is a person's verb (the hook denies it to a bound
 *   agent): a status an agent wrote by hand could make a plan look finished to it.
 * - Only a plain file of the owner's own names, or a ref of its own namespace, is removed; a
 *   link or anything else planted where a record goes is left (and said), never followed.
 */

/** How records of a kind go: with their finished plan, once expired, or never (listed for their size). */
export type GcPolicy = 'finished' | 'expired' | 'kept';

/** A kind of record, as the listing and the report name it. */
export interface GcKind {
  kind: string;
  /** Where it is kept, for a person (a folder, a ref namespace). */
  where: string;
  policy: GcPolicy;
  /** The stated bound of its size, and what keeps it. */
  bound: string;
}

/** One record the listing found: a file, some lines of a file, a ref. */
export interface GcRecord {
  kind: string;
  /** The plan it belongs to (policy `finished`); absent for a record of no plan of this workspace. */
  plan?: string;
  /** What it is, for a person and the remover: a path, `path#PLAN-id` (its lines), a ref name. */
  name: string;
  bytes: number;
  /** How many records this row stands for (lines of a file): 1 when absent. */
  count?: number;
  /** Policy `expired`: whether the owner's own rule says it has expired. */
  expired?: boolean;
  /** Why it cannot be removed even when its plan is finished (a link, not a plain file); absent: it can. */
  blocked?: string;
}

/** A plan file of the workspace: its id, its status (undefined: the file does not read as a plan), and where it is. */
export interface PlanFileSeen {
  id: string;
  status: string | undefined;
  where: 'plans' | 'archive';
}

/** The statuses a plan never leaves (core TERMINAL_STATUSES). */
const FINISHED: ReadonlySet<string> = new Set(['completed', 'cancelled', 'superseded']);

/** The plans every file of which reads and says a finished status. */
export function finishedPlans(files: readonly PlanFileSeen[]): Set<string> {
  const finished = new Set<string>();
  const not = new Set<string>();
  for (const f of files) (f.status !== undefined && FINISHED.has(f.status) ? finished : not).add(f.id);
  for (const id of not) finished.delete(id);
  return finished;
}

/** What gc would do with a listing: the records it removes, and those it would but cannot (`blocked`). */
export interface GcChoice {
  remove: GcRecord[];
  blocked: GcRecord[];
}

/** The records that go: of a finished plan (policy `finished`) or expired (policy `expired`), of a known kind; never a `kept` kind's. */
export function gcChoose(kinds: readonly GcKind[], records: readonly GcRecord[], finished: ReadonlySet<string>): GcChoice {
  const policy = new Map(kinds.map((k) => [k.kind, k.policy]));
  const remove: GcRecord[] = [];
  const blocked: GcRecord[] = [];
  for (const r of records) {
    const p = policy.get(r.kind);
    const goes = p === 'finished' ? r.plan !== undefined && finished.has(r.plan) : p === 'expired' ? r.expired === true : false;
    if (goes) (r.blocked === undefined ? remove : blocked).push(r);
  }
  return { remove, blocked };
}

/** One kind's row of the report: its records now, what gc removes of them, and its bound. */
export interface GcRow extends GcKind {
  count: number;
  bytes: number;
  removeCount: number;
  removeBytes: number;
}

/** The report's rows, one per kind in the order given. */
export function gcRows(kinds: readonly GcKind[], records: readonly GcRecord[], remove: readonly GcRecord[]): GcRow[] {
  const rows = new Map<string, GcRow>(kinds.map((k) => [k.kind, { ...k, count: 0, bytes: 0, removeCount: 0, removeBytes: 0 }]));
  for (const r of records) {
    const row = rows.get(r.kind);
    if (!row) continue;
    row.count += r.count ?? 1;
    row.bytes += r.bytes;
  }
  for (const r of remove) {
    const row = rows.get(r.kind);
    if (!row) continue;
    row.removeCount += r.count ?? 1;
    row.removeBytes += r.bytes;
  }
  return [...rows.values()];
}
