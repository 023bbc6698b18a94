import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type lockfileModule from 'proper-lockfile';
import { PlanError } from '../../core';
import { describeKind, type FileKind, type FileSystemPort, type LockPort } from '../../store';
import { kindOf, NodeFileSystem, pidAlive } from './nodeFileSystem';

/*
 * A plan's lock is proper-lockfile's: a folder `.<name>.lock` beside the plan, made with an atomic
 * mkdir and refreshed while held. Through the file-system object handed to proper-lockfile, the
 * folder also holds its owner's record: an empty file `owner.<pid>.<machine>.<nonce>.<host>`,
 * made with one O_EXCL create (its name says everything, so it is never read, never half written;
 * its mtime says since when).
 *
 * The rules that make several writers, and several writers racing for a dead lock, safe:
 * - A writer holds the lock when it made the folder, wrote its record into it (O_EXCL, a name no
 *   one else uses), and then saw no other record in it. So an empty folder is never anyone's
 *   lock: removing one (with rmdir, which only removes empty folders) is always safe; a writer
 *   whose folder vanished before its record went in fails to write it, and tries again.
 * - A record is removed only by its writer (release) or by one that claims it: renames it to a
 *   name of its own. The record's name carries its nonce, unique to one acquisition, so a rename
 *   succeeds for exactly one claimer and only while that very record exists: a claimer that lost
 *   the race, or that looked at a lock taken over and taken again meanwhile, gets ENOENT and
 *   touches nothing. A record is claimed only when its owner is gone: a process of this machine
 *   that no longer exists (at once), or a lock not refreshed for the stale time (any owner: one on
 *   another machine cannot be asked; a frozen one has lost it, as proper-lockfile always did).
 * - The claimer then removes its claim and the (now empty) folder, and takes the lock the usual
 *   way: one mkdir wins. Whoever loses sees a live owner and waits.
 * proper-lockfile itself never removes a lock here (its staleness is set beyond reach): every
 * removal goes through these rules.
 */

const OWNER = /^owner\.(\d{1,10})\.([0-9a-f]{12})\.([0-9a-f]{16})\.([A-Za-z0-9._-]{0,100})$/;
const CLAIM = /^claim\./;
/**
 * proper-lockfile, loaded at the first lock this process takes: a command that only reads (list,
 * show, validate, --version) never initializes it (nor its signal handlers): about 2 ms of each start.
 */
let lockfileLoaded: Promise<typeof lockfileModule> | undefined;
const properLockfile = () => (lockfileLoaded ??= import('proper-lockfile').then((m) => m.default));

/** proper-lockfile's staleness, never reached: it must not remove locks by itself (see above). */
const NEVER = 2 ** 52;
const DEFAULT_STALE_MS = 10_000;
/** The code of proper-lockfile's own "held" refusal: a lock we could not take is waited on and tried again like a held one. */
const lockedErr = (dir: string) => Object.assign(new Error(`${dir} is held`), { code: 'ELOCKED' });

/** Who holds (or held) a lock, from its record. */
export interface LockOwner {
  pid: number;
  /** The host name it recorded (letters, digits, `.`, `-`; anything else as `_`). */
  host: string;
  /** On this machine: the same host name and the same process-id namespace (a container has its own). */
  sameMachine: boolean;
  /** Whether that process still runs; undefined for another machine's (it cannot be asked). */
  alive: boolean | undefined;
  /** When it took the lock (ISO time). */
  since: string;
}

/** What sits where a plan's lock goes. */
export interface PlanLockState {
  path: string;
  /** `directory` for a lock; anything else was planted there. */
  kind: FileKind;
  owners: LockOwner[];
  /** When the lock was last refreshed (its folder's modification time). */
  mtimeMs: number;
}

/** A lock taken over from an owner that is gone, told to `NodeLock`'s `onReclaim`. */
export interface LockReclaim {
  lock: string;
  /** `dead`: its owner's process no longer exists on this machine; `stale`: not refreshed in time. */
  reason: 'dead' | 'stale';
  owners: LockOwner[];
}

/** Where the lock of a plan file goes: the folder `.<name>.lock` beside it. */
export function lockPathOf(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
}

let machine: string | undefined;
/**
 * This machine, as lock records name it: the host name and the process-id namespace (a container
 * sharing the host's name and a folder with it has pids of its own: never "dead" to each other).
 * Read once (a /proc link, no disk access).
 */
function thisMachine(): string {
  if (machine === undefined) {
    let pidns = '';
    try {
      pidns = fs.readlinkSync('/proc/self/ns/pid');
    } catch {
      /* not Linux: the host name alone */
    }
    machine = createHash('sha256').update(`${os.hostname()}\0${pidns}`).digest('hex').slice(0, 12);
  }
  return machine;
}

/** Nonces of the records this process wrote and has not removed: its locks, held or being taken. */
const mine = new Set<string>();
/** The record of each lock this process holds, by lock folder. */
const held = new Map<string, { name: string; nonce: string }>();

/** The host name as a record's name carries it. */
const hostInName = () => os.hostname().replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 100);

/** The calls the lock makes: synchronous ones (the CLI's uncontended lock costs microseconds) or the pool's. */
interface LockIo {
  mkdir(p: string): unknown;
  /** Creates an empty file that must not exist (O_EXCL: never through a link). */
  create(p: string): unknown;
  readdir(p: string): string[] | Promise<string[]>;
  lstat(p: string): fs.Stats | Promise<fs.Stats>;
  unlink(p: string): unknown;
  rmdir(p: string): unknown;
  rename(from: string, to: string): unknown;
  utimes(p: string, atime: Date, mtime: Date): unknown;
}

const SYNC_IO: LockIo = {
  mkdir: (p) => fs.mkdirSync(p),
  create: (p) => fs.closeSync(fs.openSync(p, 'wx', 0o644)),
  readdir: (p) => fs.readdirSync(p),
  lstat: (p) => fs.lstatSync(p),
  unlink: (p) => fs.unlinkSync(p),
  rmdir: (p) => fs.rmdirSync(p),
  rename: (a, b) => fs.renameSync(a, b),
  utimes: (p, a, m) => fs.utimesSync(p, a, m),
};

const ASYNC_IO: LockIo = {
  mkdir: (p) => fs.promises.mkdir(p),
  create: async (p) => (await fs.promises.open(p, 'wx', 0o644)).close(),
  readdir: (p) => fs.promises.readdir(p),
  lstat: (p) => fs.promises.lstat(p),
  unlink: (p) => fs.promises.unlink(p),
  rmdir: (p) => fs.promises.rmdir(p),
  rename: (a, b) => fs.promises.rename(a, b),
  utimes: (p, a, m) => fs.promises.utimes(p, a, m),
};

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Makes the lock folder and puts this process's record in it; fails (ELOCKED) unless it is then the only record. */
async function takeFolder(io: LockIo, dir: string): Promise<void> {
  await io.mkdir(dir); // EEXIST: proper-lockfile stats the folder and reports ELOCKED
  const nonce = randomBytes(8).toString('hex');
  const name = `owner.${process.pid}.${thisMachine()}.${nonce}.${hostInName()}`;
  mine.add(nonce);
  try {
    await io.create(path.join(dir, name));
  } catch (e) {
    mine.delete(nonce);
    // The folder was removed while still empty (see the rules above): not ours; try again.
    if (errno(e) === 'ENOENT') throw lockedErr(dir);
    await Promise.resolve(io.rmdir(dir)).catch(() => undefined); // empty: nobody's lock
    throw e;
  }
  // A second record means our folder was removed and made again by another writer before our
  // record went in (into its folder): neither may count on it. Both back off and try again.
  const names = await io.readdir(dir);
  if (names.some((n) => n !== name && (OWNER.test(n) || CLAIM.test(n)))) {
    await dropRecord(io, dir, name, nonce);
    throw lockedErr(dir);
  }
  held.set(dir, { name, nonce });
}

/** Removes our record and, when that leaves it empty, the folder (a stray record keeps it: its writer backs off). */
async function dropRecord(io: LockIo, dir: string, name: string, nonce: string): Promise<void> {
  try {
    await io.unlink(path.join(dir, name));
  } catch (e) {
    // Claimed by a writer that found the lock stale: the folder is theirs to remove now.
    if (errno(e) === 'ENOENT') return;
    throw e;
  } finally {
    mine.delete(nonce);
  }
  try {
    await io.rmdir(dir);
  } catch (e) {
    if (!['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(errno(e) ?? '')) throw e;
  }
}

/** proper-lockfile's release (and clean-up of a lock it could not finish taking): ours only. */
async function releaseFolder(io: LockIo, dir: string): Promise<void> {
  const ours = held.get(dir);
  if (!ours) return; // never ours: nothing of it is removed
  held.delete(dir);
  await dropRecord(io, dir, ours.name, ours.nonce);
}

/** The same, synchronously: proper-lockfile's exit handler releases held locks with `rmdirSync`. */
function releaseFolderSync(dir: string): void {
  const ours = held.get(dir);
  if (!ours) return;
  held.delete(dir);
  mine.delete(ours.nonce);
  try {
    fs.unlinkSync(path.join(dir, ours.name));
    fs.rmdirSync(dir);
  } catch {
    /* exiting: a lock left behind is taken over as a dead one */
  }
}

/** The lock folder's stat for proper-lockfile (its mtime); anything but a real folder is refused. */
async function lockFolderStat(io: LockIo, dir: string): Promise<fs.Stats> {
  const st = await io.lstat(dir);
  if (!st.isDirectory()) throw plantedLock(dir, kindOf(st));
  return st;
}

/**
 * The file-system object proper-lockfile calls (its callback style), over `io`. One object per
 * kind for the whole process: proper-lockfile learns the folder's mtime precision once per object
 * (a new object would probe again: a utimes and a stat on every lock).
 */
function lockfileFs(io: LockIo) {
  const settle = <T>(work: () => Promise<T>, callback: (err: unknown, result?: T) => void) => {
    work().then(
      (r) => callback(null, r),
      (e: unknown) => callback(e),
    );
  };
  return {
    mkdir: (p: string, callback: (err: unknown) => void) => settle(() => takeFolder(io, p), callback),
    stat: (p: string, callback: (err: unknown, st?: fs.Stats) => void) => settle(() => lockFolderStat(io, p), callback),
    utimes: (p: string, atime: Date, mtime: Date, callback: (err: unknown) => void) => settle(async () => void (await io.utimes(p, atime, mtime)), callback),
    rmdir: (p: string, callback: (err: unknown) => void) => settle(() => releaseFolder(io, p), callback),
    rmdirSync: (p: string) => releaseFolderSync(p),
    realpath: (p: string, callback: (err: unknown, p?: string) => void) => callback(null, path.resolve(p)),
  };
}
const SYNC_LOCKFILE_FS = lockfileFs(SYNC_IO);
const ASYNC_LOCKFILE_FS = lockfileFs(ASYNC_IO);

/** The workspace folder of a path in `<workspace>/.pi/plans`, if it is one. */
function workspaceOf(planOrLock: string): string | undefined {
  const plans = path.dirname(path.resolve(planOrLock));
  return path.basename(plans) === 'plans' && path.basename(path.dirname(plans)) === '.pi' ? path.dirname(path.dirname(plans)) : undefined;
}

/** A lock's path for messages: relative to its workspace folder when it has one. */
function shownLock(dir: string): string {
  const ws = workspaceOf(dir);
  return ws ? path.relative(ws, dir).split(path.sep).join('/') : dir;
}

/** The plan id (or file stem) a lock folder belongs to, for the command that clears it. */
function lockedName(dir: string): string {
  return path.basename(dir).replace(/^\./, '').replace(/\.lock$/, '').replace(/\.md$/, '');
}

/** The refusal for something planted where a lock goes: what it is, and the command that clears it. */
function plantedLock(dir: string, kind: FileKind): PlanError {
  const name = shownLock(dir);
  const fix = `remove it with \`pi-plans unlock ${lockedName(dir)}\` (or Pi Plans: Clear Plan Lock in VS Code)`;
  if (kind === 'symlink') return new PlanError('UNSAFE_PATH', `${name} is a symbolic link, not a lock folder: Pi Plans never writes through links; ${fix}`, { file: name });
  return new PlanError('LOCKED', `${name} is ${describeKind(kind)}, not a lock folder, so ${lockedName(dir)} cannot be locked for a write: ${fix}`, { file: name });
}

interface OwnerRecord extends LockOwner {
  name: string;
}

interface Seen {
  kind: FileKind;
  mtimeMs: number;
  owners: OwnerRecord[];
  claims: string[];
  others: string[];
}

/** What sits at `dir` now: its kind and, for a folder, its records; undefined when absent. */
async function inspect(io: LockIo, dir: string, again = 3): Promise<Seen | undefined> {
  let names: string[];
  let seen: Seen;
  try {
    const first = await io.lstat(dir);
    if (!first.isDirectory()) return { kind: kindOf(first), mtimeMs: first.mtimeMs, owners: [], claims: [], others: [] };
    names = await io.readdir(dir);
    // Stat after the listing: a record claimed or removed meanwhile shows as a fresh mtime, so a
    // lock being taken over is never judged stale on an older look.
    const st = await io.lstat(dir);
    seen = { kind: kindOf(st), mtimeMs: st.mtimeMs, owners: [], claims: [], others: [] };
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined;
    throw e;
  }
  for (const name of names) {
    const m = OWNER.exec(name);
    if (!m) {
      (CLAIM.test(name) ? seen.claims : seen.others).push(name);
      continue;
    }
    let since: string;
    try {
      since = new Date((await io.lstat(path.join(dir, name))).mtimeMs).toISOString();
    } catch (e) {
      // Claimed or released since the listing: look again.
      if (errno(e) === 'ENOENT' && again > 0) return inspect(io, dir, again - 1);
      if (errno(e) === 'ENOENT') continue;
      throw e;
    }
    const pid = Number(m[1]);
    const sameMachine = m[2] === thisMachine();
    // Our own pid: a record of ours, or of a process before us that had the same pid (dead).
    const alive = !sameMachine ? undefined : pid === process.pid ? mine.has(m[3]) : pidAlive(pid);
    seen.owners.push({ name, pid, host: m[4], sameMachine, alive, since });
  }
  return seen;
}

const publicOwner = ({ name: _name, ...o }: OwnerRecord): LockOwner => o;

/**
 * Removes the lock folder `seen` describes, whose records are all claimable (see `reclaimable`),
 * by the rules at the top. `clearClaims`: also claims left by a claimer that died between its
 * rename and its rmdir (in a stale folder only: a claim in progress has just changed the folder,
 * so it is never stale; or when a person clears the lock). Returns false when another writer
 * changed the lock meanwhile: nothing of theirs was touched.
 */
async function reclaim(io: LockIo, dir: string, seen: Seen, clearClaims: boolean): Promise<boolean> {
  const tag = randomBytes(8).toString('hex');
  for (const [i, o] of seen.owners.entries()) {
    const claim = path.join(dir, `claim.${tag}.${i}`);
    try {
      await io.rename(path.join(dir, o.name), claim);
    } catch (e) {
      if (errno(e) === 'ENOENT') return false; // another writer claimed it first, or released it
      throw e;
    }
    await Promise.resolve(io.unlink(claim)).catch(() => undefined);
  }
  if (clearClaims) for (const name of seen.claims) await Promise.resolve(io.unlink(path.join(dir, name))).catch(() => undefined);
  try {
    await io.rmdir(dir);
  } catch (e) {
    if (['ENOENT', 'ENOTEMPTY', 'EEXIST'].includes(errno(e) ?? '')) return false;
    throw e;
  }
  return true;
}

/** Whether a lock's records allow taking it: all owners dead, or the lock stale. */
function reclaimable(seen: Seen, staleMs: number): { stale: boolean; reason?: 'dead' | 'stale' } {
  const stale = Date.now() - seen.mtimeMs > staleMs;
  if (seen.owners.length && seen.owners.every((o) => o.alive === false)) return { stale, reason: 'dead' };
  return { stale, reason: stale ? 'stale' : undefined };
}

const pause = (ms: number) => new Promise<void>((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));

/**
 * A cross-process lock per plan file: proper-lockfile's atomic mkdir and refresh, with the
 * owner's record inside (see the rules at the top). A lock whose owner process no longer exists
 * on this machine is taken over at once, and then that plan's temp files left by dead writers are
 * removed; a lock of another machine, or one without a record, is taken when not refreshed for
 * `staleMs`. A link, file or pipe where the lock folder goes is refused with the command that
 * clears it. With `blocking` (the CLI), an uncontended lock is taken and released with
 * synchronous calls (microseconds); otherwise (the extension host) and when contended, with the
 * thread pool's.
 */
export class NodeLock implements LockPort {
  private readonly sweeper: Pick<FileSystemPort, 'sweepTempFiles'>;

  /**
   * `sweeper`: removes a plan's orphan temp files after a takeover (pass the store's file system,
   * so those deletions stay inside its roots). `onReclaim`: told of every lock taken over.
   */
  constructor(
    private readonly opts: {
      staleMs?: number;
      retries?: number;
      blocking?: boolean;
      sweeper?: Pick<FileSystemPort, 'sweepTempFiles'>;
      onReclaim?: (r: LockReclaim) => void;
    } = {},
  ) {
    this.sweeper = opts.sweeper ?? new NodeFileSystem({ blocking: opts.blocking });
  }

  async acquire(file: string): Promise<() => Promise<void>> {
    const dir = lockPathOf(file);
    const staleMs = this.opts.staleMs ?? DEFAULT_STALE_MS;
    const blocking = this.opts.blocking ?? true;
    const retries = this.opts.retries ?? 200;
    const io = blocking ? SYNC_IO : ASYNC_IO;
    const options = { realpath: false, lockfilePath: dir, stale: NEVER, update: Math.min(Math.max(staleMs / 2, 1000), 2 ** 30) };
    const lockfile = await properLockfile();
    let reclaimed = false;
    let last: Seen | undefined;
    for (let turn = 0, waits = 0; ; turn++) {
      try {
        // The first try of the CLI with synchronous calls; any other with the pool's.
        const release = await lockfile.lock(file, { ...options, fs: blocking && turn === 0 ? SYNC_LOCKFILE_FS : ASYNC_LOCKFILE_FS });
        if (reclaimed) await this.sweepOrphans(file);
        return release;
      } catch (e) {
        if (errno(e) !== 'ELOCKED') throw e;
      }
      const seen = await inspect(io, dir);
      if (seen && seen.kind !== 'directory') throw plantedLock(dir, seen.kind);
      let changing = !seen; // removed meanwhile: try again at once
      if (seen) {
        last = seen;
        const { stale, reason } = reclaimable(seen, staleMs);
        if (reason) {
          if (await reclaim(io, dir, seen, stale)) {
            reclaimed = true;
            this.opts.onReclaim?.({ lock: dir, reason, owners: seen.owners.map(publicOwner) });
            continue;
          }
          changing = true; // another writer took it over first
        }
      }
      // A lock changing hands is tried again at once, a held one after a growing, jittered pause
      // (as proper-lockfile's retries did); a lock that changes forever counts as held.
      if (!changing || turn > 4 * retries + 50) {
        if (waits >= retries) throw busy(file, last);
        waits++;
      }
      await pause(changing ? 0 : Math.min(100, 2 * 1.3 ** waits * (1 + Math.random())));
    }
  }

  /** A plan's temp files of dead writers (`.<name>.<pid>.<random>.tmp`), after its lock was taken from one. */
  private async sweepOrphans(file: string): Promise<void> {
    const folder = path.dirname(file);
    const prefix = `.${path.basename(file)}.`;
    try {
      const names = (await fs.promises.readdir(folder)).filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'));
      if (names.length) await this.sweeper.sweepTempFiles(folder, names);
    } catch {
      /* a clean-up: the next store load sweeps the folder again */
    }
  }
}

/** The refusal of a writer that waited long enough: who holds the lock, and what to do. */
function busy(file: string, seen: Seen | undefined): PlanError {
  const o = seen?.owners[0];
  const base = path.basename(file);
  if (o) return new PlanError('VERSION_CONFLICT', `${base} is locked by another writer (pid ${o.pid} on ${o.host}) that is taking too long: try again in a moment`);
  return new PlanError('VERSION_CONFLICT', `${base} is locked by another writer that is taking too long: try again in a moment; if no Pi Plans writer is running, clear the lock with \`pi-plans unlock ${lockedName(lockPathOf(file))}\``);
}

/** What sits where a plan's lock goes (a lock folder with its owners, or something planted); undefined when nothing. */
export async function readPlanLock(planPath: string): Promise<PlanLockState | undefined> {
  const dir = lockPathOf(path.resolve(planPath));
  const seen = await inspect(ASYNC_IO, dir);
  return seen && { path: dir, kind: seen.kind, owners: seen.owners.map(publicOwner), mtimeMs: seen.mtimeMs };
}

/**
 * Clears a plan's lock for a person (`pi-plans unlock`, Pi Plans: Clear Plan Lock): something
 * planted where the lock goes (the link, file or pipe itself, never what a link points to), or a
 * lock folder whose owner is dead, or which has no owner (or one on another machine) and was not
 * refreshed for `staleMs`. Refuses (LOCKED, naming pid and host) a lock whose owner is alive or
 * may be, and (UNSAFE_PATH) a lock reached through a linked folder below the workspace folder
 * (`root`: by default the folder holding `.pi/plans`). Returns what was removed; undefined when
 * there was nothing.
 */
export async function clearPlanLock(planPath: string, opts: { root?: string; staleMs?: number } = {}): Promise<{ removed: string; kind: FileKind; owners: LockOwner[] } | undefined> {
  const dir = lockPathOf(path.resolve(planPath));
  const root = opts.root ?? workspaceOf(dir) ?? path.dirname(dir);
  const contained = new NodeFileSystem({ blocking: false, roots: [root] });
  await contained.checkFolder(path.dirname(dir));
  const seen = await inspect(ASYNC_IO, dir);
  if (!seen) return undefined;
  const name = shownLock(dir);
  if (seen.kind !== 'directory') {
    await contained.removeFile(dir); // unlinks the entry itself: a link's target is never touched
    return { removed: dir, kind: seen.kind, owners: [] };
  }
  const { reason } = reclaimable(seen, opts.staleMs ?? DEFAULT_STALE_MS);
  // Alive: never cleared, even when stale. Another machine's: only once stale.
  const live = seen.owners.find((o) => o.alive === true) ?? (reason ? undefined : seen.owners.find((o) => o.alive === undefined));
  if (live) {
    const how = live.alive ? 'which is running' : 'on another machine, which refreshed it within the stale time';
    throw new PlanError('LOCKED', `${name} is held by pid ${live.pid} on ${live.host}, ${how}: wait for it to finish (or stop that process), then try again`, { file: name });
  }
  if (!reason) throw new PlanError('LOCKED', `${name} is being taken by a writer right now: try again in a moment`, { file: name });
  // Folders inside a lock folder are nobody's (planted): removed without following links.
  for (const other of seen.others) await fs.promises.rm(path.join(dir, other), { recursive: true, force: true });
  if (!(await reclaim(ASYNC_IO, dir, seen, true))) {
    throw new PlanError('LOCKED', `${name} changed while it was being cleared (a writer took it): try again`, { file: name });
  }
  return { removed: dir, kind: 'directory', owners: seen.owners.map(publicOwner) };
}
