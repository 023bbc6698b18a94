// dist/hook.js: `pi-plans hook` without the rest of the CLI. The bin (dist/bin.js) routes `hook`
// here before anything else loads: no commander, no store, no Markdown stack, only what one payload
// needs (the hook runs on every tool call an agent makes). The store's rare acts (checking an
// approval, marking a plan stalled, recording a collected step) load the full CLI bundle beside it.
//
// It never lets a tool call through by failing: an error it did not expect, or a payload it has not
// answered within WATCHDOG_MS (the hosts wait 30 s), denies a PreToolUse with exit code 2 (which
// every host reads as a block) and the reason on stderr; any other event is let go.
import * as path from 'node:path';
import { terminalAsk } from '../../node/ports/terminal';
import { HookIo, readStdin, runHookCommand } from './command';
import type { HeavyActs, HookOptions } from './run';

/** Well inside the 30 s each host is told to wait (setup's HOOK_TIMEOUT). */
const WATCHDOG_MS = 20_000;

/** The store's acts from the full CLI bundle beside this one (dist/cli.js exports them). */
function heavyBeside(): Promise<HeavyActs> {
  if (process.env.PI_PLANS_HOOK_TRACE) process.stderr.write('pi-plans hook trace: loading dist/cli.js (the store)\n');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file beside this bundle, loaded at run time
  return Promise.resolve(require(path.join(__dirname, 'cli.js')) as HeavyActs);
}

/** Loads a bundle beside this one (the bin's loader, with its code cache), or plainly. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file beside this bundle, loaded at run time
const plainLoad = (name: string): unknown => require(path.join(__dirname, name));

/** Whether a payload's text is a PreToolUse (either spelling), read without trusting it. */
function isPreToolUse(text: string): boolean {
  try {
    const p = JSON.parse(text) as Record<string, unknown>;
    return p.hook_event_name === 'PreToolUse' || (p.hook_event_name === undefined && p.toolName !== undefined && p.toolResult === undefined);
  } catch {
    return false;
  }
}

/** Runs `hook …` from the bin's argv (the words after `hook`, with a --root given before it). */
export function main(argv: readonly string[], root: string | undefined, load: (name: string) => unknown = plainLoad): void {
  // The shell parser beside this bundle (dist/hook-shell.js), loaded only for a shell command.
  const shellBeside: HookOptions['shell'] = () => load('hook-shell.js') as ReturnType<HookOptions['shell']>;
  let payload = '';
  let done = false;
  const ask = terminalAsk();
  const fail = (why: string) => {
    if (done) return;
    done = true;
    const pre = isPreToolUse(payload) || argv.some((a, i) => a === '--event' && /^pre_?tool_?use$/i.test(argv[i + 1] ?? ''));
    process.stderr.write(`pi-plans hook: ${why}${pre ? '; this tool call is denied (a session bound to a plan runs nothing the hook could not check): run pi-plans hook status, and tell the person' : ''}\n`);
    process.exitCode = pre ? 2 : 0;
    if (pre) process.exit(2);
  };
  const io: HookIo = {
    out: (s) => void process.stdout.write(s),
    err: (s) => void process.stderr.write(s),
    stdin: async () => {
      payload = await readStdin();
      if (payload) setTimeout(() => fail(`it did not answer within ${WATCHDOG_MS / 1000} s`), WATCHDOG_MS).unref();
      return payload;
    },
    ...(ask ? { ask } : {}),
  };
  runHookCommand(argv, root, io, heavyBeside, shellBeside).then(
    (code) => {
      done = true;
      process.exitCode = code;
    },
    (e: unknown) => fail((e as Error).message ?? String(e)),
  );
}

if (require.main === module) main(process.argv.slice(2), undefined);
