// `npm run test:integration`: mocha inside the real extension host of VS Code 1.139 (code-server),
// launched through @vscode/test-electron's runTests with an executable that runs code-server +
// headless chromium (vscode-shim.sh). Suites, each on a fresh copy of examples/:
//   dev   the extension in development mode (this folder)
//   multi a multi-root workspace (a copy of examples/ and an empty folder)
//   vsix  the extension installed from the .vsix `npm run package` builds
//   bench (only when named) prints the activation time for `npm run bench`
// Sets up Node 24, code-server and chromium on first use.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { ROOT } from './codeServer.mjs';
import { freshMultiRoot, freshWorkspace } from './fixtures.mjs';

execFileSync('bash', [path.join(ROOT, 'scripts/setup-vscode.sh')], { stdio: 'inherit' });
const shim = path.join(ROOT, 'test/harness/vscode-shim.sh');
const testsPath = path.join(ROOT, 'out/test/integration/index.js');
if (!fs.existsSync(testsPath)) throw new Error(`${testsPath} is missing: run npm run build first`);
const only = process.argv.slice(2);
let failed = 0;

async function suite(name, { devPath = ROOT, vsix, multiRoot = false } = {}) {
  if (only.length && !only.includes(name)) return;
  const multi = multiRoot ? freshMultiRoot(name) : undefined;
  const ws = multi ? multi.dir : freshWorkspace(name);
  const state = fs.mkdtempSync(path.join(os.tmpdir(), `pi-plans-state-${name}-`));
  console.log(`\n== integration suite "${name}" (workspace ${ws})`);
  try {
    await runTests({
      vscodeExecutablePath: shim,
      extensionDevelopmentPath: devPath,
      extensionTestsPath: testsPath,
      launchArgs: [multi ? multi.file : ws, `--user-data-dir=${path.join(state, 'user-data')}`, `--extensions-dir=${path.join(state, 'extensions')}`],
      extensionTestsEnv: { PI_PLANS_SUITE: name, ...(vsix ? { PI_PLANS_VSIX: vsix } : {}) },
    });
  } catch (e) {
    failed++;
    console.error(`suite "${name}" failed: ${e?.message ?? e}`);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(state, { recursive: true, force: true });
  }
}

await suite('dev');
await suite('multi', { multiRoot: true });
if (only.includes('bench')) await suite('bench');
if (!only.length || only.includes('vsix')) {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/package.mjs')], { stdio: 'inherit' });
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  await suite('vsix', { devPath: path.join(ROOT, 'test/integration/vsix-host'), vsix: path.join(ROOT, 'out', `${pkg.name}-${pkg.version}.vsix`) });
}
process.exit(failed ? 1 : 0);
