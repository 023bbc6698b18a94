// What every command of the CLI shares: the output sinks and the person at the terminal, the
// store of --root, the errors that set the exit code, and the options several commands take.
import { Command, Option } from 'commander';
import * as fs from 'node:fs';
import { DIGEST_PATTERN, PLAN_STATUSES, PlanError, ReviewComment } from '../core';
import * as path from 'node:path';
import { KeyUnlock, NodeApprovalKeys, openNodeStore, userConfigDir } from '../node';
import { PlanStore } from '../store';

/** Output sinks, and the person at the terminal, so tests can run the CLI in-process. */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  /**
   * Asks the person at the terminal and resolves to their answer; absent when there is no
   * terminal (a pipe, a script, an agent's tool call): nothing is then decided by asking.
   */
  ask?(question: string): Promise<string>;
  /** Asks the person at the terminal for a passphrase, not echoed; absent when there is no terminal. */
  secret?(prompt: string): Promise<string>;
}

/** What a command's registration is given: the program, its sinks, its version and the store of --root. */
export interface CliContext {
  readonly program: Command;
  readonly io: CliIo;
  /** The package version, as `--version` prints it. */
  readonly version: string;
  /** The --root option as given (not resolved). */
  root(): string;
  /** The store of --root; `index: false` for commands on one named plan (no index is built: the cost does not grow with the folder). */
  store(opts?: { index?: boolean }): Promise<PlanStore>;
  /** The person's approval keys, unlocked at this terminal where the key is protected (never without one). */
  keys(): NodeApprovalKeys;
}

/** The context of `program`: its --root is read when a command runs, not when it is registered. */
export function cliContext(program: Command, io: CliIo, version: string): CliContext {
  const root = () => program.opts<{ root: string }>().root;
  const store = async (opts: { index?: boolean } = {}): Promise<PlanStore> => {
    const dir = root();
    // A typo in a path is an error, not an empty list, and nothing is written for it.
    const st = await fs.promises.stat(dir).catch(() => undefined);
    if (!st) throw new UsageError(`--root ${dir} does not exist: pass the workspace folder that holds .pi/plans`);
    if (!st.isDirectory()) throw new UsageError(`--root ${dir} is not a folder: pass the workspace folder that holds .pi/plans`);
    return openNodeStore(dir, { index: opts.index, unlock: unlockAt(io) });
  };
  const keys = () => new NodeApprovalKeys(userConfigDir(), () => [path.resolve(root())], true, unlockAt(io));
  return { program, io, version, root, store, keys };
}

/** How a protected key is unlocked at this terminal: the person types its passphrase (undefined without a terminal). */
function unlockAt(io: CliIo): KeyUnlock | undefined {
  const secret = io.secret;
  return secret ? { passphrase: (why) => secret(`Passphrase of your approval key (to ${why}): `) } : undefined;
}

/**
 * Refuses a person's decision where no person can be asked (a pipe, a script, an agent's tool
 * call). Worded for the person, never as a recipe for a model: it names what the person does,
 * and tells an agent reading it to ask the user instead.
 */
export function needsPerson(what: string, where: string, agent: string): never {
  throw new PlanError('HUMAN_ONLY', `${what}, and there is no terminal here to ask one. ${where} An agent reading this: ${agent}`);
}

/**
 * A person's verb at a terminal (the caller made sure there is one): asks `question`, a [y/N];
 * where their approval key is protected, its passphrase too: what an agent typing into a
 * pseudo-terminal does not have. Anything but yes is `NotDone(no)`.
 */
export async function personConfirms(ctx: Pick<CliContext, 'io' | 'keys'>, question: string, no: string): Promise<void> {
  const answer = await ctx.io.ask!(question);
  if (!/^y(es)?$/i.test(answer.trim())) throw new NotDone(no);
  const keys = ctx.keys();
  if (keys.identity(false).protected) await keys.signer();
}

/**
 * Writes `items` (each through `map`) as `JSON.stringify(items, null, 2)` and a newline would, a
 * slice of them at a time: the list of 10,000 plans is 3.6 MB of JSON, which as one string, and
 * its bytes on their way out, was a tenth of the command's peak memory. A slice of 64 rows stays
 * a small string (256 made strings near V8's large-object size, whose pieces a young collection
 * copied at the end of a first list).
 */
export function outJsonArray<T>(io: CliIo, items: readonly T[], map: (item: T, i: number) => unknown = (x) => x, slice = 64): void {
  if (!items.length) return io.out('[]\n');
  for (let i = 0; i < items.length; i += slice) {
    const part = JSON.stringify(items.slice(i, i + slice).map((x, k) => map(x, i + k)), null, 2);
    // Without its own "[\n" and "\n]": the elements, indented as inside the whole array (a
    // slice shares the string's characters: written as they are, never joined into a copy).
    io.out(i ? ',\n' : '[\n');
    io.out(part.slice(2, -2));
  }
  io.out('\n]\n');
}

/** A wrong argument: exit code 2, like commander's own usage errors. */
export class UsageError extends Error {}

/** The person said no at the prompt: nothing was done (exit code 1, the message on stderr). */
export class NotDone extends Error {}

/** An option's parser for a whole number; anything else is a usage error that says what to pass. */
export function wholeNumber(usage: string): (v: string) => number {
  return (v) => {
    if (!/^\d+$/.test(v)) throw new UsageError(usage);
    return Number(v);
  };
}

/** An option's parser for a version as plans and messages write it, `v3` (or `V3`), or as a bare number, `3`. */
export function versionNumber(usage: string): (v: string) => number {
  const whole = wholeNumber(usage);
  return (v) => whole(v.replace(/^[vV]/, ''));
}

/** `--status <status...>`: only plans in these statuses. */
export function statusOption(): Option {
  return new Option('--status <status...>', 'only plans in these statuses').choices([...PLAN_STATUSES]);
}

/** `--seen-version <n>`: the version the person reviewed. */
export function seenVersionOption(): Option {
  return new Option('--seen-version <n>', 'the version you reviewed (default: the current one)').argParser((v) => {
    if (!/^\d+$/.test(v)) throw new PlanError('INVALID_INPUT', '--seen-version takes a whole number');
    return Number(v);
  });
}

/** `--comment S003="text"` or `--comment Risks="text"`, repeatable: a review comment on a step or a section. */
export function commentOption(): Option {
  return new Option('--comment <anchor=text>', 'a comment on a step (S003="…") or a section (Risks="…"); repeatable').argParser((v: string, list: ReviewComment[] = []) => {
    const at = v.indexOf('=');
    if (at < 1 || !v.slice(at + 1).trim()) throw new UsageError(`--comment takes ANCHOR=TEXT, a step id or section title, "=", then the comment (e.g. --comment S003="Split this step"); got "${v.slice(0, 80)}"`);
    return [...list, { anchor: v.slice(0, at).trim(), body: v.slice(at + 1) }];
  });
}

/** `--digest <digest>`: the content digest of the text a person reviewed (checked against the plan's). */
export function digestOption(): Option {
  return new Option('--digest <digest>', 'the content digest of the text you reviewed (`pi-plans show ID` prints it): refused when the plan is no longer that text').argParser((v) => {
    if (!DIGEST_PATTERN.test(v)) throw new UsageError(`--digest takes the digest \`pi-plans show\` prints: sha256: and 64 hex digits (got "${v.slice(0, 80)}")`);
    return v;
  });
}
