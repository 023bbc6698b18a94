import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PlanError } from '../../core';
import { describeKind, type FileKind, type FileStat, type FileSystemPort } from '../../store';

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

/** True when a process with this id exists on this host (one we may not signal exists too). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a stat says a path is. */
export function kindOf(s: fs.Stats): FileKind {
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
function readWithStatNow(p: string, maxBytes: number, into?: Buffer): { stat: FileStat; bytes?: Uint8Array } | undefined {
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
    return { stat, bytes: into && st.size > 0 && st.size <= into.length ? readInto(fd, st.size, into) : readOpenFile(fd, st.size) };
  } finally {
    fs.closeSync(fd);
  }
}

/** The buffer `readEachWithStats` lends its files' bytes in (a file larger than it gets its own). */
let lending: Buffer | undefined;
const LENDING_BYTES = 64 * 1024;

/** `readOpenFile` into `buf` (at least `size` long): a view of the bytes read. */
function readInto(fd: number, size: number, buf: Buffer): Buffer {
  let n = 0;
  while (n < size) {
    const r = fs.readSync(fd, buf, n, size - n, null);
    if (r === 0) break;
    n += r;
  }
  return buf.subarray(0, n);
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

/** A folder writes are allowed under, and what its real path was when last learned. */
interface Root {
  path: string;
  /** Named relative to this root in messages (the workspace folder: the first root given). */
  primary: boolean;
  /** `realpath(path)` (for the pool's one-call check), learned on first use and whenever a walk finds the folders real. */
  real?: string;
}

/** The calls the containment check makes: synchronous ones for `blocking`, the pool's otherwise. */
interface GuardIo {
  realpath(p: string): string | undefined | Promise<string | undefined>;
  lstat(p: string): fs.Stats | undefined | Promise<fs.Stats | undefined>;
  mkdir(p: string, recursive: boolean): void | Promise<unknown>;
}

const absentAsUndefined = (e: NodeJS.ErrnoException): undefined => {
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
  throw e;
};

const SYNC_GUARD: GuardIo = {
  // Any failure (absent, not a folder, a loop) sends the check down the walk, which names it.
  realpath: (p) => {
    try {
      return fs.realpathSync.native(p);
    } catch {
      return undefined;
    }
  },
  lstat: (p) => {
    try {
      return fs.lstatSync(p);
    } catch (e) {
      return absentAsUndefined(e as NodeJS.ErrnoException);
    }
  },
  mkdir: (p, recursive) => void fs.mkdirSync(p, { recursive }),
};

const ASYNC_GUARD: GuardIo = {
  realpath: (p) => fs.promises.realpath(p).catch(() => undefined),
  lstat: (p) => fs.promises.lstat(p).catch(absentAsUndefined),
  mkdir: (p, recursive) => fs.promises.mkdir(p, { recursive }),
};

/** `root` followed by a separator: what every path inside it starts with. */
function inside(root: string): string {
  return root.endsWith(path.sep) ? root : root + path.sep;
}

/**
 * The roots a path's folder may be in, innermost first: a folder inside two roots is checked
 * from the nearer one (a state folder kept under a home folder opened as the workspace is
 * checked from the state folder, whose own ancestors may be links, as dotfile managers make them).
 */
function rootsOf(roots: readonly string[]): Root[] {
  return roots.map((r, i) => ({ path: path.resolve(r), primary: i === 0 })).sort((a, b) => b.path.length - a.path.length);
}

/** How a path is named in a message: relative to the workspace folder, else in full. */
function shown(root: Root, p: string): string {
  return root.primary ? path.relative(root.path, p).split(path.sep).join('/') : p;
}

function linkInPath(root: Root, p: string): PlanError {
  const name = shown(root, p);
  return new PlanError('UNSAFE_PATH', `${name} is a symbolic link: Pi Plans never writes through links; replace it with a real folder`, { file: name });
}

function notAFolder(root: Root, p: string, kind: FileKind): PlanError {
  const name = shown(root, p);
  return new PlanError('NOT_A_FILE', `${name} is ${describeKind(kind)}, not a folder: Pi Plans only writes into real folders; move it away`, { file: name });
}

/**
 * `contain`'s check with synchronous calls, in one pass (no await between the lstats): true when
 * every folder below the root is there and real; false at the first one missing; throws at a link
 * or anything that is not a folder.
 */
function walkNow(root: Root, rest: string): boolean {
  let cur = root.path;
  for (const part of rest.split(path.sep)) {
    cur = inside(cur) + part;
    const st = fs.lstatSync(cur, { throwIfNoEntry: false });
    if (!st) return false;
    if (st.isSymbolicLink()) throw linkInPath(root, cur);
    if (!st.isDirectory()) throw notAFolder(root, cur, kindOf(st));
  }
  return true;
}

/** A name from a listing that is one entry of the folder (a caller's list could hold `../x`). */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes(path.sep) && !name.includes('\0');
}

/**
 * The real file system: atomic, durable writes; links refused (O_NOFOLLOW, lstat). With roots,
 * every write and delete (and every folder it makes) stays inside them and never passes through
 * a linked folder below them (UNSAFE_PATH, naming the link).
 *
 * `blocking: true` (short-lived processes: the CLI, a test) reads and stats with synchronous
 * calls, in slices of 200 with a yield between: several times faster per file. `blocking: false`
 * (the extension host, which all other extensions share, possibly over SSH, WSL or a container's
 * file system) never makes a synchronous call: everything goes through libuv's thread pool.
 */
export class NodeFileSystem implements FileSystemPort {
  private readonly blocking: boolean;
  private readonly roots: Root[] | undefined;
  private readonly io: GuardIo;
  /**
   * `roots`: absolute folders every write and delete must stay in (the workspace folder first:
   * messages name paths relative to it). Without them, no containment check is made (a caller
   * that only reads, or a test).
   */
  constructor(opts: { blocking?: boolean; roots?: readonly string[] } = {}) {
    this.blocking = opts.blocking ?? true;
    this.roots = opts.roots && rootsOf(opts.roots);
    this.io = this.blocking ? SYNC_GUARD : ASYNC_GUARD;
  }

  /**
   * Where a write or delete into `dir` may go: `dir` must be inside a root, and every folder from
   * that root down to `dir` a real folder, never a link (the root itself and its ancestors may be
   * links: /tmp -> /private/tmp). With `make`, missing folders are made one at a time, each in a
   * folder already checked. Synchronously, an lstat of each folder below the root (about 2 us
   * each; a realpath costs about as much per folder from `/`, so more for a deep workspace).
   * Through the pool, where each call is a round trip, one realpath: the folder's real path equals
   * the root's real path followed by the rest of `dir` exactly when no folder below the root is a
   * link (a link never resolves to its own place); anything else walks down with lstat, which
   * names the link (or finds the folders real after all: a root that moved, a case-insensitive
   * disk). Nothing is cached between calls: a folder can become a link at any time, and no check
   * cheaper than these would see it. Node has no openat: a folder swapped for a link between this
   * check and the call is not seen.
   */
  private async contain(dir: string, make = false): Promise<void> {
    if (!this.roots) {
      if (make) await this.io.mkdir(dir, true);
      return;
    }
    const root = this.roots.find((r) => dir === r.path || dir.startsWith(inside(r.path)));
    if (!root) {
      throw new PlanError('UNSAFE_PATH', `${dir} is outside the folders Pi Plans may change (${this.roots.map((r) => r.path).join(', ')}): nothing there is written or deleted`, { file: dir });
    }
    if (dir === root.path) {
      if (make) await this.io.mkdir(dir, true);
      return;
    }
    const rest = dir.slice(inside(root.path).length);
    if (this.blocking) {
      if (walkNow(root, rest) || !make) return;
    } else {
      root.real ??= await this.io.realpath(root.path);
      // `/.` fails on a file (ENOTDIR): a folder to make must be one.
      if (root.real !== undefined && (await this.io.realpath(make ? `${dir}${path.sep}.` : dir)) === inside(root.real) + rest) return;
    }
    await this.walk(root, rest, make);
  }

  /** The slow half of `contain`: lstat of each folder below the root (made when missing, with `make`). */
  private async walk(root: Root, rest: string, make: boolean): Promise<void> {
    if (make && !(await this.io.lstat(root.path))) await this.io.mkdir(root.path, true);
    let cur = root.path;
    for (const part of rest.split(path.sep)) {
      cur = inside(cur) + part;
      let st = await this.io.lstat(cur);
      if (!st && make) {
        try {
          await this.io.mkdir(cur, false);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
        st = await this.io.lstat(cur); // ours, or what another writer made meanwhile: checked alike
      }
      // Absent: the call fails there on its own, and nothing below it can be a link.
      if (!st) return;
      if (st.isSymbolicLink()) throw linkInPath(root, cur);
      if (!st.isDirectory()) throw notAFolder(root, cur, kindOf(st));
    }
    if (!this.blocking) root.real = await this.io.realpath(root.path);
  }

  /** Throws (UNSAFE_PATH, NOT_A_FILE) unless writes and deletes in `dir` are allowed: inside a root, no linked folder on the way. */
  async checkFolder(dir: string): Promise<void> {
    await this.contain(this.resolved(dir));
  }

  /** A path as the calls use it: resolved when there are roots, so the path checked is the path used. */
  private resolved(p: string): string {
    return this.roots ? path.resolve(p) : p;
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

  /**
   * Synchronously (`blocking`), each file is read into one buffer, lent to `each` and read over
   * by the next: a cold index of 10,000 plans allocated a buffer per file and held 256 of them at
   * a time. Otherwise, through the pool in one batch, as `readManyWithStats`.
   */
  async readEachWithStats(paths: readonly string[], maxBytes: number, each: (k: number, result: { stat: FileStat; bytes?: Uint8Array } | undefined | Error) => void): Promise<void> {
    if (!this.blocking) {
      const got = await this.readManyWithStats(paths, maxBytes);
      got.forEach((r, k) => each(k, r));
      return;
    }
    for (let i = 0; i < paths.length; i += SLICE) {
      if (i) await new Promise<void>((r) => setImmediate(r));
      for (let k = i; k < Math.min(paths.length, i + SLICE); k++) {
        let r: { stat: FileStat; bytes?: Uint8Array } | undefined | Error;
        try {
          r = readWithStatNow(paths[k], maxBytes, (lending ??= Buffer.allocUnsafeSlow(LENDING_BYTES)));
        } catch (e) {
          r = e as Error;
        }
        each(k, r);
      }
    }
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
    await this.contain(this.resolved(p), true);
  }

  async writeFileAtomic(file: string, data: Uint8Array, opts: { stat?: boolean } = {}): Promise<FileStat | void> {
    const target = this.resolved(file);
    await this.contain(path.dirname(target));
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

  async createFileExclusive(file: string, data: Uint8Array): Promise<void> {
    const target = this.resolved(file);
    await this.contain(path.dirname(target));
    const { tmp } = await writeTemp(target, data);
    try {
      await fs.promises.link(tmp, target); // fails with EEXIST: never clobbers
    } finally {
      await fs.promises.unlink(tmp).catch(() => undefined);
    }
    await fsyncDir(path.dirname(target));
  }

  async removeFile(file: string): Promise<void> {
    const p = this.resolved(file);
    await this.contain(path.dirname(p));
    try {
      await fs.promises.unlink(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    await fsyncDir(path.dirname(p));
  }

  async appendFile(file: string, data: Uint8Array): Promise<void> {
    const p = this.resolved(file);
    await this.contain(path.dirname(p));
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

  async sweepTempFiles(folder: string, names?: readonly string[]): Promise<number> {
    const dir = this.resolved(folder);
    await this.contain(dir);
    let n = 0;
    for (const name of names ?? (await this.readDir(dir))) {
      const m = TEMP.exec(name);
      if (!m || !isPlainName(name)) continue;
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
