// A "VS Code executable" for @vscode/test-electron's runTests: turns its arguments
// (--extensionDevelopmentPath=, --extensionTestsPath=, --user-data-dir=, --extensions-dir=, folder)
// into a code-server + headless chromium run, and exits with the extension host's code.
import { format } from 'node:util';
import { consoleText, NOISE, startBrowser, startCodeServer } from './codeServer.mjs';

const args = process.argv.slice(2);
const get = (name) => args.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
const folder = args.filter((a) => !a.startsWith('--')).at(-1);
const [testsPath] = get('extensionTestsPath');
const devPaths = get('extensionDevelopmentPath');
const [extensionsDir] = get('extensions-dir');
const timeoutMs = Number(process.env.PI_PLANS_TEST_TIMEOUT_MS || 300_000);
if (!folder || !testsPath) {
  console.error('usage: vscode-shim <folder> --extensionTestsPath=... --extensionDevelopmentPath=...');
  process.exit(2);
}

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PI_PLANS_') || k === 'CI'));
const server = await startCodeServer({ extensionsDir, vsix: process.env.PI_PLANS_VSIX || undefined, testDriver: true });
const browser = await startBrowser();
let finish;
const exited = new Promise((r) => (finish = r));
await browser.page.exposeFunction('codeAutomationExit', (code) => finish(Number(code)));
// The workbench's console carries every log; the test runner marks its own lines (MARK in
// test/integration/helpers.ts). Only those are printed, unless PI_PLANS_VERBOSE is set.
const MARK = '\u200b[pi-plans-test] ';
browser.page.on('console', async (msg) => {
  const raw = msg.text();
  const at = raw.indexOf(MARK);
  if (at >= 0) {
    const values = await Promise.all(msg.args().map((a) => a.jsonValue().catch(() => undefined)));
    const text = values.map((v) => (typeof v === 'string' ? v : format('%o', v))).join(' ');
    const i = text.indexOf(MARK);
    process.stdout.write(`${i >= 0 ? text.slice(i + MARK.length) : raw.slice(at + MARK.length)}\n`);
  } else if (process.env.PI_PLANS_VERBOSE) {
    const t = consoleText(msg);
    if (t && !NOISE.test(t)) process.stdout.write(`[workbench] ${t}\n`);
  }
});
const payload = [
  ...devPaths.map((p) => ['extensionDevelopmentPath', server.remote(p)]),
  ['extensionTestsPath', server.remote(testsPath)],
  ['extensionEnvironment', JSON.stringify(env)],
];
const timer = setTimeout(() => {
  console.error(`Timed out after ${timeoutMs} ms waiting for the extension host to finish the tests.`);
  finish(1);
}, timeoutMs);
let code = 1;
try {
  await browser.page.goto(server.url(folder, payload));
  code = await exited;
} catch (e) {
  console.error(String(e?.stack ?? e));
} finally {
  clearTimeout(timer);
  await browser.stop();
  await server.stop();
}
process.exit(code);
