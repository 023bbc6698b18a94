import { Actor, analyze, Analysis, ApprovalKeyring, ApprovalStanding, AttentionFlag, changedTrees, Checkpoint, CreateInput, DecisionRecord, decodePlanBytes, frontmatterOfPlan, isPlanError, OpContext, OpResult, PlanDocument, PlanError, PlansConfig, PlanStatus, problemFromError, withContradicted } from '../core';
import { PlanAttention } from './attention';
import { FolderIndex, PlansChangeEvent } from './folderIndex';
import { follow, FollowOptions, Following } from './following';
import { PlanHistory } from './history';
import { PlanFolder } from './planFolder';
import { IndexEntry, PLAN_FILE_PATTERN } from './planIndex';
import type { Disposable, EvidencePort, StorePorts, WatcherPort } from './ports';
import { PlanWriter, UpdateOptions } from './writePath';

export type { PlansChangeEvent } from './folderIndex';
export type { FollowOptions, Following } from './following';
export { SNAPSHOT_MAX_BYTES, SNAPSHOTS_KEPT } from './history';
export type { UpdateOptions } from './writePath';

/**
 * The plans of one workspace folder: `<root>/.pi/plans`. Every write takes the plan's lock,
 * re-reads the file under it, checks the version, splices, and writes atomically, so any
 * number of writers (windows, CLI, agents) lose no update. Invalid files are listed with their
 * reason and never rewritten.
 *
 * The one entry point the faces use, over one room per job: the folder and its checked reads
 * (`planFolder.ts`), the index and following the folder (`folderIndex.ts`, `folderScan.ts`,
 * `following.ts`), the write path (`writePath.ts`), the history (review copies and the
 * checkpoint log, `history.ts`) and what needs attention (`attention.ts`).
 */
export class PlanStore {
  private readonly folder: PlanFolder;
  private readonly index: FolderIndex;
  private readonly history: PlanHistory;
  private readonly writer: PlanWriter;
  private readonly attentionChecks: PlanAttention;
  /** What each step changed in the workspace, when the ports can tell (the service records it). */
  readonly evidence?: EvidencePort;

  constructor(
    readonly root: string,
    ports: StorePorts,
  ) {
    this.evidence = ports.evidence;
    this.folder = new PlanFolder(root, ports);
    this.index = new FolderIndex(this.folder);
    this.history = new PlanHistory(this.folder);
    this.writer = new PlanWriter(this.folder, this.index, this.history);
    this.attentionChecks = new PlanAttention(this.folder, this.index, this.history, this.writer);
  }

  /** Opens a store: sweeps temp files left by crashed writers, reads the config, builds the index. */
  static async open(root: string, ports: StorePorts): Promise<PlanStore> {
    const store = new PlanStore(root, ports);
    await store.load();
    return store;
  }

  /**
   * Opens a store for work on named plans only (read, update, review, snapshots, clone), without
   * building the index: what it costs does not grow with the number of plans in the folder (the
   * CLI's single-plan commands). `list()` refuses; `entry()` knows only the plans this store wrote.
   */
  static async openForPlans(root: string, ports: StorePorts): Promise<PlanStore> {
    return PlanStore.openWithoutIndex(root, ports, false);
  }

  /**
   * Opens a store whose index is built only when something asks for it (`loadIndex`, which
   * `list` needs first): until then it knows the plans it was asked about (`track`), wrote or
   * heard of from a watcher, and a re-scan re-reads only those. A server answering one call on a
   * named plan (the MCP server) then costs what that plan costs, whatever the folder holds.
   */
  static async openLazily(root: string, ports: StorePorts): Promise<PlanStore> {
    return PlanStore.openWithoutIndex(root, ports, true);
  }

  private static async openWithoutIndex(root: string, ports: StorePorts, lazy: boolean): Promise<PlanStore> {
    const store = new PlanStore(root, ports);
    store.index.withoutWholeIndex(lazy);
    try {
      await store.folder.checkFolders();
      await store.folder.loadConfig();
    } finally {
      store.index.markLoaded();
    }
    return store;
  }

  get plansDir(): string {
    return this.folder.plansDir;
  }
  get sessionsDir(): string {
    return this.folder.sessionsDir;
  }
  get configPath(): string {
    return this.folder.configPath;
  }
  get config(): PlansConfig {
    return this.folder.config;
  }
  /** Why `.pi/plans.json` was not used (defaults apply then), if it was not. */
  get configError(): PlanError | undefined {
    return this.folder.configError;
  }

  // ---------- the index ----------

  /** True once the whole folder is indexed (always, for a store opened with `open`). */
  get indexed(): boolean {
    return this.index.indexed;
  }

  /** Builds the whole index of a store opened lazily (once; later calls wait for the same build). */
  loadIndex(): Promise<void> {
    return this.index.loadIndex();
  }

  /** Brings one plan's entry up to date (a store without its index learns of the plan this way). */
  track(id: string): Promise<IndexEntry | undefined> {
    return this.index.track(id);
  }

  /**
   * Sweeps temp files, reads config and builds the index (from the warm cache where it still
   * holds). Runs in the store's reconcile queue: watcher events that arrive meanwhile are
   * applied after it, never interleaved with it.
   */
  load(): Promise<void> {
    return this.index.load();
  }

  /** Subscribes to index changes. */
  onDidChangePlans(listener: (e: PlansChangeEvent) => void): Disposable {
    return this.index.onDidChangePlans(listener);
  }

  /** Index entries, oldest first, optionally filtered by status. Invalid files are included unless a status filter is given. */
  list(filter: { status?: readonly PlanStatus[] } = {}): IndexEntry[] {
    return this.index.list(filter);
  }

  /** The index entry of a plan id, if the folder has that file. */
  entry(id: string): IndexEntry | undefined {
    return this.index.get(`${id}.md`);
  }

  /** A fresh plan id (not checked against the folder: creating the file refuses a clash). */
  newPlanId(): string {
    return this.folder.newPlanId();
  }

  /** The path of a plan file. Refuses anything that is not a plan id before a path is built. */
  pathOf(id: string): string {
    return this.folder.pathOf(id);
  }

  /**
   * A watcher hint for one path: re-reads that file and updates the index. Our own writes
   * (same bytes as we wrote) cause no event, so there is no reload loop.
   */
  async fileChanged(path: string): Promise<void> {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!PLAN_FILE_PATTERN.test(name) || path.slice(0, path.length - name.length - 1) !== this.folder.plansDir) return;
    await this.index.refreshEntries([name]);
  }

  /**
   * Follows the folder with one or more watchers, started at once (before a first `load`, so no
   * change made during the scan is missed); see `follow`.
   */
  watch(watchers: WatcherPort | readonly WatcherPort[], opts: FollowOptions = {}): Following {
    return follow(this.index, this.folder.plansDir, watchers, opts);
  }

  /** What the latest scan of the folder read: files read, and how many of them the index helper read and summarized. */
  get lastScan(): { reads: number; helped: number } {
    return this.index.lastScan;
  }

  /** Re-scans the folder and reconciles the index with it (after missed watcher events), in the store's queue. */
  rescan(cache?: Map<string, IndexEntry>, emit = true, listed?: readonly string[]): Promise<PlansChangeEvent> {
    return this.index.rescan(cache, emit, listed);
  }

  /** Resolves once the queue is empty and no follower has a timer pending (tests and the bench wait on it). */
  settled(): Promise<void> {
    return this.index.settled();
  }

  /**
   * The steps whose `> Changed:` line the snapshots pinned for them contradict (a line written by
   * hand), asked of the evidence port; none where there is no port or nothing to check.
   */
  async contradicted(doc: PlanDocument): Promise<Set<string>> {
    const lines = this.evidence?.contradicted ? changedTrees(doc.steps) : [];
    if (!lines.length) return new Set();
    return this.evidence!.contradicted!(doc.fm.id, lines).catch(() => new Set<string>());
  }

  /** The plan as a reader should see it: `> Changed:` lines the snapshots contradict read as not recorded. */
  async withEvidenceChecked(doc: PlanDocument): Promise<PlanDocument> {
    const bad = await this.contradicted(doc);
    return bad.size ? { ...doc, steps: withContradicted(doc.steps, bad) } : doc;
  }

  /** Writes the warm-start index through the cache port, if there is one. */
  saveIndexCache(): Promise<void> {
    return this.index.saveIndexCache();
  }

  // ---------- reading ----------

  /** Reads and fully parses a plan. NOT_FOUND, INVALID_FILE (with file and line), UNSAFE_PATH. */
  read(id: string): Promise<PlanDocument> {
    return this.folder.reported(`read ${id}`, () => this.folder.readPlan(id));
  }

  /**
   * Every problem of a plan file, located (see core `analyze`), with the workspace's config; a
   * file that cannot be read at all (not a regular file, too large, not UTF-8) gives that one
   * problem. Never throws for a problem of the file.
   */
  async analyze(id: string): Promise<Analysis> {
    const path = this.folder.pathOf(id);
    let text: string;
    try {
      await this.folder.checkFolders();
      text = decodePlanBytes(await this.folder.readPlanBytes(id, path), this.folder.rel(path));
    } catch (e) {
      if (isPlanError(e)) return { problems: [problemFromError(e)] };
      throw e;
    }
    await this.folder.prepare(text);
    // Only a proposed plan's problems depend on who proposed it: the log is read for those alone.
    let proposed = false;
    try {
      proposed = frontmatterOfPlan(text).status === 'proposed';
    } catch {
      /* analyze reports what is wrong with the head */
    }
    const a = analyze(text, { config: this.folder.config, keyring: await this.keyring(), submitted: proposed && (await this.submitted(id)) });
    if (a.doc && a.doc.fm.id !== id) {
      return { problems: [problemFromError(new PlanError('INVALID_FILE', `the id in the file (${a.doc.fm.id}) is not the file name's (${id}): make them the same`, { line: 2, rule: 'id-mismatch' }), text)] };
    }
    // Parsed: the parser port may keep its outline, as after a read (the next check of the same text needs no parse).
    if (a.doc) this.folder.ports.parser?.parsed?.(text);
    return a;
  }

  // ---------- writing ----------

  /** Milliseconds of the last update's stages (see `PlanWriter.lastUpdateTimings`). */
  get lastUpdateTimings(): PlanWriter['lastUpdateTimings'] {
    return this.writer.lastUpdateTimings;
  }

  /** Creates a plan (draft unless `status` says proposed) with a new id. */
  create(input: Omit<CreateInput, 'id'>, actor: Actor): Promise<PlanDocument> {
    return this.writer.create(input, actor);
  }

  /**
   * Read-modify-write under the plan's lock: re-reads the file, checks `expectedVersion`,
   * applies `op`, validates the result, writes it atomically, appends a checkpoint, updates
   * the index. A refused op changes nothing. Updates of one plan by this store take their turns
   * in call order; other processes' writers wait on the file lock. `op` is worked out before the
   * lock when it can be and again under it when the file changed meanwhile, so it may run twice:
   * what its last run returns is what is written (a closure that keeps what `op` saw keeps the
   * last run's).
   */
  update(id: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: UpdateOptions = {}): Promise<{ doc: PlanDocument; result: OpResult; warnings?: string[] }> {
    return this.writer.update(id, actor, op, opts);
  }

  /** A new proposed plan from a finished, rejected or failed one. */
  clone(id: string, actor: Actor): Promise<PlanDocument> {
    return this.writer.clone(id, actor);
  }

  /** Where archived plans go: out of the plans folder's listing, so out of every index and list. */
  get archiveDir(): string {
    return this.writer.archiveDir;
  }

  /** Moves a finished plan's file, byte for byte, into `.pi/plans/archive/`; returns the new path. */
  archive(id: string, actor: Actor): Promise<string> {
    return this.writer.archive(id, actor);
  }

  // ---------- history ----------

  /** Where the versions a person decided on are kept, per plan: `<reviewCopies>/<id>/v<N>.md`, outside the workspace. Undefined: none are kept. */
  get reviewsDir(): string | undefined {
    return this.history.reviewsDir;
  }

  /** Why no review copies are kept here (the user's state folder is inside a workspace), if that is so. */
  get reviewCopiesProblem(): string | undefined {
    return this.history.reviewCopiesProblem;
  }

  /** Keeps the text of a version a person decided on, with its signed record (see `PlanHistory.saveSnapshot`). */
  saveSnapshot(id: string, version: number, text: string): Promise<void> {
    return this.history.saveSnapshot(id, version, text);
  }

  /** The versions of a plan that have a snapshot, oldest first. */
  snapshotVersions(id: string): Promise<number[]> {
    return this.history.snapshotVersions(id);
  }

  /** The snapshot of `version`, or of the latest decided version before `before` (see `PlanHistory.readSnapshot`). */
  readSnapshot(id: string, opts: { version?: number; before?: number } = {}): Promise<{ version: number; text: string } | undefined> {
    return this.history.readSnapshot(id, opts);
  }

  /** Like `readSnapshot`, naming a kept version that does not read or was changed (see `PlanHistory.findSnapshot`). */
  findSnapshot(id: string, opts: { version?: number; before?: number } = {}): ReturnType<PlanHistory['findSnapshot']> {
    return this.history.findSnapshot(id, opts);
  }

  /** Whether this project's submit put the plan up for review (its log has a `submitted` line). */
  submitted(id: string): Promise<boolean> {
    return this.history.submitted(id);
  }

  /** The checkpoint log of a plan, oldest first. Lines that are not ours (pi-planner's) or are broken are skipped. */
  readCheckpoints(id: string): Promise<Checkpoint[]> {
    return this.history.readCheckpoints(id);
  }

  /** Appends one event to `sessions/<id>.jsonl` (fsynced). */
  checkpoint(id: string, cp: Omit<Checkpoint, 'plan' | 'at'>): Promise<void> {
    return this.history.checkpoint(id, cp);
  }

  // ---------- attention and approvals ----------

  /** Marks executing plans with no activity for `executor_timeout_minutes` as stalled in their files; returns their ids. */
  detectStalled(): Promise<string[]> {
    return this.attentionChecks.detectStalled();
  }

  /** What needs a person's attention, without changing anything (see `PlanAttention.attention`). */
  attention(entry: IndexEntry, opts: { keyring?: ApprovalKeyring } = {}): Promise<AttentionFlag | undefined> {
    return this.attentionChecks.attention(entry, opts);
  }

  /** `attention` of many plans, the keyring fetched once, a few checks at a time (see `PlanAttention.attentionOfAll`); flags in the entries' order. */
  attentionOfAll(entries: readonly IndexEntry[], opts: { keyring?: ApprovalKeyring } = {}): Promise<(AttentionFlag | undefined)[]> {
    return this.attentionChecks.attentionOfAll(entries, opts);
  }

  /** The user's keyring (approvals are checked with it), when the store has the approval keys port. */
  keyring(): Promise<ApprovalKeyring | undefined> {
    return this.attentionChecks.keyring();
  }

  /** Where a plan's approval stands on this machine (see core `approvalStanding`), with the user's keyring. */
  approvalStanding(doc: PlanDocument): Promise<ApprovalStanding> {
    return this.attentionChecks.approvalStanding(doc);
  }

  /** A person on this machine confirms an approval signed elsewhere (see `PlanAttention.confirmApproval`). */
  confirmApproval(id: string, actor: Actor): Promise<PlanDocument> {
    return this.attentionChecks.confirmApproval(id, actor);
  }

  /** Records a person's decision on a plan of this store in the user's state (nothing without the approval keys port). */
  async recordDecision(d: DecisionRecord): Promise<void> {
    await this.folder.ports.approvals?.recordDecision?.(d);
  }
}
