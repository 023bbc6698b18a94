import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodePlanBytes, isPlanError, mergePlanTexts, mergeTextByLine } from '../core';

/** Where output goes (the CLI's sinks). */
interface Io {
  out(s: string): void;
  err(s: string): void;
}

/** The name of the merge driver in `.gitattributes` and `git config merge.<name>.*`. */
export const DRIVER = 'pi-plans';

/**
 * git's merge driver: `pi-plans merge-driver %O %A %B %P`. Writes the merge of the three versions
 * into the ours file (%A) and returns the exit code git expects: 0 clean, 1 conflicts left.
 * A plan merges by step id and frontmatter key; anything else (a side that is not a valid plan)
 * merges by line, as git would have, and says why.
 */
export function runMergeDriver(files: { base: string; ours: string; theirs: string; path?: string; markerSize?: number }, io: Io): number {
  const name = files.path ?? path.basename(files.ours);
  const read = (f: string) => fs.readFileSync(f);
  const [b, o, t] = [read(files.base), read(files.ours), read(files.theirs)];
  let texts: [string, string, string];
  try {
    // An empty base: the file was added on both branches.
    texts = [b.byteLength ? decodePlanBytes(b) : '', decodePlanBytes(o), decodePlanBytes(t)];
  } catch (e) {
    io.err(`pi-plans merge-driver: ${name}: ${(e as Error).message}; left as ours for git to report as a conflict\n`);
    return 1;
  }
  const labels = { ours: 'ours', theirs: `theirs (${name})`, markerSize: files.markerSize };
  try {
    const r = mergePlanTexts(...texts, labels);
    fs.writeFileSync(files.ours, r.text);
    for (const n of r.renumbered) io.err(`pi-plans merge-driver: ${name}: both branches added a step ${n.from}; theirs is now ${n.to} (noted on the step)\n`);
    if (!r.conflicts.length) return 0;
    io.err(`pi-plans merge-driver: ${name}: ${r.conflicts.length} conflict${r.conflicts.length === 1 ? '' : 's'} left for you: ${r.conflicts.map((c) => `${c.what} (line ${c.line})`).join(', ')}. Keep one side between the markers, delete the markers, then run pi-plans validate.\n`);
    return 1;
  } catch (e) {
    if (!isPlanError(e)) throw e;
    const r = mergeTextByLine(...texts, labels);
    fs.writeFileSync(files.ours, r.text);
    io.err(`pi-plans merge-driver: ${name}: merged by line, not by step (${e.message})${r.conflicts ? `; ${r.conflicts} conflict${r.conflicts === 1 ? '' : 's'} left` : ''}\n`);
    return r.conflicts ? 1 : 0;
  }
}

/** The `.gitattributes` lines git-setup writes (paths relative to the workspace folder). */
export const ATTRIBUTES = [
  '# Pi Plans (pi-plans git-setup): plans merge by step id; checkpoint logs are append-only and merge by union.',
  `.pi/plans/PLAN-*.md merge=${DRIVER}`,
  `.pi/plans/archive/PLAN-*.md merge=${DRIVER}`,
  '.pi/plans/sessions/*.jsonl merge=union',
];

/** The `.pi/plans/.gitignore` lines git-setup writes. */
export const IGNORES = [
  '# Pi Plans (pi-plans git-setup)',
  '# Reviewed versions stay local: two branches can keep different texts under one name, and the',
  '# decisions themselves are in the plan (review history, approved_version, approved_hash).',
  'reviews/',
  '# Which agent session works on which plan (pi-plans hook): sessions of this machine only.',
  'hooks/',
  '# Checks\' last output lines and drift bases (pi-plans verify, drift): this machine\'s record.',
  'checks/',
  '# A write in progress and its cross-process lock.',
  '.*.tmp',
  '.*.lock',
];

/** A word for sh (git runs the driver through the shell). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Adds the lines a file lacks (by exact line), keeping what is there; true when it wrote. */
function ensureLines(file: string, wanted: readonly string[]): boolean {
  const had = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const have = new Set(had.split(/\r?\n/));
  const missing = wanted.filter((l) => !have.has(l));
  if (!missing.length) return false;
  const eol = had.includes('\r\n') ? '\r\n' : '\n';
  const lead = had && !had.endsWith('\n') ? eol : '';
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, had + lead + missing.join(eol) + eol);
  return true;
}

/**
 * `pi-plans git-setup`: the merge driver in the repository's git config, the attributes that
 * use it, and the ignore rules of the git policy (docs/plan-format.md). Idempotent.
 */
export function gitSetup(root: string, opts: { command?: string; cli: string }, io: Io): number {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  try {
    git('rev-parse', '--git-dir');
  } catch {
    io.err(`pi-plans git-setup: ${root} is not in a git repository: run git init there first (or pass --root)\n`);
    return 1;
  }
  const command = opts.command ?? `${shellWord(process.execPath)} ${shellWord(opts.cli)}`;
  const driver = `${command} merge-driver --marker-size %L %O %A %B %P`;
  const done: string[] = [];
  const get = (key: string) => {
    try {
      return git('config', '--local', '--get', key);
    } catch {
      return undefined;
    }
  };
  if (get(`merge.${DRIVER}.driver`) !== driver) {
    git('config', '--local', `merge.${DRIVER}.name`, 'Pi Plans: plans merged by step id');
    git('config', '--local', `merge.${DRIVER}.driver`, driver);
    done.push(`git config merge.${DRIVER}.driver "${driver}"`);
  }
  if (ensureLines(path.join(root, '.gitattributes'), ATTRIBUTES)) done.push('.gitattributes: plans merge by step id, checkpoint logs by union');
  if (ensureLines(path.join(root, '.pi', 'plans', '.gitignore'), IGNORES)) done.push('.pi/plans/.gitignore: reviewed versions, temp and lock files stay local');
  if (!done.length) io.out('Already set up: nothing to change.\n');
  else io.out(`Set up:\n${done.map((d) => `  ${d}`).join('\n')}\nCommit .gitattributes and .pi/plans/.gitignore; every clone runs pi-plans git-setup once (git config is not committed).\n`);
  return 0;
}
