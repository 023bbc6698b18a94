// `npm run demo`: the pi-plans CLI on the sample workspace in examples/ (read-only commands).
// The VS Code extension joins this command when it lands; until then the CLI is the product's face.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'dist', 'cli.js');
const root = path.join(here, '..', 'examples');
const steps = [
  ['list'],
  ['list', '--status', 'proposed', 'executing'],
  ['show', 'PLAN-3f9a1c2e'],
  ['show', 'PLAN-c81e5f70'],
  ['validate'],
];
for (const args of steps) {
  console.log(`\n$ pi-plans --root examples ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [cli, '--root', root, ...args], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = r.status ?? 1;
}
console.log(`\nTry your own: node dist/cli.js --root <workspace> list   (or: npx pi-plans ... after npm link)`);
