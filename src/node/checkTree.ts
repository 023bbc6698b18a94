/**
 * The working tree as git sees it, for checks and drift (issue 30): a tree id written from a
 * temporary index (the user's index, stash and refs are never touched; only the objects are
 * written), the object id of a path in such a tree, HEAD, and the commits that touched a path.
 * `.pi/` is left out of the snapshot: the plan file changes when a result is recorded. Git runs
 * through execFile, never a shell. Kept apart from the step evidence (gitEvidence.ts) so the two
 * can be unified later.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface GitResult {
  code: number;
  stdout: string;
}

function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: env ? { ...process.env, ...env } : process.env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout) });
    });
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
 * and untracked files, ignored files and `.pi/` left out. Written through a temporary copy of the
 * index (its stat cache makes it about as fast as `git status`), deleted after. Undefined outside git.
 */
export async function workingTree(root: string): Promise<string | undefined> {
  const top = await repoTop(root);
  if (!top) return undefined;
  const indexPath = await gitOut(top, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tree-'));
  const index = path.join(tmp, 'index');
  try {
    // The copy keeps the index's modification time: git tells a file changed in the same second
    // as the index was written ("racy") by that time, and would miss a same-size edit otherwise.
    if (indexPath && fs.existsSync(indexPath)) fs.cpSync(indexPath, index, { preserveTimestamps: true });
    const env = { GIT_INDEX_FILE: index };
    // Tracked files under .pi/ (the plans) leave the copy too: recording a result must not change the tree.
    await git(top, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', '.pi', '**/.pi'], env);
    const add = await git(top, ['add', '-A', '--', '.', ':(exclude).pi', ':(exclude)**/.pi'], env);
    if (add.code !== 0) return undefined;
    return await gitOut(top, ['write-tree'], env);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The repository-relative form of a workspace-relative path (the workspace may be a subfolder of the repository). */
async function inRepo(root: string, rel: string): Promise<string> {
  const prefix = (await gitOut(root, ['rev-parse', '--show-prefix'])) ?? '';
  return path.posix.join(prefix, rel);
}

/** The object ids of `paths` (workspace-relative) in `tree`; null for a path the tree does not hold. */
export async function pathHashes(root: string, tree: string, paths: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const p of paths) {
    const id = await gitOut(root, ['rev-parse', '--verify', '-q', `${tree}:${await inRepo(root, p)}`]);
    out[p] = id ?? null;
  }
  return out;
}

/** Commits in `base..HEAD` that touched `file` (`abc1234 subject`), newest first, at most `max`. */
export async function commitsTouching(root: string, base: string, file: string, max = 5): Promise<string[]> {
  const out = await gitOut(root, ['log', `--max-count=${max}`, '--format=%h %s', `${base}..HEAD`, '--', file]);
  return out ? out.split('\n').filter(Boolean) : [];
}
