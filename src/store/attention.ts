import { Actor, APPROVAL_GOVERNS, approvalStanding, ApprovalKeyring, ApprovalStanding, AttentionFlag, changeStatus, Frontmatter, isPlanError, isStale, isStalled, PlanDocument, PlanError, standingByHead } from '../core';
import type { FolderIndex } from './folderIndex';
import type { PlanHistory } from './history';
import type { PlanFolder } from './planFolder';
import type { IndexEntry } from './planIndex';
import type { PlanWriter } from './writePath';

/** Attention checks in flight at once in `attentionOfAll`: enough to keep the file system's threads busy (Node's pool has 4). */
const ATTENTION_AT_ONCE = 16;

/** What `attentionByIndex` says when the index alone cannot decide: a file is read. */
const READS_FILES = Symbol('reads files');

/**
 * What needs a person's attention in a plans folder: approvals that do not hold (checked with the
 * user's keyring: from the index alone for a plan with no record, else once per file version and
 * machine through the `verdicts` port), executing plans that stalled, proposals waiting too
 * long; and the two acts a person takes on them here: marking stalled plans in their files, and
 * confirming an approval signed on another machine.
 */
export class PlanAttention {
  constructor(
    private readonly folder: PlanFolder,
    private readonly index: FolderIndex,
    private readonly history: PlanHistory,
    private readonly writer: PlanWriter,
  ) {}

  /** A plan read and parsed, reported as the store's reads are. */
  private read(id: string): Promise<PlanDocument> {
    return this.folder.reported(`read ${id}`, () => this.folder.readPlan(id));
  }

  /**
   * Marks executing plans with no activity for `executor_timeout_minutes` as stalled in their
   * files; returns their ids. Only for a person's explicit action: windows and tools show a stall
   * with `attention` and write nothing.
   */
  async detectStalled(): Promise<string[]> {
    const now = this.folder.ports.clock.now().toISOString();
    const stalled: string[] = [];
    for (const e of this.index.list({ status: ['executing'] })) {
      const last = (await this.history.readCheckpoints(e.id)).at(-1)?.at;
      const doc = await this.read(e.id).catch(() => undefined);
      if (!doc || !isStalled(doc.fm, last, now, this.folder.config)) continue;
      try {
        await this.writer.update(e.id, 'cli', (d, ctx) => {
          // Re-checked under the lock: a checkpoint may have arrived meanwhile.
          if (!isStalled(d.fm, last, ctx.now, this.folder.config)) throw new PlanError('INVALID_TRANSITION', `${e.id} is active again`);
          return changeStatus(d, 'stall', ctx, 'no activity');
        });
        stalled.push(e.id);
      } catch (err) {
        if (!isPlanError(err)) throw err;
      }
    }
    return stalled;
  }

  /**
   * What needs a person's attention, without changing anything: an approval that does not hold
   * (`changed`, `unapproved`, `foreign`: see core `approvalStanding`), `stalled` for an executing
   * plan with no activity for `executor_timeout_minutes`, `stale` for a proposed plan waiting
   * longer than `stale_after_days`. `keyring`: the user's, fetched once by a caller that asks
   * about many plans.
   */
  async attention(entry: IndexEntry, opts: { keyring?: ApprovalKeyring } = {}): Promise<AttentionFlag | undefined> {
    if (!entry.valid || !entry.updatedAt || !entry.status) return undefined;
    const keyring = APPROVAL_GOVERNS.has(entry.status) ? (opts.keyring ?? (await this.keyring())) : undefined;
    const now = this.folder.ports.clock.now().toISOString();
    const byIndex = this.attentionByIndex(entry, keyring, now);
    return byIndex === READS_FILES ? this.attentionByFiles(entry, keyring, now) : byIndex;
  }

  /**
   * `attention` of many plans (a list, the explorer's pass): the keyring fetched, the time taken
   * and the checkpoint logs listed once; what the index decides alone (most plans) decided here
   * without a wait, the rest ATTENTION_AT_ONCE at a time, so a folder of approved plans whose
   * files must be read keeps the file system busy without holding a promise per plan. Flags in
   * the entries' order.
   */
  async attentionOfAll(entries: readonly IndexEntry[], opts: { keyring?: ApprovalKeyring } = {}): Promise<(AttentionFlag | undefined)[]> {
    const keyring = opts.keyring ?? (await this.keyring());
    const now = this.folder.ports.clock.now().toISOString();
    // An executing plan without a log in the sessions folder has no checkpoint to read.
    const logs = entries.some((e) => e.valid && e.status === 'executing') ? new Set(await this.folder.ports.fs.readDir(this.folder.sessionsDir)) : undefined;
    const flags = new Array<AttentionFlag | undefined>(entries.length);
    const reads: number[] = [];
    entries.forEach((e, i) => {
      const byIndex = this.attentionByIndex(e, keyring, now, logs);
      if (byIndex === READS_FILES) reads.push(i);
      else flags[i] = byIndex;
    });
    let next = 0;
    const worker = async () => {
      while (next < reads.length) {
        const i = reads[next++];
        flags[i] = await this.attentionByFiles(entries[i], keyring, now, logs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(ATTENTION_AT_ONCE, reads.length) }, worker));
    return flags;
  }

  /**
   * `attention` from the index entry alone, or READS_FILES when a file decides it: an approval
   * record to check, an executing plan's checkpoint log (`logs`: the sessions folder's names,
   * when listed; an executing plan whose log is not among them has none).
   */
  private attentionByIndex(entry: IndexEntry, keyring: ApprovalKeyring | undefined, now: string, logs?: ReadonlySet<string>): AttentionFlag | undefined | typeof READS_FILES {
    if (!entry.valid || !entry.updatedAt || !entry.status) return undefined;
    if (APPROVAL_GOVERNS.has(entry.status)) {
      const head = standingByHead({ status: entry.status, approved_hash: entry.approvedHash, approved_by: entry.approvedBy, approved_version: entry.approvedVersion }, keyring);
      if (head === 'invalid') return 'unapproved';
      if (!head) return READS_FILES;
    }
    return this.timeFlag(entry, now, logs);
  }

  /** `attention` of a plan whose approval record (or checkpoint log) must be read (`logs` as for `attentionByIndex`). */
  private async attentionByFiles(entry: IndexEntry, keyring: ApprovalKeyring | undefined, now: string, logs?: ReadonlySet<string>): Promise<AttentionFlag | undefined> {
    if (APPROVAL_GOVERNS.has(entry.status!)) {
      const standing = await this.standingOf(entry, keyring);
      if (standing === 'changed') return 'changed';
      if (standing === 'invalid') return 'unapproved';
      if (standing === 'foreign') return 'foreign';
    }
    const flag = this.timeFlag(entry, now, logs);
    if (flag !== READS_FILES) return flag;
    const last = (await this.history.readCheckpoints(entry.id)).at(-1)?.at;
    return isStalled({ status: entry.status, updated_at: entry.updatedAt } as Frontmatter, last, now, this.folder.config) ? 'stalled' : undefined;
  }

  /** `stale` and `stalled`, the flags of time: READS_FILES for an executing plan whose log may hold a later checkpoint (not when `logs` says it has none). */
  private timeFlag(entry: IndexEntry, now: string, logs: ReadonlySet<string> | undefined): AttentionFlag | undefined | typeof READS_FILES {
    const fm = { status: entry.status, updated_at: entry.updatedAt } as Frontmatter;
    if (entry.status === 'proposed') return isStale(fm, now, this.folder.config) ? 'stale' : undefined;
    if (entry.status !== 'executing') return undefined;
    if (!logs || logs.has(`${entry.id}.jsonl`)) return READS_FILES;
    return isStalled(fm, undefined, now, this.folder.config) ? 'stalled' : undefined;
  }

  /** Approval checks by file, kept while the file's size and time and the keyring stay the same. */
  private readonly approvalChecks = new Map<string, { size: number; mtimeMs: number; keyring: unknown; standing: ApprovalStanding['state'] }>();

  /**
   * Where an indexed plan's approval stands. No read at all when the frontmatter the index keeps
   * decides it (no approval record: core `standingByHead`); otherwise the verdict kept for the
   * file's exact bytes under this keyring (the `verdicts` port, shared between processes), or one
   * read and parse whose verdict is then kept. Cached in memory per file state and keyring.
   */
  private async standingOf(entry: IndexEntry, keyring: ApprovalKeyring | undefined): Promise<ApprovalStanding['state']> {
    const head = standingByHead({ status: entry.status, approved_hash: entry.approvedHash, approved_by: entry.approvedBy, approved_version: entry.approvedVersion }, keyring);
    if (head) return head;
    const hit = this.approvalChecks.get(entry.file);
    if (hit && hit.size === entry.size && hit.mtimeMs === entry.mtimeMs && hit.keyring === keyring) return hit.standing;
    const standing = await this.checkApproval(entry.id, keyring).catch((): ApprovalStanding['state'] => 'none');
    this.approvalChecks.set(entry.file, { size: entry.size, mtimeMs: entry.mtimeMs, keyring, standing });
    if (this.approvalChecks.size > 1000) this.approvalChecks.delete(this.approvalChecks.keys().next().value as string);
    return standing;
  }

  /**
   * A plan's approval checked on its file's bytes as they are now: the verdict kept for exactly
   * these bytes and this keyring when there is one, else the plan read and parsed (as `readPlan`
   * does, from the same bytes) and its verdict kept. Reported as the store's reads are.
   */
  private checkApproval(id: string, keyring: ApprovalKeyring | undefined): Promise<ApprovalStanding['state']> {
    return this.folder.reported(`read ${id}`, async () => {
      const path = this.folder.pathOf(id);
      await this.foldersChecked();
      const bytes = await this.folder.readPlanBytes(id, path);
      const verdicts = this.folder.ports.verdicts;
      const keep = verdicts && keyring?.state !== undefined ? { verdicts, state: keyring.state } : undefined;
      const kept = await keep?.verdicts.get(id, bytes, keep.state);
      if (kept) return kept;
      const doc = this.folder.checkId(id, path, await this.folder.documentOf(path, bytes));
      this.folder.ports.parser?.parsed?.(doc.text);
      const standing = approvalStanding(doc, keyring).state;
      keep?.verdicts.put(id, bytes, keep.state, standing);
      return standing;
    });
  }

  /** The folders' check in flight, shared by the approval checks that start while it runs (a list asks about thousands of plans at once). */
  private foldersCheck: Promise<void> | undefined;

  /** `checkFolders`, one check for the callers that ask while one runs (it ends after each of them asked: as recent as a check of its own). */
  private foldersChecked(): Promise<void> {
    if (!this.foldersCheck) {
      const check = this.folder.checkFolders().finally(() => {
        if (this.foldersCheck === check) this.foldersCheck = undefined;
      });
      this.foldersCheck = check;
    }
    return this.foldersCheck;
  }

  /** The user's keyring (approvals are checked with it), when the store has the approval keys port. */
  keyring(): Promise<ApprovalKeyring | undefined> {
    return this.folder.ports.approvals ? this.folder.ports.approvals.keyring() : Promise.resolve(undefined);
  }

  /** Where a plan's approval stands on this machine (see core `approvalStanding`), with the user's keyring. */
  async approvalStanding(doc: PlanDocument): Promise<ApprovalStanding> {
    return approvalStanding(doc, await this.folder.ports.approvals?.keyring());
  }

  /**
   * A person on this machine confirms an approval signed elsewhere by a key not trusted here
   * (`foreign`): its signature is recorded in the user's keyring, outside the workspace, and the
   * plan's file is not changed. Refused when the approval is anything but foreign.
   */
  async confirmApproval(id: string, actor: Actor): Promise<PlanDocument> {
    return this.folder.reported(`confirm ${id}`, async () => {
      const doc = await this.folder.readPlan(id);
      const s = await this.approvalStanding(doc);
      if (s.state !== 'foreign') {
        const why = s.state === 'valid' ? 'its approval is valid here already' : s.state === 'none' ? `it is ${doc.fm.status}: there is no approval to confirm` : `its approval does not hold (${s.state === 'changed' ? 'its text changed since' : s.reason}); a person approves the current text instead`;
        throw new PlanError('INVALID_TRANSITION', `${id} has no approval from another machine to confirm: ${why}`);
      }
      await this.folder.ports.approvals!.confirm(s.signature, { plan: id, approver: s.approver, key: s.key });
      await this.history.checkpoint(id, { type: 'approval_confirmed', status: doc.fm.status, actor, version: doc.fm.version, note: `approved by ${s.approver} on another machine` });
      this.approvalChecks.delete(`${id}.md`);
      return doc;
    });
  }
}
