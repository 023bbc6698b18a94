// `npm run test:e2e` (and `npm run screenshots` with --screenshots): UI tests in a real browser.
// Sets up code-server and chromium on first use, packages the .vsix, runs test/e2e with mocha.
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { ROOT } from './codeServer.mjs';

execFileSync('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
const env = { ...process.env, ...(process.argv.includes('--screenshots') ? { PI_PLANS_SCREENSHOTS: '1' } : {}) };
const mocha = path.join(ROOT, 'node_modules/mocha/bin/mocha.js');
const r = spawnSync(process.execPath, [mocha, '--no-config', '--reporter', path.join(ROOT, 'test/helpers/summaryReporter.cjs'), '--timeout', '180000', 'test/e2e/**/*.test.mjs'], { cwd: ROOT, stdio: 'inherit', env });
process.exit(r.status ?? 1);
