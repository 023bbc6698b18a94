// The `pi-plans` CLI's entry: builds the program from the command groups under commands/ and runs it.
import { Command, Option } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isPlanError } from '../core';
import { CliIo, cliContext, NotDone, UsageError } from './cliContext';
import { registerCheckCommands } from './commands/checks';
import { registerDecisionCommands } from './commands/decisions';
import { registerDiffCommand } from './commands/diff';
import { registerGcCommand } from './commands/gc';
import { registerIntegrationCommands } from './commands/integration';
import { registerStatusCommands, registerUpkeepCommands } from './commands/lifecycle';
import { registerReadCommands } from './commands/read';
import { terminalAsk, terminalSecret } from '../node/ports/terminal';

export type { CliIo } from './cliContext';
/** The store's acts `pi-plans hook` (dist/hook.js) loads from this bundle when it needs them. */
export { addCollectedStep, approvalVerdict, markStalled, personUnlocks, protection } from '../hosts/hook/heavy';

/** The package version, set by the bundler (the CLI is built with esbuild). */
declare const __PI_PLANS_VERSION__: string | undefined;
const PKG_VERSION = typeof __PI_PLANS_VERSION__ === 'string' ? __PI_PLANS_VERSION__ : sourceVersion();

/** Run from source (tests, tsx), there is no bundler: the version is the repository's package.json. */
function sourceVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

const ask = terminalAsk();
const secret = terminalSecret();
const realIo: CliIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), ...(ask ? { ask } : {}), ...(secret ? { secret } : {}) };

/** Builds the `pi-plans` program. Exit codes: 0 ok, 1 refused or invalid, 2 usage. */
export function buildProgram(io: CliIo = realIo): Command {
  const program = new Command();
  program
    .name('pi-plans')
    .description('Read, validate and review the plans in .pi/plans of a workspace.')
    .option('--root <dir>', 'workspace folder that holds .pi/plans', process.cwd())
    .version(PKG_VERSION, '-V, --version', 'print the version')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();

  // The order of registration is the order `pi-plans --help` lists the commands in.
  const ctx = cliContext(program, io, PKG_VERSION);
  registerReadCommands(ctx); // list, show, validate
  registerDecisionCommands(ctx); // approve, confirm, key, trust, reject
  registerDiffCommand(ctx); // diff
  registerStatusCommands(ctx); // cancel, reopen, retry, resume, withdraw
  registerIntegrationCommands(ctx); // mcp, setup, merge-driver, git-setup, hook
  registerUpkeepCommands(ctx); // unlock, release, archive, clone
  registerCheckCommands(ctx); // verify, drift
  registerGcCommand(ctx); // gc

  // A usage error ends with commander's "Did you mean …?" and where to read more, not the whole
  // help: pages of help would push the error and the suggestion off the screen.
  for (const cmd of [program, ...program.commands]) {
    cmd.showHelpAfterError(cmd === program ? 'Run `pi-plans --help` for the commands and options.' : `Run \`pi-plans ${cmd.name()} --help\` for its arguments and options.`);
  }
  ownOptionsOnly(program);

  return program;
}

/**
 * The program's options are read before the command only (`pi-plans --version`, `pi-plans --root
 * DIR list`): after it, an option the command does not have is an error, never the program's.
 * Otherwise `pi-plans approve ID --version 2` printed the program's version, exited 0 and decided
 * nothing. `--root` is every command's option too (it always was accepted after the command), and
 * `--version` after a command is refused naming what was meant.
 */
function ownOptionsOnly(program: Command): void {
  program.enablePositionalOptions();
  for (const cmd of program.commands) {
    cmd.addOption(new Option('--root <dir>', 'workspace folder that holds .pi/plans (as before the command)'));
    const seen = cmd.options.some((o) => o.long === '--seen-version');
    cmd.addOption(
      new Option('-V, --version [n]')
        .hideHelp()
        .preset('')
        .argParser(() => {
          throw new UsageError(
            seen
              ? `\`${cmd.name()}\` has no --version: the version you reviewed is --seen-version <n> (e.g. pi-plans ${cmd.name()} PLAN-… --seen-version 2). Nothing was done.`
              : `\`${cmd.name()}\` has no --version: \`pi-plans --version\`, before any command, prints the program's version. Nothing was done.`,
          );
        }),
    );
  }
  // The command's --root, when given, is the one the command runs on.
  program.hook('preAction', (_program, action) => {
    const root = action.getOptionValue('root') as string | undefined;
    if (action !== program && root !== undefined) program.setOptionValue('root', root);
  });
}

/**
 * A reader that stops early (`pi-plans show ID | head -1`) closes the pipe: what is left to print
 * has no one to read it. The process ends quietly with its exit code, as `cat` does, instead of
 * an EPIPE stack trace.
 */
let pipeWatched = false;
function endQuietlyOnClosedPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(Number(process.exitCode ?? 0));
    });
  }
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = realIo): Promise<number> {
  if (io === realIo) endQuietlyOnClosedPipe();
  const program = buildProgram(io);
  process.exitCode = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (e) {
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) {
      return ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version' ? 0 : 2;
    }
    if (e instanceof UsageError) {
      io.err(`pi-plans: ${e.message}\n`);
      return 2;
    }
    if (e instanceof NotDone) {
      io.err(`${e.message}\n`);
      return 1;
    }
    if (isPlanError(e)) {
      io.err(`pi-plans: ${atTheTerminal(e.toLocatedString())}\n`);
      return 1;
    }
    io.err(`pi-plans: ${(e as Error).message}\n`);
    return 1;
  }
}

/**
 * The store's words for any face ("list the plans to find the right id") as the command that does
 * it at a terminal; agents read the same errors with their tool's name (src/tools).
 */
function atTheTerminal(message: string): string {
  return message.replace(/\blist the plans to find\b/g, 'run `pi-plans list` to find');
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
