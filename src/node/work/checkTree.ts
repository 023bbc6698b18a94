/**
 * The working tree as git sees it, for checks and drift (issue 30): a tree id (the step evidence's
 * snapshot, gitEvidence.ts, without `.pi/`: the plan file changes when a result is recorded), the
 * object id of a path in such a tree, HEAD, and the commits that touched a path. Git runs through
 * execFile, never a shell.
 */
import { execFile } from 'node:child_process';
import { GitEvidence } from './gitEvidence';

interface GitResult {
  code: number;
  stdout: string;
}

function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv, input?: string): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, env: env ? { ...process.env, ...env } : process.env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout) });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

async function gitOut(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await git(cwd, args, env);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** The top folder of the repository `root` is in; undefined outside git. */
export function repoTop(root: string): Promise<string | undefined> {
  return gitOut(root, ['rev-parse', '--show-toplevel']);
}

/** HEAD's commit id; undefined outside git or before the first commit. */
export function headCommit(root: string): Promise<string | undefined> {
  return gitOut(root, ['rev-parse', '--verify', '-q', 'HEAD']);
}

/**
 * The id of a tree object holding the working tree of `root`'s repository as it is now: tracked
 * and untracked files, ignored files and `.pi/` left out (see `GitEvidence.snapshotWithoutPlans`:
 * one snapshot for evidence, checks and drift). Undefined outside git.
 */
export async function workingTree(root: string): Promise<string | undefined> {
  try {
    return await (await GitEvidence.open(root)).snapshotWithoutPlans();
  } catch {
    return undefined;
  }
}

/**
 * The object ids of `paths` (workspace-relative) in `tree`; null for a path the tree does not hold.
 * One `git cat-file --batch-check` for them all (`<tree>:./<path>` is relative to the folder git
 * runs in, which may be a subfolder of the repository).
 */
export async function pathHashes(root: string, tree: string, paths: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = Object.fromEntries(paths.map((p) => [p, null]));
  if (!paths.length) return out;
  const r = await git(root, ['cat-file', '--batch-check=%(objectname)'], undefined, paths.map((p) => `${tree}:./${p}\n`).join(''));
  if (r.code !== 0) return out;
  const lines = r.stdout.split('\n');
  paths.forEach((p, i) => {
    if (/^[0-9a-f]{40,64}$/.test(lines[i] ?? '')) out[p] = lines[i];
  });
  return out;
}

/** Commits in `base..HEAD` that touched `file` (`abc1234 subject`), newest first, at most `max`. */
export async function commitsTouching(root: string, base: string, file: string, max = 5): Promise<string[]> {
  const out = await gitOut(root, ['log', `--max-count=${max}`, '--format=%h %s', `${base}..HEAD`, '--', file]);
  return out ? out.split('\n').filter(Boolean) : [];
}
