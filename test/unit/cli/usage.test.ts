// How the CLI answers about itself: its version, and a usage error that says what went wrong,
// what was probably meant, and where to read more, without burying that under the whole help.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
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

  it('--version after a command is that command\'s unknown option, never the program\'s: approve, reject and confirm name --seen-version, exit 2, nothing decided', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-usage-'));
    try {
      const id = 'PLAN-0000a11c';
      fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
      const file = path.join(root, '.pi', 'plans', `${id}.md`);
      const text = `---\nid: ${id}\ntitle: Fix it\nstatus: proposed\nversion: 2\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nFix it\n\n## Steps\n1. [ ] S001 Do it\n`;
      fs.writeFileSync(file, text);
      for (const args of [['approve', id, '--version', '2'], ['reject', id, '--version', '2', '--feedback', 'x'], ['confirm', id, '--version', '2'], ['approve', id, '-V'], ['approve', id, '--version=2']]) {
        const r = await cli('--root', root, ...args);
        assert.equal(r.code, 2, args.join(' '));
        assert.equal(r.out, '', `${args.join(' ')}: no version printed`);
        assert.equal(r.err, `pi-plans: \`${args[0]}\` has no --version: the version you reviewed is --seen-version <n> (e.g. pi-plans ${args[0]} PLAN-… --seen-version 2). Nothing was done.\n`, args.join(' '));
      }
      assert.equal(fs.readFileSync(file, 'utf8'), text, 'the plan is untouched');
      // A command without --seen-version says where the program's version is.
      assert.deepEqual(await cli('list', '--version'), { code: 2, out: '', err: "pi-plans: `list` has no --version: `pi-plans --version`, before any command, prints the program's version. Nothing was done.\n" });
      // Any other option the command does not have is an error too, before or after --root.
      const bogus = await cli('approve', id, '--bogus', '--root', root);
      assert.equal(bogus.code, 2);
      assert.match(bogus.err, /^error: unknown option '--bogus'\n/);
      // --root after the command is still the command's workspace.
      const listed = await cli('list', '--json', '--root', root);
      assert.equal(listed.code, 0, listed.err);
      assert.deepEqual((JSON.parse(listed.out) as { id: string }[]).map((e) => e.id), [id]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('--help still prints the whole help, on stdout, exit 0', async () => {
    const r = await cli('--help');
    assert.equal(r.code, 0);
    assert.equal(r.err, '');
    assert.match(r.out, /^Usage: pi-plans \[options\] \[command\]/);
    for (const c of ['list', 'show', 'validate', 'approve', 'mcp']) assert.match(r.out, new RegExp(`^ {2}${c}\\b`, 'm'), c);
  });
});
