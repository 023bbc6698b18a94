// dist/bin.js, the `pi-plans` command: `hook` goes to the small bundle (dist/hook.js) before
// anything else is loaded, since agents run it on every tool call; everything else to the CLI
// (dist/cli.js). Nothing is imported here: this file is what every start parses.

/** Where `hook` sits in argv (after an optional `--root DIR`), or -1. */
function hookAt(args: readonly string[]): number {
  let i = 0;
  if (args[0] === '--root' && args.length > 1) i = 2;
  else if (args[0]?.startsWith('--root=')) i = 1;
  return args[i] === 'hook' ? i : -1;
}

const args = process.argv.slice(2);
const at = hookAt(args);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at run time, beside this file
const load = (file: string) => require(`${__dirname}/${file}`);
if (at >= 0) {
  const root = at === 2 ? args[1] : at === 1 ? args[0].slice('--root='.length) : undefined;
  (load('hook.js') as { main(argv: readonly string[], root: string | undefined): void }).main(args.slice(at + 1), root);
} else {
  (load('cli.js') as { runCli(argv: string[]): Promise<number> }).runCli(args).then((code) => {
    process.exitCode = code;
  });
}
