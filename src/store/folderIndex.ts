import { compareText, isPlanError, PlanError, PlanStatus } from '../core';
import { FolderScan } from './folderScan';
import { entryOfRead, IndexEntry, indexEntryFor, isSpecial, notAFileEntry, PLAN_FILE_PATTERN, sameEntry } from './planIndex';
import type { PlanFolder } from './planFolder';
import { describeKind, Disposable, FileStat } from './ports';

// 2: entries carry `approvedHash`. 3: an entry is valid only when the reader's limits on the body
// pass too (an index saved before listed a plan with a 60 KB Context as valid).
const CACHE_FORMAT = 3;

/** Entries written per part of the index cache's text. */
const CACHE_SLICE = 256;

/**
 * The index cache's text, `JSON.stringify({ format, dir, entries })`, in parts made one at a time
 * as they are asked for: the head, then the entries a slice at a time (each slice's JSON without
 * its brackets, a comma between them), then the end. Their concatenation is that one string.
 */
export function* indexCacheText(dir: string, entries: readonly IndexEntry[]): Generator<string> {
  const head = JSON.stringify({ format: CACHE_FORMAT, dir, entries: [] });
  // Up to the entries' "[", without its "]}".
  yield head.slice(0, -2);
  for (let i = 0; i < entries.length; i += CACHE_SLICE) {
    const part = JSON.stringify(entries.slice(i, i + CACHE_SLICE));
    yield i ? `,${part.slice(1, -1)}` : part.slice(1, -1);
  }
  yield ']}';
}

/** What changed in the plans folder, by file name. */
export interface PlansChangeEvent {
  added: string[];
  changed: string[];
  removed: string[];
  /** Of `added` and `changed`: files whose new content this store did not write (an editor, git, another process). */
  outside?: string[];
}

/** What this store last wrote to a plan file: its text, its bytes, and the entry made from them. */
export interface OwnWrite {
  text: string;
  bytes?: Uint8Array;
  entry?: IndexEntry;
  /** The text has no lone surrogate, so its bytes decode to exactly it (see `wellFormed`). */
  wellFormed?: boolean;
}

/**
 * The index of one plans folder: an entry per file (what a list shows without opening the plan),
 * kept up to date by re-reading changed files, a re-scan that reconciles it with the folder, and
 * the store's own writes (their echoes cause no event). Changes are announced to listeners. Loads,
 * refreshes and re-scans run one at a time in the store's queue.
 */
export class FolderIndex {
  private entries = new Map<string, IndexEntry>();
  private listeners = new Set<(e: PlansChangeEvent) => void>();
  /** Our own latest write per file and the entry it gave: a watcher event with the same bytes is our echo. */
  readonly ownWrites = new Map<string, OwnWrite>();
  /** Files whose latest index entry came from our own write. */
  private readonly lastFromUs = new Set<string>();
  /**
   * Index entries set for our own writes and not announced yet, each with the entry listeners last
   * heard of (undefined: none). An update announces its change after its checkpoint, outside the
   * store's queue, so a refresh or a re-scan may replace its entry first: whichever compares first
   * compares with what listeners heard of, and announces.
   */
  private readonly unannounced = new Map<string, IndexEntry | undefined>();
  private loaded = false;
  /** How many files the last scan had to read (0: everything came from the index or the cache). */
  private lastScanReads = 0;
  /** Of those, how many the index helper (a worker thread) read and summarized. */
  private lastScanHelped = 0;
  /** True for a store opened for named plans only (no index). */
  private withoutIndex = false;
  private lazy = false;
  private indexLoading: Promise<void> | undefined;

  constructor(private readonly folder: PlanFolder) {}

  /** No index until asked: only the plans named, written or heard of are known (`lazy`: `loadIndex` builds it). */
  withoutWholeIndex(lazy: boolean): void {
    this.withoutIndex = true;
    this.lazy = lazy;
  }

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
    const name = `${this.folder.pathOf(id).slice(this.folder.plansDir.length + 1)}`;
    await this.queued(() => this.refreshEntries([name]));
    return this.entries.get(name);
  }

  /** Sweeps temp files, reads config and builds the index (see `PlanStore.load`), in the queue. */
  async load(): Promise<void> {
    try {
      await this.queued(() => this.loadNow());
    } finally {
      this.markLoaded();
    }
  }

  private async loadNow(): Promise<void> {
    const { fs } = this.folder.ports;
    await this.folder.checkFolders();
    const names = await fs.readDir(this.folder.plansDir);
    if (names.length) await fs.sweepTempFiles(this.folder.plansDir, names);
    await this.folder.loadConfig();
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

  /** The index entry of a file in the plans folder, by name (`PLAN-….md`). */
  get(name: string): IndexEntry | undefined {
    return this.entries.get(name);
  }

  /** What the latest scan of the folder read: files read, and how many of them the index helper read and summarized. */
  get lastScan(): { reads: number; helped: number } {
    return { reads: this.lastScanReads, helped: this.lastScanHelped };
  }

  /** Re-scans the folder and reconciles the index with it (after missed watcher events), in the store's queue. */
  async rescan(cache?: Map<string, IndexEntry>, emit = true, listed?: readonly string[]): Promise<PlansChangeEvent> {
    return this.queued(() => this.rescanNow(cache, emit, listed));
  }

  // ---------- the reconcile queue ----------

  private serial: Promise<unknown> = Promise.resolve();
  private queueLength = 0;
  /** Followers' checks that none of their timers is pending (see `following.ts`). */
  readonly idleChecks = new Set<() => boolean>();
  private idleWaiters: (() => void)[] = [];
  /** Marks the first load done (whether it succeeded or not). */
  markLoaded!: () => void;
  /** Resolves after the first load (whether it succeeded or not). */
  readonly whenLoaded = new Promise<void>((r) => (this.markLoaded = r));

  /** Runs `fn` after every step queued before it: loads, watcher events and re-scans never interleave. */
  queued<T>(fn: () => Promise<T>): Promise<T> {
    this.queueLength++;
    const run = this.serial.then(fn);
    this.serial = run.then(
      () => this.dequeued(),
      () => this.dequeued(),
    );
    return run;
  }

  /** Resolves once the queue is empty and no follower has a timer pending (tests and the bench wait on it). */
  settled(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private dequeued(): void {
    this.queueLength--;
    this.busyChanged();
  }

  private isIdle(): boolean {
    return this.queueLength === 0 && [...this.idleChecks].every((c) => c());
  }

  /** Wakes those waiting for `settled` when the store has become idle. */
  busyChanged(): void {
    if (!this.idleWaiters.length || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  // ---------- re-scans ----------

  /** A re-scan (see `rescan`), run by a step already in the store's queue. */
  async rescanNow(cache?: Map<string, IndexEntry>, emit = true, listed?: readonly string[]): Promise<PlansChangeEvent> {
    if (this.withoutIndex) {
      // No index yet: the plans this store knows are checked again, the folder is not read.
      await this.refreshEntries([...this.entries.keys()]);
      return { added: [], changed: [], removed: [] };
    }
    const scan = new FolderScan(this, this.folder, (listed ?? (await this.folder.ports.fs.readDir(this.folder.plansDir))).filter((n) => PLAN_FILE_PATTERN.test(n)));
    const ev: PlansChangeEvent = { added: [], changed: [], removed: [] };
    const present = new Set(scan.names);
    // Removed from the index together with the other changes, right before they are announced:
    // no one sees the index change without the event that says so.
    for (const name of this.entries.keys()) if (!present.has(name)) ev.removed.push(name);
    const next = await scan.run(cache);
    this.lastScanReads = scan.reads;
    this.lastScanHelped = scan.helped;
    for (const name of ev.removed) {
      this.entries.delete(name);
      this.unannounced.delete(name);
    }
    for (const name of scan.names) {
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

  /** The entry the index holds or the warm cache held for `name` (a scan's starting point). */
  known(name: string, cache: Map<string, IndexEntry> | undefined): IndexEntry | undefined {
    return this.entries.get(name) ?? cache?.get(name);
  }

  /** The entry of bytes a scan read, noting whether they are our own write's. */
  entryOfScanned(name: string, st: FileStat, bytes: Uint8Array | undefined | Error): IndexEntry {
    const own = this.ownWrites.get(name);
    if (own && bytes && !(bytes instanceof Error) && this.isOwn(own, bytes)) this.lastFromUs.add(name);
    else this.lastFromUs.delete(name);
    return entryOfRead(name, st, bytes);
  }

  /** A scan's entry made by the index helper (never our own write: those are read here). */
  helped(name: string): void {
    this.lastFromUs.delete(name);
  }

  // ---------- the index cache ----------

  /** Writes the warm-start index through the cache port, if there is one. */
  async saveIndexCache(): Promise<void> {
    const cache = this.folder.ports.indexCache;
    if (!cache) return;
    await cache.save(indexCacheText(this.folder.plansDir, [...this.entries.values()])).catch(() => undefined);
  }

  private async readIndexCache(): Promise<Map<string, IndexEntry> | undefined> {
    const cache = this.folder.ports.indexCache;
    if (!cache) return undefined;
    try {
      const raw = await cache.load();
      if (!raw) return undefined;
      const parsed = JSON.parse(raw) as { format?: number; dir?: string; entries?: IndexEntry[] };
      if (parsed.format !== CACHE_FORMAT || parsed.dir !== this.folder.plansDir || !Array.isArray(parsed.entries)) return undefined;
      return new Map(parsed.entries.filter((e) => e && typeof e.file === 'string').map((e) => [e.file, e]));
    } catch {
      return undefined;
    }
  }

  // ---------- single files ----------

  /** Announces a change to the listeners (a failing listener changes nothing). */
  emit(ev: PlansChangeEvent): void {
    if (!ev.added.length && !ev.changed.length && !ev.removed.length) return;
    ev.outside = [...ev.added, ...ev.changed].filter((n) => !this.lastFromUs.has(n));
    for (const l of [...this.listeners]) {
      try {
        l(ev);
      } catch (e) {
        // Events are a convenience, the file is the truth: a failing subscriber changes nothing.
        try {
          this.folder.ports.onError?.('change listener', e);
        } catch {
          /* ignore */
        }
      }
    }
  }

  /** Re-stats the named files and re-reads those whose size or time changed; announces what changed. */
  async refreshEntries(names: string[]): Promise<void> {
    const ev: PlansChangeEvent = { added: [], changed: [], removed: [] };
    for (const name of names) {
      const path = `${this.folder.plansDir}/${name}`;
      const st = await this.folder.ports.fs.stat(path);
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
  setOwnEntry(name: string, st: FileStat): boolean {
    const own = this.ownWrites.get(name);
    if (!own) return false;
    if (!this.unannounced.has(name)) this.unannounced.set(name, this.entries.get(name));
    this.entries.set(name, this.ownEntry(name, own, st));
    return true;
  }

  /**
   * Announces the entry an update set for its own write (`setOwnEntry`), unless a refresh or a
   * re-scan that ran meanwhile compared the file with what listeners last heard of, and so
   * announced it.
   */
  announceOwn(name: string): void {
    if (!this.unannounced.has(name)) return;
    const heard = this.heard(name, undefined);
    const now = this.entries.get(name);
    this.emit({ added: !heard && now ? [name] : [], changed: heard && now && !sameEntry(heard, now) ? [name] : [], removed: [] });
  }

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

  /** True when `bytes` are what we wrote (compared byte for byte: no decode of a file we know). */
  private isOwn(own: OwnWrite, bytes: Uint8Array): boolean {
    return own.bytes ? this.folder.sameBytes(own.bytes, bytes) : new TextDecoder().decode(bytes) === own.text;
  }

  private async entryFromDisk(name: string, path: string, st: FileStat): Promise<IndexEntry> {
    this.lastFromUs.delete(name);
    if (st.isSymbolicLink) return indexEntryFor(name, undefined, st, true);
    if (isSpecial(st)) return notAFileEntry(name, st, describeKind(st.kind ?? (st.isDirectory ? 'directory' : 'other')));
    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.folder.ports.fs.readFile(path);
    } catch (e) {
      if (isPlanError(e, 'UNSAFE_PATH')) return indexEntryFor(name, undefined, st, true);
      if (isPlanError(e, 'NOT_A_FILE')) return notAFileEntry(name, st, e.message);
      throw e;
    }
    const own = this.ownWrites.get(name);
    if (own && bytes && bytes.byteLength === st.size && this.isOwn(own, bytes)) return this.ownEntry(name, own, st);
    return indexEntryFor(name, bytes, st);
  }
}
