// `npm run demo`: a real VS Code (code-server on 127.0.0.1) with Pi Plans installed from its
// .vsix, on a fresh copy of the sample workspace in examples/. Sets up what it needs on first
// use (idempotent, with progress), prints the URL to open, and runs until Ctrl-C.
// `--check`: start, confirm the workbench answers, stop (used to test this script).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, ROOT, startCodeServer } from '../test/harness/codeServer.mjs';
import { freshWorkspace } from '../test/harness/fixtures.mjs';

const check = process.argv.includes('--check');
const step = (s) => console.log(`\n[demo] ${s}`);

step('setting up VS Code (code-server), Node 24 and chromium if needed');
execFileSync('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')], { stdio: 'inherit' });
step('building and packaging the extension');
execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const vsix = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);

const ws = freshWorkspace('demo');
step(`starting VS Code on a copy of examples/ in ${ws}`);
const server = await startCodeServer({ vsix, port: await freePort(Number(process.env.PI_PLANS_DEMO_PORT || 8080)), quiet: true });
const url = server.url(ws);
const stop = async () => {
  await server.stop();
  fs.rmSync(ws, { recursive: true, force: true });
};

if (check) {
  const r = await fetch(url);
  const html = await r.text();
  await stop();
  if (!r.ok || !html.includes('vscode')) {
    console.error(`the workbench did not answer at ${url} (${r.status})`);
    process.exit(1);
  }
  console.log(`[demo] ok: the workbench answered at ${url}`);
  process.exit(0);
}

console.log(`
Pi Plans ${pkg.version} is running in VS Code 1.139.1 (code-server 4.139.1) on 127.0.0.1.

  Open:  ${url}

  Try:   the status bar item "6 plans, 2 to review, 1 running" (click it to open a plan),
         "Pi Plans: Show Log" in the command palette, and, in a terminal,
         node dist/cli.js --root ${ws} list
         node dist/cli.js --root ${ws} approve PLAN-7b2d4e61
         (the status bar follows every change within a fraction of a second).
         Agent tools: Copilot Chat needs a GitHub sign-in; signed in, ask it in agent mode to
         "plan this with #planCreate" and approve from the notification.

  Stop:  Ctrl-C (the workspace copy is removed; examples/ is never changed).
`);
process.on('SIGINT', () => stop().then(() => process.exit(0)));
process.on('SIGTERM', () => stop().then(() => process.exit(0)));
setInterval(() => undefined, 1 << 30);
