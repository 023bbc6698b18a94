import { LIMITS } from '../core';
import { entryOfStat, IndexEntry, isSpecial } from './planIndex';
import type { PlanFolder } from './planFolder';
import type { FileStat } from './ports';

const READ_CHUNK = 256;
/** A scan reading fewer new files than this does it alone: a helper's start costs more than it saves. */
const HELPER_MIN_FILES = 4 * READ_CHUNK;

/** What a scan asks of the index it reads for. */
export interface ScannedIndex {
  /** The entry the index holds or the warm cache held for `name`. */
  known(name: string, cache: Map<string, IndexEntry> | undefined): IndexEntry | undefined;
  /** The entry of bytes the scan read (the index notes whether they are its own write's). */
  entryOfScanned(name: string, st: FileStat, bytes: Uint8Array | undefined | Error): IndexEntry;
  /** An entry the index helper made. */
  helped(name: string): void;
  /** The files the store wrote: those are read on this thread. */
  readonly ownWrites: ReadonlyMap<string, unknown>;
}

/**
 * One re-scan's reading: the files the index knows are stat'ed (most have not changed: no read),
 * changed ones read in chunks; files never seen (a cold index) read with their stats in one pass,
 * in chunks, by a helper (a worker thread) when there are many. Gives the entries of the folder.
 */
export class FolderScan {
  reads = 0;
  helped = 0;
  private readonly next = new Map<string, IndexEntry>();
  private readonly stats = new Map<number, FileStat>();

  constructor(
    private readonly index: ScannedIndex,
    private readonly folder: PlanFolder,
    readonly names: string[],
  ) {}

  /** The path of `names[i]`, made when it is read (10,000 paths held for a whole scan were a megabyte that every young collection copied). */
  private pathOf(i: number): string {
    return `${this.folder.plansDir}/${this.names[i]}`;
  }

  async run(cache: Map<string, IndexEntry> | undefined): Promise<Map<string, IndexEntry>> {
    const oneScan = this.folder.ports.fs.readManyWithStats;
    const known: number[] = [];
    const unknown: number[] = [];
    this.names.forEach((name, i) => (!oneScan || this.index.known(name, cache) ? known : unknown).push(i));
    const toRead = await this.statKnown(known, cache);
    this.reads = toRead.length;
    await this.readChanged(toRead);
    if (oneScan) await this.readUnknown(unknown);
    return this.next;
  }

  /** Stats the files the index or the cache knows; an unchanged one keeps its entry. Returns those to read. */
  private async statKnown(known: number[], cache: Map<string, IndexEntry> | undefined): Promise<number[]> {
    const knownStats = await this.folder.ports.fs.statMany(known.map((i) => this.pathOf(i)));
    const toRead: number[] = [];
    known.forEach((i, k) => {
      const name = this.names[i];
      const st = knownStats[k];
      if (!st) return;
      const old = this.index.known(name, cache);
      const unchanged = old && old.size === st.size && old.mtimeMs === st.mtimeMs && !st.isSymbolicLink && !isSpecial(st);
      const entry = unchanged ? old : entryOfStat(name, st);
      if (entry) this.next.set(name, entry);
      else {
        // Kept for the read only: the stats of the unchanged files (all of a warm start) go now.
        this.stats.set(i, st);
        toRead.push(i);
      }
    });
    return toRead;
  }

  /** Reads and summarizes changed files in chunks: only a chunk's bytes are alive at a time. */
  private async readChanged(toRead: number[]): Promise<void> {
    for (let c = 0; c < toRead.length; c += READ_CHUNK) {
      const chunk = toRead.slice(c, c + READ_CHUNK);
      const bytes = await this.folder.ports.fs.readMany(chunk.map((i) => this.pathOf(i)));
      chunk.forEach((i, k) => this.next.set(this.names[i], this.index.entryOfScanned(this.names[i], this.stats.get(i)!, bytes[k])));
    }
  }

  /**
   * Files never seen, read with their stats in one pass here: each summarized as it is read (its
   * bytes, lent by the file system, gone before the next file's), where the port can hand them
   * over one at a time.
   */
  private async scan(chunk: number[]): Promise<void> {
    const { fs } = this.folder.ports;
    const failed: { i: number; error: Error }[] = [];
    const take = (k: number, r: { stat: FileStat; bytes?: Uint8Array } | undefined | Error) => {
      const i = chunk[k];
      const name = this.names[i];
      if (r instanceof Error) return void failed.push({ i, error: r });
      if (!r) return;
      this.reads++;
      this.next.set(name, entryOfStat(name, r.stat) ?? this.index.entryOfScanned(name, r.stat, r.bytes));
    };
    const paths = chunk.map((i) => this.pathOf(i));
    if (fs.readEachWithStats) await fs.readEachWithStats(paths, LIMITS.fileBytes, take);
    else (await fs.readManyWithStats!(paths, LIMITS.fileBytes)).forEach((r, k) => take(k, r));
    for (const { i, error } of failed) {
      // What cannot be opened is described by its stat, as a scan that stats first would.
      const st = await fs.stat(this.pathOf(i)).catch(() => undefined);
      if (st) this.next.set(this.names[i], this.index.entryOfScanned(this.names[i], st, error));
    }
  }

  /**
   * Files never seen. Many of them, and a helper (a worker thread): it takes every chunk, two at a
   * time, so this thread (the extension host's) only waits; its synchronous reads there also cost
   * a fraction of this thread's asynchronous ones. Files this store wrote stay here (their entry
   * says whether the bytes are ours); a chunk the helper cannot take is done here.
   */
  private async readUnknown(unknown: number[]): Promise<void> {
    const helper = unknown.length >= HELPER_MIN_FILES ? this.folder.ports.indexHelper : undefined;
    const chunks: number[][] = [];
    for (let c = 0; c < unknown.length; c += READ_CHUNK) chunks.push(unknown.slice(c, c + READ_CHUNK));
    let taken = 0;
    const here = async () => {
      for (let chunk = chunks[taken++]; chunk; chunk = chunks[taken++]) await this.scan(chunk);
    };
    let helperGone = false;
    const helped = async () => {
      const left: number[] = [];
      for (let chunk = chunks[taken++]; chunk; chunk = chunks[taken++]) {
        const own = this.index.ownWrites;
        const mine = chunk.filter((i) => own.has(this.names[i]));
        const theirs = mine.length ? chunk.filter((i) => !own.has(this.names[i])) : chunk;
        const got = helperGone || !theirs.length ? undefined : await helper!.entries(
          theirs.map((i) => ({ name: this.names[i], path: this.pathOf(i) })),
          LIMITS.fileBytes,
        );
        if (!got) {
          // The helper failed (it is not asked again in this scan), or every file is ours: here.
          helperGone ||= theirs.length > 0;
          await this.scan(chunk);
          continue;
        }
        left.push(...mine);
        theirs.forEach((i, k) => {
          const entry = got[k];
          if (!entry) return void left.push(i);
          this.reads++;
          this.helped++;
          this.index.helped(this.names[i]);
          this.next.set(this.names[i], entry);
        });
      }
      if (left.length) await this.scan(left);
    };
    await Promise.all(helper ? [helped(), helped()] : [here()]);
  }
}
