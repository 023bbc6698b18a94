// `npm run test:soak [-- --runs N --hogs K --suites integration,e2e]`: runs the integration and UI
// suites N times in a row (default 5) while K CPU-heavy processes (default 1: half of a 2-core
// machine) run beside them, and prints one line per run and a summary. Not part of `npm test`:
// it proves that the suites do not flake under load. Exits 1 if any run failed.
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    hogs: { type: 'string', default: '1' },
    suites: { type: 'string', default: 'integration,e2e' },
  },
});
const runs = Number(values.runs);
const hogCount = Number(values.hogs);
const SUITES = { integration: 'test/harness/runIntegration.mjs', e2e: 'test/harness/runE2e.mjs' };
const suites = values.suites.split(',').map((s) => {
  if (!SUITES[s]) throw new Error(`unknown suite ${s}: use ${Object.keys(SUITES).join(', ')}`);
  return s;
});
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(hogCount) || hogCount < 0) throw new Error('--runs takes a whole number >= 1, --hogs >= 0');

// A CPU hog: a child that spins until it is killed, or finds its parent gone.
const hogs = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', `for(;;){for(let i=0;i<3e8;i++);if(process.ppid!==${process.pid})process.exit(0)}`], { stdio: 'ignore' }),
);
const stopHogs = () => hogs.forEach((h) => h.kill('SIGKILL'));
/** The suite running now, in its own process group: a stop ends it and all it started. */
let current;
const stopSuite = () => {
  try {
    if (current?.pid) process.kill(-current.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
};
process.on('exit', () => {
  stopSuite();
  stopHogs();
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => process.exit(130));

/** Runs a suite without blocking this process (so a signal stops the soak at once); resolves with its exit code and output. */
function runSuite(file) {
  return new Promise((resolve) => {
    let out = '';
    current = spawn(process.execPath, [file], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    current.stdout.on('data', (d) => (out += d));
    current.stderr.on('data', (d) => (out += d));
    current.on('close', (status) => {
      current = undefined;
      resolve({ status, out });
    });
  });
}

spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
const results = [];
let streak = 0;
let best = 0;
for (let run = 1; run <= runs; run++) {
  for (const suite of suites) {
    const t0 = Date.now();
    const r = await runSuite(path.join(ROOT, SUITES[suite]));
    const out = r.out;
    const counts = [...out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].reduce((a, m) => [a[0] + Number(m[1]), a[1] + Number(m[2])], [0, 0]);
    const ok = r.status === 0;
    streak = ok ? streak + 1 : 0;
    best = Math.max(best, streak);
    results.push({ run, suite, ok, secs: (Date.now() - t0) / 1000, passed: counts[0], failed: counts[1] });
    console.log(`[soak] run ${run}/${runs} ${suite.padEnd(11)} ${ok ? 'green' : 'RED  '} ${counts[0]} passed, ${counts[1]} failed in ${((Date.now() - t0) / 1000).toFixed(0)} s (${hogCount} CPU hog${hogCount === 1 ? '' : 's'})`);
    if (!ok) {
      const failures = out.split('\n').filter((l) => /^\s+\d+\) |Error|timed out|failed/.test(l)).slice(0, 40);
      console.log(failures.map((l) => `[soak]   ${l}`).join('\n'));
    }
  }
}
const green = results.filter((r) => r.ok).length;
console.log(`\n[soak] ${green} of ${results.length} suite runs green; longest green streak ${best}.`);
console.log(`${green} passed, ${results.length - green} failed`);
process.exit(green === results.length ? 0 : 1);
