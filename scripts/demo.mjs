// `npm run demo`: a real VS Code (code-server on 127.0.0.1) with Pi Plans installed from its
// .vsix on a fresh copy of the sample workspace in examples/, and the demo's sample agent
// (demo/sample-agent, never part of the extension) that plans, waits for your review and executes
// through the real tools. Sets up what it needs on first use (idempotent, with progress), prints
// the URL to open, and runs until it is stopped: Ctrl-C, SIGINT, SIGTERM or SIGHUP to this
// process, or its parent going away, stop code-server and remove every temporary folder.
//   --check      start, confirm the workbench answers, stop (used to test this script)
//   --no-setup   skip setup, build and packaging when out/pi-plans-<version>.vsix exists (the UI
//                tests use it); the sample agent is packaged when its .vsix is missing or older
//                than its files
// Environment: PI_PLANS_DEMO_PORT (default 8080; 0 for any free port), PI_PLANS_DEMO_STEP_MS
// (the agent's pause between steps, default 1500), PI_PLANS_DEMO_AUTOSTART=0 (do not start the agent).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, ROOT, sampleApprovers, startCodeServer } from '../test/harness/codeServer.mjs';
import { freshWorkspace, sampleRepo } from '../test/harness/fixtures.mjs';

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
// The setup steps' own temporary files (mktemp, npm, vsce) go here, so a stop removes them too.
let setupTmp;
let partial; // the sample agent's .vsix while it is written
const abort = new AbortController();
let stopping;
function stop(code) {
  stopping ??= (async () => {
    abort.abort();
    if (current) await killTree(current.pid);
    // A start under way notices the abort and removes what it made; a finished one is stopped.
    await starting?.then((server) => server.stop(), () => undefined).catch(() => undefined);
    for (const d of [ws, setupTmp, partial]) if (d) fs.rmSync(d, { recursive: true, force: true });
    // A packaging step stopped half-way leaves its `<name>.<pid>.part` in out/ (never the .vsix itself).
    for (const f of fs.existsSync(path.dirname(vsix)) ? fs.readdirSync(path.dirname(vsix)) : []) {
      const pid = /\.(\d+)\.part$/.exec(f)?.[1];
      if (pid && parentOf(Number(pid)) === undefined) fs.rmSync(path.join(path.dirname(vsix), f), { force: true });
    }
    process.exit(code);
  })();
  return stopping;
}
/** Says something while stopping; a terminal that went away (SIGHUP) must not stop the cleanup. */
function say(text) {
  try {
    console.log(text);
  } catch {
    /* no terminal any more */
  }
}
for (const s of [process.stdout, process.stderr]) s.on('error', () => undefined);
const SIGNAL_EXIT = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
for (const sig of Object.keys(SIGNAL_EXIT)) {
  process.on(sig, () => {
    say(`\n[demo] ${sig}: stopping VS Code and removing its temporary folders`);
    void stop(SIGNAL_EXIT[sig]);
  });
}
process.on('uncaughtException', (e) => {
  say(`[demo] ${e?.stack ?? e}`);
  void stop(1);
});
// A process manager or a terminal that goes away without a signal: its child notices the new
// parent. `npm run demo` starts this as `sh -c "exec node …"` (the shell becomes this process, so
// a signal npm passes on arrives here); other runners may keep a shell between: the chain of
// runners above it (shells running a command, npm, npx…) is watched.
const ancestry = runnerChain();
setInterval(() => {
  if (!ancestry.every(([child, parent]) => (child === process.pid ? process.ppid : parentOf(child)) === parent)) {
    say('\n[demo] the process that started the demo is gone: stopping');
    void stop(1);
  }
}, 500).unref();

/** The parent of a process (from /proc), or undefined when it has ended. */
function parentOf(pid) {
  try {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

/** Whether a process only runs another command (`sh -c …`, npm, npx, yarn, pnpm): its parent started the demo too. */
function isRunner(pid) {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (/(^|\/)(ba|da)?sh$/.test(argv[0]) && argv[1] === '-c') return true;
    return argv.slice(0, 2).some((a) => /(^|\/)(npm|npx|yarn|pnpm)(-cli\.js|\.js|\.cjs)?$/.test(a));
  } catch {
    return false;
  }
}

/** [child, parent] links from this process up through its runners to the first process that is not one. */
function runnerChain() {
  const links = [[process.pid, process.ppid]];
  for (let p = process.ppid; links.length < 6 && p > 1 && isRunner(p); ) {
    const up = parentOf(p);
    if (!up) break;
    links.push([p, up]);
    p = up;
  }
  return links;
}

/** The process ids under `pid` (children, grandchildren…), from /proc. */
function descendants(pid) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      /* ended meanwhile */
    }
  }
  const out = [];
  for (let i = 0, todo = [pid]; i < todo.length; i++) {
    for (const c of children.get(todo[i]) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

/**
 * Stops a setup step and everything it started (bash -> npm -> node …). They share this process's
 * group (a terminal's Ctrl-C and sudo's password prompt need that), so they are found by parentage:
 * frozen first (SIGSTOP, again for whatever was forked meanwhile), so none can start another
 * process or be orphaned out of reach, then killed. A half-done step is redone by the next run.
 */
async function killTree(pid) {
  const all = new Set();
  for (let round = 0; round < 20; round++) {
    const found = [pid, ...descendants(pid)].filter((p) => !all.has(p));
    if (!found.length) break;
    for (const p of found) {
      all.add(p);
      try {
        process.kill(p, 'SIGSTOP');
      } catch {
        /* gone */
      }
    }
  }
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  const end = Date.now() + 5000;
  while ([...all].some((p) => parentOf(p) !== undefined) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

/** Runs a setup step as a child this process can stop (a signal must not wait for a long build). */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    if (abort.signal.aborted) return reject(new Error('stopped'));
    setupTmp ??= fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-demo-setup-'));
    const env = { ...process.env, TMPDIR: setupTmp };
    current = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env, stdio: opts.quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
    current.on('error', reject);
    current.on('exit', (code, signal) => {
      current = undefined;
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} ${signal ? `stopped by ${signal}` : `exited ${code}`}`));
    });
  });
}

/** The newest modification time of the files in a folder. */
const newest = (dir) => Math.max(...fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => fs.statSync(path.join(dir, e.name)).mtimeMs));

/**
 * The sample agent as a .vsix, built with the repository's vsce beside (never inside) the
 * extension's own package; written under a temp name and renamed, so a stop leaves no torn file.
 */
async function packageAgent() {
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  partial = `${agentVsix}.${process.pid}.part`;
  try {
    await run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', partial], { cwd: AGENT_DIR, quiet: true });
    fs.renameSync(partial, agentVsix);
  } finally {
    fs.rmSync(partial, { force: true });
    partial = undefined;
  }
}

async function main() {
  if (!(noSetup && fs.existsSync(vsix))) {
    step('setting up VS Code (code-server), Node 24 and chromium if needed');
    await run('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')]);
    step('building and packaging the extension and the sample agent');
    await run(process.execPath, [path.join(ROOT, 'scripts/build.mjs')]);
    await run(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { quiet: true });
    await packageAgent();
  } else if (!fs.existsSync(agentVsix) || fs.statSync(agentVsix).mtimeMs < newest(AGENT_DIR)) {
    step('packaging the sample agent');
    await packageAgent();
  }
  if (setupTmp) fs.rmSync(setupTmp, { recursive: true, force: true });
  setupTmp = undefined;
  // A git repository with a small service: the sample agent changes it step by step.
  ws = sampleRepo(freshWorkspace('demo'));
  step(`starting VS Code on a copy of examples/ in ${ws}`);
  const autoStart = process.env.PI_PLANS_DEMO_AUTOSTART !== '0' && !check;
  const stepMs = Number(process.env.PI_PLANS_DEMO_STEP_MS || 1500);
  if (!Number.isFinite(stepMs) || stepMs < 0) throw new Error(`PI_PLANS_DEMO_STEP_MS must be a number of milliseconds, not "${process.env.PI_PLANS_DEMO_STEP_MS}"`);
  starting = startCodeServer({
    vsix: [vsix, agentVsix],
    port: await freePort(Number(process.env.PI_PLANS_DEMO_PORT ?? 8080)),
    quiet: true,
    // No Welcome tab, no animations, no tips (startCodeServer's base settings); no empty Chat
    // panel beside the plan (Copilot cannot sign in here); the sample agent starts once.
    settings: { 'workbench.secondarySideBar.defaultVisibility': 'hidden', 'piPlansDemo.autoStart': autoStart, 'piPlansDemo.stepDelayMs': stepMs },
    // You approve under your login name; the sample reviewer who approved the sample's running plan is trusted.
    userConfig: { trustedApprovers: sampleApprovers() },
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

  What you see: ${autoStart ? `the sample agent (a scripted stand-in for Copilot, installed only into this demo)
  drafts a plan through the real Pi Plans tools and submits it: the plan opens and Pi Plans
  asks for your review.` : 'the sample workspace (PI_PLANS_DEMO_AUTOSTART=0: the sample agent waits for you).'}
    Reject…   write what must change: the agent adds a step from your feedback and submits again.
    Approve   it executes the plan step by step with notes; the status bar and the file follow.
  Its log (every tool call): click "Sample agent" in the status bar. Run it again (a new plan):
  the command palette, "Pi Plans Demo: Run the Sample Agent".

  Also:  the status bar item (click it: what needs your attention first), "Pi Plans: Show Log",
         and in a terminal
           node dist/cli.js --root ${ws} list
           node dist/cli.js --root ${ws} approve PLAN-7b2d4e61
         Copilot Chat (signed in) calls the same tools: ask it in agent mode to "plan this with #planCreate".

  Stop:  Ctrl-C here, or SIGINT, SIGTERM or SIGHUP to process ${process.pid}, or its parent going
         away: VS Code stops and the workspace copy and its state are removed (examples/ is never changed).
`);
  setInterval(() => undefined, 1 << 30);
}

main().catch((e) => {
  if (abort.signal.aborted) return; // stopping already
  console.error(`[demo] ${e?.message ?? e}`);
  void stop(1);
});
