// `npm run demo`: a real VS Code (code-server on 127.0.0.1) with Pi Plans installed from its
// .vsix on a fresh copy of the sample workspace in examples/, and the demo's sample agent
// (demo/sample-agent, never part of the extension) that plans, waits for your review and executes
// through the real tools. Sets up what it needs on first use (idempotent, with progress), prints
// the URL to open, and runs until it is stopped: Ctrl-C, SIGINT, SIGTERM or SIGHUP to this
// process, or its parent going away, stop code-server and remove every temporary folder.
//   --check      start, confirm the workbench answers, stop (used to test this script)
//   --no-setup   skip setup, build and packaging when the .vsix files exist (the UI tests use it)
// Environment: PI_PLANS_DEMO_PORT (default 8080; 0 for any free port), PI_PLANS_DEMO_STEP_MS
// (the agent's pause between steps, default 1500), PI_PLANS_DEMO_AUTOSTART=0 (do not start the agent).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, ROOT, startCodeServer } from '../test/harness/codeServer.mjs';
import { freshWorkspace } from '../test/harness/fixtures.mjs';

const check = process.argv.includes('--check');
const noSetup = process.argv.includes('--no-setup');
const step = (s) => console.log(`\n[demo] ${s}`);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const vsix = path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`);
const AGENT_DIR = path.join(ROOT, 'demo', 'sample-agent');
const agentVsix = path.join(ROOT, 'out', 'pi-plans-sample-agent.vsix');

// ---- stopping: whatever exists at the moment a stop is asked for is removed ----
let current; // the setup step running now
let ws; // the workspace copy
let starting; // code-server's start, once asked for
const abort = new AbortController();
let stopping;
function stop(code) {
  stopping ??= (async () => {
    abort.abort();
    current?.kill('SIGTERM');
    // A start under way notices the abort and removes what it made; a finished one is stopped.
    await starting?.then((server) => server.stop(), () => undefined).catch(() => undefined);
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`\n[demo] ${sig}: stopping VS Code and removing its temporary folders`);
    void stop(sig === 'SIGINT' ? 130 : 143);
  });
}
// A process manager or a terminal that goes away without a signal: its child notices the new parent.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) {
    console.log('\n[demo] the process that started the demo is gone: stopping');
    void stop(1);
  }
}, 500).unref();

/** Runs a setup step as a child this process can stop (a signal must not wait for a long build). */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    current = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, stdio: opts.quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
    current.on('error', reject);
    current.on('exit', (code, signal) => {
      current = undefined;
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} ${signal ? `stopped by ${signal}` : `exited ${code}`}`));
    });
  });
}

/** The sample agent as a .vsix (built with the repository's vsce, outside the extension's own package). */
async function packageAgent() {
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  await run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', agentVsix], { cwd: AGENT_DIR, quiet: true });
}

async function main() {
  if (!(noSetup && fs.existsSync(vsix) && fs.existsSync(agentVsix))) {
    step('setting up VS Code (code-server), Node 24 and chromium if needed');
    await run('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')]);
    step('building and packaging the extension and the sample agent');
    await run(process.execPath, [path.join(ROOT, 'scripts/build.mjs')]);
    await run(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { quiet: true });
    await packageAgent();
  }
  ws = freshWorkspace('demo');
  step(`starting VS Code on a copy of examples/ in ${ws}`);
  const autoStart = process.env.PI_PLANS_DEMO_AUTOSTART !== '0' && !check;
  starting = startCodeServer({
    vsix: [vsix, agentVsix],
    port: await freePort(Number(process.env.PI_PLANS_DEMO_PORT ?? 8080)),
    quiet: true,
    settings: { 'piPlansDemo.autoStart': autoStart, 'piPlansDemo.stepDelayMs': Number(process.env.PI_PLANS_DEMO_STEP_MS ?? 1500) },
    signal: abort.signal,
  });
  const server = await starting;
  const url = server.url(ws);
  console.log(`[demo] code-server pid ${server.pid}; temporary folders: ${[ws, ...server.created].join(' ')}`);

  if (check) {
    const r = await fetch(url);
    const html = await r.text();
    if (!r.ok || !html.includes('vscode')) {
      console.error(`the workbench did not answer at ${url} (${r.status})`);
      return stop(1);
    }
    console.log(`[demo] ok: the workbench answered at ${url}`);
    return stop(0);
  }

  console.log(`
Pi Plans ${pkg.version} is running in VS Code 1.139.1 (code-server 4.139.1) on 127.0.0.1.

  Open:  ${url}

  What you see: the sample agent (a scripted stand-in for Copilot) has drafted a plan and
  submitted it: the plan is open and Pi Plans asks for your review. Click Reject… and write
  what must change: the agent revises the plan and submits it again. Click Approve: it
  executes the plan step by step, and the status bar and the file follow.
  Run it again: "Pi Plans Demo: Run the Sample Agent" in the command palette.

  Also:  the status bar item (click it to open any plan), "Pi Plans: Show Log", and in a terminal
         node dist/cli.js --root ${ws} list
         node dist/cli.js --root ${ws} approve PLAN-7b2d4e61
         Copilot Chat (signed in) calls the same tools: ask it in agent mode to "plan this with #planCreate".

  Stop:  Ctrl-C (the workspace copy and VS Code's state are removed; examples/ is never changed).
`);
  setInterval(() => undefined, 1 << 30);
}

main().catch((e) => {
  if (abort.signal.aborted) return; // stopping already
  console.error(`[demo] ${e?.message ?? e}`);
  void stop(1);
});
