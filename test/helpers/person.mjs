// A person at a terminal, for tests that need a person's decision as the setting of their scene:
// the CLI run in a pseudo-terminal (util-linux `script`), with what the person types given to it
// in advance (the terminal holds it until the CLI asks). A pipe is not a terminal: `pi-plans
// approve` run plainly, as an agent's command, approves nothing.
import { spawnSync } from 'node:child_process';

const quote = (a) => `'${String(a).replace(/'/g, `'\\''`)}'`;

/** The shell command `script -qec` runs: this Node on the CLI with its arguments, each word quoted. */
export const terminalCommand = (cli, args) => [process.execPath, cli, ...args].map(quote).join(' ');

/**
 * Runs `node <cli> ...args` in a pseudo-terminal and types `input` (by default a "y" and Enter).
 * Returns what spawnSync returns, with everything the terminal showed as `stdout`; throws, with
 * the screen, when the command fails and `check` is on.
 */
export function atTerminalSync(cli, args, { env = process.env, cwd, input = 'y\n', check = true } = {}) {
  const r = spawnSync('script', ['-qec', terminalCommand(cli, args), '/dev/null'], { env, cwd, input, encoding: 'utf8', timeout: 60_000 });
  if (check && r.status !== 0) throw new Error(`${args.join(' ')} at a terminal exited ${r.status}:\n${r.stdout}${r.stderr ?? ''}`);
  return r;
}

/** The digest `pi-plans show` printed, in a CLI's output. */
export const digestIn = (shown) => /^digest: (sha256:[0-9a-f]{64})$/m.exec(shown)[1];

/**
 * The same, never throwing, in spawnSync's shape for tests that check a refusal too: the screen is
 * both `stdout` and `stderr` (a terminal shows both).
 */
export function personSync(cli, args, opts = {}) {
  const r = atTerminalSync(cli, args, { ...opts, check: false });
  return { status: r.status, stdout: r.stdout, stderr: r.stdout };
}
