import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PlanError } from '../core';
import { describeKind, type FileKind, type FileStat, type FileSystemPort } from '../store';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = fs.constants;
/** Temp files: `.<name>.<pid>.<random>.tmp`, in the target's own folder (rename never crosses devices). */
const TEMP = /^\.(.+)\.(\d+)\.([0-9a-f]{8})\.tmp$/;
const STALE_TEMP_MS = 60 * 60 * 1000;

function linkRefused(p: string): PlanError {
  return new PlanError('UNSAFE_PATH', `${path.basename(p)} is a symbolic link: plan files are never read or written through links; replace it with the real file`, { file: p });
}

function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await fs.promises.open(dir, O_RDONLY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

async function writeTemp(target: string, data: Uint8Array, wantStat: false | 'now' | 'later' = false): Promise<{ tmp: string; stat?: FileStat }> {
  const tmp = tempPathFor(target);
  const h = await fs.promises.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  let stat: FileStat | undefined;
  try {
    await h.writeFile(data);
    await h.sync();
    // The written file's own stat: a rename keeps its size and modification time. Synchronous
    // where the reads are (a microsecond call, where the pool's round trip costs tens).
    if (wantStat) stat = statOf(wantStat === 'now' ? fs.fstatSync(h.fd) : await h.stat());
  } catch (e) {
    await h.close().catch(() => undefined);
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw e;
  }
  await h.close();
  return { tmp, stat };
}

const SLICE = 200;
async function inSlices<T, R>(items: readonly T[], fn: (x: T) => R): Promise<R[]> {
  const out: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i += SLICE) {
    if (i) await new Promise<void>((r) => setImmediate(r));
    const end = Math.min(items.length, i + SLICE);
    for (let j = i; j < end; j++) out[j] = fn(items[j]);
  }
  return out;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function kindOf(s: fs.Stats): FileKind {
  if (s.isFile()) return 'file';
  if (s.isDirectory()) return 'directory';
  if (s.isSymbolicLink()) return 'symlink';
  if (s.isFIFO()) return 'fifo';
  if (s.isSocket()) return 'socket';
  if (s.isBlockDevice()) return 'blockDevice';
  if (s.isCharacterDevice()) return 'charDevice';
  return 'other';
}

function statOf(s: fs.Stats): FileStat {
  return { size: s.size, mtimeMs: s.mtimeMs, isFile: s.isFile(), isDirectory: s.isDirectory(), isSymbolicLink: s.isSymbolicLink(), kind: kindOf(s) };
}

/** lstat; undefined when absent. Synchronous: plan files and folders are local and few calls are made. */
function lstatNow(p: string): FileStat | undefined {
  try {
    return statOf(fs.lstatSync(p));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** The refusal for a path that is not a regular file: what it is, and the fix. */
export function notAFile(p: string, kind: FileKind): PlanError {
  return new PlanError('NOT_A_FILE', `${path.basename(p)} is ${describeKind(kind)}, not a file: plans are only read from regular files; remove it or replace it with a plan file`, { file: p });
}

/** A regular file's bytes (`readWithStatNow`); undefined when absent; a link or a special file is refused. */
function readNow(p: string): Uint8Array | undefined {
  return bytesOrRefusal(p, readWithStatNow(p, Infinity));
}

/** What `readNow` gives for a one-pass read: the bytes, or the refusal of a link or a special file. */
function bytesOrRefusal(p: string, r: { stat: FileStat; bytes?: Uint8Array } | undefined): Uint8Array | undefined {
  if (!r) return undefined;
  if (r.stat.isSymbolicLink) throw linkRefused(p);
  if (!r.bytes) throw notAFile(p, r.stat.kind ?? 'other');
  return r.bytes;
}

/**
 * One file in one pass: opened without following a link (O_NOFOLLOW) and without blocking
 * (O_NONBLOCK: a FIFO named like a plan would otherwise wait for a writer forever), its stat
 * taken on the open descriptor, its bytes read only for a regular file within `maxBytes` (to its
 * end, as readFileSync does). A link (ELOOP) or a socket (ENXIO) cannot be opened so: its lstat
 * stands alone. Plan files are small and capped: one synchronous read beats async round trips.
 */
function readWithStatNow(p: string, maxBytes: number): { stat: FileStat; bytes?: Uint8Array } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP' || code === 'ENXIO') {
      const stat = lstatNow(p);
      return stat && { stat };
    }
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    const stat = statOf(st);
    if (!st.isFile() || st.size > maxBytes) return { stat };
    return { stat, bytes: readOpenFile(fd, st.size) };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The bytes of an open regular file whose fstat said `size`, as readFileSync(fd) reads them (to
 * that size, fewer if it shrank; an empty one to its end) without the second fstat it would make.
 */
function readOpenFile(fd: number, size: number): Buffer {
  if (size === 0) return fs.readFileSync(fd);
  const buf = Buffer.allocUnsafe(size);
  let n = 0;
  while (n < size) {
    const r = fs.readSync(fd, buf, n, size - n, null);
    if (r === 0) break;
    n += r;
  }
  return n === size ? buf : buf.subarray(0, n);
}

/** `readWithStatNow` without blocking the thread. */
async function readWithStatLater(p: string, maxBytes: number): Promise<{ stat: FileStat; bytes?: Uint8Array } | undefined> {
  let h: fs.promises.FileHandle;
  try {
    h = await fs.promises.open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP' || code === 'ENXIO') {
      const stat = await lstatLater(p);
      return stat && { stat };
    }
    throw e;
  }
  try {
    const st = await h.stat();
    const stat = statOf(st);
    if (!st.isFile() || st.size > maxBytes) return { stat };
    return { stat, bytes: await h.readFile() };
  } finally {
    await h.close();
  }
}

/** lstat without blocking the thread; undefined when absent. */
async function lstatLater(p: string): Promise<FileStat | undefined> {
  try {
    return statOf(await fs.promises.lstat(p));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** `readNow` without blocking the thread: the same flags and checks, through libuv's pool. */
async function readLater(p: string): Promise<Uint8Array | undefined> {
  return bytesOrRefusal(p, await readWithStatLater(p, Infinity));
}

/** At most this many asynchronous calls at once (libuv's pool has 4 threads). */
const PARALLEL = 16;
async function inParallel<T, R>(items: readonly T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return out;
}

/**
 * The real file system: atomic, durable writes; links refused (O_NOFOLLOW, lstat).
 *
 * `blocking: true` (short-lived processes: the CLI, a test) reads and stats with synchronous
 * calls, in slices of 200 with a yield between: several times faster per file. `blocking: false`
 * (the extension host, which all other extensions share, possibly over SSH, WSL or a container's
 * file system) never makes a synchronous call: everything goes through libuv's thread pool.
 */
export class NodeFileSystem implements FileSystemPort {
  private readonly blocking: boolean;
  constructor(opts: { blocking?: boolean } = {}) {
    this.blocking = opts.blocking ?? true;
  }

  async readFile(p: string): Promise<Uint8Array | undefined> {
    return this.blocking ? readNow(p) : readLater(p);
  }

  async stat(p: string): Promise<FileStat | undefined> {
    return this.blocking ? lstatNow(p) : lstatLater(p);
  }

  async statMany(paths: readonly string[]): Promise<(FileStat | undefined)[]> {
    return this.blocking ? inSlices(paths, lstatNow) : inParallel(paths, lstatLater);
  }

  async readMany(paths: readonly string[]): Promise<(Uint8Array | undefined | Error)[]> {
    const got = await this.readManyWithStats(paths, Infinity);
    return got.map((r, i) => {
      if (r instanceof Error) return r;
      try {
        return bytesOrRefusal(paths[i], r);
      } catch (e) {
        return e as Error;
      }
    });
  }

  async readManyWithStats(paths: readonly string[], maxBytes: number): Promise<({ stat: FileStat; bytes?: Uint8Array } | undefined | Error)[]> {
    const read = (p: string) => {
      try {
        return readWithStatNow(p, maxBytes);
      } catch (e) {
        return e as Error;
      }
    };
    return this.blocking ? inSlices(paths, read) : inParallel(paths, (p) => readWithStatLater(p, maxBytes).catch((e: Error) => e));
  }

  sameBytes(a: Uint8Array, b: Uint8Array): boolean {
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }

  async readDir(p: string): Promise<string[]> {
    try {
      return await fs.promises.readdir(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw e;
    }
  }

  async mkdirp(p: string): Promise<void> {
    await fs.promises.mkdir(p, { recursive: true });
  }

  async writeFileAtomic(target: string, data: Uint8Array, opts: { stat?: boolean } = {}): Promise<FileStat | void> {
    const st = await this.stat(target);
    if (st?.isSymbolicLink) throw linkRefused(target);
    const { tmp, stat } = await writeTemp(target, data, opts.stat ? (this.blocking ? 'now' : 'later') : false);
    try {
      await fs.promises.rename(tmp, target); // replaces a link itself, never its target
    } catch (e) {
      await fs.promises.unlink(tmp).catch(() => undefined);
      throw e;
    }
    await fsyncDir(path.dirname(target));
    return stat;
  }

  async createFileExclusive(target: string, data: Uint8Array): Promise<void> {
    const { tmp } = await writeTemp(target, data);
    try {
      await fs.promises.link(tmp, target); // fails with EEXIST: never clobbers
    } finally {
      await fs.promises.unlink(tmp).catch(() => undefined);
    }
    await fsyncDir(path.dirname(target));
  }

  async removeFile(p: string): Promise<void> {
    try {
      await fs.promises.unlink(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    await fsyncDir(path.dirname(p));
  }

  async appendFile(p: string, data: Uint8Array): Promise<void> {
    let h: fs.promises.FileHandle;
    try {
      h = await fs.promises.open(p, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw linkRefused(p);
      throw e;
    }
    try {
      await h.writeFile(data);
      await h.sync();
    } finally {
      await h.close();
    }
  }

  async sweepTempFiles(dir: string, names?: readonly string[]): Promise<number> {
    let n = 0;
    for (const name of names ?? (await this.readDir(dir))) {
      const m = TEMP.exec(name);
      if (!m) continue;
      const p = path.join(dir, name);
      const st = await this.stat(p);
      if (!st || !st.isFile) continue;
      const dead = Number(m[2]) !== process.pid && !pidAlive(Number(m[2]));
      if (dead || Date.now() - st.mtimeMs > STALE_TEMP_MS) {
        await fs.promises.unlink(p).catch(() => undefined);
        n++;
      }
    }
    return n;
  }
}
