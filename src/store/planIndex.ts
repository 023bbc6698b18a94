import { decodePlanBytes, detached, fileTooLarge, frontmatterHeadEnd, isPlanError, LIMITS, parsePlan, PLAN_STATUSES, PlanError, scanMarkdown, summarizePlan } from '../core';
import type { IndexEntry } from './indexEntry';
import { describeKind, type FileStat, type FileSystemPort } from './ports';

export type { IndexEntry } from './indexEntry';

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
 * An entry with its fields in one order, written out: entries share one of two object shapes, and
 * the persisted index and the events compare them field by field (a spread of a base object into a
 * literal with more fields cost ~17 us and ~5 KB of short-lived garbage per entry in V8: about half
 * of a cold index's time and most of its peak memory). JSON writes both shapes alike (an undefined
 * field is left out).
 */
function makeEntry(file: string, stat: { size: number; mtimeMs: number }, fields: Partial<IndexEntry> & { valid: boolean }): IndexEntry {
  if (fields.valid && fields.approvedBy === undefined && fields.approvedVersion === undefined && fields.approvedHash === undefined && fields.supersedes === undefined && fields.supersededBy === undefined) {
    // Most plans (never approved with a record, never revised): the same fields in the same
    // order, without six that would be undefined. What an index holds is what a cold scan keeps
    // alive, 10,000 of them: 48 bytes less each.
    return {
      file,
      id: file.replace(/\.md$/, ''),
      steps: fields.steps ?? 0,
      stepsDone: fields.stepsDone ?? 0,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      valid: true,
      title: fields.title,
      status: fields.status,
      version: fields.version,
      createdAt: fields.createdAt,
      updatedAt: fields.updatedAt,
    };
  }
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

/**
 * Whether the reader (`parsePlan`) may refuse a plan for its body, whose head `summarizePlan` has
 * read: never false for a body it refuses, so the index lists as valid only what reads (a plan
 * shown valid in a list and refused by `get` is a dead end for an agent). The Markdown pre-scan is
 * the reader's own (section caps, pathological Markdown); what the reader checks on its Markdown
 * parse is bounded from the raw lines instead, with no parse: the steps (`stepLinesMayBeRefused`)
 * and the size of ## Context as the parse delimits it (`contextBound`). True for a few bodies the
 * reader accepts (an id repeated in a nested list, a Context section whose end the lines cannot
 * tell): the caller then parses them, as a read would. Not seen: a parse that fails on a body the
 * pre-scan passes (the pre-scan exists so that none does).
 */
function bodyMayBeRefused(body: string): boolean {
  return stepLinesMayBeRefused(body) || scanMarkdown(body, { sections: true }) !== undefined || (body.length > LIMITS.contextBytes && contextBound(body) > LIMITS.contextBytes);
}

/**
 * An upper bound on the length of every `## Context` section the Markdown parse can find in
 * `body` (the reader caps it as the parse delimits it, line breaks included): from each line that
 * may head such a section to the next line that is surely a top-level `#`/`##` heading, which
 * ends any section before it. Surely one: at the margin, outside any fenced code or HTML block
 * that may be open there (a heading ends a paragraph, a list item, a quote, a table, and a link
 * definition's title). Infinity where the lines cannot tell: a lone CR (a line break to the
 * parser), a fence that may have ended with a list item it was in. Only run on bodies over the
 * cap: it lets the index list a large plan without a Markdown parse.
 */
function contextBound(body: string): number {
  const n = body.length;
  for (let r = body.indexOf('\r'); r !== -1; r = body.indexOf('\r', r + 1)) if (body.charCodeAt(r + 1) !== 0x0a) return Infinity;
  let bound = 0;
  /** The earliest start of a line that may head a Context section since the last sure heading (-1: none). */
  let from = -1;
  /** A fence that may be open (its character, length and indentation). */
  let fence: { ch: number; len: number; indent: number } | undefined;
  /** An HTML block that may be open: the text that ends it ('': a blank line). */
  let html: string | undefined;
  /** Where the current run of non-blank lines starts (a setext heading's text starts there at the earliest). */
  let run = -1;
  for (let at = 0; at < n; ) {
    let end = body.indexOf('\n', at);
    if (end === -1) end = n;
    const stop = end > at && body.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    let c = at;
    while (c < stop && body.charCodeAt(c) === 0x20) c++;
    const indent = c - at;
    const blank = skipBlanks(body, c) >= stop;
    if (blank) {
      run = -1;
      if (html === '') html = undefined;
      at = end + 1;
      continue;
    }
    if (run === -1) run = at;
    const ch = body.charCodeAt(c);
    const fenceRun = indent <= 3 && (ch === 0x60 || ch === 0x7e) ? runOf(body, c, stop, ch) : 0;
    if (fence) {
      // A line less indented than the fence may have ended a list item the fence was in (and the
      // fence with it): what follows may then be anything.
      if (indent < fence.indent) return Infinity;
      if (fenceRun >= fence.len && ch === fence.ch && skipBlanks(body, c + fenceRun) >= stop) fence = undefined;
    } else if (fenceRun >= 3 && !(ch === 0x60 && body.slice(c + fenceRun, stop).includes('`'))) {
      // Inside a possible HTML block this may be its text, not a fence.
      if (html !== undefined) return Infinity;
      fence = { ch, len: fenceRun, indent };
    } else {
      // The line that ends an HTML block is still the block's.
      const inHtml = html !== undefined;
      if (html !== undefined && html !== '' && body.slice(at, stop).toLowerCase().includes(html)) html = undefined;
      else if (html === undefined && indent <= 3 && ch === 0x3c /* < */) html = htmlEnd(body, c, stop);
      if (indent === 0 && ch === 0x23 && !inHtml && atxDepth(body, c, stop) > 0) {
        if (from !== -1) bound = Math.max(bound, at - from);
        from = -1;
      }
    }
    // Lines that may head a Context section: `##` headings, and `-` underlines of a setext heading.
    if (indent <= 3 && ch === 0x23 && atxDepth(body, c, stop) === 2 && mayReadContext(body, c + 2, stop)) from = from === -1 ? at : from;
    else if (indent <= 3 && ch === 0x2d && run < at && runOf(body, c, stop, 0x2d) > 0 && skipBlanks(body, c + runOf(body, c, stop, 0x2d)) >= stop && mayReadContext(body, run, at)) from = from === -1 ? run : Math.min(from, run);
    at = end + 1;
  }
  return from === -1 ? bound : Math.max(bound, n - from);
}

/** How many `ch` start at `c` (before `stop`). */
function runOf(s: string, c: number, stop: number, ch: number): number {
  let k = c;
  while (k < stop && s.charCodeAt(k) === ch) k++;
  return k - c;
}

/** The depth of an ATX heading of depth 1 or 2 starting at `c` (`#` or `##`, then a blank or the line's end); 0 when none. */
function atxDepth(s: string, c: number, stop: number): number {
  const d = runOf(s, c, stop, 0x23);
  return d <= 2 && (c + d >= stop || s.charCodeAt(c + d) === 0x20 || s.charCodeAt(c + d) === 0x09) ? d : 0;
}

/** HTML blocks that end at a marker rather than a blank line (CommonMark's kinds 1 to 5). */
const HTML_MARKED = /^<(?:(script|pre|style|textarea)(?:[\s>]|$)|(!--)|(\?)|(![A-Za-z])|(!\[CDATA\[))/i;

/** What ends an HTML block that may start at `c` ('' a blank line), or undefined when it ends on its own line. */
function htmlEnd(s: string, c: number, stop: number): string | undefined {
  const m = HTML_MARKED.exec(s.slice(c, Math.min(stop, c + 16)));
  if (!m) return '';
  const marker = m[1] ? `</${m[1].toLowerCase()}>` : m[2] ? '-->' : m[3] ? '?>' : m[4] ? '>' : ']]>';
  return s.slice(c + m[0].length, stop).toLowerCase().includes(marker) ? undefined : marker;
}

/**
 * Whether a heading's text in `s` from `a` to `b` may read as "Context" to the parser (its
 * title is the text of its inline content, lower-cased): the letters of "context" in order,
 * whatever is around and between them (emphasis, code, a link's target), or a character
 * reference, which may spell any letter.
 */
function mayReadContext(s: string, a: number, b: number): boolean {
  const t = s.slice(a, b).toLowerCase();
  if (t.includes('&')) return true;
  let k = 0;
  for (let i = 0; i < t.length && k < CONTEXT.length; i++) if (t.charCodeAt(i) === CONTEXT.charCodeAt(k)) k++;
  return k === CONTEXT.length;
}
const CONTEXT = 'context';

/**
 * The reader's step checks, on the lines where its steps may start: every item of the Steps
 * section starts on a line of at most three blanks and a list marker (remark's top-level items;
 * the Markdown parser also ends a line at a lone CR), so there are no more steps than such lines,
 * a step's text is no longer than its line, and its id is where the reader's header pattern finds
 * it. True when the step count, a text or a repeated id may be over what the reader accepts.
 */
function stepLinesMayBeRefused(body: string): boolean {
  const n = body.length;
  const cr = body.indexOf('\r') !== -1;
  const ids: number[] = [];
  let items = 0;
  let sorted = true;
  /** Checks an item line starting at `at` (its text ends by `end`); true when it may be refused. */
  const item = (at: number, end: number): boolean => {
    const m = markerEnd(body, at, end);
    if (m === -1) return false;
    if (++items > LIMITS.steps || end - at > LIMITS.stepText) return true;
    const id = stepIdAt(body, m, end);
    if (id === -1) return false;
    // Ids as written are in order, almost always: a repeat is then one not above the last.
    if (ids.length && id <= ids[ids.length - 1]) sorted = false;
    ids.push(id);
    return false;
  };
  for (let at = 0; at < n; ) {
    let end = body.indexOf('\n', at);
    if (end === -1) end = n;
    if (item(at, end)) return true;
    // A lone CR ends a line for the parser (before a LF it is the line's own end).
    if (cr) for (let r = body.indexOf('\r', at); r !== -1 && r < end - 1; r = body.indexOf('\r', r + 1)) if (item(r + 1, end)) return true;
    at = end + 1;
  }
  return !sorted && new Set(ids).size !== ids.length;
}

/** The end of a list marker (`-`, `*`, `+`, or 1-9 digits and `.` or `)`) after at most three blanks at `at`, followed by a blank or the line's end; -1 when there is none. */
function markerEnd(s: string, at: number, end: number): number {
  let i = at;
  while (i < at + 3 && s.charCodeAt(i) === 0x20) i++;
  const c = s.charCodeAt(i);
  let m: number;
  if (c === 0x2d || c === 0x2a || c === 0x2b) m = i + 1;
  else {
    let k = i;
    while (k < i + 9 && isDigit(s.charCodeAt(k))) k++;
    const d = s.charCodeAt(k);
    if (k === i || (d !== 0x2e && d !== 0x29)) return -1;
    m = k + 1;
  }
  return m >= end || isBlankOrBreak(s.charCodeAt(m)) ? m : -1;
}

/**
 * The step id after a marker ending at `m`, where the reader's header pattern takes it (blanks,
 * an optional `[ ]`/`[x]` and blanks, `S` and three or four digits, then a blank or the line's
 * end), as a number unique to its spelling (`S001` and `S0001` differ); -1 when there is none.
 */
function stepIdAt(s: string, m: number, end: number): number {
  let i = skipBlanks(s, m);
  if (i === m) return -1;
  if (s.charCodeAt(i) === 0x5b /* [ */) {
    const x = s.charCodeAt(i + 1);
    if ((x !== 0x20 && x !== 0x78 && x !== 0x58) || s.charCodeAt(i + 2) !== 0x5d) return -1;
    const j = skipBlanks(s, i + 3);
    if (j === i + 3) return -1;
    i = j;
  }
  if (s.charCodeAt(i) !== 0x53 /* S */) return -1;
  let value = 0;
  let k = i + 1;
  while (k < i + 5 && isDigit(s.charCodeAt(k))) value = value * 10 + s.charCodeAt(k++) - 0x30;
  const digits = k - i - 1;
  if (digits < 3 || (k < end && !isBlankOrBreak(s.charCodeAt(k)))) return -1;
  return digits * 10_000 + value;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** A blank, or a line break (a lone CR ends a line for the parser; the reader's pattern sees the rest of the line after it, so taking it as the end is the larger reading). */
const isBlankOrBreak = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function skipBlanks(s: string, i: number): number {
  while (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09) i++;
  return i;
}

/**
 * The reader's refusal of a plan text whose head has passed (`summarizePlan`), if it refuses it:
 * its own error (the same reason, rule and line as `pi_plan_get` gives), from a parse made only
 * when the cheap checks cannot rule a refusal out (see `bodyMayBeRefused`).
 */
function readerRefusal(text: string): PlanError | undefined {
  // After a head that passed, the body starts where the head's closing line ends.
  const end = frontmatterHeadEnd(text);
  if (end >= 0 && !bodyMayBeRefused(text.slice(end))) return undefined;
  try {
    parsePlan(text);
    return undefined;
  } catch (e) {
    return isPlanError(e) ? e : new PlanError('INVALID_FILE', `could not read the plan: ${(e as Error).message}`);
  }
}

/**
 * An entry for a file's bytes (or, given, their text): valid with its fields, or invalid with its
 * reason. Valid only when a read of the plan would succeed: the reader's limits on the body apply
 * (see `bodyMayBeRefused`), except to a text given as this store's own write, which was parsed
 * before it was written. Never throws.
 */
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
    const read = mine ? text : decodePlanBytes(bytes);
    const s = summarizePlan(read, undefined, mine);
    // The body before the id, as the reader checks them (a parse, then the id).
    const refused = mine ? undefined : readerRefusal(read);
    if (refused) return invalid(refused);
    const id = file.slice(0, -3);
    if (s.fm.id !== id) {
      return invalid(new PlanError('INVALID_FILE', `the id in the file (${s.fm.id}) is not the file name's (${id}): make them the same`, { line: 2 }));
    }
    const createdAt = own(s.fm.created_at);
    return makeEntry(file, stat, {
      valid: true,
      title: own(s.fm.title),
      status: PLAN_STATUSES.find((x) => x === s.fm.status),
      version: s.fm.version,
      createdAt,
      // One string for both when they are the same (a plan not changed since it was written).
      updatedAt: s.fm.updated_at === s.fm.created_at ? createdAt : own(s.fm.updated_at),
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
