import { Actor, decodePlanBytes, detached, fileTooLarge, isPlanError, LIMITS, PlanError, PlanStatus, summarizePlan } from '../core';
import { describeKind, type FileStat, type FileSystemPort } from './ports';

/** One row of the index: what a list or a tree shows without opening the plan. */
export interface IndexEntry {
  /** File name in the plans folder, e.g. `PLAN-1a2b3c4d.md`. */
  file: string;
  /** The id the file name says. */
  id: string;
  valid: boolean;
  /** Why the file is invalid, with the line, when it is. */
  error?: { code: string; message: string; line?: number; rule?: string };
  title?: string;
  status?: PlanStatus;
  version?: number;
  createdAt?: string;
  updatedAt?: string;
  steps: number;
  stepsDone: number;
  approvedBy?: Actor;
  approvedVersion?: number;
  /** The digest recorded with the approval (see `changedSinceApproval`). */
  approvedHash?: string;
  supersedes?: string;
  supersededBy?: string;
  size: number;
  mtimeMs: number;
}

/**
 * A string of its own: the YAML parser's strings can be slices that keep the whole file's text
 * alive, and the index must hold what the list shows, not the files.
 */
function own<T extends string | undefined>(s: T): T {
  return (s === undefined ? s : detached(s)) as T;
}

/** File names the index tracks. Other names in the folder are ignored. */
export const PLAN_FILE_PATTERN = /^PLAN-.*\.md$/;
const VALID_NAME = /^(PLAN-[0-9a-f]{8})\.md$/;

/**
 * An entry with every field in one order, written out: entries share one object shape, and the
 * persisted index and the events compare them field by field (a spread of a base object into a
 * literal with more fields cost ~17 us and ~5 KB of short-lived garbage per entry in V8: about half
 * of a cold index's time and most of its peak memory).
 */
function makeEntry(file: string, stat: { size: number; mtimeMs: number }, fields: Partial<IndexEntry> & { valid: boolean }): IndexEntry {
  return {
    file,
    id: file.replace(/\.md$/, ''),
    steps: fields.steps ?? 0,
    stepsDone: fields.stepsDone ?? 0,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    valid: fields.valid,
    error: fields.error,
    title: fields.title,
    status: fields.status,
    version: fields.version,
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    approvedBy: fields.approvedBy,
    approvedVersion: fields.approvedVersion,
    approvedHash: fields.approvedHash,
    supersedes: fields.supersedes,
    supersededBy: fields.supersededBy,
  };
}

/** An entry for a file's bytes (or, given, their text): valid with its fields, or invalid with its reason. Never throws. */
export function indexEntryFor(file: string, bytes: Uint8Array | undefined, stat: { size: number; mtimeMs: number }, symlink = false, text?: string): IndexEntry {
  const invalid = (e: PlanError): IndexEntry => makeEntry(file, stat, { valid: false, error: { code: e.code, message: e.message, line: e.details.line, ...(e.details.rule ? { rule: e.details.rule } : {}) } });
  if (symlink) return invalid(new PlanError('UNSAFE_PATH', 'the plan file is a symbolic link: plans are never read or written through links; replace it with the real file'));
  if (!VALID_NAME.test(file)) {
    return invalid(new PlanError('INVALID_ID', 'the file name is not PLAN-<8 lowercase hex digits>.md: rename it'));
  }
  if (stat.size > LIMITS.fileBytes && (!bytes || bytes.byteLength !== stat.size)) return invalid(fileTooLarge(stat.size));
  if (!bytes) return invalid(new PlanError('NOT_FOUND', 'the file could not be read'));
  try {
    // `text`: the caller's decode of exactly these bytes (the text it wrote).
    const mine = text !== undefined && bytes.byteLength <= LIMITS.fileBytes;
    const s = summarizePlan(mine ? text : decodePlanBytes(bytes), undefined, mine);
    const id = file.slice(0, -3);
    if (s.fm.id !== id) {
      return invalid(new PlanError('INVALID_FILE', `the id in the file (${s.fm.id}) is not the file name's (${id}): make them the same`, { line: 2 }));
    }
    return makeEntry(file, stat, {
      valid: true,
      title: own(s.fm.title),
      status: s.fm.status,
      version: s.fm.version,
      createdAt: own(s.fm.created_at),
      updatedAt: own(s.fm.updated_at),
      steps: s.steps,
      stepsDone: s.stepsDone,
      approvedBy: s.fm.approved_by,
      approvedVersion: s.fm.approved_version,
      approvedHash: own(s.fm.approved_hash),
      supersedes: own(s.fm.supersedes),
      supersededBy: own(s.fm.superseded_by),
    });
  } catch (e) {
    if (isPlanError(e)) return invalid(e);
    return invalid(new PlanError('INVALID_FILE', `could not read the plan: ${(e as Error).message}`));
  }
}

/**
 * The entry of a path named like a plan that is not a regular file (a folder, a FIFO, a socket, a
 * device): invalid, with what it is. `what` is "a named pipe" or a whole message saying so.
 */
export function notAFileEntry(file: string, stat: { size: number; mtimeMs: number }, what: string): IndexEntry {
  const message = what.includes(' not a file') ? what : `${file} is ${what}, not a file: plans are only read from regular files; remove it or replace it with a plan file`;
  return makeEntry(file, stat, { valid: false, error: { code: 'NOT_A_FILE', message } });
}

/**
 * True when two entries show the same thing: size and time aside, except under an approval,
 * where a file whose bytes changed may no longer be what was approved (a step's text edited
 * outside the store changes no field of the entry, but it is news: "changed since approval").
 */
export function sameEntry(a: IndexEntry | undefined, b: IndexEntry | undefined): boolean {
  if (!a || !b) return a === b;
  if ((a.approvedHash || b.approvedHash) && (a.size !== b.size || a.mtimeMs !== b.mtimeMs)) return false;
  const strip = ({ size: _s, mtimeMs: _m, ...rest }: IndexEntry) => rest;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** A path that is neither a regular file nor a link: a folder, FIFO, socket or device named like a plan. */
export function isSpecial(st: FileStat): boolean {
  return !st.isSymbolicLink && (st.kind ? st.kind !== 'file' : !st.isFile);
}

/** The entry a stat alone gives (a link, a special file, a file over the cap); undefined when the bytes are needed. */
export function entryOfStat(file: string, st: FileStat): IndexEntry | undefined {
  if (st.isSymbolicLink) return indexEntryFor(file, undefined, st, true);
  if (isSpecial(st)) return notAFileEntry(file, st, describeKind(st.kind ?? (st.isDirectory ? 'directory' : 'other')));
  if (st.size > LIMITS.fileBytes) return indexEntryFor(file, undefined, st);
  return undefined;
}

/** The entry of a file from what reading it gave: its bytes, or the refusal of the read. */
export function entryOfRead(file: string, st: FileStat, bytes: Uint8Array | undefined | Error): IndexEntry {
  if (isPlanError(bytes, 'UNSAFE_PATH')) return indexEntryFor(file, undefined, st, true);
  if (isPlanError(bytes, 'NOT_A_FILE')) return notAFileEntry(file, st, bytes.message);
  return indexEntryFor(file, bytes instanceof Error ? undefined : bytes, st);
}

/**
 * Reads plan files with their stats in one pass and makes their entries: what a cold index does
 * per file, in a form a worker thread runs as well (see `IndexHelperPort`). `undefined` for a
 * file that could not be opened or is gone: the caller looks at it again itself.
 */
export async function readEntries(fs: FileSystemPort, files: readonly { name: string; path: string }[], maxBytes: number): Promise<(IndexEntry | undefined)[]> {
  if (!fs.readManyWithStats) return files.map(() => undefined);
  const results = await fs.readManyWithStats(
    files.map((f) => f.path),
    maxBytes,
  );
  return results.map((r, k) => (!r || r instanceof Error ? undefined : (entryOfStat(files[k].name, r.stat) ?? entryOfRead(files[k].name, r.stat, r.bytes))));
}
