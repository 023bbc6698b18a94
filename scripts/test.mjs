// `npm test`: every step and every suite, each run even when one before it failed, then one line
// summing the suites' own closing lines ("N passed, N failed") and an exit code that matches it.
// A step that fails without such a line (the build, the type check, the lint, a suite that could
// not start) counts as one failure. Each step's output streams through as it runs.
import { spawn } from 'node:child_process';

const ALL = ['build', 'typecheck', 'lint', 'setup:vscode', 'test:unit', 'test:hosts', 'test:integration', 'test:e2e'];
/** PI_PLANS_TEST_STEPS=test:unit,lint runs only those (in this order): for a quick local check. */
const STEPS = process.env.PI_PLANS_TEST_STEPS ? ALL.filter((s) => process.env.PI_PLANS_TEST_STEPS.split(',').includes(s)) : ALL;
const CLOSING = /^(\d+) passed, (\d+) failed$/;

/** Runs `npm run <script>`, its output passed through; resolves to its exit code and its closing lines' sums. */
function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['inherit', 'pipe', 'pipe'] });
    let passed = 0;
    let failed = 0;
    let lines = 0;
    let rest = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      rest += chunk.toString();
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        // eslint-disable-next-line no-control-regex -- colour codes around a reporter's line
        const m = CLOSING.exec(line.replace(/\u001b\[[0-9;]*m/g, '').trim());
        if (m) {
          passed += Number(m[1]);
          failed += Number(m[2]);
          lines++;
        }
      }
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), passed, failed, lines }));
  });
}

let passed = 0;
let failed = 0;
const failedSteps = [];
for (const step of STEPS) {
  const r = await run(step);
  passed += r.passed;
  failed += r.failed;
  if (r.code !== 0) {
    failedSteps.push(step);
    if (r.failed === 0) failed += 1;
  }
}
if (failedSteps.length) process.stdout.write(`\nnpm test: failed: ${failedSteps.join(', ')} (each step ran)\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
