// `npm run test:e2e` (and `npm run screenshots` with --screenshots): UI tests in a real browser.
// Sets up code-server and chromium on first use, packages the .vsix, runs test/e2e with mocha.
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './codeServer.mjs';

execFileSync('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
const mocha = path.join(ROOT, 'node_modules/mocha/bin/mocha.js');
// --screenshots: the whole UI run once per theme, writing the README's pictures (name-dark.png, name-light.png).
const runs = process.argv.includes('--screenshots') ? [{ PI_PLANS_SCREENSHOTS: '1', PI_PLANS_THEME: 'dark' }, { PI_PLANS_SCREENSHOTS: '1', PI_PLANS_THEME: 'light' }] : [{}];
let status = 0;
for (const extra of runs) {
  const r = spawnSync(process.execPath, [mocha, '--no-config', '--reporter', path.join(ROOT, 'test/helpers/summaryReporter.cjs'), '--timeout', '180000', 'test/e2e/**/*.test.mjs'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...extra } });
  status ||= r.status ?? 1;
}
process.exit(status);
