/**
 * The store's ports: what it needs from the outside world, named for what it does. Node
 * adapters live in src/node; unit tests use the in-memory fakes in test/helpers.
 * Paths are absolute, with "/" separators.
 */

import type { ApprovalKeyring, ApprovalSigner, ApprovalStanding, DecisionRecord, StepChanges } from '../core';
import type { IndexEntry } from './indexEntry';

/** What a path is. Only a `file` is ever opened for reading. */
export type FileKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'blockDevice' | 'charDevice' | 'other';

/** What a stat returns, without following links. */
export interface FileStat {
  size: number;
  mtimeMs: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  /** What it is (a FIFO, a socket or a device named like a plan is listed, never read). */
  kind?: FileKind;
}

/** "a named pipe", "a folder", ...: what a path is, for messages. */
export function describeKind(kind: FileKind | undefined): string {
  switch (kind) {
    case 'directory':
      return 'a folder';
    case 'symlink':
      return 'a symbolic link';
    case 'fifo':
      return 'a named pipe';
    case 'socket':
      return 'a socket';
    case 'blockDevice':
      return 'a block device';
    case 'charDevice':
      return 'a character device';
    case 'file':
      return 'a file';
    default:
      return 'not a regular file';
  }
}

/**
 * The file system, as the store needs it. An adapter given the folders it may change (the
 * workspace, the user's state folder) keeps every call that writes or deletes (and every folder
 * `mkdirp` makes) inside them, never through a folder below them that is a symbolic link:
 * refused with UNSAFE_PATH, naming the link; nothing is written or deleted then.
 */
export interface FileSystemPort {
  /**
   * Bytes of a regular file. Refuses a symbolic link (UNSAFE_PATH) and anything that is not a
   * regular file (NOT_A_FILE: a FIFO, socket, device or folder is never opened in a way that can
   * block); ENOENT -> undefined.
   */
  readFile(path: string): Promise<Uint8Array | undefined>;
  /** lstat; undefined when absent. */
  stat(path: string): Promise<FileStat | undefined>;
  /**
   * Many stats and reads at once, for index scans: each result as `stat`/`readFile` would give
   * it (an Error in place of a throw). Adapters may batch; the event loop must stay responsive.
   */
  statMany(paths: readonly string[]): Promise<(FileStat | undefined)[]>;
  readMany(paths: readonly string[]): Promise<(Uint8Array | undefined | Error)[]>;
  /**
   * Files the index has not seen, in one pass: each path's lstat-equivalent stat (taken on the
   * open file where it is one) and, for a regular file of at most `maxBytes`, its bytes. A link
   * or a special file comes with its stat and no bytes; an absent path is undefined; an Error in
   * place of a throw. Optional: without it the store stats, then reads.
   */
  readManyWithStats?(paths: readonly string[], maxBytes: number): Promise<({ stat: FileStat; bytes?: Uint8Array } | undefined | Error)[]>;
  /**
   * The same one-pass reads, handed over one file at a time: `each(k, result)` for `paths[k]`,
   * in order, each before the next file is read. The bytes are lent: valid only during that call
   * (an adapter may read every file into one buffer), so a scan holds one file, not a batch of
   * them. Optional: without it the store takes `readManyWithStats`.
   */
  readEachWithStats?(paths: readonly string[], maxBytes: number, each: (k: number, result: { stat: FileStat; bytes?: Uint8Array } | undefined | Error) => void): Promise<void>;
  /**
   * Byte-for-byte equality of two byte arrays, done natively. Optional: without it the store
   * compares in JavaScript (an update compares a large plan's bytes twice: ~140 us each in JS
   * for 110 KB when the arrays are not aligned, ~3 us natively).
   */
  sameBytes?(a: Uint8Array, b: Uint8Array): boolean;
  /** Names in a folder; [] when absent. */
  readDir(path: string): Promise<string[]>;
  /** Creates a folder and its parents, each a real folder (a link on the way is refused). */
  mkdirp(path: string): Promise<void>;
  /**
   * Replaces a file atomically and durably: temp file in the same folder, fsync, rename,
   * folder fsync. After a crash the file is exactly the old or the new bytes. Refuses links.
   * With `{ stat: true }` it may resolve to the stat of the file it wrote (size and modification
   * time, taken from the written file before it was renamed into place), so the caller needs no
   * second read to know the stat that goes with its bytes; a port that cannot tell resolves to
   * nothing.
   */
  writeFileAtomic(path: string, data: Uint8Array, opts?: { stat?: boolean }): Promise<FileStat | void>;
  /** Creates a file that must not exist yet (no clobber), atomically and durably. */
  createFileExclusive(path: string, data: Uint8Array): Promise<void>;
  /** Removes a file (a link itself, never its target) and syncs its folder; absent is not an error. */
  removeFile(path: string): Promise<void>;
  /** Appends and fsyncs (the checkpoint log). Refuses links. */
  appendFile(path: string, data: Uint8Array): Promise<void>;
  /** Removes temp files a crashed writer left in `dir` (`names`: its listing, when the caller has it); returns how many. */
  sweepTempFiles(dir: string, names?: readonly string[]): Promise<number>;
}

/** A cross-process lock on one file. */
export interface LockPort {
  /**
   * Waits for the lock on `path`; returns the release function. A lock whose owner process is
   * gone is taken over at once (and that file's orphan temp files removed). Something planted
   * where the lock goes (a link, a file) is refused with UNSAFE_PATH or LOCKED, naming the command
   * that clears it; a lock held too long, with VERSION_CONFLICT (try again).
   */
  acquire(path: string): Promise<() => Promise<void>>;
}

/** Time, so the core and store never read a clock themselves. */
export interface ClockPort {
  now(): Date;
}

/** Randomness for new plan ids. */
export interface RandomPort {
  /** 8 lowercase hex digits. */
  hex8(): string;
}

/** Something to stop. */
export interface Disposable {
  dispose(): void;
}

/** What a watcher reports. Paths are absolute. */
export interface WatcherListener {
  onDidCreate(path: string): void;
  onDidChange(path: string): void;
  onDidDelete(path: string): void;
  /** Events may have been missed (the folder was removed and made again, the watcher restarted): re-scan. */
  onDidLoseTrack?(): void;
}

/** File events in the plans folder. Hints only: the store re-reads and reconciles. */
export interface WatcherPort {
  watch(dir: string, listener: WatcherListener): Disposable;
}

/** Where a warm-start index is kept between runs (outside the workspace). Optional. */
export interface IndexCachePort {
  load(): Promise<string | undefined>;
  /**
   * Keeps the text that `parts` make, in order: taken one part at a time, each written before the
   * next is asked for (10,000 plans' index is 2.7 MB of JSON: as one string, and as its bytes, it
   * was a cold list's largest objects).
   */
  save(parts: Iterable<string>): Promise<void>;
}

/**
 * A last check before a plan file is written, e.g. "the user has unsaved edits of this plan
 * open" in VS Code. Throw a PlanError (EDIT_CONFLICT) to refuse; nothing is written then.
 */
export type WriteGuard = (path: string) => Promise<void>;

/**
 * Parsing away from the caller's thread (optional; the extension host has one). After
 * `prepare(text)` resolves, a parse of `text` needs no Markdown parse on this thread: the core
 * knows its body's outline, or knows the body is refused (over a Markdown cap, a parse that
 * failed or overran its time budget there), and then `parsePlan` throws that refusal at once
 * and never parses the body here. Never throws: a refusal reaches the caller through the parse;
 * whatever else it cannot do (no worker), the parse does as usual.
 */
export interface ParserPort {
  prepare(text: string): Promise<void>;
  /** The same for a plan body (the text after the frontmatter) an operation is about to parse. */
  prepareBody?(body: string): Promise<void>;
  /** Told of a text this process has parsed (a plan read, created or written): a port that keeps parses for other processes keeps this one. */
  parsed?(text: string): void;
}

/**
 * Index entries made away from the caller's thread (optional; a worker thread): the helper reads
 * the files and summarizes them itself (`readEntries`), so a cold index of thousands of plans
 * runs on two threads and leaves most of the work off the caller's. One entry per file, or
 * `undefined` for a file the caller must read itself; undefined altogether when the helper cannot
 * help (it failed to start, it died). Never throws.
 */
export interface IndexHelperPort {
  entries(files: readonly { name: string; path: string }[], maxBytes: number): Promise<(IndexEntry | undefined)[] | undefined>;
}

/**
 * The user's approval keys (kept outside every workspace): whom this machine trusts to approve,
 * and the person's own key to sign approvals with. Optional for reading plans; without it no
 * approval is valid and nothing can be approved or run.
 */
export interface ApprovalKeysPort {
  /** The keyring as it stands now (own key, trusted approvers, local confirmations). Cheap when nothing changed. */
  keyring(): Promise<ApprovalKeyring>;
  /**
   * The person's signer, its key made on first use. Refuses (PlanError) when the key cannot be
   * kept safe, when it is protected and no person unlocks it, and for an agent's own approval
   * (`forAgent`) while it is protected.
   */
  signer(opts?: { forAgent?: boolean }): Promise<ApprovalSigner>;
  /** A signer for records beside the plans (review copies) when one needs nobody to unlock it; absent: `signer()`. */
  recordSigner?(): Promise<ApprovalSigner | undefined>;
  /** Records that a person on this machine confirmed the approval signed `signature` (by a key not trusted here). */
  confirm(signature: string, about: { plan: string; approver: string; key: string }): Promise<void>;
  /** Records a person's decision on a plan of this store, outside the workspace (absent: none are kept, and none void an approval). */
  recordDecision?(d: DecisionRecord): Promise<void>;
}

/**
 * Verdicts on approvals kept between processes, outside every workspace (src/node/ports/approvalVerdicts.ts),
 * so an approval is checked once per file version and machine. A verdict is about exactly one
 * plan file's bytes under one keyring (`ApprovalKeyring.state`). The port never answers `valid`
 * from an entry that could be written without the person's plain approval key (which signs
 * approvals outright): what it gives back is the verdict a check of those bytes gave, or a more
 * restrictive one, never a looser one.
 */
export interface ApprovalVerdictsPort {
  /** The verdict kept for plan `id` with exactly these bytes under the keyring `state`; undefined when none holds (none kept, stale, or not to be trusted). */
  get(id: string, bytes: Uint8Array, state: string): Promise<ApprovalStanding['state'] | undefined>;
  /** Keeps the verdict a check of these bytes gave under the keyring `state` (written later, off the caller's path; never throws). */
  put(id: string, bytes: Uint8Array, state: string, verdict: ApprovalStanding['state']): void;
}

/** Everything the store needs. */
/**
 * What a step changed in the workspace while it was in progress (src/node/stepEvidence: git
 * snapshots of the working tree). `begin` when a step goes to in_progress, `end` when it leaves
 * it; `end` never throws: what could not be recorded is `{ recorded: false, why }`.
 */
export interface EvidencePort {
  begin(plan: string, step: string): Promise<void>;
  end(plan: string, step: string): Promise<StepChanges>;
  /** The plan started: the tree a step marked done without being marked in progress counts from, until a step is marked. */
  planStarted?(plan: string): Promise<void>;
  /** A step marked done straight from pending: what changed since the plan's last mark (or its start). */
  endSinceLastMark?(plan: string, step: string): Promise<StepChanges>;
  /**
   * The steps whose `> Changed:` trees disagree with the snapshots pinned for them (a line written
   * by hand); a step with no pins here (the plan came from another machine) is not among them.
   */
  contradicted?(plan: string, lines: readonly { step: string; before: string; after: string }[]): Promise<Set<string>>;
}

export interface StorePorts {
  fs: FileSystemPort;
  lock: LockPort;
  clock: ClockPort;
  random: RandomPort;
  indexCache?: IndexCachePort;
  writeGuard?: WriteGuard;
  parser?: ParserPort;
  indexHelper?: IndexHelperPort;
  /** Told of every error a store operation throws (the VS Code face logs them). */
  onError?: (operation: string, error: unknown) => void;
  /** The user's approval keys: approvals are checked and signed with them. */
  approvals?: ApprovalKeysPort;
  /** Approval verdicts kept between processes (none: each process checks an approval once, in memory). */
  verdicts?: ApprovalVerdictsPort;
  /**
   * The folder where this workspace's review copies (the versions a person decided on) are kept:
   * outside the workspace, in the user's state folder, so no file write in the workspace can
   * rewrite what a reviewer compares with. None: no copies are kept (no comparison).
   */
  reviewCopies?: string;
  /** Why no review copies are kept (the user's state folder resolves inside a workspace), when that is why `reviewCopies` is absent. */
  reviewCopiesProblem?: string;
  /** What each step changed (none: nothing is recorded, as in the unit tests' memory ports). */
  evidence?: EvidencePort;
}
