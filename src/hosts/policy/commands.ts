// A terminal command, read as the shell reads it (parsed by unbash, a Bash parser: quotes, escapes,
// compound commands, substitutions, heredocs), and judged for what the plan policy cares about:
// whether it runs one of Pi Plans' person-only verbs, names a protected place, edits files as a
// patch (Codex's apply_patch), or does something the policy cannot read (computed words, inline
// code, a shell fed on stdin). Pure: the real-path resolution is passed in.
import { forEachChild, parse, type Assignment, type Command, type SyntaxNode, type Word } from 'unbash';
import { patchPaths } from './patch';
import { Protected, reach, Resolve } from './paths';
import {
  APPLY_PATCH, AWK_EFFECT, AWKS, CLI_PROGRAMS, CLI_SCRIPTS, CLI_VALUED, GIT_READS, INTERPRETERS, JOINING_WRAPPERS, OPAQUE, PACKAGE_RUNNERS, PERSON_VERBS,
  READERS, RECURSIVE_WRITERS, RG_RUNS, SED_EFFECT, SHELLS, WRAPPERS,
} from './programs';
import { basename, expand, GLOBS, literal, writtenText } from './words';

/** One thing the policy must know about a command. */
export type Finding =
  | { kind: 'person'; what: string; command: string }
  | { kind: 'protected'; place: Protected; command: string }
  | { kind: 'unknown'; why: string; command: string }
  | { kind: 'interactive'; why: string; command: string }
  | { kind: 'edit'; paths: string[]; command: string }
  | { kind: 'collect'; plan: string };

/** What the classifier needs besides the command. */
export interface CommandContext {
  /** The folder the command runs in (real, absolute). */
  cwd: string;
  home: string;
  places: readonly Protected[];
  resolve: Resolve;
}

/** How deep `sh -c '…'` inside `sh -c '…'` is read before the rest counts as unknown. */
const MAX_DEPTH = 4;
/** A command longer than this is not parsed (its effect is unknown). */
export const MAX_COMMAND = 64 * 1024;
/** How long one command's reading may take: past it, the rest is of unknown effect (the hook must answer well inside its host's wait). */
const BUDGET_MS = 2000;

/** The reading ran out of its time budget. */
class Overrun extends Error {}

/** The state of one reading: where commands may run, what was found, how deep. */
interface Reading {
  ctx: CommandContext;
  /** When the reading must stop (Date.now()). */
  deadline: number;
  /** Every folder the commands may run in (each `cd` adds one: never fewer, so a path is judged from each). */
  cwds: string[];
  findings: Finding[];
  depth: number;
  source: string;
  /** HOME and CDPATH as literal assignments in the command set them (what `cd` then uses). */
  vars: Record<string, string>;
}

/**
 * Everything the policy must know about a terminal command. An empty list: nothing it cares
 * about (the command is judged by the plan's status alone).
 */
export function classifyCommand(source: string, ctx: CommandContext): Finding[] {
  const r: Reading = { ctx, deadline: Date.now() + BUDGET_MS, cwds: [ctx.cwd], findings: [], depth: 0, source, vars: {} };
  if (source.length > MAX_COMMAND) return [{ kind: 'unknown', why: `it is over ${MAX_COMMAND / 1024} KB`, command: source.slice(0, 120) }];
  try {
    read(source, r);
  } catch (e) {
    if (!(e instanceof Overrun)) throw e;
    r.findings.push({ kind: 'unknown', why: 'reading it took longer than the policy allows', command: source.slice(0, 120) });
  }
  return r.findings;
}

/** Reads a script (the command, or a string a shell inside it runs) into the reading's findings. */
function read(source: string, r: Reading): void {
  if (r.depth > MAX_DEPTH) {
    r.findings.push({ kind: 'unknown', why: 'it nests shells deeper than the policy reads', command: source.slice(0, 120) });
    return;
  }
  const ast = parse(source);
  if (ast.errors?.length) {
    r.findings.push({ kind: 'unknown', why: `the shell would not read it as written (${ast.errors[0].message})`, command: source.slice(0, 120) });
  }
  visit(ast, r, source, false);
}

/** The text of a node in the script it came from. */
const textOf = (n: { pos: number; end: number }, src: string) => src.slice(n.pos, n.end).slice(0, 200);

/** Arithmetic that names a variable: bash evaluates the variable's value as arithmetic, and a value like `a[$(cmd)]` runs cmd. */
const NAMES_VARIABLE = /[A-Za-z_]/;

function visit(n: SyntaxNode, r: Reading, src: string, fedStdin: boolean): void {
  if (Date.now() > r.deadline) throw new Overrun();
  if (n.type === 'ParameterExpansion' && n.operation?.type === 'Transform' && /[PEA]/.test(n.operation.operand.value)) {
    r.findings.push({ kind: 'unknown', why: 'a ${…@P} or @E expansion runs what a value holds', command: textOf(n, src) });
  }
  if ((n.type === 'ArithmeticExpansion' || n.type === 'ArithmeticCommand' || n.type === 'ArithmeticFor') && NAMES_VARIABLE.test(src.slice(n.pos, n.end).replace(/^\$?\(\(|\)\)$/g, '').replace(/\b(?:for)\b/g, ''))) {
    r.findings.push({ kind: 'unknown', why: 'arithmetic on a variable runs what its value holds (a[$(…)])', command: textOf(n, src) });
  }
  if (n.type === 'Command') {
    command(n, r, src, fedStdin);
    forEachChild(n, (c) => visit(c, r, src, false));
    return;
  }
  if (n.type === 'Pipeline') {
    // Every command after the first reads the one before it on stdin.
    n.commands.forEach((c, i) => visit(c, r, src, i > 0));
    return;
  }
  if ((n.type === 'CommandExpansion' || n.type === 'ProcessSubstitution') && n.script) {
    visit(n.script, r, n.script.source ?? src, false);
    return;
  }
  if (n.type === 'Script' && n.source !== undefined && n.source !== src) {
    forEachChild(n, (c) => visit(c, r, n.source!, false));
    return;
  }
  forEachChild(n, (c) => visit(c, r, src, fedStdin));
}

/** Whether the command's stdin carries text it may run: a pipe, a heredoc, a herestring or a file. */
function stdinOf(c: Command, fed: boolean): boolean {
  return fed || c.redirects.some((x) => x.type === 'HereDoc' || x.type === 'HereString' || (x.type === 'Redirect' && (x.operator === '<' || x.operator === '<>')));
}

const OUTPUT = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

/**
 * Variables whose value the shell or a program runs as code or uses as a place (`PS4`, `BASH_ENV`,
 * git's configuration from the environment, `HOME` and `CDPATH` for `cd`): setting one is of
 * unknown effect.
 */
const CODE_VARIABLES = /^(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS|IFS|PATH|HOME|CDPATH|OLDPWD|PWD|PAGER|MANPAGER|EDITOR|VISUAL|LD_PRELOAD|LD_LIBRARY_PATH|NODE_OPTIONS|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|RUBYOPT|GIT_.*|.*_COMMAND|.*_EDITOR|.*_PAGER|.*_SHELL)$/;
/** A value the shell may run later (prompt expansion, arithmetic on a variable, `eval`): it holds a substitution. */
const HOLDS_CODE = /\$\(|`|<\(|>\(/;

/** An assignment (`NAME=value`, before a program, alone, or to export/declare/local): unknown when it sets code or holds it. */
function assignment(a: Assignment, r: Reading, text: string): void {
  const value = a.value.type === 'Word' ? writtenText(a.value) : a.value.elements.map(writtenText).join(' ');
  if (CODE_VARIABLES.test(a.name)) r.findings.push({ kind: 'unknown', why: `it sets ${a.name}, which the shell or a program runs as code or uses as a place`, command: text });
  else if (HOLDS_CODE.test(value) || (a.index && HOLDS_CODE.test(writtenText(a.index)))) r.findings.push({ kind: 'unknown', why: `${a.name} is given a value holding a command, which the shell may run later`, command: text });
}

/** One simple command: its redirections, then what its program does with its words. */
function command(c: Command, r: Reading, src: string, fed: boolean): void {
  const text = textOf(c, src);
  for (const a of c.prefix) if (a.type === 'Assignment') assignment(a, r, text);
  // HOME and CDPATH as `cd` will use them: set for this command only (a prefix) or from here on (alone).
  const own: Record<string, string> = {};
  for (const a of c.prefix) {
    if (a.type === 'Assignment' && (a.name === 'HOME' || a.name === 'CDPATH') && a.value.type === 'Word') {
      const v = literal(a.value, r.ctx.home);
      if (v !== undefined) own[a.name] = v;
    }
  }
  if (!c.name) Object.assign(r.vars, own);
  for (const x of c.redirects) {
    if (x.type !== 'Redirect' || !OUTPUT.has(x.operator) || !x.target) continue;
    if (/^\d+$|^-$/.test(x.target.value) && (x.operator === '>&' || x.operator === '<&')) continue;
    pathWord(x.target, r, text, true);
  }
  if (!c.name) return; // assignments only: their substitutions are visited as children
  if (literal(c.name, r.ctx.home) === 'alias') return aliases(c, r, text);
  // NAME=VALUE words after the program (`make OUT=dir`, `export X=…`): the value may be a path it writes, or code.
  for (const a of c.args) {
    if (a.type !== 'Assignment') continue;
    assignment(a, r, text);
    if (a.value.type === 'Word') pathWord(a.value, r, text, false);
  }
  const words = [c.name, ...c.args.filter((a): a is Word => a.type === 'Word')];
  const saved = r.vars;
  r.vars = { ...r.vars, ...own };
  try {
    argv(words, r, text, { stdin: stdinOf(c, fed), heredoc: heredocOf(c, r.ctx.home) });
  } finally {
    r.vars = saved;
  }
}

/** A heredoc's or herestring's literal text (what a shell or interpreter fed by it would run), if any. */
function heredocOf(c: Command, home: string): string | undefined {
  for (const x of c.redirects) {
    if (x.type === 'HereDoc' && (x.delimiter?.quoted || !x.body.parts?.length)) return x.body.text;
    if (x.type === 'HereString' && x.target) return literal(x.target, home);
  }
  return undefined;
}

/** Judges a path word (an argument, a redirection's target): a computed one is unknown where `writes`. */
function pathWord(w: Word, r: Reading, text: string, writes: boolean, recursive = false): void {
  const expanded = expand(w, r.ctx.home);
  if (!expanded) {
    if (writes) r.findings.push({ kind: 'unknown', why: `a path it writes is computed when it runs (${w.text.slice(0, 60)})`, command: text });
    return;
  }
  for (const word of expanded) {
    const candidates = [word];
    // `--out=.pi/x`: the value after `=` is a path too.
    const eq = /^--?[\w-]+=(.+)$/.exec(word.text);
    if (eq) candidates.push({ text: eq[1], glob: word.glob ? eq[1] : undefined });
    for (const cand of candidates) {
      for (const hit of reach(cand, r.cwds, r.ctx.places, r.ctx.resolve)) {
        if (hit.relation === 'names' || recursive) r.findings.push({ kind: 'protected', place: hit.place, command: text });
      }
    }
  }
}

interface ArgvOpts {
  stdin: boolean;
  heredoc?: string;
}

/** A command's words (program first): follows wrappers, shells and interpreters to what runs. */
function argv(words: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
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

/** `ln -s TARGET LINK`: a relative target is read from the link's folder, where the link will point. */
function linkTargets(rest: readonly Word[], r: Reading, text: string): void {
  const operands = rest.filter((w) => !w.value.startsWith('-'));
  const link = operands.length > 1 ? literal(operands[operands.length - 1], r.ctx.home) : undefined;
  if (link === undefined) return;
  const saved = r.cwds;
  r.cwds = saved.map((cwd) => r.ctx.resolve(cwd, link.endsWith('/') ? link : link.slice(0, Math.max(0, link.lastIndexOf('/'))) || '.'));
  try {
    for (const w of operands.slice(0, -1)) pathWord(w, r, text, true);
  } finally {
    r.cwds = saved;
  }
}

/** git's options that run a command: `rebase --exec`, `bisect run`, `submodule foreach`. */
function gitRuns(rest: readonly Word[], r: Reading, text: string): void {
  const lits = rest.map((w) => literal(w, r.ctx.home));
  for (let i = 0; i < lits.length; i++) {
    const l = lits[i];
    if (l === '-x' || l === '--exec') {
      const s = lits[i + 1];
      if (s === undefined) r.findings.push({ kind: 'unknown', why: 'git runs a command computed when it runs', command: text });
      else shellString(s, r);
    } else if (l?.startsWith('--exec=')) shellString(l.slice('--exec='.length), r);
    else if ((l === 'run' && lits.includes('bisect')) || (l === 'foreach' && lits.includes('submodule'))) {
      r.findings.push({ kind: 'unknown', why: `git ${l === 'run' ? 'bisect run' : 'submodule foreach'} runs a command`, command: text });
    }
  }
}

/** An ordinary program: its words judged as paths; computed ones make a writer's effect unknown. */
function programWords(prog: string, rest: readonly Word[], r: Reading, text: string, runsFile: boolean): void {
  const reader = READERS.has(prog) || (prog === 'git' && isGitRead(rest, r.ctx.home)) || (prog === 'rg' && !rest.some((w) => RG_RUNS.test(w.value)));
  const recursive = RECURSIVE_WRITERS.has(prog);
  if (prog === 'git' && rest.some((w) => w.value === '-c' || w.value.startsWith('--config-env'))) {
    r.findings.push({ kind: 'unknown', why: 'git -c can make git run a command of its configuration', command: text });
  }
  for (const w of rest) pathWord(w, r, text, !reader && !runsFile, recursive);
  if (prog === 'ln') linkTargets(rest, r, text);
  if (runsFile && rest[0] && literal(rest[0], r.ctx.home) === undefined) r.findings.push({ kind: 'unknown', why: `the file ${prog} runs is computed`, command: text });
}

function isGitRead(rest: readonly Word[], home: string): boolean {
  const sub = rest.map((w) => literal(w, home)).find((w) => w !== undefined && !w.startsWith('-'));
  return sub !== undefined && GIT_READS.has(sub);
}

/** `cd DIR`: later commands may run there too. */
function changeDir(rest: readonly Word[], r: Reading, text: string): void {
  const args = rest.filter((w, i) => !/^-[LPe@]+$/.test(w.value) && !(w.value === '--' && rest.slice(0, i).every((x) => /^-[LPe@]+$/.test(x.value))));
  if (args[0] && /^~[-+]/.test(args[0].value) && !args[0].parts) {
    r.findings.push({ kind: 'unknown', why: 'it changes to a folder the shell remembers (~- or ~+), so the paths after it cannot be judged', command: text });
    return;
  }
  if (!args.length || args[0].value === '-') {
    r.cwds.push(r.vars.HOME ?? r.ctx.home);
    return;
  }
  const dir = literal(args[0], r.ctx.home);
  if (dir === undefined || args[0].parts?.some((p) => GLOBS.has(p.type) || p.type === 'BraceExpansion')) {
    r.findings.push({ kind: 'unknown', why: 'it changes to a folder computed when it runs, so the paths after it cannot be judged', command: text });
    return;
  }
  pathWord(args[0], r, text, false);
  // CDPATH's folders are where a relative name is looked up first.
  const bases = [...r.cwds, ...(r.vars.CDPATH && !/^\.{0,2}\//.test(dir) ? r.vars.CDPATH.split(':').filter(Boolean).map((d) => r.ctx.resolve(r.ctx.cwd, d)) : [])];
  const next = bases.map((base) => r.ctx.resolve(base, dir));
  for (const d of next) if (!r.cwds.includes(d)) r.cwds.push(d);
}

/** `alias NAME='…'`: the alias's text is a command the shell may run later. */
function aliases(c: Command, r: Reading, text: string): void {
  for (const a of c.args) {
    const value = a.type === 'Assignment' ? (a.value.type === 'Word' ? literal(a.value, r.ctx.home) : undefined) : literal(a, r.ctx.home)?.replace(/^[^=]*=?/, '');
    if (value === undefined) r.findings.push({ kind: 'unknown', why: 'it defines an alias computed when it runs', command: text });
    else if (value) shellString(value, r);
  }
}

/** A string a shell runs (`sh -c '…'`, `eval`, an alias): read as a command itself. */
function shellString(s: string, r: Reading): void {
  r.depth++;
  read(s, r);
  r.depth--;
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

/** awk: its program is inline code; one that runs a command or writes a file is unknown. */
function awk(rest: readonly Word[], r: Reading, text: string): void {
  const home = r.ctx.home;
  const valued = new Set(['-F', '-v', '-f', '--field-separator', '--assign', '--file']);
  let fromFile = false;
  let i = 0;
  for (; i < rest.length; i++) {
    const w = literal(rest[i], home);
    if (w === undefined) return void r.findings.push({ kind: 'unknown', why: 'awk is given a program computed when it runs', command: text });
    if (w === '-f' || w === '--file') fromFile = true;
    if (!w.startsWith('-')) break;
    if (valued.has(w)) i++;
  }
  if (!fromFile) {
    const program = rest[i] ? literal(rest[i], home) : undefined;
    if (program === undefined || AWK_EFFECT.test(program)) return void r.findings.push({ kind: 'unknown', why: 'its awk program may run a command or write a file', command: text });
    i++;
  }
  programWords('awk', rest.slice(i), r, text, false);
}

/** sed: a script that runs a command (`e`) or writes a file (`w`) is unknown; `-i` edits the files named. */
function sed(rest: readonly Word[], r: Reading, text: string): void {
  const home = r.ctx.home;
  const scripts: string[] = [];
  const files: Word[] = [];
  let scriptGiven = false;
  for (let i = 0; i < rest.length; i++) {
    const w = literal(rest[i], home);
    if (w === undefined) return void r.findings.push({ kind: 'unknown', why: 'sed is given a script or file computed when it runs', command: text });
    if (w === '-e' || w === '--expression') {
      const s = rest[i + 1] ? literal(rest[i + 1], home) : undefined;
      if (s === undefined) return void r.findings.push({ kind: 'unknown', why: 'sed is given a script computed when it runs', command: text });
      scripts.push(s);
      scriptGiven = true;
      i++;
    } else if (w === '-f' || w === '--file') {
      return void r.findings.push({ kind: 'unknown', why: 'sed runs a script file the policy cannot read', command: text });
    } else if (w.startsWith('-')) {
      continue;
    } else if (!scriptGiven) {
      scripts.push(w);
      scriptGiven = true;
    } else files.push(rest[i]);
  }
  if (scripts.some((s) => SED_EFFECT.test(s))) return void r.findings.push({ kind: 'unknown', why: 'its sed script may run a command or write a file', command: text });
  for (const f of files) pathWord(f, r, text, true);
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

/** Pi Plans' own CLI: a person's verb (in any spelling the shell reads as one) is found; its other verbs are programs. */
function cli(rest: readonly Word[], r: Reading, text: string): void {
  const home = r.ctx.home;
  // Words as the shell makes them: braces expanded (`{approve,ID}` is two words); a glob could be any word.
  const lits: (string | undefined)[] = [];
  for (const w of rest) {
    const ws = expand(w, home);
    if (!ws || ws.some((x) => x.glob)) lits.push(undefined);
    else lits.push(...ws.map((x) => x.text));
  }
  let i = 0;
  while (i < lits.length) {
    const w = lits[i];
    if (w === undefined) return void r.findings.push({ kind: 'unknown', why: 'the pi-plans verb it runs is computed when it runs', command: text });
    if (w.startsWith('-')) {
      i += CLI_VALUED.has(w) ? 2 : 1;
      continue;
    }
    break;
  }
  const verb = lits[i];
  if (verb === undefined) return;
  const after = lits.slice(i + 1);
  if (after.some((w) => w === undefined)) {
    // A computed word after a verb that is a person's in some form (`setup $X`) could be the form.
    if (PERSON_VERBS.has(verb)) return void r.findings.push({ kind: 'unknown', why: `the pi-plans ${verb} it runs is given words computed when it runs`, command: text });
  }
  const words = after.filter((w): w is string => w !== undefined);
  const person = PERSON_VERBS.get(verb);
  if (verb === 'hook' && words[0] === 'collect' && /^PLAN-[0-9a-f]{8}$/.test(words[1] ?? '')) {
    r.findings.push({ kind: 'collect', plan: words[1] });
    return;
  }
  if (person && (!person.when || person.when(hookWords(verb, words)))) r.findings.push({ kind: 'person', what: person.what, command: text });
}

/** `hook`'s words without its options' values (so `hook --agent claude` is a payload, `hook status --json` a listing). */
function hookWords(verb: string, words: readonly string[]): readonly string[] {
  if (verb !== 'hook') return words;
  const valued = new Set(['--agent', '--event', '--root', '--session']);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (valued.has(words[i])) i++;
    else if (!words[i].startsWith('-')) out.push(words[i]);
  }
  return out.length ? out : ['(payload)'];
}

/** Codex's `apply_patch <<'EOF' … EOF` (or with the patch as its one word): an edit of the patch's files. */
function applyPatch(rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const body = rest.length === 1 ? literal(rest[0], r.ctx.home) : rest.length === 0 ? o.heredoc : undefined;
  const paths = body === undefined ? undefined : patchPaths(body);
  if (!paths) return void r.findings.push({ kind: 'unknown', why: 'an apply_patch whose patch cannot be read', command: text });
  const resolved = r.cwds.flatMap((cwd) => paths.map((p) => r.ctx.resolve(cwd, p)));
  r.findings.push({ kind: 'edit', paths: [...new Set(resolved)], command: text });
}
