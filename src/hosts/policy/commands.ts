// A terminal command, read as the shell reads it (parsed by unbash, a Bash parser: quotes, escapes,
// compound commands, substitutions, heredocs), and judged for what the plan policy cares about:
// whether it runs one of Pi Plans' person-only verbs, names a protected place, edits files as a
// patch (Codex's apply_patch), or does something the policy cannot read (computed words, inline
// code, a shell fed on stdin). Pure: the real-path resolution is passed in.
// This file walks the parsed script (pipes, substitutions, assignments, redirections, aliases) and
// is the entry of dist/hook-shell.js; below it: runners (which program runs), effects (what a
// program does with its words), reading (the state, paths and cd), words (a shell word's text).
import { forEachChild, parse, type Assignment, type Command, type SyntaxNode, type Word } from 'unbash';
import { CommandContext, Finding, pathWord, Reading, shellString } from './reading';
import { argv } from './runners';
import { literal, writtenText } from './words';

export type { CommandContext, Finding } from './reading';

/** How deep `sh -c '…'` inside `sh -c '…'` is read before the rest counts as unknown. */
const MAX_DEPTH = 4;
/** A command longer than this is not parsed (its effect is unknown). */
export const MAX_COMMAND = 64 * 1024;
/** How long one command's reading may take: past it, the rest is of unknown effect (the hook must answer well inside its host's wait). */
const BUDGET_MS = 2000;

/** The reading ran out of its time budget. */
class Overrun extends Error {}

/**
 * Everything the policy must know about a terminal command. An empty list: nothing it cares
 * about (the command is judged by the plan's status alone).
 */
export function classifyCommand(source: string, ctx: CommandContext): Finding[] {
  const r: Reading = { ctx, deadline: Date.now() + BUDGET_MS, cwds: [ctx.cwd], findings: [], depth: 0, source, vars: {}, read };
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

/** `alias NAME='…'`: the alias's text is a command the shell may run later. */
function aliases(c: Command, r: Reading, text: string): void {
  for (const a of c.args) {
    const value = a.type === 'Assignment' ? (a.value.type === 'Word' ? literal(a.value, r.ctx.home) : undefined) : literal(a, r.ctx.home)?.replace(/^[^=]*=?/, '');
    if (value === undefined) r.findings.push({ kind: 'unknown', why: 'it defines an alias computed when it runs', command: text });
    else if (value) shellString(value, r);
  }
}
