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
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckRecord, DriftedTarget, TargetHashes } from '../core';

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

/** A plan's state; an empty one when there is none or it does not read (it is a cache of facts, rebuilt by the next run). */
export function readPlanState(root: string, id: string): PlanState {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile(root, id), 'utf8')) as PlanState;
    if (s && s.v === 1 && s.plan === id && s.checks && typeof s.checks === 'object') return s;
  } catch {
    // none yet, or unreadable: start again
  }
  return { v: 1, plan: id, checks: {} };
}

/** Writes a plan's state atomically; the folder gets its own `.gitignore` the first time. */
export function writePlanState(root: string, state: PlanState): void {
  const dir = checksDir(root);
  fs.mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Pi Plans: check output and drift bases, local to this machine\n*\n');
  const file = stateFile(root, state.plan);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
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
