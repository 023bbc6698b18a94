// One command's reading (where its commands may run, what was found) and what a path word names:
// the protected places it reaches from each of those folders, which `cd` and `ln -s` move.
import type { Word } from 'unbash';
import { Protected, reach, Resolve } from './paths';
import { expand, GLOBS, literal } from './words';

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

/** The state of one reading: where commands may run, what was found, how deep. */
export interface Reading {
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
  /** Reads a script into the findings (commands.ts's `read`, given here so the programs' rules reach it without importing the file that imports them). */
  read: (source: string, r: Reading) => void;
}

/** How a command's stdin is fed. */
export interface ArgvOpts {
  stdin: boolean;
  heredoc?: string;
}

/** A string a shell runs (`sh -c '…'`, `eval`, an alias): read as a command itself. */
export function shellString(s: string, r: Reading): void {
  r.depth++;
  r.read(s, r);
  r.depth--;
}

/** Judges a path word (an argument, a redirection's target): a computed one is unknown where `writes`. */
export function pathWord(w: Word, r: Reading, text: string, writes: boolean, recursive = false): void {
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

/** `cd DIR`: later commands may run there too. */
export function changeDir(rest: readonly Word[], r: Reading, text: string): void {
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

/** `ln -s TARGET LINK`: a relative target is read from the link's folder, where the link will point. */
export function linkTargets(rest: readonly Word[], r: Reading, text: string): void {
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
