/**
 * What a step changed, seen by git (floor 3, Node): snapshots of the working tree as git tree
 * objects, the difference between two of them, and the refs that keep them from `git gc`.
 *
 * A snapshot never touches the user's index, stash or branches: git runs with GIT_INDEX_FILE on a
 * temporary index, `git add -A` adds every tracked and untracked file into it (files git ignores
 * stay out, as they do in a commit), and `git write-tree` writes the tree. The temporary index is
 * a copy of the last snapshot's, kept in the repository's git folder (`pi-plans/index`), or of the
 * user's index before the first: git then hashes only the files changed since, and finds the
 * folders' trees it wrote last time in the index's tree cache, so a snapshot costs about what
 * `git status` does. Each snapshot works on a copy of its own, so two processes never share one.
 * In a large repository the kept index is a split index (git's `core.splitIndex`: a few KB naming
 * the changes, over a `sharedindex.<hash>` file in the git folder that git writes again only after
 * a fifth of the entries changed): each snapshot writes its index twice (`add`, then `write-tree`
 * saving its tree cache), and a whole index of 10,000 files takes 6 ms to write. Not in a small
 * one, where a write is cheap and each fifth changed would leave one more shared file (git deletes
 * those unused for two weeks when it writes a new one). Never in a repository whose own index is
 * split (a `sharedindex.*` file is there): that cleanup must never reach the user's.
 * The workspace's own `.pi/` folder (its plans) is left out of the differences; a `.pi/` folder
 * elsewhere (`src/.pi/`) is code like any other. The objects written
 * are the only trace, with the kept index and the refs under `refs/pi-plans/evidence/` that pin
 * them (refs to trees: `git branch`, `git log` and `git log --all` do not show them;
 * `git for-each-ref` and `git show-ref` do). Runs the machine's `git` with execFile, no shell.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileChange } from '../../core';

/** One file a step changed (the core's `FileChange`). Paths are relative to the repository's top, with "/". */
export type TreeChange = FileChange;

/**
 * The changes outside the workspace's plan folder (`plans`: its path from the repository's top,
 * `.pi/` or `sub/.pi/`). Left out here, not by a pathspec: git would match an exclusion against
 * every file of the tree, a third of a snapshot's time in a large repository.
 */
function withoutPlans(changes: TreeChange[], plans: string): TreeChange[] {
  return changes.filter((c) => !c.path.startsWith(plans));
}

/** The last snapshot's index, in the repository's git folder (per worktree, as `git rev-parse --git-path` finds it). */
const KEPT_INDEX = 'pi-plans/index';

/** How long a kept index serves at most (see `keptHolds`): then a snapshot starts from the user's index again. */
export const KEPT_FOR_MS = 12 * 60 * 60 * 1000;

/** A path of an ignore file, at any depth. */
const IGNORE_FILE = /(^|\/)\.gitignore$/;

/** The ref namespace that pins the snapshots (one ref per plan). */
export const PIN_NAMESPACE = 'refs/pi-plans/evidence';

const SHA = /^[0-9a-f]{40}$/;

/** Thrown when git is not installed or the folder is not in a repository: evidence is not recorded. */
export class NotRecorded extends Error {}

interface Run {
  env?: NodeJS.ProcessEnv;
  input?: string;
}

/** Runs git in `cwd`; its stdout. */
function git(cwd: string, args: string[], opts: Run = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env: opts.env ?? gitEnv(), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        reject(code === 'ENOENT' ? new NotRecorded('git is not installed') : new Error(`git ${args[0]} failed: ${String(stderr).trim() || err.message}`));
      } else resolve(stdout);
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** The environment git runs in: the caller's, minus variables that would point it at another repository or index. */
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_PREFIX']) delete env[k];
  // A read must never rewrite the user's index to refresh it (git status does, unless told).
  return { ...env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra };
}

/** A git repository seen from a workspace folder. */
export class GitEvidence {
  private constructor(
    /** The workspace folder git runs in. */
    readonly cwd: string,
    /** The repository's top folder. */
    readonly top: string,
    private readonly index: string,
    /** The last snapshot's index (git folder's `pi-plans/index`). */
    private readonly kept: string,
    /** The repository's own ignore file (`info/exclude`). */
    private readonly exclude: string,
    /** The workspace's plan folder as a path from the top, with "/": `.pi/`, or `sub/.pi/` for a workspace in a subfolder. */
    readonly plans: string,
  ) {}

  /** The repository `folder` is in; NotRecorded when git is missing or there is none. */
  static async open(folder: string): Promise<GitEvidence> {
    let out: string;
    try {
      out = await git(folder, ['rev-parse', '--show-toplevel', '--git-path', 'index', '--git-path', KEPT_INDEX, '--git-path', 'info/exclude']);
    } catch (e) {
      if (e instanceof NotRecorded) throw e;
      throw new NotRecorded('not a git repository');
    }
    const [top, index, kept, exclude] = out.split('\n');
    if (!top || !index || !kept || !exclude) throw new NotRecorded('not a git repository');
    let rel = '';
    try {
      rel = path.relative(top, fs.realpathSync(folder)).split(path.sep).join('/');
    } catch {
      /* a folder that went away: the top's own */
    }
    const plans = rel && !rel.startsWith('..') ? `${rel}/.pi/` : '.pi/';
    return new GitEvidence(folder, top, path.resolve(folder, index), path.resolve(folder, kept), path.resolve(folder, exclude), plans);
  }

  /**
   * The working tree as a tree object: tracked and untracked files as they are on disk, files git
   * ignores left out. The user's index is read (copied), never written.
   */
  async snapshot(): Promise<string> {
    return (await this.withIndex((env) => git(this.cwd, ['write-tree'], { env }))).trim();
  }

  /**
   * The working tree as a tree object without the workspace's `.pi/` folder: what checks and drift compare
   * (recording a check's result writes the plan, which must not change the tree it ran on).
   */
  async snapshotWithoutPlans(): Promise<string> {
    return (
      await this.withIndex(async (env) => {
        await git(this.top, ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', `:(literal)${this.plans.slice(0, -1)}`], { env });
        return git(this.top, ['write-tree'], { env });
      }, false)
    ).trim();
  }

  /**
   * The working tree as a tree object and what changed since the tree `before` (as `diff` says),
   * the two worked out at once from the same temporary index.
   */
  async snapshotSince(before: string): Promise<{ tree: string; changes: TreeChange[] }> {
    const [tree, out] = await this.withIndex((env) =>
      Promise.all([git(this.cwd, ['write-tree'], { env }), git(this.cwd, ['diff-index', '--cached', '-M', '--raw', '--numstat', '-z', before], { env })]),
    );
    const changes = parseRawNumstat(out);
    // A changed ignore file may now ignore files the kept index holds: the next snapshot starts afresh.
    if (changes.some((c) => IGNORE_FILE.test(c.path) || (c.from !== undefined && IGNORE_FILE.test(c.from)))) await fs.promises.rm(this.kept, { force: true });
    return { tree: tree.trim(), changes: withoutPlans(changes, this.plans) };
  }

  /**
   * Runs `then` with git's environment on a temporary index holding the working tree, then keeps
   * that index for the next snapshot when `keep` (an index `then` changed is not the working
   * tree's). The temporary index is removed after.
   */
  private async withIndex<T>(then: (env: NodeJS.ProcessEnv) => Promise<T>, keep = true): Promise<T> {
    await ownFolder(path.dirname(this.kept), this.kept);
    if (!(await this.keptHolds())) await fs.promises.rm(this.kept, { force: true });
    try {
      return await this.onIndex(this.kept, then, keep);
    } catch (e) {
      // No kept index yet, or one git cannot read (a crash mid-copy, a hand edit): start again from the user's.
      await fs.promises.rm(this.kept, { force: true });
      if (e instanceof NotRecorded) throw e;
      return this.onIndex(this.index, then, keep);
    }
  }

  /**
   * Whether the kept index may serve the next snapshot. `git add -A` never drops a file an index
   * holds, ignored or not: a file snapshotted before an ignore rule came to cover it would stay in
   * every later snapshot, where a snapshot from the user's index leaves it out. So the kept index
   * goes when an ignore file changed after it was written (the repository's top `.gitignore`, its
   * `info/exclude`, the user's global one; a step's change to any `.gitignore` drops it too, see
   * `snapshotSince`), and after KEPT_FOR_MS in any case (a `.gitignore` deeper down edited outside
   * a step, or a `core.excludesFile` of its own, is caught then).
   */
  private async keptHolds(): Promise<boolean> {
    const written = await fs.promises.stat(this.kept).then((s) => s.mtimeMs, () => undefined);
    if (written === undefined || Date.now() - written > KEPT_FOR_MS) return false;
    const global = path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'git', 'ignore');
    const changed = await Promise.all([path.join(this.top, '.gitignore'), this.exclude, global].map((f) => fs.promises.stat(f).then((s) => s.mtimeMs >= written, () => false)));
    return !changed.includes(true);
  }

  /** `withIndex` from a copy of the index at `from` (none: an empty index). */
  private async onIndex<T>(from: string, then: (env: NodeJS.ProcessEnv) => Promise<T>, keep: boolean): Promise<T> {
    const tmp = path.join(path.dirname(this.kept), `index-${process.pid}-${randomBytes(6).toString('hex')}`);
    try {
      await copyKeepingTime(from, tmp).catch((e: NodeJS.ErrnoException) => {
        // A repository with nothing staged yet has no index: start from an empty one.
        if (e.code !== 'ENOENT' || from === this.kept) throw e;
      });
      const env = gitEnv({ GIT_INDEX_FILE: tmp });
      // Split or whole from its first write on (git keeps an index's link to its shared index, or
      // its lack of one); a copy of a user index that is split is made whole.
      const split = from === this.index ? ['-c', `core.splitIndex=${await splitFits(this.index)}`] : [];
      // The whole working tree (no pathspec, see withoutPlans); the plan folder is left out of the differences.
      await git(this.cwd, [...split, 'add', '-A'], { env });
      const result = await then(env);
      // Atomic: another process copying the kept index sees this one or the one before, both whole.
      if (keep) await fs.promises.rename(tmp, this.kept);
      return result;
    } finally {
      await fs.promises.rm(tmp, { force: true });
      await fs.promises.rm(`${tmp}.lock`, { force: true });
    }
  }

  /** What changed from tree `a` to tree `b` (renames found with -M), the workspace's `.pi/` left out. */
  async diff(a: string, b: string): Promise<TreeChange[]> {
    if (a === b) return [];
    const out = await git(this.cwd, ['diff-tree', '-r', '-M', '--raw', '--numstat', '-z', a, b]);
    return withoutPlans(parseRawNumstat(out), this.plans);
  }

  /** A file's bytes in a tree (for a diff view); undefined when the tree has no such file. */
  async show(tree: string, file: string): Promise<string | undefined> {
    return git(this.cwd, ['cat-file', 'blob', `${tree}:${file}`]).catch(() => undefined);
  }

  /** Every tree pinned for a plan's steps, by `<step>/<end>` (one git call). */
  async pinsOf(plan: string): Promise<Map<string, string>> {
    pinRef(plan, 'S001', 'before'); // the id checked as a pin names it
    const prefix = `${PIN_NAMESPACE}/${plan}/`;
    const out = await git(this.cwd, ['for-each-ref', '--format=%(refname) %(objectname)', prefix]).catch(() => '');
    const pins = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [ref, sha] = line.split(' ');
      if (ref?.startsWith(prefix) && sha && SHA.test(sha)) pins.set(ref.slice(prefix.length), sha);
    }
    return pins;
  }

  /** The tree a ref pins (`pinRef(plan, step, end)`); undefined when none. */
  async pinned(plan: string, step: string, end: 'before' | 'after'): Promise<string | undefined> {
    const out = await git(this.cwd, ['rev-parse', '-q', '--verify', `${pinRef(plan, step, end)}^{tree}`]).catch(() => '');
    return SHA.test(out.trim()) ? out.trim() : undefined;
  }

  /**
   * Pins a tree under `refs/pi-plans/evidence/<plan>/<step>/<end>`, so `git gc` keeps it: an
   * unreachable tree is pruned once older than gc.pruneExpire (2 weeks by default), at once by
   * `git gc --prune=now`. A ref to a tree is listed by `git for-each-ref`, never by `git branch`,
   * `git log` or `git log --all` (which walk commits only). Returns the ref.
   */
  async pin(plan: string, step: string, end: 'before' | 'after', tree: string): Promise<string> {
    if (!SHA.test(tree)) throw new Error(`not a tree: ${tree}`);
    const ref = pinRef(plan, step, end);
    // --no-deref: a symbolic ref planted here is replaced, never followed to the ref it names (a tag, say).
    await git(this.cwd, ['update-ref', '--no-deref', ref, tree]);
    return ref;
  }
}

/**
 * Makes `dir` (the git folder's `pi-plans`) a folder of its own, and `kept` in it a plain file or
 * nothing: anything else there (a link a process planted, to another repository's git folder,
 * say; a FIFO, which a copy would wait on forever) is removed first, so the kept index and its
 * temporary copies are never written through it.
 */
async function ownFolder(dir: string, kept: string): Promise<void> {
  const st = await fs.promises.lstat(dir).catch(() => undefined);
  if (st && !st.isDirectory()) await fs.promises.rm(dir, { force: true });
  await fs.promises.mkdir(dir, { recursive: true });
  const index = await fs.promises.lstat(kept).catch(() => undefined);
  if (index && !index.isFile()) await fs.promises.rm(kept, { force: true, recursive: true });
}

/** An index this large (about 3,000 files) is worth splitting: a whole one takes 2 ms or more to write. */
export const SPLIT_FROM_BYTES = 256 * 1024;

/** Whether a kept index started from the user's `index` is split: the repository is large and its git folder holds no shared index (the user's index is not split, nor was). */
async function splitFits(index: string): Promise<boolean> {
  const size = await fs.promises.stat(index).then((s) => s.size, () => 0);
  if (size < SPLIT_FROM_BYTES) return false;
  const names = await fs.promises.readdir(path.dirname(index)).catch(() => [] as string[]);
  return !names.some((n) => n.startsWith('sharedindex.'));
}

/**
 * Copies an index (the kept one or the user's) keeping its modification time: git tells a file changed in the same
 * second as the index was written ("racily clean") by that time, and a copy stamped now would
 * make git trust the stat data and miss a same-size edit.
 */
async function copyKeepingTime(from: string, to: string): Promise<void> {
  await fs.promises.copyFile(from, to);
  const st = await fs.promises.stat(from);
  await fs.promises.utimes(to, st.atime, st.mtime);
}

/** The ref that pins the snapshot a step's start or end took. */
export function pinRef(plan: string, step: string, end: 'before' | 'after'): string {
  if (!/^[\w-]+$/.test(plan) || !/^[\w-]+$/.test(step)) throw new Error(`not a plan and step id: ${plan} ${step}`);
  return `${PIN_NAMESPACE}/${plan}/${step}/${end}`;
}

const STATUS: Record<string, TreeChange['status']> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted', R: 'renamed', C: 'added' };

/**
 * `git diff-tree -r --raw --numstat -z` output: first the raw records (`:modes shas X\0path\0`,
 * a rename `:… R097\0old\0new\0`), then the numstat ones in the same order (`a\td\tpath\0`, a
 * rename `a\td\t\0old\0new\0`, a binary file `-\t-\t…`).
 */
export function parseRawNumstat(out: string): TreeChange[] {
  const parts = out.split('\0');
  const changes: TreeChange[] = [];
  let i = 0;
  while (i < parts.length && parts[i].startsWith(':')) {
    const letter = parts[i].split(' ').at(-1)!.charAt(0);
    const two = letter === 'R' || letter === 'C';
    const c: TreeChange = { status: STATUS[letter] ?? 'modified', path: two ? parts[i + 2] : parts[i + 1], binary: false };
    if (letter === 'R') c.from = parts[i + 1];
    changes.push(c);
    i += two ? 3 : 2;
  }
  for (const c of changes) {
    const rec = parts[i] ?? '';
    const [a, d, p] = rec.split('\t');
    i += p === '' ? 3 : 1;
    if (a === '-' && d === '-') c.binary = true;
    else {
      c.added = Number(a);
      c.removed = Number(d);
    }
  }
  return changes;
}
