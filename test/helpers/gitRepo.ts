// Temporary git repositories for tests that run the machine's git (evidence, checks, drift).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * `git` (its stdout; a failure fails the test, naming the command and git's words) and `write` (a
 * file, its folders made) in the folder `dirOf()` names when they are called.
 */
export function repoTools(dirOf: () => string): { git: (...args: string[]) => string; write: (file: string, text: string | Buffer) => void } {
  return {
    git: (...args) => {
      const r = spawnSync('git', args, { cwd: dirOf(), encoding: 'utf8' });
      assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    write: (file, text) => {
      fs.mkdirSync(path.dirname(path.join(dirOf(), file)), { recursive: true });
      fs.writeFileSync(path.join(dirOf(), file), text);
    },
  };
}

/** A new empty repository in a temporary folder (its name starts with `prefix`), with a committer set. */
export function newRepo(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const { git } = repoTools(() => dir);
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'T');
  return dir;
}
