// `npm run pack:cli`: the CLI's npm package (packages/pi-plans) as the tarball `npm publish` would
// upload, out/pi-plans-<version>.tgz; `npm install -g ./out/pi-plans-<version>.tgz` installs it.
// This is how to install the command from a clone until the package is on the npm registry.
// `--destination DIR` writes the tarball into DIR instead (the package test does).
// The package folder is packed from a copy in a temporary folder (its prepack builds the bundle
// there, its postpack removes it): runs side by side never build into the same dist/, and nothing
// is left in packages/pi-plans.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packageDir = path.join(root, 'packages', 'pi-plans');
const buildScript = path.join(root, 'scripts', 'build.mjs');
const flag = process.argv.indexOf('--destination');
if (flag >= 0 && !process.argv[flag + 1]) {
  console.error('pack-cli: --destination takes a folder');
  process.exit(2);
}
const destination = path.resolve(flag >= 0 ? process.argv[flag + 1] : path.join(root, 'out'));

const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
const name = `${manifest.name}-${manifest.version}.tgz`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-pack-'));
try {
  // The folder as committed (not a dist/ someone built), its prepack naming the build script by absolute path.
  const copy = path.join(tmp, 'package');
  fs.cpSync(packageDir, copy, { recursive: true, filter: (src) => path.relative(packageDir, src).split(path.sep)[0] !== 'dist' });
  const prepack = manifest.scripts.prepack.replace('../../scripts/build.mjs', JSON.stringify(buildScript));
  fs.writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ ...manifest, scripts: { ...manifest.scripts, prepack } }, null, 2));
  const windows = process.platform === 'win32';
  execFileSync(windows ? 'npm.cmd' : 'npm', ['pack', '--pack-destination', tmp, '--no-audit', '--no-fund', '--loglevel', 'warn'], { cwd: copy, stdio: ['ignore', 'ignore', 'inherit'], shell: windows });
  fs.mkdirSync(destination, { recursive: true });
  // Written beside the target and renamed over it: an install reading it meanwhile never sees a torn file.
  const target = path.join(destination, name);
  const part = `${target}.${process.pid}.part`;
  fs.copyFileSync(path.join(tmp, name), part);
  fs.renameSync(part, target);
  const shown = path.relative(process.cwd(), target) || target;
  const local = shown.startsWith('.') || path.isAbsolute(shown) ? shown : `./${shown}`;
  console.log(`${shown}: ${(fs.statSync(target).size / 1024).toFixed(0)} KB. Install it with: npm install -g ${local}   (then: pi-plans --version)`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
