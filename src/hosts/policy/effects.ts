// What a program that runs no other command does with its words: writes or only reads the paths
// they name, runs code given inline (awk, sed, git's --exec), runs a person's verb of Pi Plans' CLI,
// or edits files as a patch (Codex's apply_patch).
import type { Word } from 'unbash';
import { patchPaths } from './patch';
import { AWK_EFFECT, CLI_VALUED, GIT_READS, PERSON_VERBS, READERS, RECURSIVE_WRITERS, RG_RUNS, SED_EFFECT } from './programs';
import { ArgvOpts, linkTargets, pathWord, Reading, shellString } from './reading';
import { expand, literal } from './words';

/** An ordinary program: its words judged as paths; computed ones make a writer's effect unknown. */
export function programWords(prog: string, rest: readonly Word[], r: Reading, text: string, runsFile: boolean): void {
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

/** git's options that run a command: `rebase --exec`, `bisect run`, `submodule foreach`. */
export function gitRuns(rest: readonly Word[], r: Reading, text: string): void {
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

/** awk: its program is inline code; one that runs a command or writes a file is unknown. */
export function awk(rest: readonly Word[], r: Reading, text: string): void {
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
export function sed(rest: readonly Word[], r: Reading, text: string): void {
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

/** Pi Plans' own CLI: a person's verb (in any spelling the shell reads as one) is found; its other verbs are programs. */
export function cli(rest: readonly Word[], r: Reading, text: string): void {
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
export function applyPatch(rest: readonly Word[], r: Reading, text: string, o: ArgvOpts): void {
  const body = rest.length === 1 ? literal(rest[0], r.ctx.home) : rest.length === 0 ? o.heredoc : undefined;
  const paths = body === undefined ? undefined : patchPaths(body);
  if (!paths) return void r.findings.push({ kind: 'unknown', why: 'an apply_patch whose patch cannot be read', command: text });
  const resolved = r.cwds.flatMap((cwd) => paths.map((p) => r.ctx.resolve(cwd, p)));
  r.findings.push({ kind: 'edit', paths: [...new Set(resolved)], command: text });
}
