// dist/bin.js, the `pi-plans` command: `hook` goes to the small bundle (dist/hook.js) before
// anything else is loaded, since agents run it on every tool call; everything else to the CLI
// (dist/cli.js). Nothing of the project is imported here: this file is what every start parses.
//
// The hook's bundles and the CLI are loaded with V8's code cache (compiled code kept in Pi Plans'
// cache folder, `code/`), which takes most of their load time off every tool call and every
// command a person runs (the CLI's start: 0.24 s to 0.12 s here). Only where the bundle itself
// is a file this user may write: a cache an agent could plant then gives it no power it has not
// got already (it could rewrite the bundle), and for a bundle the user cannot write (a system-wide
// install) nothing is cached. A cache V8 does not accept for the source is compiled anew. Each
// build makes a new cache file: the 4 newest of a bundle are kept, the others removed when one is written.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { createRequire } from 'node:module';
import { isAscii } from 'node:buffer';

/**
 * A bundle's source in Node's CommonJS wrapper (`Module.wrap`, which the types do not list), its
 * `#!` line (which Node strips from a file it loads itself) made a comment. Decoded once from the
 * file's bytes with the wrapper around them: V8 keeps the script's source for the process's life,
 * and a wrapper added to a decoded string kept a second copy of the whole bundle until a full GC
 * (a list of plans never runs one). The bundles are ASCII (the build refuses others), so the one
 * copy is a one-byte string; decoded as Latin-1 (the same characters for ASCII), Node makes a
 * string that large an external one, outside V8's heap: its 2.3 MB are not copied out of the young
 * generation as they were, where they counted toward what makes V8 double that generation's size
 * (2 x 16 MB in a first `list` of 10,000 plans).
 */
function wrappedSource(file: string): string {
  const bytes = fs.readFileSync(file);
  const body = bytes[0] === 0x23 && bytes[1] === 0x21 ? [Buffer.from('//'), bytes.subarray(2)] : [bytes];
  const wrapped = Buffer.concat([Buffer.from('(function (exports, require, module, __filename, __dirname) { '), ...body, Buffer.from('\n});')]);
  return wrapped.toString(isAscii(wrapped) ? 'latin1' : 'utf8');
}

/** Where `hook` sits in argv (after an optional `--root DIR`), or -1. */
function hookAt(args: readonly string[]): number {
  let i = 0;
  if (args[0] === '--root' && args.length > 1) i = 2;
  else if (args[0]?.startsWith('--root=')) i = 1;
  return args[i] === 'hook' ? i : -1;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** The code cache's folder (Pi Plans' cache folder, as src/node/ports/userFolders.ts names it). */
function codeDir(): string {
  const env = process.env;
  return path.join(env.PI_PLANS_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pi-plans'), 'code');
}

/** Code caches kept per bundle (the newest): one per build or Node version, so two installs side by side keep theirs. */
const CACHES_KEPT = 4;

/** Removes a bundle's code caches but the CACHES_KEPT newest: plain files of its own names only, never through a link. */
function pruneCaches(dir: string, name: string): void {
  const own = new RegExp(`^${name.replace(/\./g, '\\.')}-\\d+-\\d+-\\d+-v[\\d.]+-\\w+\\.v8$`);
  const aged = fs
    .readdirSync(dir)
    .filter((n) => own.test(n))
    .map((n) => ({ n, st: fs.lstatSync(path.join(dir, n), { throwIfNoEntry: false }) }))
    .filter((a) => a.st?.isFile())
    .sort((a, b) => b.st!.mtimeMs - a.st!.mtimeMs);
  for (const a of aged.slice(CACHES_KEPT)) fs.rmSync(path.join(dir, a.n), { force: true });
}

/** A regular file's bytes, never through a link or a FIFO; undefined otherwise. */
function plainBytes(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const st = fs.fstatSync(fd);
    return st.isFile() && st.size < 16 * 1024 * 1024 ? fs.readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Loads a CommonJS bundle beside this file, with its code cache when the bundle is the user's to write. */
export function loadBeside(name: string): unknown {
  const file = path.join(__dirname, name);
  let writable = false;
  try {
    fs.accessSync(file, fs.constants.W_OK);
    writable = true;
  } catch {
    // a bundle the user cannot change: no cache
  }
  if (!writable || process.env.PI_PLANS_NO_CODE_CACHE) return require(file); // eslint-disable-line @typescript-eslint/no-require-imports -- beside this file, at run time
  const st = fs.statSync(file);
  const cacheFile = path.join(codeDir(), `${name}-${st.size}-${Math.floor(st.mtimeMs)}-${st.ino}-${process.version}-${process.arch}.v8`);
  const cachedData = plainBytes(cacheFile);
  const script = new vm.Script(wrappedSource(file), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const m = { exports: {} as unknown };
  (script.runInThisContext() as (...a: unknown[]) => void).call(m.exports, m.exports, createRequire(file), m, file, __dirname);
  if (!cachedData || script.cachedDataRejected) {
    // Written when the process ends: the code the run compiled is in it too.
    process.once('exit', () => {
      try {
        fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
        try {
          fs.writeSync(fd, script.createCachedData());
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, cacheFile);
        // Each build (or Node version) makes a new cache: the oldest of this bundle's go.
        if (fs.lstatSync(path.dirname(cacheFile)).isDirectory()) pruneCaches(path.dirname(cacheFile), name);
      } catch {
        // a cache is only a cache
      }
    });
  }
  return m.exports;
}

const args = process.argv.slice(2);
const at = hookAt(args);
if (at >= 0) {
  const root = at === 2 ? args[1] : at === 1 ? args[0].slice('--root='.length) : undefined;
  (loadBeside('hook.js') as { main(argv: readonly string[], root: string | undefined, load?: (name: string) => unknown): void }).main(args.slice(at + 1), root, loadBeside);
} else {
  (loadBeside('cli.js') as { runCli(argv: string[]): Promise<number> }).runCli(args).then((code) => {
    process.exitCode = code;
  });
}
