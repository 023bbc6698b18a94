import { Actor, Checkpoint, clonePlan, createPlanText, CreateInput, decodePlanBytes, LIMITS, nextStatus, OpContext, OpResult, parsePlan, PlanDocument, PlanError, StepActivity } from '../core';
import type { FolderIndex, OwnWrite } from './folderIndex';
import type { PlanHistory } from './history';
import { messageOf, type PlanFolder } from './planFolder';
import { indexEntryFor } from './planIndex';

const encoder = new TextEncoder();

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
  /** The operation checks a step's claim: the checkpoint log's last event of each step is read first (OpContext.activity). */
  claims?: boolean;
}

/**
 * The write path of one plans folder: a new plan, an update under the plan's lock (worked out
 * before the lock where it can be, written only if the file's bytes are still those it started
 * from), a clone, an archive. Every write is atomic, checked by a parse of exactly what is
 * written, logged in the plan's checkpoint log and reflected in the index.
 */
export class PlanWriter {
  /**
   * The document of the latest update (one: an agent works through one plan), so the next update
   * of that plan starts from it when the file still holds our bytes. The index keeps no documents.
   */
  private lastWritten?: { name: string; doc: PlanDocument };
  /**
   * Milliseconds spent in the last update under the lock (read, compare or work out, durable
   * write) and appending its checkpoint; `earlyUsed`: the work done before the lock was what got
   * written.
   */
  lastUpdateTimings = { earlyUsed: false, locked: 0, checkpoint: 0 };

  constructor(
    private readonly folder: PlanFolder,
    private readonly index: FolderIndex,
    private readonly history: PlanHistory,
  ) {}

  /** Creates a plan (draft unless `status` says proposed) with a new id. */
  async create(input: Omit<CreateInput, 'id'>, actor: Actor): Promise<PlanDocument> {
    return this.folder.reported('create', () => this.createUnreported(input, actor));
  }

  private async createUnreported(input: Omit<CreateInput, 'id'>, actor: Actor): Promise<PlanDocument> {
    await this.folder.ensureFolders();
    const ctx = this.folder.ctx(actor);
    for (let attempt = 0; ; attempt++) {
      const id = `PLAN-${this.folder.ports.random.hex8()}`;
      const text = createPlanText({ ...input, id }, ctx.now);
      try {
        await this.writeNew(id, text);
        await this.history.checkpoint(id, { type: 'created', status: parsePlan(text).fm.status, actor, version: 1 });
        this.folder.ports.parser?.parsed?.(text);
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
    return this.folder.reported(`update ${id}`, () => this.updateUnreported(id, actor, op, opts));
  }

  private async updateUnreported(id: string, actor: Actor, op: (doc: PlanDocument, ctx: OpContext) => OpResult, opts: UpdateOptions): Promise<{ doc: PlanDocument; result: OpResult; warnings?: string[] }> {
    const path = this.folder.pathOf(id);
    const name = `${id}.md`;
    // This store's updates of the plan queue here, in call order (the turn is taken before the
    // first await), and only the one whose turn it is waits on the file lock: a hundred calls in
    // flight on one plan each wait for the one before (handed over at once) instead of polling
    // the lock with a growing pause. The lock stays what keeps other processes' writers out.
    const { work, earlyUsed, entrySet, locked, afterWrite } = await this.inTurn(path, async () => {
      await this.folder.checkFolders();
      // The checkpoint log is checked before anything is written: a log that cannot be appended
      // to (a link, a folder) refuses the update whole, rather than after the plan changed.
      await this.history.checkLog(id);
      const options: WorkOptions = { ...opts, approvals: await this.approvalContext(opts.sign === true, actor === 'agent'), ...(opts.claims ? { activity: await this.stepActivity(id) } : {}) };
      return this.writeUnderLock(id, path, actor, op, options);
    });
    const t1 = performance.now();
    const { result, doc } = work;
    // The plan is written: what follows cannot undo it, so a failure is said, not thrown.
    const warnings: string[] = [...afterWrite];
    try {
      // A mark logs the step's status (as the format documents); a mark that completes the plan
      // is two events, the mark and the plan's completion.
      await this.history.checkpoint(id, { type: result.event, step: result.step, status: result.stepStatus ?? result.status, note: result.note, actor, version: doc.fm.version, session: result.session });
      if (result.autoCompleted) await this.history.checkpoint(id, { type: 'status', status: result.status, actor, version: doc.fm.version });
    } catch (e) {
      warnings.push(`the change was written, but its checkpoint could not be logged (${messageOf(e)})`);
      this.folder.ports.onError?.(`checkpoint ${id}`, e);
    }
    this.lastUpdateTimings = { earlyUsed, locked, checkpoint: performance.now() - t1 };
    // Announced here unless a refresh or re-scan that ran meanwhile compared the file with what
    // listeners last heard of, and so announced it (see `unannounced`).
    if (entrySet) this.index.announceOwn(name);
    try {
      await this.index.refreshEntries([...(entrySet ? [] : [name]), ...(result.created ?? []).map((c) => `${c.id}.md`)]);
    } catch (e) {
      warnings.push(`the plan list could not be brought up to date with the change (${messageOf(e)})`);
      this.folder.ports.onError?.(`refresh ${id}`, e);
    }
    this.folder.ports.parser?.parsed?.(result.text);
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
    const release = await this.folder.ports.lock.acquire(path);
    let work: UpdateWork;
    let entrySet = false;
    // Once the plan is written, nothing may fail the update: what goes wrong after is said (`afterWrite`).
    let isWritten = false;
    const afterWrite: string[] = [];
    let failure: { error: unknown } | undefined;
    try {
      const bytes = await this.folder.readPlanBytes(id, path);
      if (early && this.folder.sameBytes(early.basis, bytes)) work = early;
      else {
        const known = this.lastDocument(name);
        const before = known && this.folder.sameBytes(known.bytes, bytes) ? known.doc : await this.folder.documentOf(path, bytes);
        work = await this.workOut(id, path, this.folder.checkId(id, path, before), actor, op, options);
      }
      const { result, written } = work;
      // Asked before anything is written: a refused write leaves no revision behind.
      await this.folder.ports.writeGuard?.(path);
      for (const c of result.created ?? []) await this.writeNew(c.id, c.text);
      const wrote = await this.folder.ports.fs.writeFileAtomic(path, written, { stat: true });
      isWritten = true;
      this.index.ownWrites.set(name, work.own ?? { text: result.text, bytes: written });
      this.lastWritten = { name, doc: work.doc };
      // Our write's entry, from the text we wrote (no decode, no parse) and the stat of the file
      // that holds our bytes: the written file's own (a writer that is not a store may replace
      // it at any time, and then its stat differs), or else stat and bytes read back from one
      // open file and compared byte for byte. Set while we hold the lock, so a watcher event for
      // any later write replaces it (its stat differs); announced once the checkpoint is written.
      // Otherwise the file is read as any change is.
      try {
        if (wrote) entrySet = this.index.setOwnEntry(name, wrote);
        else {
          const got = (await this.folder.ports.fs.readManyWithStats?.([path], LIMITS.fileBytes))?.[0];
          if (got && !(got instanceof Error) && got.bytes && this.folder.sameBytes(got.bytes, written)) entrySet = this.index.setOwnEntry(name, got.stat);
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
        this.folder.ports.onError?.(`release the lock of ${id}`, e);
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
      const basis = known?.bytes ?? (await this.folder.readPlanBytes(id, path));
      const before = known?.doc ?? (await this.folder.documentOf(path, basis));
      const work = await this.workOut(id, path, this.folder.checkId(id, path, before), actor, op, opts);
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
    const own = this.index.ownWrites.get(name);
    const last = this.lastWritten;
    return own?.bytes && wellFormed(own) && last?.name === name && last.doc.text === own.text ? { bytes: own.bytes, doc: last.doc } : undefined;
  }

  /** The parse of a plan's bytes (decoded strictly; the parser port asked first). */
  private async documentOf(id: string, path: string, bytes: Uint8Array): Promise<PlanDocument> {
    const text = decodePlanBytes(bytes, this.folder.rel(path));
    await this.folder.prepare(text);
    return parsePlan(text, this.folder.rel(path));
  }

  /** The last event of each step in the plan's checkpoint log, and the session of it where the log says (a log that cannot be read: none). */
  private async stepActivity(id: string): Promise<Map<string, StepActivity>> {
    const out = new Map<string, StepActivity>();
    const log = await this.history.readCheckpoints(id).catch(() => [] as Checkpoint[]);
    for (const c of log) if (c.step) out.set(c.step, { at: c.at, ...(c.session ? { session: c.session } : {}), ...(c.status ? { status: c.status as StepActivity['status'] } : {}) });
    return out;
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
    if (opts.bodies && this.folder.ports.parser?.prepareBody) {
      const parser = this.folder.ports.parser;
      await Promise.all(opts.bodies(before).map((b) => parser.prepareBody!(b).catch(() => undefined)));
    }
    const result = op(before, { ...this.folder.ctx(actor), agentMayApprove: opts.agentMayApprove, approvals: opts.approvals, activity: opts.activity });
    // What is written is checked by a parse of exactly that text (the operation's own, or a new one).
    let doc: PlanDocument;
    if (result.doc && result.doc.text === result.text) doc = result.doc;
    else {
      await this.folder.prepare(result.text);
      doc = parsePlan(result.text, this.folder.rel(path));
    }
    if (doc.fm.id !== id || doc.fm.version !== before.fm.version + 1) {
      throw new PlanError('IO', `internal check failed: ${id} would be written as ${doc.fm.id} v${doc.fm.version}; nothing was written`);
    }
    for (const c of result.created ?? []) parsePlan(c.text, `.pi/plans/${c.id}.md`);
    return { result, doc, written: encoder.encode(result.text) };
  }

  /** A new proposed plan from a finished, rejected or failed one. */
  async clone(id: string, actor: Actor): Promise<PlanDocument> {
    return this.folder.reported(`clone ${id}`, () => this.cloneUnreported(id, actor));
  }

  private async cloneUnreported(id: string, actor: Actor): Promise<PlanDocument> {
    const src = await this.folder.readPlan(id);
    await this.folder.ensureFolders();
    const ctx = this.folder.ctx(actor);
    const newId = `PLAN-${this.folder.ports.random.hex8()}`;
    const text = clonePlan(src, newId, ctx);
    await this.writeNew(newId, text);
    await this.history.checkpoint(newId, { type: 'created', status: 'proposed', actor, version: 1, note: `cloned from ${id}` });
    return parsePlan(text);
  }

  /** Where archived plans go: out of the plans folder's listing, so out of every index and list. */
  get archiveDir(): string {
    return `${this.folder.plansDir}/archive`;
  }

  /**
   * Moves a finished plan's file, byte for byte, into `.pi/plans/archive/` (a person's act: the
   * transition table allows it for completed, cancelled and superseded plans). Under the plan's
   * lock; an archived file of the same name is never overwritten. Returns the new path.
   */
  async archive(id: string, actor: Actor): Promise<string> {
    return this.folder.reported(`archive ${id}`, async () => {
      const path = this.folder.pathOf(id);
      const target = `${this.archiveDir}/${id}.md`;
      // In its turn among this store's writes of the plan (see `inTurn`), then under the lock.
      const doc = await this.inTurn(path, async () => {
        await this.folder.checkFolders();
        const release = await this.folder.ports.lock.acquire(path);
        try {
          const bytes = await this.folder.readPlanBytes(id, path);
          const read = this.folder.checkId(id, path, parsePlan(decodePlanBytes(bytes, this.folder.rel(path)), this.folder.rel(path)));
          nextStatus(id, read.fm.status, 'archive', actor);
          await this.folder.ports.writeGuard?.(path);
          await this.folder.ports.fs.mkdirp(this.archiveDir);
          try {
            await this.folder.ports.fs.createFileExclusive(target, bytes);
          } catch (e) {
            if ((e as { code?: string }).code !== 'EEXIST') throw e;
            throw new PlanError('IO', `${this.folder.rel(target)} exists already: move or rename it, then archive ${id} again`);
          }
          await this.folder.ports.fs.removeFile(path);
          return read;
        } finally {
          await release();
        }
      });
      await this.history.checkpoint(id, { type: 'archived', status: doc.fm.status, actor, version: doc.fm.version, note: this.folder.rel(target) });
      await this.index.refreshEntries([`${id}.md`]);
      return target;
    });
  }

  private async writeNew(id: string, text: string): Promise<void> {
    const path = this.folder.pathOf(id);
    const bytes = encoder.encode(text);
    await this.folder.ports.fs.createFileExclusive(path, bytes);
    this.index.ownWrites.set(`${id}.md`, { text, bytes });
    await this.index.refreshEntries([`${id}.md`]);
  }

  /** What an update checks approvals with (the keyring) and, for an approval, signs with (an agent's own approval says so). */
  private async approvalContext(sign: boolean, forAgent: boolean): Promise<OpContext['approvals']> {
    const port = this.folder.ports.approvals;
    if (!port) return undefined;
    return { keyring: await port.keyring(), signer: sign ? await port.signer({ forAgent }) : undefined };
  }
}

/** An update's options, with what it checks and signs approvals with (fetched once per update). */
interface WorkOptions extends UpdateOptions {
  approvals?: OpContext['approvals'];
  activity?: OpContext['activity'];
}

/** What an update writes: the operation's result, the document it gives, and its bytes. */
interface UpdateWork {
  result: OpResult;
  doc: PlanDocument;
  written: Uint8Array;
  /** The write's own record, made ahead (with its index entry) by the early work. */
  own?: OwnWrite;
}

/**
 * True when decoding our bytes gives back our text: the encoder turns a lone surrogate into
 * U+FFFD, and then the file's text is not the text we hold. Unknown without the runtime's check.
 */
function wellFormed(own: OwnWrite): boolean {
  own.wellFormed ??= (own.text as { isWellFormed?: () => boolean }).isWellFormed?.() ?? false;
  return own.wellFormed;
}
