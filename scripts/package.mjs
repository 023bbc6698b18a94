// `npm run package`: builds the production bundle and a .vsix with @vscode/vsce (no node_modules:
// everything is in dist/). Prints the file and its size. Output: out/pi-plans-<version>.vsix.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.join(root, 'out', `${pkg.name}-${pkg.version}.vsix`);
fs.mkdirSync(path.dirname(out), { recursive: true });
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
// Written beside the target and renamed over it: a run stopped half-way (the demo stopped during
// setup) or a test installing the .vsix meanwhile never sees a torn file.
const part = `${out}.${process.pid}.part`;
try {
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', part], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.renameSync(part, out);
} finally {
  fs.rmSync(part, { force: true });
}
const files = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
// Demo fixtures (the sample agent in demo/) are never shipped: .vscodeignore leaves them out.
const stray = files.filter((f) => f.startsWith('demo/') || f.startsWith('examples/'));
if (stray.length) {
  fs.rmSync(out, { force: true });
  throw new Error(`the .vsix must not contain demo fixtures: ${stray.join(', ')}; add them to .vscodeignore`);
}
console.log(`${path.relative(root, out)}: ${(fs.statSync(out).size / 1024).toFixed(0)} KB, ${files.length} files: ${files.join(', ')}`);
