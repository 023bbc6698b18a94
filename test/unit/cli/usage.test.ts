// How the CLI answers about itself: its version, and a usage error that says what went wrong,
// what was probably meant, and where to read more, without burying that under the whole help.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';

const ROOT = path.resolve(__dirname, '../../..');

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe('pi-plans CLI: --version and usage errors (in-process)', () => {
  afterEach(() => {
    process.exitCode = 0;
  });

  it('--version and -V print the version (package.json\'s, run from source) and exit 0', async () => {
    const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) assert.deepEqual(await cli(flag), { code: 0, out: `${version}\n`, err: '' }, flag);
    assert.match((await cli('--help')).out, /^ {2}-V, --version +print the version$/m);
  });

  it('a mistyped command: exit 2, "Did you mean …?" and a pointer to --help, not the whole help', async () => {
    assert.deepEqual(await cli('lst'), { code: 2, out: '', err: "error: unknown command 'lst'\n(Did you mean list?)\nRun `pi-plans --help` for the commands and options.\n" });
    assert.deepEqual(await cli('valdate', '--json'), { code: 2, out: '', err: "error: unknown command 'valdate'\n(Did you mean validate?)\nRun `pi-plans --help` for the commands and options.\n" });
    // Nothing close: no suggestion, the pointer still.
    assert.deepEqual(await cli('frobnicate'), { code: 2, out: '', err: "error: unknown command 'frobnicate'\nRun `pi-plans --help` for the commands and options.\n" });
  });

  it('a usage error in a command points at that command\'s --help: a mistyped option (with its suggestion), a missing or an extra argument', async () => {
    assert.deepEqual(await cli('list', '--jsn'), { code: 2, out: '', err: "error: unknown option '--jsn'\n(Did you mean --json?)\nRun `pi-plans list --help` for its arguments and options.\n" });
    assert.deepEqual(await cli('show'), { code: 2, out: '', err: "error: missing required argument 'id'\nRun `pi-plans show --help` for its arguments and options.\n" });
    const extra = await cli('merge-driver', 'a', 'b', 'c', 'd', 'e');
    assert.equal(extra.code, 2);
    assert.match(extra.err, /^error: too many arguments for 'merge-driver'\. .*\nRun `pi-plans merge-driver --help` for its arguments and options\.\n$/);
  });

  it('--help still prints the whole help, on stdout, exit 0', async () => {
    const r = await cli('--help');
    assert.equal(r.code, 0);
    assert.equal(r.err, '');
    assert.match(r.out, /^Usage: pi-plans \[options\] \[command\]/);
    for (const c of ['list', 'show', 'validate', 'approve', 'mcp']) assert.match(r.out, new RegExp(`^ {2}${c}\\b`, 'm'), c);
  });
});
