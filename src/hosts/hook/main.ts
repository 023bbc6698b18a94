// dist/hook.js: `pi-plans hook` without the rest of the CLI. The bin (dist/bin.js) routes `hook`
// here before anything else loads: no commander, no store, no Markdown stack, only what one payload
// needs (the hook runs on every tool call an agent makes). The store's rare acts (marking a plan
// stalled, recording a collected step) load the full CLI bundle beside it, then.
import * as path from 'node:path';
import { HookIo, readStdin, runHookCommand } from './command';
import type { HeavyActs } from './run';

/** The store's acts from the full CLI bundle beside this one (dist/cli.js exports them). */
function heavyBeside(): Promise<HeavyActs> {
  if (process.env.PI_PLANS_HOOK_TRACE) process.stderr.write('pi-plans hook trace: loading dist/cli.js (the store)\n');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file beside this bundle, loaded at run time
  return Promise.resolve(require(path.join(__dirname, 'cli.js')) as HeavyActs);
}

/** Runs `hook …` from the bin's argv (the words after `hook`, with a --root given before it). */
export function main(argv: readonly string[], root: string | undefined): void {
  const io: HookIo = { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s), stdin: readStdin };
  runHookCommand(argv, root, io, heavyBeside).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      // Never a failure exit for a payload: Copilot CLI treats a failed preToolUse hook as a deny.
      process.stderr.write(`pi-plans hook: ${(e as Error).message}\n`);
      process.exitCode = 0;
    },
  );
}

if (require.main === module) main(process.argv.slice(2), undefined);
