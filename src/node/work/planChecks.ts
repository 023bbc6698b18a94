/**
 * Checks and drift on Node (issue 30): the state kept beside a plan, running a step's approved
 * check, and comparing the approval's targets with the files now.
 *
 * The state is `.pi/plans/checks/<PLAN-id>.json`, in a folder that ignores itself in git (its own
 * `.gitignore` says `*`): the last lines of each check's output, the full tree it ran on, and the
 * drift base (HEAD and each target's object id at approval, keyed by the approved digest). It is a
 * record for people and a warning, never a gate: an agent can write any file of the workspace, so
 * nothing here decides what may run (docs/security.md). Plain Node and type imports only: the hook's
 * small bundle reads the last drift through `driftedPaths`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckRecord, DriftedTarget, TargetHashes } from '../../core';
import { readPlainText } from '../ports/plainFile';

/** What one check's last run left beside the plan. */
export interface CheckRun {
  command: string;
  /** The full tree id it ran on (the record line shows it short). */
  tree?: string;
  /** The target hashes of the step in that tree, for staleness by the step's own files. */
  targets?: TargetHashes;
  /** The last lines of its output (stdout and stderr as they came). */
  tail: string[];
  /** The record line's text: the only record of a step not yet worked on (a record line on a pending step would block a later approval). */
  line?: string;
  at: string;
}

/** The drift base of one approval. */
export interface DriftBase {
  /** The approved digest this base belongs to: a new approval starts a new base. */
  digest: string;
  /** HEAD at approval (or at the last acknowledgement); absent outside git or before a first commit. */
  commit?: string;
  targets: TargetHashes;
  /** When the base was taken, and whether at approval or later (the first look after an approval made where none was taken). */
  at: string;
  taken: 'approval' | 'first look' | 'acknowledged';
  /** Each step's status at the last look: a step that moved since owns the changes to its targets. */
  statuses?: Record<string, string>;
  /** The drift found at the last look, for readers that must stay cheap (the hook, the explorer). */
  drifted?: DriftedTarget[];
  lookedAt?: string;
}

export interface PlanState {
  v: 1;
  plan: string;
  checks: Record<string, CheckRun>;
  drift?: DriftBase;
}

const PLAN_ID = /^PLAN-[0-9a-f]{8}$/;

/** The folder of the state files: `.pi/plans/checks/`. */
export const checksDir = (root: string) => path.join(root, '.pi', 'plans', 'checks');

function stateFile(root: string, id: string): string {
  if (!PLAN_ID.test(id)) throw new Error(`not a plan id: ${id}`);
  return path.join(checksDir(root), `${id}.json`);
}

/** The most a state file the store wrote holds (20 output lines per check, the targets): a larger one is not read. */
const STATE_BYTES = 4 * 1024 * 1024;
const isText = (x: unknown): x is string => typeof x === 'string';
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const textOrNull = (x: unknown): x is string | null => x === null || isText(x);
/** The entries of `x` whose values pass `keep` (none when `x` is not an object). */
function entriesOf<T>(x: unknown, keep: (v: unknown) => v is T): Record<string, T> | undefined {
  return isRecord(x) ? (Object.fromEntries(Object.entries(x).filter(([, v]) => keep(v))) as Record<string, T>) : undefined;
}

/** One check's run as read from the file, only its fields of the right type (undefined without a command). */
function runOf(x: unknown): CheckRun | undefined {
  if (!isRecord(x) || !isText(x.command) || !isText(x.at)) return undefined;
  const targets = entriesOf(x.targets, textOrNull);
  return { command: x.command, at: x.at, tail: Array.isArray(x.tail) ? x.tail.filter(isText).slice(-TAIL_LINES) : [], ...(isText(x.tree) ? { tree: x.tree } : {}), ...(targets ? { targets } : {}), ...(isText(x.line) ? { line: x.line } : {}) };
}

const TAKEN: readonly string[] = ['approval', 'first look', 'acknowledged'];

/** The drift base as read from the file, only its fields of the right type (undefined without a digest and targets). */
function driftOf(x: unknown): DriftBase | undefined {
  const targets = isRecord(x) ? entriesOf(x.targets, textOrNull) : undefined;
  if (!isRecord(x) || !isText(x.digest) || !targets) return undefined;
  const statuses = entriesOf(x.statuses, isText);
  const drifted = Array.isArray(x.drifted)
    ? x.drifted
        .filter((d): d is Record<string, unknown> => isRecord(d) && isText(d.path) && textOrNull(d.was) && textOrNull(d.now))
        .map((d) => ({ path: d.path as string, was: d.was as string | null, now: d.now as string | null, ...(Array.isArray(d.commits) ? { commits: d.commits.filter(isText) } : {}) }))
    : undefined;
  return {
    digest: x.digest,
    targets,
    at: isText(x.at) ? x.at : '',
    taken: TAKEN.includes(x.taken as string) ? (x.taken as DriftBase['taken']) : 'first look',
    ...(isText(x.commit) ? { commit: x.commit } : {}),
    ...(statuses ? { statuses } : {}),
    ...(drifted ? { drifted } : {}),
    ...(isText(x.lookedAt) ? { lookedAt: x.lookedAt } : {}),
  };
}

/**
 * A plan's state; an empty one when there is none or it does not read (it is a cache of facts,
 * rebuilt by the next run). Any process can write the file: only fields of the right type are kept.
 */
export function readPlanState(root: string, id: string): PlanState {
  const empty: PlanState = { v: 1, plan: id, checks: {} };
  // Without following a link or blocking: a FIFO or a device planted there never hangs a reader (the hook reads it).
  const text = readPlainText(stateFile(root, id), STATE_BYTES);
  let s: unknown;
  try {
    s = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return empty; // unreadable: start again
  }
  if (!isRecord(s) || s.v !== 1 || s.plan !== id || !isRecord(s.checks)) return empty;
  const checks = Object.fromEntries(Object.entries(s.checks).flatMap(([k, v]) => (runOf(v) ? [[k, runOf(v) as CheckRun]] : [])));
  const drift = driftOf(s.drift);
  return { v: 1, plan: id, checks, ...(drift ? { drift } : {}) };
}

/** Refuses a link among the state's folders (`.pi`, `.pi/plans`, `.pi/plans/checks`): nothing is written through one. */
function refuseLinks(root: string): void {
  for (const dir of [path.join(root, '.pi'), path.join(root, '.pi', 'plans'), checksDir(root)]) {
    if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) throw new Error(`${dir} is a symbolic link: Pi Plans never writes through links; replace it with a real folder`);
  }
}

/** Writes a plan's state atomically; the folder gets its own `.gitignore` the first time. Never through a link. */
export function writePlanState(root: string, state: PlanState): void {
  const dir = checksDir(root);
  refuseLinks(root);
  fs.mkdirSync(dir, { recursive: true });
  refuseLinks(root);
  try {
    // wx: created, never opened through a link someone left there.
    fs.writeFileSync(path.join(dir, '.gitignore'), '# Pi Plans: check output and drift bases, local to this machine\n*\n', { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const file = stateFile(root, state.plan);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { flag: 'wx' });
  fs.renameSync(tmp, file);
}

/** How many of the last output lines are kept. */
export const TAIL_LINES = 20;

/** What running one command gave. */
export interface CommandResult {
  exit: number | null;
  seconds: number;
  tail: string[];
}

/**
 * Runs one approved check command in `root` through the system shell (the command is the person's
 * approved text, written for a shell), streaming its output to `onOutput` and keeping the last
 * lines. Never rejects: a command that cannot start is a failure with no exit code.
 */
export function runCommand(root: string, command: string, onOutput?: (chunk: string) => void): Promise<CommandResult> {
  const started = Date.now();
  let text = '';
  const keep = (b: Buffer) => {
    const s = b.toString('utf8');
    onOutput?.(s);
    text = (text + s).slice(-64 * 1024);
  };
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: root, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const done = (exit: number | null) => resolve({ exit, seconds: (Date.now() - started) / 1000, tail: text.split(/\r?\n/).filter((l, i, a) => l || i < a.length - 1).slice(-TAIL_LINES) });
    child.on('error', (e) => {
      keep(Buffer.from(`${e.message}\n`));
      done(null);
    });
    child.on('close', (code) => done(code));
  });
}

/** The record of a finished command. */
export function checkRecordOf(r: CommandResult, tree: string | undefined, at: string): CheckRecord {
  return { outcome: r.exit === 0 ? 'passed' : 'failed', exit: r.exit, seconds: r.seconds, ...(tree ? { tree } : {}), at };
}

/** The paths the last look found drifted for the approval with `digest` (the hook's cheap read: no git). */
export function driftedPaths(root: string, id: string, digest: string | undefined): string[] {
  const base = readPlanState(root, id).drift;
  return digest && base?.digest === digest ? (base.drifted ?? []).map((d) => d.path) : [];
}
