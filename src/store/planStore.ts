import {
  Actor,
  analyze,
  Analysis,
  AttentionFlag,
  APPROVAL_GOVERNS,
  approvalStanding,
  ApprovalKeyring,
  ApprovalStanding,
  Checkpoint,
  CheckpointSchema,
  clonePlan,
  createPlanText,
  CreateInput,
  decodePlanBytes,
  DEFAULT_CONFIG,
  isPlanError,
  isPlanId,
  isStale,
  fileTooLarge,
  LIMITS,
  isStalled,
  Frontmatter,
  OpContext,
  OpResult,
  frontmatterOfPlan,
  parsePlan,
  PlanDocument,
  nextStatus,
  compareText,
  PlanError,
  PlansConfig,
  PlansConfigSchema,
  PlanStatus,
  changeStatus,
  problemFromError,
  submittedHere,
  reviewCopyPayload,
  textDigest,
} from '../core';
import { entryOfRead, entryOfStat, IndexEntry, indexEntryFor, isSpecial, notAFileEntry, PLAN_FILE_PATTERN, sameEntry } from './planIndex';
import { describeKind, Disposable, FileStat, StorePorts, WatcherPort } from './ports';

/** How a store follows its folder; see `PlanStore.watch`. */
export interface FollowOptions {
  /** Quiet time after the last event before a re-scan reconciles the burst (ms). */
  settleMs?: number;
  /** A re-scan this long after the first load, for changes made before a watcher was live (ms; 0: none). */
  confirmMs?: number;
  /** A re-scan on this period, for watchers that stopped silently (ms; 0: none). */
  periodMs?: number;
}

/** A store following its folder. */
export interface Following extends Disposable {
  /** Queues a re-scan (a listing and stats; only changed files are read). At most one waits at a time. */
  reconcile(): Promise<void>;
  /** Resolves once no watcher event, re-scan or settle timer is pending. */
  settled(): Promise<void>;
}

/** What changed in the plans folder, by file name. */
export interface PlansChangeEvent {
  added: string[];
  changed: string[];
  removed: string[];
  /** Of `added` and `changed`: files whose new content this store did not write (an editor, git, another process). */
  outside?: string[];
}

/** Options of an update. */
export interface UpdateOptions {
  /** The version the caller last saw; a different version on disk is a VERSION_CONFLICT. */
  expectedVersion?: number;
  /** Let an agent approve (the user's application-scoped opt-in). */
  agentMayApprove?: boolean;
  /** Plan bodies the operation will parse (e.g. `setContentBodies`), handed to the parser port first. */
  bodies?: (doc: PlanDocument) => readonly string[];
  /** The operation signs an approval: the person's signer is fetched (and made on first use) first. */
  sign?: boolean;
}

const encoder = new TextEncoder();
// 2: entries carry `approvedHash`. 3: an entry is valid only when the reader's limits on the body
// pass too (an index saved before listed a plan with a 60 KB Context as valid).
const CACHE_FORMAT = 3;
const READ_CHUNK = 256;
/** A scan reading fewer new files than this does it alone: a helper's start costs more than it saves. */
const HELPER_MIN_FILES = 4 * READ_CHUNK;

/** How many decided versions of a plan are kept for comparison, and the largest kept. */
export const SNAPSHOTS_KEPT = 10;
export const SNAPSHOT_MAX_BYTES = 1024 * 1024;

/**
 * The plans of one workspace folder: `<root>/.pi/plans`. Every write takes the plan's lock,
 * re-reads the file under it, checks the version, splices, and writes atomically, so any
 * number of writers (windows, CLI, agents) lose no update. Invalid files are listed with their
 * reason and never rewritten.
 */
export class PlanStore {
  readonly plansDir: string;
  readonly sessionsDir: string;
  readonly configPath: string;
  private entries = new Map<string, IndexEntry>();
  private listeners = new Set<(e: PlansChangeEvent) => void>();
  /** Our own latest write per file and the entry it gave: a watcher event with the same bytes is our echo. */
  private ownWrites = new Map<string, OwnWrite>();
  /**
   * The document of the latest update (one: an agent works through one plan), so the next update
   * of that plan starts from it when the file still holds our bytes. The index keeps no documents.
   */
  private lastWritten?: { name: string; doc: PlanDocument };
  /** Checkpoint logs we appended to, with their size after our append (to detect a torn last line). */
  private logSizes = new Map<string, number>();
  private _config: PlansConfig = DEFAULT_CONFIG;
  /**
   * Milliseconds spent in the last update under the lock (read, compare or work out, durable
   * write) and appending its checkpoint; `earlyUsed`: the work done before the lock was what got
   * written.
   */
  lastUpdateTimings = { earlyUsed: false, locked: 0, checkpoint: 0 };
  private _configError: PlanError | undefined;
  private loaded = false;
  /** How many files the last scan had to read (0: everything came from the index or the cache). */
  private lastScanReads = 0;
  /** Of those, how many the index helper (a worker thread) read and summarized. */
  private lastScanHelped = 0;

  constructor(
    readonly root: string,
    private readonly ports: StorePorts,
  ) {
    const r = root.replace(/[\\/]+$/, '');
    this.plansDir = `${r}/.pi/plans`;
    this.sessionsDir = `${this.plansDir}/sessions`;
    this.configPath = `${r}/.pi/plans.json`;
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
    const store = new PlanStore(root, ports);
    store.withoutIndex = true;
    try {
      await store.checkFolders();
      await store.loadConfig();
    } finally {
      store.markLoaded();
    }
    return store;
  }

  /**
   * Opens a store whose index is built only when something asks for it (`loadIndex`, which
   * `list` needs first): until then it knows the plans it was asked about (`track`), wrote or
   * heard of from a watcher, and a re-scan re-reads only those. A server answering one call on a
   * named plan (the MCP server) then costs what that plan costs, whatever the folder holds.
   */
  static async openLazily(root: string, ports: StorePorts): Promise<PlanStore> {
    const store = await PlanStore.openForPlans(root, ports);
    store.lazy = true;
    return store;
  }

  /** True for a store opened for named plans only (no index). */
  private withoutIndex = false;
  private lazy = false;
  private indexLoading: Promise<void> | undefined;

  /** True once the whole folder is indexed (always, for a store opened with `open`). */
  get indexed(): boolean {
    return !this.withoutIndex;
  }

  /** Builds the whole index of a store opened lazily (once; later calls wait for the same build). */
  loadIndex(): Promise<void> {
    if (!this.withoutIndex) return Promise.resolve();
    if (!this.lazy) return Promise.reject(new PlanError('IO', 'internal: this store was opened for named plans only; open it with PlanStore.open or openLazily to list plans'));
    this.indexLoading ??= this.queued(async () => {
      this.withoutIndex = false;
      try {
        await this.loadNow();
      } catch (e) {
        this.withoutIndex = true;
        this.indexLoading = undefined;
        throw e;
      }
    });
    return this.indexLoading;
  }

  /** Brings one plan's entry up to date (a store without its index learns of the plan this way). */
  async track(id: string): Promise<IndexEntry | undefined> {
    const name = `${this.pathOf(id).slice(this.plansDir.length + 1)}`;
    await this.queued(() => this.refreshEntries([name]));
    return this.entries.get(name);
  }

  get config(): PlansConfig {
    return this._config;
  }
  /** Why `.pi/plans.json` was not used (defaults apply then), if it was not. */
  get configError(): PlanError | undefined {
    return this._configError;
  }

  /**
   * Sweeps temp files, reads config and builds the index (from the warm cache where it still
   * holds). Runs in the store's reconcile queue: watcher events that arrive meanwhile are
   * applied after it, never interleaved with it.
   */
  async load(): Promise<void> {
    try {
      await this.queued(() => this.loadNow());
    } finally {
      this.markLoaded();
    }
  }

  private async loadNow(): Promise<void> {
    await this.checkFolders();
    const names = await this.ports.fs.readDir(this.plansDir);
    if (names.length) await this.ports.fs.sweepTempFiles(this.plansDir, names);
    await this.loadConfig();
    const cached = await this.readIndexCache();
    await this.rescanNow(cached, false, names);
    this.loaded = true;
    // Save only when the cache did not already hold exactly this index.
    if (!cached || this.lastScanReads > 0 || cached.size !== this.entries.size) await this.saveIndexCache();
  }

  /** Subscribes to index changes. */
  onDidChangePlans(listener: (e: PlansChangeEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Index entries, oldest first, optionally filtered by status. Invalid files are included unless a status filter is given. */
  list(filter: { status?: readonly PlanStatus[] } = {}): IndexEntry[] {
    if (this.withoutIndex) throw new PlanError('IO', `internal: this store has no index${this.lazy ? ' yet: await loadIndex() first' : ' (opened for named plans only); open it with PlanStore.open to list plans'}`);
    let all = [...this.entries.values()];
    if (filter.status?.length) all = all.filter((e) => e.status && filter.status!.includes(e.status));
    return all.sort((a, b) => compareText(a.createdAt ?? '', b.createdAt ?? '') || compareText(a.file, b.file));
  }

  /** The index entry of a plan id, if the folder has that file. */
  entry(id: string): IndexEntry | undefined {
    return this.entries.get(`${id}.md`);
  }

  /** A fresh plan id (not checked against the folder: creating the file refuses a clash). */
  newPlanId(): string {
    return `PLAN-${this.ports.random.hex8()}`;
  }

  /** The path of a plan file. Refuses anything that is not a plan id before a path is built. */
  pathOf(id: string): string {
    if (!isPlanId(id)) {
      const shown = JSON.stringify(String(id).slice(0, 40));
      throw new PlanError('INVALID_ID', `${shown} is not a plan id: ids are PLAN- and 8 lowercase hex digits, e.g. PLAN-1a2b3c4d; list the plans to find one`);
    }
    return `${this.plansDir}/${id}.md`;
  }

  /** Reads and fully parses a plan. NOT_FOUND, INVALID_FILE (with file and line), UNSAFE_PATH. */
  async read(id: string): Promise<PlanDocument> {
    return this.reported(`read ${id}`, () => this.readUnreported(id));
  }

  private async readUnreported(id: string): Promise<PlanDocument> {
    const path = this.pathOf(id);
    await this.checkFolders();
    const bytes = await this.readPlanBytes(id, path);
    const text = decodePlanBytes(bytes, this.rel(path));
    await this.prepare(text);
    const doc = this.checkId(id, path, parsePlan(text, this.rel(path)));
    this.ports.parser?.parsed?.(text);
    return doc;
  }

  /**
   * Every problem of a plan file, located (see core `analyze`), with the workspace's config; a
   * file that cannot be read at all (not a regular file, too large, not UTF-8) gives that one
   * problem. Never throws for a problem of the file.
   */
  async analyze(id: string): Promise<Analysis> {
    const path = this.pathOf(id);
    let text: string;
    try {
      await this.checkFolders();
      text = decodePlanBytes(await this.readPlanBytes(id, path), this.rel(path));
    } catch (e) {
      if (isPlanError(e)) return { problems: [problemFromError(e)] };
      throw e;
    }
    await this.prepare(text);
    // Only a proposed plan's problems depend on who proposed it: the log is read for those alone.
    let proposed = false;
    try {
      proposed = frontmatterOfPlan(text).status === 'proposed';
    } catch {
      /* analyze reports what is wrong with the head */
    }
    const a = analyze(text, { config: this._config, keyring: await this.keyring(), submitted: proposed && (await this.submitted(id)) });
    if (a.doc && a.doc.fm.id !== id) {
      return { problems: [problemFromError(new PlanError('INVALID_FILE', `the id in the file (${a.doc.fm.id}) is not the file name's (${id}): make them the same`, { line: 2, rule: 'id-mismatch' }), text)] };
    }
    return a;
  }

  /** Has a parser port compute the Markdown parse of `text` off this thread first, when there is one. */
  private async prepare(text: string): Promise<void> {
    await this.ports.parser?.prepare(text).catch(() => undefined);
  }

  /** Creates a plan (draft unless `status` says proposed) with a new id. */
  async create(input: Omit<CreateInput, 'id'>, actor: Actor): Promise<PlanDocument> {
    return this.reported('create', () => this.createUnreported(input, actor));
  }

  private async createUnreported(input: Omit<CreateInput, 'id'>, actor: Actor): Promise<PlanDocument> {
    await this.ensureFolders();
    const ctx = this.ctx(actor);
    for (let attempt = 0; ; attempt++) {
      const id = `PLAN-${this.ports.random.hex8()}`;
      const text = createPlanText({ ...input, id }, ctx.now);
      try {
        await this.writeNew(id, text);
        await this.checkpoint(id, { type: 'created', status: parsePlan(text).fm.status, actor, version: 1 });
        this.ports.parser?.parsed?.(text);
        return parsePlan(text);
      } catch (e) {
        if (attempt < 3 && (e as { code?: string }).code === 'EEXIST') continue;
        throw e;
      }
    }
  }

  /**
   * Read-modify-write under the plan's lock: re-reads the file, checks `expectedVersion`,
   * applies `op`, validates the result, writes it atomically, appends a checkpoint, updates
   * the index. A refused op changes nothing. Updates of one plan by this store take their turns
   * in call order (see `inTurn`); other processes' writers wait on the file lock. `op` is worked
   * out before the lock when it can be and again under it when the file changed meanwhile, so it
   * may run twice: what its last run returns is what is written (a closure that keeps what `op`
   * saw keeps the last run's).
   */
  async update(id: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: UpdateOptions = {}): Promise<{ doc: PlanDocument; result: OpResult; warnings?: string[] }> {
    return this.reported(`update ${id}`, () => this.updateUnreported(id, actor, op, opts));
  }

  private async updateUnreported(id: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: UpdateOptions): Promise<{ doc: PlanDocument; result: OpResult; warnings?: string[] }> {
    const path = this.pathOf(id);
    const name = `${id}.md`;
    // This store's updates of the plan queue here, in call order (the turn is taken before the
    // first await), and only the one whose turn it is waits on the file lock: a hundred calls in
    // flight on one plan each wait for the one before (handed over at once) instead of polling
    // the lock with a growing pause. The lock stays what keeps other processes' writers out.
    const { work, earlyUsed, entrySet, locked, afterWrite } = await this.inTurn(path, async () => {
      await this.checkFolders();
      // The checkpoint log is checked before anything is written: a log that cannot be appended
      // to (a link, a folder) refuses the update whole, rather than after the plan changed.
      await this.checkLog(id);
      const options: WorkOptions = { ...opts, approvals: await this.approvalContext(opts.sign === true) };
      return this.writeUnderLock(id, path, actor, op, options);
    });
    const t1 = performance.now();
    const { result, doc } = work;
    // The plan is written: what follows cannot undo it, so a failure is said, not thrown.
    const warnings: string[] = [...afterWrite];
    try {
      // A mark logs the step's status (as the format documents); a mark that completes the plan
      // is two events, the mark and the plan's completion.
      await this.checkpoint(id, { type: result.event, step: result.step, status: result.stepStatus ?? result.status, note: result.note, actor, version: doc.fm.version });
      if (result.autoCompleted) await this.checkpoint(id, { type: 'status', status: result.status, actor, version: doc.fm.version });
    } catch (e) {
      warnings.push(`the change was written, but its checkpoint could not be logged (${messageOf(e)})`);
      this.ports.onError?.(`checkpoint ${id}`, e);
    }
    this.lastUpdateTimings = { earlyUsed, locked, checkpoint: performance.now() - t1 };
    // Announced here unless a refresh or re-scan that ran meanwhile compared the file with what
    // listeners last heard of, and so announced it (see `unannounced`).
    if (entrySet && this.unannounced.has(name)) {
      const heard = this.heard(name, undefined);
      const now = this.entries.get(name);
      this.emit({ added: !heard && now ? [name] : [], changed: heard && now && !sameEntry(heard, now) ? [name] : [], removed: [] });
    }
    try {
      await this.refreshEntries([...(entrySet ? [] : [name]), ...(result.created ?? []).map((c) => `${c.id}.md`)]);
    } catch (e) {
      warnings.push(`the plan list could not be brought up to date with the change (${messageOf(e)})`);
      this.ports.onError?.(`refresh ${id}`, e);
    }
    this.ports.parser?.parsed?.(result.text);
    return warnings.length ? { doc, result, warnings } : { doc, result };
  }

  /**
   * An update's work and write, in its turn (see `updateUnreported`): the operation is worked out
   * before the lock is taken (see `earlyUpdate`), from a document and the bytes that hold it;
   * under the lock, the file's bytes are compared with those, and only an exact match lets the
   * early work be written (anything else, and any error the early work met, is done again under
   * the lock from what the file holds). Done in the turn, the early work starts from the write of
   * the update before, so it is what gets written unless another process wrote in between. The
   * lock is held for a read, a comparison and the durable write; other writers wait that long.
   * The time stamped is when the work was done (before any wait for the lock). `locked`: the
   * milliseconds from asking for the lock to its release.
   */
  private async writeUnderLock(id: string, path: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, options: WorkOptions): Promise<{ work: UpdateWork; earlyUsed: boolean; entrySet: boolean; locked: number; afterWrite: string[] }> {
    const name = `${id}.md`;
    const early = await this.earlyUpdate(id, path, actor, op, options);
    const t0 = performance.now();
    const release = await this.ports.lock.acquire(path);
    let work: UpdateWork;
    let entrySet = false;
    // Once the plan is written, nothing may fail the update: what goes wrong after is said (`afterWrite`).
    let isWritten = false;
    const afterWrite: string[] = [];
    let failure: { error: unknown } | undefined;
    try {
      const bytes = await this.readPlanBytes(id, path);
      if (early && this.sameBytes(early.basis, bytes)) work = early;
      else {
        const known = this.lastDocument(name);
        const before = known && this.sameBytes(known.bytes, bytes) ? known.doc : await this.documentOf(id, path, bytes);
        work = await this.workOut(id, path, this.checkId(id, path, before), actor, op, options);
      }
      const { result, written } = work;
      // Asked before anything is written: a refused write leaves no revision behind.
      await this.ports.writeGuard?.(path);
      for (const c of result.created ?? []) await this.writeNew(c.id, c.text);
      const wrote = await this.ports.fs.writeFileAtomic(path, written, { stat: true });
      isWritten = true;
      this.ownWrites.set(name, work.own ?? { text: result.text, bytes: written });
      this.lastWritten = { name, doc: work.doc };
      // Our write's entry, from the text we wrote (no decode, no parse) and the stat of the file
      // that holds our bytes: the written file's own (a writer that is not a store may replace
      // it at any time, and then its stat differs), or else stat and bytes read back from one
      // open file and compared byte for byte. Set while we hold the lock, so a watcher event for
      // any later write replaces it (its stat differs); announced once the checkpoint is written.
      // Otherwise the file is read as any change is.
      try {
        if (wrote) entrySet = this.setOwnEntry(name, wrote);
        else {
          const got = (await this.ports.fs.readManyWithStats?.([path], LIMITS.fileBytes))?.[0];
          if (got && !(got instanceof Error) && got.bytes && this.sameBytes(got.bytes, written)) entrySet = this.setOwnEntry(name, got.stat);
        }
      } catch {
        entrySet = false; // the file is read again as any change is
      }
    } catch (e) {
      failure = { error: e };
    }
    try {
      await release();
    } catch (e) {
      if (isWritten) {
        afterWrite.push(`the plan's lock could not be released (${messageOf(e)})`);
        this.ports.onError?.(`release the lock of ${id}`, e);
      } else failure ??= { error: e };
    }
    if (failure) throw failure.error;
    return { work: work!, earlyUsed: work! === early, entrySet, locked: performance.now() - t0, afterWrite };
  }

  /** This store's writers of each plan, by path: the turn of the latest one (settled when it is done, never rejected). */
  private readonly writers = new Map<string, Promise<void>>();

  /**
   * Runs `fn`, a write of the plan at `path`, once this store's writes of that plan called before
   * it are done, in call order (the turn is taken at once, when called); the next starts as soon
   * as `fn` settles (its error is its caller's alone). Only the write whose turn it is takes the
   * file lock, so writes of one process never wait on each other through the lock's polling.
   * `fn` must not write the same plan through this store (it would wait for itself).
   */
  private async inTurn<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const before = this.writers.get(path);
    const run = before ? before.then(fn) : fn();
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.writers.set(path, done);
    try {
      return await run;
    } finally {
      // The last in line leaves no entry behind (a store that wrote many plans keeps none of their turns).
      if (this.writers.get(path) === done) this.writers.delete(path);
    }
  }

  /**
   * The early work of an update (see `updateUnreported`): the operation applied to the plan as it
   * is before the lock, with the bytes that hold it. The document is our latest write's when the
   * plan is the one this store wrote last (no read, no parse); otherwise the file is read and
   * parsed here, outside the lock (a read needs none: writes replace the file whole). Undefined
   * when the update hands bodies to the parser port first, or when the work fails (the work under
   * the lock then meets the error, if it is one, and reports it).
   */
  private async earlyUpdate(id: string, path: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: WorkOptions): Promise<(UpdateWork & { basis: Uint8Array }) | undefined> {
    if (opts.bodies) return undefined;
    const name = `${id}.md`;
    try {
      const known = this.lastDocument(name);
      const basis = known?.bytes ?? (await this.readPlanBytes(id, path));
      const before = known?.doc ?? (await this.documentOf(id, path, basis));
      const work = await this.workOut(id, path, this.checkId(id, path, before), actor, op, opts);
      // The entry of the write, too: only its size and time wait for the write's stat.
      const mine: OwnWrite = { text: work.result.text, bytes: work.written };
      mine.entry = indexEntryFor(name, work.written, { size: work.written.byteLength, mtimeMs: 0 }, false, work.result.text);
      return { ...work, own: mine, basis };
    } catch {
      return undefined;
    }
  }

  /**
   * The document of this store's latest write of the plan `name`, with the bytes written: when
   * the file still holds those bytes, that is its parse (no decode, no parse, not even the
   * caches' lookups, which hash the whole body: 0.1 ms on a 1,000-step plan). Undefined when the
   * store wrote another plan since, or when the bytes do not decode to exactly the text.
   */
  private lastDocument(name: string): { bytes: Uint8Array; doc: PlanDocument } | undefined {
    const own = this.ownWrites.get(name);
    const last = this.lastWritten;
    return own?.bytes && wellFormed(own) && last?.name === name && last.doc.text === own.text ? { bytes: own.bytes, doc: last.doc } : undefined;
  }

  /** The parse of a plan's bytes (decoded strictly; the parser port asked first). */
  private async documentOf(id: string, path: string, bytes: Uint8Array): Promise<PlanDocument> {
    const text = decodePlanBytes(bytes, this.rel(path));
    await this.prepare(text);
    return parsePlan(text, this.rel(path));
  }

  /**
   * An update's work on the document it starts from: the version check, the operation, the parse
   * of what it would write (the operation's own document, or a parse of exactly its text), and
   * the bytes to write. Writes nothing.
   */
  private async workOut(id: string, path: string, before: PlanDocument, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: WorkOptions): Promise<UpdateWork> {
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== before.fm.version) {
      throw new PlanError(
        'VERSION_CONFLICT',
        `${id} is at version ${before.fm.version}, you sent ${opts.expectedVersion}: it changed since you read it; read it again and retry`,
        { currentVersion: before.fm.version },
      );
    }
    if (opts.bodies && this.ports.parser?.prepareBody) {
      const parser = this.ports.parser;
      await Promise.all(opts.bodies(before).map((b) => parser.prepareBody!(b).catch(() => undefined)));
    }
    const result = op(before, { ...this.ctx(actor), agentMayApprove: opts.agentMayApprove, approvals: opts.approvals });
    // What is written is checked by a parse of exactly that text (the operation's own, or a new one).
    let doc: PlanDocument;
    if (result.doc && result.doc.text === result.text) doc = result.doc;
    else {
      await this.prepare(result.text);
      doc = parsePlan(result.text, this.rel(path));
    }
    if (doc.fm.id !== id || doc.fm.version !== before.fm.version + 1) {
      throw new PlanError('IO', `internal check failed: ${id} would be written as ${doc.fm.id} v${doc.fm.version}; nothing was written`);
    }
    for (const c of result.created ?? []) parsePlan(c.text, `.pi/plans/${c.id}.md`);
    return { result, doc, written: encoder.encode(result.text) };
  }

  /** A new proposed plan from a finished, rejected or failed one. */
  async clone(id: string, actor: Actor): Promise<PlanDocument> {
    return this.reported(`clone ${id}`, () => this.cloneUnreported(id, actor));
  }

  private async cloneUnreported(id: string, actor: Actor): Promise<PlanDocument> {
    const src = await this.readUnreported(id);
    await this.ensureFolders();
    const ctx = this.ctx(actor);
    const newId = `PLAN-${this.ports.random.hex8()}`;
    const text = clonePlan(src, newId, ctx);
    await this.writeNew(newId, text);
    await this.checkpoint(newId, { type: 'created', status: 'proposed', actor, version: 1, note: `cloned from ${id}` });
    return parsePlan(text);
  }

  /** Where the versions a person decided on are kept, per plan: `<reviewCopies>/<id>/v<N>.md`, outside the workspace. Undefined: none are kept. */
  get reviewsDir(): string | undefined {
    return this.ports.reviewCopies?.replace(/[\\/]+$/, '');
  }

  /** Why no review copies are kept here (the user's state folder is inside a workspace), if that is so. */
  get reviewCopiesProblem(): string | undefined {
    return this.ports.reviewCopiesProblem;
  }

  /**
   * Keeps the text of a version a person decided on (approved or rejected), so the next round
   * can be compared with it. Not a plan and not a source of truth: a failure here never fails
   * the review (the caller says it), a plan over the size cap is not kept, and only the latest
   * `SNAPSHOTS_KEPT` versions per plan stay. Beside each copy, `v<N>.json` records the copy's
   * digest, signed with the person's key (see `copyRecord`): a copy rewritten later does not
   * pass for the text that was decided on.
   */
  async saveSnapshot(id: string, version: number, text: string): Promise<void> {
    this.pathOf(id);
    if (this.ports.reviewCopiesProblem) throw new PlanError('UNSAFE_PATH', this.ports.reviewCopiesProblem);
    const bytes = new TextEncoder().encode(text);
    if (bytes.length > SNAPSHOT_MAX_BYTES || !this.reviewsDir) return;
    const dir = `${this.reviewsDir}/${id}`;
    // Signed first: a copy that cannot be vouched for is not kept.
    const record = await this.copyRecord(id, version, text);
    await this.ports.writeGuard?.(dir);
    await this.ports.fs.mkdirp(dir);
    await this.ports.fs.writeFileAtomic(`${dir}/v${version}.md`, bytes);
    await this.ports.fs.writeFileAtomic(`${dir}/v${version}.json`, encoder.encode(JSON.stringify(record) + '\n'));
    const kept = await this.snapshotVersions(id);
    for (const v of kept.slice(0, Math.max(0, kept.length - SNAPSHOTS_KEPT))) {
      await this.ports.fs.removeFile(`${dir}/v${v}.md`).catch(() => undefined);
      await this.ports.fs.removeFile(`${dir}/v${v}.json`).catch(() => undefined);
    }
  }

  /**
   * A review copy's record: its digest, and (with the approval keys port) the person's signature
   * of plan, version and digest. The copies live outside the workspace, but an agent runs as the
   * user and can write there too; a digest alone beside the copy would be rewritten with it.
   */
  private async copyRecord(id: string, version: number, text: string): Promise<CopyRecord> {
    const digest = textDigest(text);
    const port = this.ports.approvals;
    if (!port) return { version, digest };
    const signer = await port.signer();
    return { version, digest, key: signer.key, sig: signer.sign(reviewCopyPayload({ id, version, digest })) };
  }

  /** Why a kept copy is not the text recorded for it when it was kept (undefined when it is). */
  private async copyChanged(id: string, version: number, text: string): Promise<string | undefined> {
    const raw = await this.ports.fs.readFile(`${this.reviewsDir}/${id}/v${version}.json`).catch(() => undefined);
    let record: Partial<CopyRecord> | undefined;
    try {
      record = raw ? (JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as Partial<CopyRecord>) : undefined;
    } catch {
      record = undefined;
    }
    if (!record || typeof record !== 'object') return `v${version}'s copy has no record of its digest (kept by an older Pi Plans, or the record was removed), so it cannot be told from a rewritten one`;
    if (record.version !== version || record.digest !== textDigest(text)) return `v${version}'s copy is not the text kept when a person decided on it`;
    const port = this.ports.approvals;
    if (!port) return undefined;
    const keyring = await port.keyring();
    const signed = typeof record.key === 'string' && typeof record.sig === 'string' && keyring.verify(reviewCopyPayload({ id, version, digest: record.digest }), record.sig, record.key) && keyring.trust(record.key)?.kind === 'own';
    return signed ? undefined : `v${version}'s copy and its record do not verify with your approval key`;
  }

  /** The versions of a plan that have a snapshot, oldest first. */
  async snapshotVersions(id: string): Promise<number[]> {
    this.pathOf(id);
    if (!this.reviewsDir) return [];
    const names = await this.ports.fs.readDir(`${this.reviewsDir}/${id}`).catch(() => [] as string[]);
    return names
      .map((n) => /^v(\d{1,9})\.md$/.exec(n)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /**
   * The snapshot of `version`, or of the latest decided version before `before` (by default the
   * latest one). Undefined when there is none, it cannot be read or it was changed: no
   * comparison, never an error.
   */
  async readSnapshot(id: string, opts: { version?: number; before?: number } = {}): Promise<{ version: number; text: string } | undefined> {
    const found = await this.findSnapshot(id, opts);
    return found && 'text' in found ? found : undefined;
  }

  /**
   * Like `readSnapshot`, but a kept version whose file does not read (unreadable, or not UTF-8:
   * corrupted) comes back as that version with the reason, and one that is not the text recorded
   * when it was kept (rewritten, its record missing or not verifying) with `changed` and why, so
   * a message can name it instead of saying that none is kept, or comparing with a copy that lies.
   * Never throws for a snapshot.
   */
  async findSnapshot(id: string, opts: { version?: number; before?: number } = {}): Promise<{ version: number; text: string } | { version: number; unreadable: string; changed?: boolean } | undefined> {
    const versions = await this.snapshotVersions(id);
    const v = opts.version ?? versions.filter((x) => opts.before === undefined || x < opts.before).at(-1);
    if (v === undefined || !versions.includes(v)) return undefined;
    const bytes = await this.ports.fs.readFile(`${this.reviewsDir}/${id}/v${v}.md`).catch(() => undefined);
    if (!bytes) return { version: v, unreadable: 'its file could not be opened' };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return { version: v, unreadable: 'corrupted: its file is not valid UTF-8' };
    }
    // A copy that is not the plan's text of that version, or not the text recorded when it was
    // kept, was changed after it was kept: a comparison with it would lie ("no change"), so there is none.
    let fm: { id: string; version: number } | undefined;
    try {
      fm = frontmatterOfPlan(text);
    } catch {
      fm = undefined;
    }
    if (!fm || fm.id !== id || fm.version !== v) return { version: v, unreadable: `it is not ${id}'s text of v${v}`, changed: true };
    const changed = await this.copyChanged(id, v, text).catch((e: unknown) => `its record could not be checked (${e instanceof Error ? e.message : String(e)})`);
    if (changed) return { version: v, unreadable: changed, changed: true };
    return { version: v, text };
  }

  /** Where archived plans go: out of the plans folder's listing, so out of every index and list. */
  get archiveDir(): string {
    return `${this.plansDir}/archive`;
  }

  /**
   * Moves a finished plan's file, byte for byte, into `.pi/plans/archive/` (a person's act: the
   * transition table allows it for completed, cancelled and superseded plans). Under the plan's
   * lock; an archived file of the same name is never overwritten. Returns the new path.
   */
  async archive(id: string, actor: Actor): Promise<string> {
    return this.reported(`archive ${id}`, async () => {
      const path = this.pathOf(id);
      const target = `${this.archiveDir}/${id}.md`;
      // In its turn among this store's writes of the plan (see `inTurn`), then under the lock.
      const doc = await this.inTurn(path, async () => {
        await this.checkFolders();
        const release = await this.ports.lock.acquire(path);
        try {
          const bytes = await this.readPlanBytes(id, path);
          const read = this.checkId(id, path, parsePlan(decodePlanBytes(bytes, this.rel(path)), this.rel(path)));
          nextStatus(id, read.fm.status, 'archive', actor);
          await this.ports.writeGuard?.(path);
          await this.ports.fs.mkdirp(this.archiveDir);
          try {
            await this.ports.fs.createFileExclusive(target, bytes);
          } catch (e) {
            if ((e as { code?: string }).code !== 'EEXIST') throw e;
            throw new PlanError('IO', `${this.rel(target)} exists already: move or rename it, then archive ${id} again`);
          }
          await this.ports.fs.removeFile(path);
          return read;
        } finally {
          await release();
        }
      });
      await this.checkpoint(id, { type: 'archived', status: doc.fm.status, actor, version: doc.fm.version, note: this.rel(target) });
      await this.refreshEntries([`${id}.md`]);
      return target;
    });
  }

  /**
   * Marks executing plans with no activity for `executor_timeout_minutes` as stalled in their
   * files; returns their ids. Only for a person's explicit action: windows and tools show a stall
   * with `attention` and write nothing.
   */
  async detectStalled(): Promise<string[]> {
    const now = this.ports.clock.now().toISOString();
    const stalled: string[] = [];
    for (const e of this.list({ status: ['executing'] })) {
      const last = (await this.readCheckpoints(e.id)).at(-1)?.at;
      const doc = await this.read(e.id).catch(() => undefined);
      if (!doc || !isStalled(doc.fm, last, now, this._config)) continue;
      try {
        await this.update(e.id, 'cli', (d, ctx) => {
          // Re-checked under the lock: a checkpoint may have arrived meanwhile.
          if (!isStalled(d.fm, last, ctx.now, this._config)) throw new PlanError('INVALID_TRANSITION', `${e.id} is active again`);
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
    if (APPROVAL_GOVERNS.has(entry.status)) {
      const standing = await this.standingOf(entry, opts.keyring ?? (await this.keyring()));
      if (standing === 'changed') return 'changed';
      if (standing === 'invalid') return 'unapproved';
      if (standing === 'foreign') return 'foreign';
    }
    const now = this.ports.clock.now().toISOString();
    const fm = { status: entry.status, updated_at: entry.updatedAt } as Frontmatter;
    if (entry.status === 'proposed') return isStale(fm, now, this._config) ? 'stale' : undefined;
    if (entry.status !== 'executing') return undefined;
    const last = (await this.readCheckpoints(entry.id)).at(-1)?.at;
    return isStalled(fm, last, now, this._config) ? 'stalled' : undefined;
  }

  /** Approval checks by file, kept while the file's size and time and the keyring stay the same. */
  private readonly approvalChecks = new Map<string, { size: number; mtimeMs: number; keyring: unknown; standing: ApprovalStanding['state'] }>();

  /** Where an indexed plan's approval stands (one read and parse, then cached per file state and keyring). */
  private async standingOf(entry: IndexEntry, keyring: ApprovalKeyring | undefined): Promise<ApprovalStanding['state']> {
    const hit = this.approvalChecks.get(entry.file);
    if (hit && hit.size === entry.size && hit.mtimeMs === entry.mtimeMs && hit.keyring === keyring) return hit.standing;
    const doc = await this.read(entry.id).catch(() => undefined);
    const standing = doc ? approvalStanding(doc, keyring).state : 'none';
    this.approvalChecks.set(entry.file, { size: entry.size, mtimeMs: entry.mtimeMs, keyring, standing });
    if (this.approvalChecks.size > 1000) this.approvalChecks.delete(this.approvalChecks.keys().next().value as string);
    return standing;
  }

  /** The user's keyring (approvals are checked with it), when the store has the approval keys port. */
  keyring(): Promise<ApprovalKeyring | undefined> {
    return this.ports.approvals ? this.ports.approvals.keyring() : Promise.resolve(undefined);
  }

  /** Where a plan's approval stands on this machine (see core `approvalStanding`), with the user's keyring. */
  async approvalStanding(doc: PlanDocument): Promise<ApprovalStanding> {
    return approvalStanding(doc, await this.ports.approvals?.keyring());
  }

  /** What an update checks approvals with (the keyring) and, for an approval, signs with. */
  private async approvalContext(sign: boolean): Promise<OpContext['approvals']> {
    const port = this.ports.approvals;
    if (!port) return undefined;
    return { keyring: await port.keyring(), signer: sign ? await port.signer() : undefined };
  }

  /**
   * A person on this machine confirms an approval signed elsewhere by a key not trusted here
   * (`foreign`): its signature is recorded in the user's keyring, outside the workspace, and the
   * plan's file is not changed. Refused when the approval is anything but foreign.
   */
  async confirmApproval(id: string, actor: Actor): Promise<PlanDocument> {
    return this.reported(`confirm ${id}`, async () => {
      const doc = await this.readUnreported(id);
      const s = await this.approvalStanding(doc);
      if (s.state !== 'foreign') {
        const why = s.state === 'valid' ? 'its approval is valid here already' : s.state === 'none' ? `it is ${doc.fm.status}: there is no approval to confirm` : `its approval does not hold (${s.state === 'changed' ? 'its text changed since' : s.reason}); a person approves the current text instead`;
        throw new PlanError('INVALID_TRANSITION', `${id} has no approval from another machine to confirm: ${why}`);
      }
      await this.ports.approvals!.confirm(s.signature, { plan: id, approver: s.approver, key: s.key });
      await this.checkpoint(id, { type: 'approval_confirmed', status: doc.fm.status, actor, version: doc.fm.version, note: `approved by ${s.approver} on another machine` });
      this.approvalChecks.delete(`${id}.md`);
      return doc;
    });
  }

  /**
   * Whether this project's submit put the plan up for review (core `submittedHere`: its log has a
   * `submitted` line). False when the log is missing or cannot be read: nothing says it was.
   */
  async submitted(id: string): Promise<boolean> {
    try {
      return submittedHere(await this.readCheckpoints(id));
    } catch {
      return false;
    }
  }

  /** The checkpoint log of a plan, oldest first. Lines that are not ours (pi-planner's) or are broken are skipped. */
  async readCheckpoints(id: string): Promise<Checkpoint[]> {
    this.pathOf(id);
    const bytes = await this.ports.fs.readFile(`${this.sessionsDir}/${id}.jsonl`);
    if (!bytes) return [];
    const out: Checkpoint[] = [];
    for (const line of new TextDecoder().decode(bytes).split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = CheckpointSchema.safeParse(JSON.parse(line));
        if (r.success) out.push(r.data);
      } catch {
        /* a torn or foreign line: skip it */
      }
    }
    // In time order: a log merged by git's union driver holds one branch's lines, then the other's.
    return out.every((c, i) => !i || out[i - 1].at <= c.at) ? out : out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  /** Appends one event to `sessions/<id>.jsonl` (fsynced). */
  async checkpoint(id: string, cp: Omit<Checkpoint, 'plan' | 'at'>): Promise<void> {
    await this.ports.fs.mkdirp(this.sessionsDir);
    const path = `${this.sessionsDir}/${id}.jsonl`;
    const line: Checkpoint = { type: cp.type, plan: id, at: this.ports.clock.now().toISOString() };
    for (const k of ['version', 'step', 'status', 'note', 'actor'] as const) if (cp[k] !== undefined) (line as Record<string, unknown>)[k] = cp[k];
    let text = JSON.stringify(line) + '\n';
    // A writer that crashed mid-line left no line break: start on a fresh line so both survive.
    // Checked by reading the log only when it is not as our last append left it.
    const st = await this.ports.fs.stat(path);
    if (st && st.size > 0 && this.logSizes.get(path) !== st.size) {
      const old = await this.ports.fs.readFile(path);
      if (old && old.byteLength && old[old.byteLength - 1] !== 0x0a) text = '\n' + text;
    }
    const data = encoder.encode(text);
    await this.ports.fs.appendFile(path, data);
    this.logSizes.set(path, (st?.size ?? 0) + data.byteLength);
  }

  /**
   * A watcher hint for one path: re-reads that file and updates the index. Our own writes
   * (same bytes as we wrote) cause no event, so there is no reload loop.
   */
  async fileChanged(path: string): Promise<void> {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!PLAN_FILE_PATTERN.test(name) || path.slice(0, path.length - name.length - 1) !== this.plansDir) return;
    await this.refreshEntries([name]);
  }

  /**
   * Follows the folder with one or more watchers, started at once (before a first `load`, so no
   * change made during the scan is missed). Each event re-reads its file (events from several
   * watchers for a file that is already queued are merged); a re-scan reconciles after every
   * burst, once `confirmMs` after the first load, whenever a watcher lost track, on `reconcile()`
   * and every `periodMs`. All of it runs in the store's queue, one step at a time.
   */
  watch(watchers: WatcherPort | readonly WatcherPort[], opts: FollowOptions = {}): Following {
    const settleMs = opts.settleMs ?? 300;
    let settle: ReturnType<typeof setTimeout> | undefined;
    let confirm: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const pending = new Set<string>();
    let rescanWaiting: Promise<void> | undefined;
    const reconcile = (): Promise<void> => {
      if (disposed) return Promise.resolve();
      rescanWaiting ??= this.queued(async () => {
        rescanWaiting = undefined;
        await this.rescanNow();
      }).then(
        () => undefined,
        () => undefined,
      );
      return rescanWaiting;
    };
    const onEvent = (path: string) => {
      if (disposed) return;
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (!PLAN_FILE_PATTERN.test(name) || path.slice(0, path.length - name.length - 1) !== this.plansDir) return;
      if (!pending.has(path)) {
        pending.add(path);
        void this.queued(() => {
          pending.delete(path);
          return this.refreshEntries([name]);
        }).catch(() => undefined);
      }
      clearTimeout(settle);
      settle = setTimeout(() => {
        settle = undefined;
        void reconcile();
      }, settleMs);
      this.busyChanged();
    };
    const listener = { onDidCreate: onEvent, onDidChange: onEvent, onDidDelete: onEvent, onDidLoseTrack: () => void reconcile() };
    const subs = (Array.isArray(watchers) ? watchers : [watchers as WatcherPort]).map((w) => w.watch(this.plansDir, listener));
    if (opts.confirmMs) {
      void this.whenLoaded.then(() => {
        if (disposed) return;
        confirm = setTimeout(() => {
          confirm = undefined;
          void reconcile();
        }, opts.confirmMs);
        this.busyChanged();
      });
    }
    const period = opts.periodMs ? setInterval(() => void reconcile(), opts.periodMs) : undefined;
    (period as { unref?: () => void } | undefined)?.unref?.();
    const idle = () => !settle && !confirm;
    this.idleChecks.add(idle);
    return {
      reconcile,
      settled: () => this.settled(),
      dispose: () => {
        disposed = true;
        clearTimeout(settle);
        clearTimeout(confirm);
        clearInterval(period);
        settle = confirm = undefined;
        this.idleChecks.delete(idle);
        for (const s of subs) s.dispose();
        this.busyChanged();
      },
    };
  }

  /** What the latest scan of the folder read: files read, and how many of them the index helper read and summarized. */
  get lastScan(): { reads: number; helped: number } {
    return { reads: this.lastScanReads, helped: this.lastScanHelped };
  }

  /** Re-scans the folder and reconciles the index with it (after missed watcher events), in the store's queue. */
  async rescan(cache?: Map<string, IndexEntry>, emit = true, listed?: readonly string[]): Promise<PlansChangeEvent> {
    return this.queued(() => this.rescanNow(cache, emit, listed));
  }

  /** Resolves once the queue is empty and no follower has a timer pending (tests and the bench wait on it). */
  settled(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---------- the reconcile queue ----------

  private serial: Promise<unknown> = Promise.resolve();
  private queueLength = 0;
  private readonly idleChecks = new Set<() => boolean>();
  private idleWaiters: (() => void)[] = [];
  private markLoaded!: () => void;
  /** Resolves after the first load (whether it succeeded or not). */
  private readonly whenLoaded = new Promise<void>((r) => (this.markLoaded = r));

  /** Runs `fn` after every step queued before it: loads, watcher events and re-scans never interleave. */
  private queued<T>(fn: () => Promise<T>): Promise<T> {
    this.queueLength++;
    const run = this.serial.then(fn);
    this.serial = run.then(
      () => this.dequeued(),
      () => this.dequeued(),
    );
    return run;
  }

  private dequeued(): void {
    this.queueLength--;
    this.busyChanged();
  }

  private isIdle(): boolean {
    return this.queueLength === 0 && [...this.idleChecks].every((c) => c());
  }

  private busyChanged(): void {
    if (!this.idleWaiters.length || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private async rescanNow(cache?: Map<string, IndexEntry>, emit = true, listed?: readonly string[]): Promise<PlansChangeEvent> {
    if (this.withoutIndex) {
      // No index yet: the plans this store knows are checked again, the folder is not read.
      await this.refreshEntries([...this.entries.keys()]);
      return { added: [], changed: [], removed: [] };
    }
    const names = (listed ?? (await this.ports.fs.readDir(this.plansDir))).filter((n) => PLAN_FILE_PATTERN.test(n));
    const ev: PlansChangeEvent = { added: [], changed: [], removed: [] };
    const present = new Set(names);
    // Removed from the index together with the other changes, right before they are announced:
    // no one sees the index change without the event that says so.
    for (const name of this.entries.keys()) if (!present.has(name)) ev.removed.push(name);
    const paths = names.map((n) => `${this.plansDir}/${n}`);
    const next = new Map<string, IndexEntry>();
    // Files the index knows are stat'ed (most have not changed: no read); the others are read
    // with their stat in one pass where the file system can (a cold index reads each file once).
    const oneScan = this.ports.fs.readManyWithStats;
    const known: number[] = [];
    const unknown: number[] = [];
    names.forEach((name, i) => (!oneScan || this.entries.has(name) || cache?.has(name) ? known : unknown).push(i));
    const stats = new Map<number, FileStat>();
    const knownStats = await this.ports.fs.statMany(known.map((i) => paths[i]));
    const toRead: number[] = [];
    known.forEach((i, k) => {
      const name = names[i];
      const st = knownStats[k];
      if (!st) return;
      stats.set(i, st);
      const old = this.entries.get(name) ?? cache?.get(name);
      const unchanged = old && old.size === st.size && old.mtimeMs === st.mtimeMs && !st.isSymbolicLink && !isSpecial(st);
      const entry = unchanged ? old : entryOfStat(name, st);
      if (entry) next.set(name, entry);
      else toRead.push(i);
    });
    const fromBytes = (i: number, st: FileStat, b: Uint8Array | undefined | Error) => {
      const name = names[i];
      const own = this.ownWrites.get(name);
      if (own && b && !(b instanceof Error) && this.isOwn(own, b)) this.lastFromUs.add(name);
      else this.lastFromUs.delete(name);
      next.set(name, entryOfRead(name, st, b));
    };
    let reads = toRead.length;
    let byHelper = 0;
    // Read and summarize in chunks: only a chunk's bytes are alive at a time.
    for (let c = 0; c < toRead.length; c += READ_CHUNK) {
      const chunk = toRead.slice(c, c + READ_CHUNK);
      const bytes = await this.ports.fs.readMany(chunk.map((i) => paths[i]));
      chunk.forEach((i, k) => fromBytes(i, stats.get(i)!, bytes[k]));
    }
    // Files never seen (a cold index): read with their stats in one pass, in chunks.
    const scan = async (chunk: number[]) => {
      const results = await oneScan!.call(this.ports.fs, chunk.map((i) => paths[i]), LIMITS.fileBytes);
      for (const [k, i] of chunk.entries()) {
        const r = results[k];
        const name = names[i];
        if (r instanceof Error) {
          // What cannot be opened is described by its stat, as a scan that stats first would.
          const st = await this.ports.fs.stat(paths[i]).catch(() => undefined);
          if (st) fromBytes(i, st, r);
          continue;
        }
        if (!r) continue;
        reads++;
        const entry = entryOfStat(name, r.stat);
        if (entry) next.set(name, entry);
        else fromBytes(i, r.stat, r.bytes);
      }
    };
    // Many of them, and a helper (a worker thread): it takes every chunk, two at a time, so this
    // thread (the extension host's) only waits; its synchronous reads there also cost a fraction
    // of this thread's asynchronous ones. Files this store wrote stay here (their entry says
    // whether the bytes are ours); a chunk the helper cannot take is done here.
    const helper = oneScan && unknown.length >= HELPER_MIN_FILES ? this.ports.indexHelper : undefined;
    const chunks: number[][] = [];
    for (let c = 0; oneScan && c < unknown.length; c += READ_CHUNK) chunks.push(unknown.slice(c, c + READ_CHUNK));
    let taken = 0;
    const here = async () => {
      for (let chunk = chunks[taken++]; chunk; chunk = chunks[taken++]) await scan(chunk);
    };
    let helperGone = false;
    const helped = async () => {
      const left: number[] = [];
      for (let chunk = chunks[taken++]; chunk; chunk = chunks[taken++]) {
        const mine = chunk.filter((i) => this.ownWrites.has(names[i]));
        const theirs = mine.length ? chunk.filter((i) => !this.ownWrites.has(names[i])) : chunk;
        const got = helperGone || !theirs.length ? undefined : await helper!.entries(
          theirs.map((i) => ({ name: names[i], path: paths[i] })),
          LIMITS.fileBytes,
        );
        if (!got) {
          // The helper failed (it is not asked again in this scan), or every file is ours: here.
          helperGone ||= theirs.length > 0;
          await scan(chunk);
          continue;
        }
        left.push(...mine);
        theirs.forEach((i, k) => {
          const entry = got[k];
          if (!entry) return void left.push(i);
          reads++;
          byHelper++;
          this.lastFromUs.delete(names[i]);
          next.set(names[i], entry);
        });
      }
      if (left.length) await scan(left);
    };
    await Promise.all(helper ? [helped(), helped()] : [here()]);
    this.lastScanReads = reads;
    this.lastScanHelped = byHelper;
    for (const name of ev.removed) {
      this.entries.delete(name);
      this.unannounced.delete(name);
    }
    for (const name of names) {
      const entry = next.get(name);
      if (!entry) continue;
      const prev = this.heard(name, this.entries.get(name));
      this.entries.set(name, entry);
      if (!prev) ev.added.push(name);
      else if (!sameEntry(prev, entry)) ev.changed.push(name);
    }
    if (emit) this.emit(ev);
    if (this.loaded && (ev.added.length || ev.changed.length || ev.removed.length)) await this.saveIndexCache();
    return ev;
  }

  /** Writes the warm-start index through the cache port, if there is one. */
  async saveIndexCache(): Promise<void> {
    if (!this.ports.indexCache) return;
    const data = JSON.stringify({ format: CACHE_FORMAT, dir: this.plansDir, entries: [...this.entries.values()] });
    await this.ports.indexCache.save(data).catch(() => undefined);
  }

  // ---------- internals ----------

  /** Runs an operation; an error it throws is reported to `ports.onError`, then rethrown. */
  private async reported<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (caught) {
      // Errors name files relative to the workspace folder: a model or a log needs no more of the machine's layout.
      const e = isPlanError(caught) && caught.details.file?.startsWith(`${this.root.replace(/[\\/]+$/, '')}/`) ? caught.inFile(this.rel(caught.details.file)) : caught;
      try {
        this.ports.onError?.(operation, e);
      } catch {
        /* a broken reporter must not hide the error */
      }
      throw e;
    }
  }

  private ctx(actor: Actor): OpContext {
    return { now: this.ports.clock.now().toISOString(), actor, config: this._config };
  }

  private rel(path: string): string {
    return path.startsWith(this.root) ? path.slice(this.root.replace(/[\\/]+$/, '').length + 1) : path;
  }

  private checkId(id: string, path: string, doc: PlanDocument): PlanDocument {
    if (doc.fm.id !== id) {
      throw new PlanError('INVALID_FILE', `the id in the file (${doc.fm.id}) is not the file name's (${id}): make them the same`, { file: this.rel(path), line: 2 });
    }
    return doc;
  }

  /** True when `bytes` are what we wrote (compared byte for byte: no decode of a file we know). */
  private isOwn(own: OwnWrite, bytes: Uint8Array): boolean {
    return own.bytes ? this.sameBytes(own.bytes, bytes) : new TextDecoder().decode(bytes) === own.text;
  }

  /** Byte-for-byte equality: the file system's own where it has one. */
  private sameBytes(a: Uint8Array, b: Uint8Array): boolean {
    return this.ports.fs.sameBytes ? this.ports.fs.sameBytes(a, b) : sameBytes(a, b);
  }

  /** A plan file's bytes; a file over the size cap is refused without being read. */
  private async readPlanBytes(id: string, path: string): Promise<Uint8Array> {
    // A stat first, so a FIFO, socket or device named like the plan is refused without being
    // opened (opening one, even without blocking, wakes a writer waiting on a pipe).
    const st = await this.ports.fs.stat(path);
    if (st && isSpecial(st)) {
      throw new PlanError('NOT_A_FILE', `${id}.md is ${describeKind(st.kind)}, not a file: plans are only read from regular files; remove it or replace it with a plan file`, { file: this.rel(path) });
    }
    if (st && st.size > LIMITS.fileBytes) throw fileTooLarge(st.size, this.rel(path));
    const bytes = await this.ports.fs.readFile(path);
    if (!bytes) throw this.notFound(id);
    return bytes;
  }

  private notFound(id: string): PlanError {
    return new PlanError('NOT_FOUND', `${id} does not exist in ${this.rel(this.plansDir)}: list the plans to find the right id`);
  }

  private emit(ev: PlansChangeEvent): void {
    if (!ev.added.length && !ev.changed.length && !ev.removed.length) return;
    ev.outside = [...ev.added, ...ev.changed].filter((n) => !this.lastFromUs.has(n));
    for (const l of [...this.listeners]) {
      try {
        l(ev);
      } catch (e) {
        // Events are a convenience, the file is the truth: a failing subscriber changes nothing.
        try {
          this.ports.onError?.('change listener', e);
        } catch {
          /* ignore */
        }
      }
    }
  }

  private async writeNew(id: string, text: string): Promise<void> {
    const path = this.pathOf(id);
    const bytes = encoder.encode(text);
    await this.ports.fs.createFileExclusive(path, bytes);
    this.ownWrites.set(`${id}.md`, { text, bytes });
    await this.refreshEntries([`${id}.md`]);
  }

  private async refreshEntries(names: string[]): Promise<void> {
    const ev: PlansChangeEvent = { added: [], changed: [], removed: [] };
    for (const name of names) {
      const path = `${this.plansDir}/${name}`;
      const st = await this.ports.fs.stat(path);
      const current = this.entries.get(name);
      if (!st) {
        this.unannounced.delete(name);
        if (current) {
          this.entries.delete(name);
          ev.removed.push(name);
        }
        continue;
      }
      if (current && current.size === st.size && current.mtimeMs === st.mtimeMs) continue;
      const next = await this.entryFromDisk(name, path, st);
      const prev = this.heard(name, this.entries.get(name));
      this.entries.set(name, next);
      if (!prev) ev.added.push(name);
      else if (!sameEntry(prev, next)) ev.changed.push(name);
    }
    this.emit(ev);
  }

  /** Sets the entry of a file we just wrote (see `ownWrites`), with its stat, without announcing it (see `unannounced`); false when no write of ours is known. */
  private setOwnEntry(name: string, st: FileStat): boolean {
    const own = this.ownWrites.get(name);
    if (!own) return false;
    if (!this.unannounced.has(name)) this.unannounced.set(name, this.entries.get(name));
    this.entries.set(name, this.ownEntry(name, own, st));
    return true;
  }

  /**
   * Index entries set for our own writes and not announced yet, each with the entry listeners last
   * heard of (undefined: none). An update announces its change after its checkpoint, outside the
   * store's queue, so a refresh or a re-scan may replace its entry first: whichever compares first
   * compares with what listeners heard of, and announces.
   */
  private readonly unannounced = new Map<string, IndexEntry | undefined>();

  /** What listeners last heard of for `name` (`current` unless an entry of ours is unannounced); forgets the unannounced one. */
  private heard(name: string, current: IndexEntry | undefined): IndexEntry | undefined {
    if (!this.unannounced.has(name)) return current;
    const heard = this.unannounced.get(name);
    this.unannounced.delete(name);
    return heard;
  }

  /** The entry of a file that holds our own write (or its echo): summarized once from the text we wrote (no decode), reused for every echo. */
  private ownEntry(name: string, own: OwnWrite, st: FileStat): IndexEntry {
    own.entry ??= indexEntryFor(name, own.bytes, st, false, own.text);
    this.lastFromUs.add(name);
    return { ...own.entry, size: st.size, mtimeMs: st.mtimeMs };
  }

  /** Files whose latest index entry came from our own write. */
  private readonly lastFromUs = new Set<string>();

  private async entryFromDisk(name: string, path: string, st: FileStat): Promise<IndexEntry> {
    this.lastFromUs.delete(name);
    if (st.isSymbolicLink) return indexEntryFor(name, undefined, st, true);
    if (isSpecial(st)) return notAFileEntry(name, st, describeKind(st.kind ?? (st.isDirectory ? 'directory' : 'other')));
    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.ports.fs.readFile(path);
    } catch (e) {
      if (isPlanError(e, 'UNSAFE_PATH')) return indexEntryFor(name, undefined, st, true);
      if (isPlanError(e, 'NOT_A_FILE')) return notAFileEntry(name, st, e.message);
      throw e;
    }
    const own = this.ownWrites.get(name);
    if (own && bytes && bytes.byteLength === st.size && this.isOwn(own, bytes)) return this.ownEntry(name, own, st);
    return indexEntryFor(name, bytes, st);
  }

  private async readIndexCache(): Promise<Map<string, IndexEntry> | undefined> {
    if (!this.ports.indexCache) return undefined;
    try {
      const raw = await this.ports.indexCache.load();
      if (!raw) return undefined;
      const parsed = JSON.parse(raw) as { format?: number; dir?: string; entries?: IndexEntry[] };
      if (parsed.format !== CACHE_FORMAT || parsed.dir !== this.plansDir || !Array.isArray(parsed.entries)) return undefined;
      return new Map(parsed.entries.filter((e) => e && typeof e.file === 'string').map((e) => [e.file, e]));
    } catch {
      return undefined;
    }
  }

  private async loadConfig(): Promise<void> {
    this._config = DEFAULT_CONFIG;
    this._configError = undefined;
    const bytes = await this.ports.fs.readFile(this.configPath).catch((e) => {
      this._configError = isPlanError(e) ? e : new PlanError('IO', String(e));
      return undefined;
    });
    if (!bytes) return;
    try {
      const r = PlansConfigSchema.safeParse(JSON.parse(decodePlanBytes(bytes)));
      if (r.success) this._config = r.data;
      else {
        const i = r.error.issues[0];
        this._configError = new PlanError('INVALID_FILE', `.pi/plans.json: "${i.path.join('.')}" ${i.message}: fix it (defaults are used until then)`, { file: '.pi/plans.json' });
      }
    } catch (e) {
      this._configError = new PlanError('INVALID_FILE', `.pi/plans.json is not valid JSON (${(e as Error).message}): fix it (defaults are used until then)`, { file: '.pi/plans.json' });
    }
  }

  /** `.pi` and `.pi/plans` must be real folders, never links, files or anything else. */
  private async checkFolders(): Promise<void> {
    for (const dir of [this.plansDir.slice(0, -'/plans'.length), this.plansDir, this.sessionsDir]) {
      const st = await this.ports.fs.stat(dir);
      if (st?.isSymbolicLink) {
        throw new PlanError('UNSAFE_PATH', `${this.rel(dir)} is a symbolic link: plans are only read and written in real folders inside the workspace; replace the link with a folder`);
      }
      if (st && !st.isDirectory) {
        throw new PlanError('NOT_A_FILE', `${this.rel(dir)} is ${describeKind(st.kind ?? (st.isFile ? 'file' : 'other'))}, not a folder: plans live in the folder .pi/plans; move it away and make a folder there`);
      }
    }
  }

  /** A plan's checkpoint log, if it exists, must be a regular file (never a link or anything else). */
  private async checkLog(id: string): Promise<void> {
    const path = `${this.sessionsDir}/${id}.jsonl`;
    const st = await this.ports.fs.stat(path);
    if (st && (st.isSymbolicLink || !st.isFile)) {
      throw new PlanError(st.isSymbolicLink ? 'UNSAFE_PATH' : 'NOT_A_FILE', `${this.rel(path)} is ${describeKind(st.kind ?? (st.isSymbolicLink ? 'symlink' : 'other'))}, not the plan's checkpoint log: nothing was changed; remove it (a new log is started) and try again`, { file: this.rel(path) });
    }
  }

  private async ensureFolders(): Promise<void> {
    await this.checkFolders();
    await this.ports.fs.mkdirp(this.plansDir);
  }
}

/** An error's message, as a warning quotes it. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A review copy's record (`v<N>.json` beside `v<N>.md`): its digest, signed with the person's key where there are keys. */
interface CopyRecord {
  version: number;
  digest: string;
  key?: string;
  sig?: string;
}

/** An update's options, with what it checks and signs approvals with (fetched once per update). */
interface WorkOptions extends UpdateOptions {
  approvals?: OpContext['approvals'];
}

/** What an update writes: the operation's result, the document it gives, and its bytes. */
interface UpdateWork {
  result: OpResult;
  doc: PlanDocument;
  written: Uint8Array;
  /** The write's own record, made ahead (with its index entry) by the early work. */
  own?: OwnWrite;
}

/** What this store last wrote to a plan file: its text, its bytes, and the entry made from them. */
interface OwnWrite {
  text: string;
  bytes?: Uint8Array;
  entry?: IndexEntry;
  /** The text has no lone surrogate, so its bytes decode to exactly it (see `wellFormed`). */
  wellFormed?: boolean;
}

/**
 * True when decoding our bytes gives back our text: the encoder turns a lone surrogate into
 * U+FFFD, and then the file's text is not the text we hold. Unknown without the runtime's check.
 */
function wellFormed(own: OwnWrite): boolean {
  own.wellFormed ??= (own.text as { isWellFormed?: () => boolean }).isWellFormed?.() ?? false;
  return own.wellFormed;
}

/** Byte-for-byte equality, four bytes at a time where both arrays are aligned for it. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.byteLength;
  if (n !== b.byteLength) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const wa = new Uint32Array(a.buffer, a.byteOffset, n >> 2);
    const wb = new Uint32Array(b.buffer, b.byteOffset, n >> 2);
    for (let k = 0; k < wa.length; k++) if (wa[k] !== wb[k]) return false;
    i = wa.length * 4;
  }
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
