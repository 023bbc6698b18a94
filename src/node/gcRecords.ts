/**
 * `pi-plans gc` on Node: the listing of what Pi Plans keeps per plan or per call, in a workspace
 * (`.pi/plans/sessions/`, `.pi/plans/checks/`, the refs under `refs/pi-plans/evidence/`) and in
 * the user's folders (review copies, the hooks' step reports, the decision ledger and caches),
 * and the removal of the records the store's rules chose (src/store/gc.ts). The hook's own
 * records are listed beside it (src/hosts/hook/gcRecords.ts).
 *
 * Nothing is followed: a folder or file is looked at with lstat, a link or anything but a plain
 * file is listed as blocked and left; a file is removed only when it is still the one listed (same
 * inode, size and time), a ref only while it still names the tree listed, lines of a report only
 * when its file has not changed since it was read. A record that changed meanwhile is left for
 * the next run.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { frontmatterOfPlan, isPlanId, LIMITS } from '../core';
import type { GcKind, GcRecord, PlanFileSeen } from '../store/gc';
import { SNAPSHOTS_KEPT } from '../store/history';
import { reviewCopiesDir } from './ports/approvalKeys';
import { VERDICTS_KEPT, verdictsFile } from './ports/approvalVerdicts';
import { decisionLedgerFile } from './ports/decisionLedger';
import { PIN_NAMESPACE } from './work/gitEvidence';
import { OUTLINES_KEPT } from './ports/persistedOutlines';
import { checksDir } from './work/planChecks';
import { readPlainText } from './ports/plainFile';
import { REPORT_BYTES, STEP_EVENTS, stepReportsDir } from './work/stepReports';
import { cacheHome, userStateDir } from './ports/userFolders';

/** A record as the Node side lists it: what to remove, and what it was when listed. */
export interface NodeGcRecord extends GcRecord {
  /** A file to remove, or whose lines (`plan`'s) to drop (`lines`). */
  file?: string;
  lines?: true;
  /** A ref to delete while it still names `sha`. */
  ref?: string;
  sha?: string;
  /** The file's inode, size and time when listed. */
  stamp?: string;
  /** A folder to remove once empty, after the file (a plan's review copies). */
  folder?: string;
}

/** What a listing found: the kinds (with their bounds), the records, the plan files and what could not be looked at. */
export interface GcListing {
  kinds: GcKind[];
  records: NodeGcRecord[];
  plans: PlanFileSeen[];
  problems: string[];
}

const PLAN_FILE = /^(PLAN-[0-9a-f]{8})\.md$/;
const REVIEW_FILE = /^(?:v\d{1,9}\.(?:md|json)|\.v\d{1,9}\.(?:md|json)\.\d+\.[0-9a-f]{8}\.tmp)$/;

/** A file's identity for the removal's check: inode, size, time. */
export const stampOf = (st: fs.Stats): string => `${st.ino}:${st.size}:${st.mtimeMs}`;

/** lstat, or undefined when nothing is there. */
const look = (p: string): fs.Stats | undefined => fs.lstatSync(p, { throwIfNoEntry: false });

/** What stands at `p` when it is not a plain folder: undefined when it is one, or nothing is there. */
function notAFolder(p: string): string | undefined {
  const st = look(p);
  return !st || st.isDirectory() ? undefined : `${p} is ${st.isSymbolicLink() ? 'a link' : 'not a folder'}: left as it is (a person looks at it; nothing is followed)`;
}

/** The names in a folder (none when it is missing or not a plain folder: the caller says why). */
function namesIn(dir: string): string[] {
  if (notAFolder(dir) || !look(dir)) return [];
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A record of the file `dir/name` (blocked when it is not a plain file). */
export function fileRecord(kind: string, dir: string, name: string, extra: Partial<NodeGcRecord> = {}): NodeGcRecord | undefined {
  const file = path.join(dir, name);
  const st = look(file);
  if (!st) return undefined;
  const plain = st.isFile();
  return { kind, name: file, file, bytes: plain ? st.size : 0, stamp: stampOf(st), ...(plain ? {} : { blocked: `${st.isSymbolicLink() ? 'a link' : 'not a plain file'}: left, never followed` }), ...extra };
}

/** Every plan file of the workspace (its plans and its archive), with the status its frontmatter says (undefined when it does not read). */
export function planFiles(root: string): PlanFileSeen[] {
  const plans = path.join(root, '.pi', 'plans');
  for (const dir of [path.join(root, '.pi'), plans]) {
    if (look(dir)?.isSymbolicLink()) throw new Error(`${dir} is a symbolic link: Pi Plans never works through links; replace it with a real folder, then run gc again`);
  }
  const out: PlanFileSeen[] = [];
  for (const [dir, where] of [[plans, 'plans'], [path.join(plans, 'archive'), 'archive']] as const) {
    for (const name of namesIn(dir)) {
      const id = PLAN_FILE.exec(name)?.[1];
      if (!id) continue;
      const text = readPlainText(path.join(dir, name), LIMITS.fileBytes);
      let status: string | undefined;
      try {
        status = text === undefined ? undefined : frontmatterOfPlan(text).status;
      } catch {
        status = undefined; // not a plan that reads: not finished
      }
      out.push({ id, status, where });
    }
  }
  return out;
}

/** Runs git in `cwd`: its stdout, or undefined when git is missing, fails or `cwd` is not in a repository. */
function git(cwd: string, args: string[], input?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C' };
    for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY']) delete env[k];
    const child = execFile('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout) => resolve(err ? undefined : stdout));
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The kinds the Node side lists, with their policies and bounds. */
export function storeKinds(root: string, env: NodeJS.ProcessEnv = process.env): GcKind[] {
  const state = userStateDir(env);
  const cache = cacheHome(env);
  return [
    { kind: 'review copies', where: reviewCopiesDir(root, state), policy: 'finished', bound: `the ${SNAPSHOTS_KEPT} latest decided versions per plan, each <= 1 MB with its signed record; a finished plan's until gc` },
    { kind: 'checkpoint logs', where: '.pi/plans/sessions/', policy: 'finished', bound: "one line per event (~150 B, a 12-step plan ~30 lines); a finished plan's until gc (in git: commit their removal)" },
    { kind: 'check state', where: '.pi/plans/checks/', policy: 'finished', bound: "one file per plan (20 output lines per check, the drift base; <= 4 MB read); a finished plan's until gc" },
    { kind: 'evidence refs', where: `${PIN_NAMESPACE}/`, policy: 'finished', bound: "2 per step and 1 per plan, each pinning a tree; a finished plan's until gc (git gc then prunes the trees after gc.pruneExpire)" },
    { kind: 'step reports', where: path.join(state, 'step-reports'), policy: 'finished', bound: `a line per tool call of a bound session while a step runs; a finished plan's lines until gc (a session's file over ${REPORT_BYTES / 1024 / 1024} MB is not read)` },
    { kind: 'index caches', where: cache, policy: 'expired', bound: "one file per workspace (an entry per plan, rewritten whole); a gone workspace's removed by gc" },
    { kind: 'approval verdicts', where: path.join(cache, 'approval-verdicts'), policy: 'expired', bound: `<= ${VERDICTS_KEPT.toLocaleString('en')} entries (~5 MB) per workspace, the oldest out first; a gone workspace's removed by gc` },
    { kind: 'outlines', where: path.join(cache, 'outlines'), policy: 'kept', bound: `<= ${OUTLINES_KEPT} (the newest), pruned every 50 writes` },
    { kind: 'code cache', where: path.join(cache, 'code'), policy: 'kept', bound: 'the 4 newest per bundle, pruned when one is written' },
    { kind: 'decision ledger', where: decisionLedgerFile(root, state), policy: 'kept', bound: "<= 8 MB, then its newest 20,000 lines; never removed by gc: with a decision gone, an older approved copy written back could count again" },
  ];
}

/**
 * The records of the workspace at `root` and of the user's folders that the store's side keeps.
 * Throws when `.pi` or `.pi/plans` is a link (the message names the fix).
 */
export async function listStoreRecords(root: string, env: NodeJS.ProcessEnv = process.env): Promise<GcListing> {
  const plans = planFiles(root);
  const problems: string[] = [];
  const records: NodeGcRecord[] = [];
  const note = (why: string | undefined) => why && problems.push(why);
  const plansDir = path.join(root, '.pi', 'plans');

  // Review copies: <state>/reviews/<workspace>/<PLAN-id>/v<N>.md and .json.
  const reviews = reviewCopiesDir(root, userStateDir(env));
  note(notAFolder(path.dirname(reviews)) ?? notAFolder(reviews));
  if (!notAFolder(path.dirname(reviews))) {
    for (const id of namesIn(reviews).filter(isPlanId)) {
      const dir = path.join(reviews, id);
      const why = notAFolder(dir);
      if (why) {
        records.push({ kind: 'review copies', plan: id, name: dir, bytes: 0, blocked: 'a link or a file where a plan\'s review copies go: left, never followed' });
        continue;
      }
      for (const n of namesIn(dir)) {
        const r = REVIEW_FILE.test(n) ? fileRecord('review copies', dir, n, { plan: id, folder: dir }) : fileRecord('review copies', dir, n, { plan: id, blocked: 'not a file Pi Plans writes: left (so is its folder)' });
        if (r) records.push(r);
      }
    }
  }

  // Checkpoint logs and check state, beside the plans.
  for (const [kind, dir, ext] of [['checkpoint logs', path.join(plansDir, 'sessions'), '.jsonl'], ['check state', checksDir(root), '.json']] as const) {
    note(notAFolder(dir));
    for (const n of namesIn(dir)) {
      const id = n.endsWith(ext) ? n.slice(0, -ext.length) : '';
      const r = isPlanId(id) ? fileRecord(kind, dir, n, { plan: id }) : undefined;
      if (r) records.push(r);
    }
  }

  // Evidence refs: refs/pi-plans/evidence/<PLAN-id>/<step>/<end>.
  const refs = (await git(root, ['for-each-ref', '--format=%(objectname) %(refname)', `${PIN_NAMESPACE}/`])) ?? '';
  for (const line of refs.split('\n')) {
    const [sha, ref] = line.split(' ');
    if (!sha || !ref?.startsWith(`${PIN_NAMESPACE}/`)) continue;
    const id = ref.slice(PIN_NAMESPACE.length + 1).split('/')[0];
    records.push({ kind: 'evidence refs', name: ref, ref, sha, bytes: line.length + 1, ...(isPlanId(id) ? { plan: id } : {}) });
  }

  records.push(...stepReportRecords(root, env, problems));
  records.push(...workspaceCaches(env, problems));
  const state = userStateDir(env);
  const ledger = fileRecord('decision ledger', path.dirname(decisionLedgerFile(root, state)), path.basename(decisionLedgerFile(root, state)));
  if (ledger) records.push(ledger);
  for (const [kind, dir, pattern] of [['outlines', path.join(cacheHome(env), 'outlines'), /\.json$/], ['code cache', path.join(cacheHome(env), 'code'), /\.v8$/]] as const) {
    for (const n of namesIn(dir)) {
      const r = pattern.test(n) ? fileRecord(kind, dir, n) : undefined;
      if (r) records.push(r);
    }
  }
  return { kinds: storeKinds(root, env), records, plans, problems };
}

/** The lines of each session's step report, by plan: one record per file and plan (lines that do not read belong to none). */
function stepReportRecords(root: string, env: NodeJS.ProcessEnv, problems: string[]): NodeGcRecord[] {
  let dir: string | undefined;
  try {
    dir = stepReportsDir(root, env);
  } catch (e) {
    problems.push((e as Error).message);
    return [];
  }
  const out: NodeGcRecord[] = [];
  for (const n of dir ? namesIn(dir).filter((x) => STEP_EVENTS.test(x)) : []) {
    const file = path.join(dir!, n);
    const st = look(file);
    if (!st) continue;
    const text = st.isFile() ? readPlainText(file, REPORT_BYTES) : undefined;
    if (text === undefined) {
      out.push({ kind: 'step reports', name: file, bytes: st.isFile() ? st.size : 0, blocked: st.isFile() ? `over ${REPORT_BYTES} bytes: not read, left` : 'a link or not a plain file: left, never followed' });
      continue;
    }
    const byPlan = new Map<string | undefined, { bytes: number; lines: number }>();
    for (const line of text.split('\n')) {
      if (!line) continue;
      const plan = planOfLine(line);
      const b = byPlan.get(plan) ?? { bytes: 0, lines: 0 };
      b.bytes += Buffer.byteLength(line) + 1;
      b.lines++;
      byPlan.set(plan, b);
    }
    for (const [plan, b] of byPlan) out.push({ kind: 'step reports', name: `${file}#${plan ?? 'unread'}`, file, lines: true, stamp: stampOf(st), bytes: b.bytes, count: b.lines, ...(plan ? { plan } : {}) });
  }
  return out;
}

/** The plan a report line names, when the line reads as one of ours. */
function planOfLine(line: string): string | undefined {
  try {
    const e = JSON.parse(line) as { v?: unknown; plan?: unknown };
    return e?.v === 1 && isPlanId(e.plan) ? e.plan : undefined;
  } catch {
    return undefined;
  }
}

/** The workspace a per-workspace cache names near its start (`"dir"` of an index cache, `"root"` of the verdicts), if it does. */
function workspaceNamed(file: string, key: 'dir' | 'root'): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const head = Buffer.alloc(8192);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const m = new RegExp(`^\\{"(?:format|v)":\\d+,"${key}":("(?:[^"\\\\]|\\\\.)*")`).exec(head.subarray(0, n).toString('utf8'));
    return m ? (JSON.parse(m[1]) as string) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The per-workspace caches (warm-start index, approval verdicts) of every workspace: expired when
 * the folder they name is gone (a cache: the next open of that folder, if it comes back, builds it
 * again). One that names none is kept.
 */
function workspaceCaches(env: NodeJS.ProcessEnv, problems: string[]): NodeGcRecord[] {
  const cache = cacheHome(env);
  const out: NodeGcRecord[] = [];
  const gone = (p: string | undefined) => p !== undefined && path.isAbsolute(p) && !look(p);
  const verdictsDir = path.dirname(verdictsFile('/', cache));
  problems.push(...[notAFolder(cache), notAFolder(verdictsDir)].filter((x): x is string => !!x));
  for (const [kind, dir, pattern, key] of [
    ['index caches', cache, /^[0-9a-f]{16}\.json$/, 'dir'],
    ['approval verdicts', verdictsDir, /^[0-9a-f]{16}\.json$/, 'root'],
  ] as const) {
    for (const n of namesIn(dir)) {
      if (!pattern.test(n)) continue;
      const r = fileRecord(kind, dir, n);
      if (!r) continue;
      const named = r.blocked ? undefined : workspaceNamed(r.file!, key);
      out.push({ ...r, expired: gone(named) });
    }
  }
  return out;
}

/** What a removal did: records removed (and their bytes), and those left because they changed since listed or could not be removed. */
export interface GcRemoved {
  removed: number;
  bytes: number;
  left: string[];
}

/** Removes the records chosen (files, lines of reports, refs), each only while it is what was listed. */
export async function removeRecords(root: string, chosen: readonly NodeGcRecord[]): Promise<GcRemoved> {
  const done: GcRemoved = { removed: 0, bytes: 0, left: [] };
  const count = (r: NodeGcRecord) => {
    done.removed += r.count ?? 1;
    done.bytes += r.bytes;
  };
  const lines = new Map<string, NodeGcRecord[]>();
  const refs: NodeGcRecord[] = [];
  const folders = new Set<string>();
  for (const r of chosen) {
    if (r.ref && r.sha) refs.push(r);
    else if (r.file && r.lines) lines.set(r.file, [...(lines.get(r.file) ?? []), r]);
    else if (r.file) {
      if (removeFile(r.file, r.stamp)) count(r);
      else done.left.push(`${r.name}: changed since it was listed, left`);
      if (r.folder) folders.add(r.folder);
    }
  }
  for (const dir of folders) {
    try {
      fs.rmdirSync(dir); // only when empty; a link is not a folder to rmdir
    } catch {
      // something else is in it (a file Pi Plans does not write): left
    }
  }
  for (const [file, rs] of lines) {
    if (dropLines(file, rs[0].stamp, new Set(rs.map((r) => r.plan!)))) rs.forEach(count);
    else done.left.push(`${file}: changed since it was read (a session reported meanwhile), left: run gc again`);
  }
  if (refs.length) await deleteRefs(root, refs, count, done.left);
  return done;
}

/** Removes a plain file when it is still the one listed (never a link, never what one points to). */
function removeFile(file: string, stamp: string | undefined): boolean {
  const st = look(file);
  if (!st) return true;
  if (!st.isFile() || stampOf(st) !== stamp) return false;
  fs.unlinkSync(file);
  return true;
}

/** Drops the lines of `plans` from a report file, if it is still as it was read; removes it when nothing is left. */
function dropLines(file: string, stamp: string | undefined, plans: ReadonlySet<string>): boolean {
  const st = look(file);
  if (!st?.isFile() || stampOf(st) !== stamp) return false;
  const text = readPlainText(file, REPORT_BYTES);
  if (text === undefined) return false;
  const kept = text.split('\n').filter((l) => l && !plans.has(planOfLine(l) ?? ''));
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.gc.tmp`);
  if (kept.length) {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, st.mode & 0o777);
    try {
      fs.writeSync(fd, `${kept.join('\n')}\n`);
    } finally {
      fs.closeSync(fd);
    }
  }
  // Checked again just before: an append that came meanwhile keeps the file as it is.
  const now = look(file);
  if (!now?.isFile() || stampOf(now) !== stamp) {
    fs.rmSync(tmp, { force: true });
    return false;
  }
  if (kept.length) fs.renameSync(tmp, file);
  else fs.unlinkSync(file);
  return true;
}

/** Deletes refs that still name the tree listed: all in one transaction, else one by one (a ref moved meanwhile is left). */
async function deleteRefs(root: string, refs: readonly NodeGcRecord[], count: (r: NodeGcRecord) => void, left: string[]): Promise<void> {
  const all = await git(root, ['update-ref', '--no-deref', '--stdin'], refs.map((r) => `delete ${r.ref} ${r.sha}\n`).join(''));
  if (all !== undefined) return refs.forEach(count);
  for (const r of refs) {
    if ((await git(root, ['update-ref', '--no-deref', '-d', r.ref!, r.sha!])) !== undefined) count(r);
    else left.push(`${r.ref}: moved since it was listed (or git refused), left`);
  }
}
