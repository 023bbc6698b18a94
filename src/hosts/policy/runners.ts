// Which program a command's words run: the wrappers (env, sudo, xargs, ssh…), package runners
// (npx), shells and interpreters followed to the command or code they run, and find's -exec.
import type { Word } from 'unbash';
import {
  APPLY_PATCH, AWKS, CLI_PROGRAMS, CLI_SCRIPTS, INTERPRETERS, JOINING_WRAPPERS, OPAQUE, PACKAGE_RUNNERS, READERS, SHELLS, WRAPPERS,
} from './programs';
import { applyPatch, awk, cli, gitRuns, programWords, sed } from './effects';
import { ArgvOpts, changeDir, pathWord, Reading, shellString } from './reading';
import { basename, GLOBS, literal } from './words';

/** A command's words (program first): follows wrappers, shells and interpreters to what runs. */
export function argv(words: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const home = r.ctx.home;
  const name = literal(words[0], home);
  if (name === undefined || (words[0].parts?.some((p) => GLOBS.has(p.type) || p.type === 'BraceExpansion') ?? false)) {
    r.findings.push({ kind: 'unknown', why: `the program it runs is computed when it runs (${words[0].text.slice(0, 60)})`, command: text });
    return;
  }
  const prog = basename(name);
  const rest = words.slice(1);
  const lits = rest.map((w) => literal(w, home));
  if (prog === 'cd' || prog === 'pushd') return changeDir(rest, r, text);
  if (prog === 'eval') {
    if (lits.some((l) => l === undefined)) return void r.findings.push({ kind: 'unknown', why: 'eval runs a string computed when it runs', command: text });
    return shellString(lits.join(' '), r);
  }
  if (prog === 'trap') {
    if (lits.some((l) => l === undefined)) return void r.findings.push({ kind: 'unknown', why: 'trap is given an action computed when it runs', command: text });
    let i = 0;
    while (i < lits.length && lits[i]!.startsWith('-') && lits[i] !== '-') if (lits[i++] === '--') break;
    if (lits[i] !== undefined && lits[i] !== '-') shellString(lits[i]!, r);
    return;
  }
  if (prog === 'let') return void r.findings.push({ kind: 'unknown', why: 'let evaluates arithmetic, which runs what a variable or subscript holds', command: text });
  if (prog === 'printf' && lits.some((l) => l === '-v')) return void r.findings.push({ kind: 'unknown', why: 'printf -v assigns to a name whose subscript the shell evaluates', command: text });
  if (prog === 'source' || prog === '.') {
    if (STDIN_SCRIPT.has(lits[0] ?? '')) return stdinCode(prog, r, text, o);
    return programWords(prog, rest, r, text, true);
  }
  if (APPLY_PATCH.has(prog)) return applyPatch(rest, r, text, o);
  if (OPAQUE.has(prog)) return void r.findings.push({ kind: 'unknown', why: `${prog} runs commands the policy cannot read`, command: text });
  if (WRAPPERS.has(prog) || JOINING_WRAPPERS.has(prog)) return wrapper(prog, rest, r, text, o);
  if (PACKAGE_RUNNERS.has(prog)) {
    if (packageRunner(prog, rest, r, text, o)) return;
  }
  if (SHELLS.has(prog)) return shell(prog, rest, r, text, o);
  if (CLI_PROGRAMS.has(prog)) return cli(rest, r, text);
  if (INTERPRETERS.has(prog)) return interpreter(prog, rest, r, text, o);
  if (AWKS.has(prog)) return awk(rest, r, text);
  if (prog === 'sed') return sed(rest, r, text);
  if (prog === 'find') return find(rest, r, text);
  // A script run by path (`./dist/bin.js approve`) is the CLI when its name is one of the CLI's.
  if (name.includes('/') && CLI_SCRIPTS.has(prog) && /\.(?:js|ts)$|^pi-plans$/.test(prog)) return cli(rest, r, text);
  if (prog === 'git') gitRuns(rest, r, text);
  // A program this list does not know may run the words after it (`setpriv pi-plans approve`,
  // `taskset -c 0 bash -c '…'`): Pi Plans' CLI, or a shell given -c, among its words is read as a command.
  if (!READERS.has(prog)) {
    const at = lits.findIndex((l, i) => l !== undefined && (CLI_PROGRAMS.has(basename(l)) || (SHELLS.has(basename(l)) && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(lits[i + 1] ?? ''))));
    if (at >= 0) argv(rest.slice(at), r, text, o);
  }
  programWords(prog, rest, r, text, false);
}

/** Skips a wrapper's options (and the values of those that take one); the index of its command's first word. */
function afterOptions(rest: readonly Word[], valued: ReadonlySet<string>, home: string, opts: { assignments?: boolean; skipFirst?: number } = {}): number {
  let i = 0;
  let skip = opts.skipFirst ?? 0;
  while (i < rest.length) {
    const w = literal(rest[i], home);
    if (w === undefined) return i;
    if (w === '--') return i + 1;
    if (w.startsWith('-') && w.length > 1) {
      i += valued.has(w) ? 2 : 1;
      continue;
    }
    if (opts.assignments && /^[A-Za-z_]\w*=/.test(w)) {
      i++;
      continue;
    }
    if (skip > 0) {
      skip--;
      i++;
      continue;
    }
    return i;
  }
  return i;
}

/** `env …`, `sudo …`, `timeout 5 …`, `xargs …`, `watch '…'`, `ssh host …`: what they run. */
function wrapper(prog: string, rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const home = r.ctx.home;
  if (prog === 'command') {
    // Only `command`'s own options, before the command it runs: `command -v x` looks a name up.
    const own = rest.slice(0, Math.max(0, rest.findIndex((w) => !w.value.startsWith('-') || w.value === '--')));
    if (own.some((w) => /^-[pvV]*[vV][pvV]*$/.test(w.value))) return;
  }
  if (prog === 'ssh' || prog === 'watch') {
    // They join their words into one string that a shell runs.
    const at = prog === 'ssh' ? sshCommandAt(rest, home) : afterOptions(rest, WRAPPERS.get('watch')!.valued, home);
    const words = rest.slice(at).map((w) => literal(w, home));
    if (words.some((w) => w === undefined)) return void r.findings.push({ kind: 'unknown', why: `${prog} runs a command computed when it runs`, command: text });
    if (words.length) shellString(words.join(' '), r);
    return;
  }
  const spec = WRAPPERS.get(prog)!;
  // A shell string given to the wrapper (`env -S '…'`, `flock -c '…'`, `script -qc '…'`).
  const shortString = [...(spec.shellString ?? [])].filter((o) => /^-[a-zA-Z]$/.test(o)).map((o) => o[1]);
  const takesString = (w: string) => spec.shellString?.has(w) || (/^-[a-zA-Z]{2,}$/.test(w) && shortString.some((c) => w.endsWith(c)));
  for (let i = 0; i < rest.length - 1; i++) {
    if (takesString(rest[i].value)) {
      const s = literal(rest[i + 1], home);
      if (s === undefined) r.findings.push({ kind: 'unknown', why: `${prog} ${rest[i].value} runs a string computed when it runs`, command: text });
      else shellString(s, r);
    }
  }
  // With a shell string (`script -c CMD FILE`, `su -c CMD USER`), the positional words are no command.
  if (rest.some((w, i) => i < rest.length - 1 && takesString(w.value))) return;
  const at = afterOptions(rest, spec.valued, home, { assignments: spec.assignments, skipFirst: spec.skipFirst });
  const inner = rest.slice(at);
  if (!inner.length) return;
  if (prog === 'xargs') {
    // xargs appends words read from stdin: a program that takes a verb there (the CLI, a shell) is unknown.
    const first = literal(inner[0], home);
    const p = first === undefined ? undefined : basename(first);
    if (p === undefined || CLI_PROGRAMS.has(p) || SHELLS.has(p) || INTERPRETERS.has(p) || WRAPPERS.has(p)) {
      r.findings.push({ kind: 'unknown', why: 'xargs gives it words read when it runs', command: text });
      return;
    }
  }
  argv(inner, r, text, o);
}

function sshCommandAt(rest: readonly Word[], home: string): number {
  const valued = new Set(['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w']);
  return afterOptions(rest, valued, home, { skipFirst: 1 });
}

/** `npx pi-plans …`, `npm exec -- pi-plans …`, `npx -c '…'`: returns false when it is not running a package's bin (`npm test`). */
function packageRunner(prog: string, rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): boolean {
  const spec = PACKAGE_RUNNERS.get(prog)!;
  const home = r.ctx.home;
  let words = rest;
  if (spec.sub) {
    const at = rest.findIndex((w) => !w.value.startsWith('-'));
    if (at < 0 || !spec.sub.has(rest[at].value)) return false;
    words = rest.slice(at + 1);
  }
  for (let i = 0; i < words.length - 1; i++) {
    if (spec.shellString?.has(words[i].value)) {
      const s = literal(words[i + 1], home);
      if (s === undefined) r.findings.push({ kind: 'unknown', why: `${prog} ${words[i].value} runs a string computed when it runs`, command: text });
      else shellString(s, r);
    }
  }
  const at = afterOptions(words, spec.valued, home);
  if (at < words.length) argv(words.slice(at), r, text, o);
  return true;
}

/** A script name that is the shell's (or `source`'s) own stdin: the heredoc or pipe is the code. */
const STDIN_SCRIPT = new Set(['/dev/stdin', '/proc/self/fd/0', '/dev/fd/0', '-']);

/**
 * A shell: its options read as bash reads them (clusters, `-o NAME`, `--long`, all before the
 * first operand); with `-c`, that operand is the command string, which is read; else it is a
 * script file (run, not read), and with none the shell reads commands from stdin.
 */
function shell(prog: string, rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const home = r.ctx.home;
  if (prog === 'busybox') return argv(rest, r, text, o);
  let i = 0;
  let dashC = false;
  let readsStdin = false;
  for (; i < rest.length; i++) {
    const w = literal(rest[i], home);
    if (w === undefined) return void r.findings.push({ kind: 'unknown', why: `${prog} is given an option or script computed when it runs`, command: text });
    if (w === '--' || w === '-') {
      i++;
      break;
    }
    if (/^[-+][oO]$/.test(w)) {
      i++;
      continue;
    }
    if (w.startsWith('--')) continue;
    if (/^[-+][a-zA-Z]+$/.test(w)) {
      if (w[0] === '-' && w.includes('c')) dashC = true;
      if (w[0] === '-' && /[si]/.test(w)) readsStdin = true;
      continue;
    }
    break;
  }
  const operand = i < rest.length ? literal(rest[i], home) : undefined;
  if (dashC) {
    if (operand === undefined) return void r.findings.push({ kind: 'unknown', why: `${prog} -c runs a string computed when it runs`, command: text });
    return shellString(operand, r);
  }
  if (operand !== undefined && !readsStdin && !STDIN_SCRIPT.has(operand)) return programWords(prog, rest.slice(i), r, text, true);
  stdinCode(prog, r, text, o);
}

/** A shell or interpreter that takes its code from stdin. */
function stdinCode(prog: string, r: Reading, text: string, o: ArgvOpts): void {
  if (o.heredoc !== undefined && (SHELLS.has(prog) || prog === 'source' || prog === '.')) return shellString(o.heredoc, r);
  if (o.stdin) return void r.findings.push({ kind: 'unknown', why: `${prog} runs code it reads on stdin (a pipe, heredoc or file), which the policy cannot read`, command: text });
  r.findings.push({ kind: 'interactive', why: `${prog} with no script starts an interactive session that takes commands later`, command: text });
}

/** An interpreter: inline code is unknown; a script of the CLI's names is the CLI; no script reads stdin. */
function interpreter(prog: string, rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const spec = INTERPRETERS.get(prog)!;
  const home = r.ctx.home;
  let i = 0;
  while (i < rest.length) {
    const w = literal(rest[i], home);
    if (w === undefined) return void r.findings.push({ kind: 'unknown', why: `${prog} is given an option or script computed when it runs`, command: text });
    const flag = w.includes('=') ? w.slice(0, w.indexOf('=')) : w;
    const letters = [...spec.inline].filter((f) => /^-[a-zA-Z]$/.test(f)).map((f) => f[1]);
    const cluster = /^-[a-zA-Z]{2,}$/.test(w) && [...w.slice(1)].some((c) => letters.includes(c));
    if (spec.inline.has(w.toLowerCase()) || spec.inline.has(flag) || cluster || (prog.startsWith('perl') && /^-[a-zA-Z]*[eEnpi]/.test(w))) {
      return void r.findings.push({ kind: 'unknown', why: `${prog} ${w} runs inline code, which the policy cannot read`, command: text });
    }
    if (spec.subcommands?.has(w)) {
      i++;
      continue;
    }
    if (spec.module && w === spec.module) return programWords(prog, rest.slice(i + 1), r, text, false);
    if (w === '-' || !w.startsWith('-')) break;
    i += spec.valued.has(w) ? 2 : 1;
  }
  if (i >= rest.length || STDIN_SCRIPT.has(literal(rest[i], home) ?? '')) return stdinCode(prog, r, text, o);
  const script = literal(rest[i], home)!;
  if (CLI_SCRIPTS.has(basename(script))) return cli(rest.slice(i + 1), r, text);
  programWords(prog, rest.slice(i), r, text, true);
}

/** find: its roots are folders it may act on; `-exec …;` is a command; `-delete` writes. */
function find(rest: readonly Word[], r: Reading, text: string): void {
  const home = r.ctx.home;
  const acts = rest.some((w) => /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/.test(w.value));
  let i = 0;
  for (; i < rest.length && !/^[-(!]/.test(rest[i].value); i++) pathWord(rest[i], r, text, acts, acts);
  for (; i < rest.length; i++) {
    const w = literal(rest[i], home);
    if (w === undefined) {
      if (acts) r.findings.push({ kind: 'unknown', why: 'find is given a test or action computed when it runs', command: text });
      continue;
    }
    if (/^-(?:exec|execdir|ok|okdir)$/.test(w)) {
      const end = rest.findIndex((x, j) => j > i && (x.value === ';' || x.value === '+'));
      const inner = rest.slice(i + 1, end < 0 ? rest.length : end);
      if (inner.length) argv(inner, r, text, { stdin: false });
      i = end < 0 ? rest.length : end;
    } else if (/^-fprint/.test(w) || w === '-fls') {
      if (rest[i + 1]) pathWord(rest[i + 1], r, text, true);
      i++;
    }
  }
}
