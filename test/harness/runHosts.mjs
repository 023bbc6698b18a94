// `npm run test:hosts`: Claude Code, Codex and Copilot CLI, the real hosts, against a scripted
// model, with Pi Plans' hooks and MCP server set up by `pi-plans setup`. Installs the pinned hosts
// on first use, builds dist/ (what the hooks run), runs test/hosts with mocha; exits with mocha's code.
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

execFileSync('bash', [path.join(ROOT, 'scripts/setup-hosts.sh')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
const mocha = path.join(ROOT, 'node_modules/mocha/bin/mocha.js');
const r = spawnSync(process.execPath, [mocha, '--no-config', '--reporter', path.join(ROOT, 'test/helpers/summaryReporter.cjs'), '--timeout', '180000', 'test/hosts/**/*.test.mjs'], { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
