// The built CLI read through a pipe that closes early (`pi-plans show ID | head -1`): it ends
// quietly with its exit code, as `cat` does, never with an EPIPE stack trace.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'dist', 'bin.js');

describe('pi-plans through a pipe its reader closes early', function () {
  this.timeout(30_000);
  let root: string;
  before(() => {
    if (!fs.existsSync(BIN)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-pipe-'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    // Far more than a pipe holds (64 KiB): the CLI is still writing when `head` has gone.
    let text = '---\nid: PLAN-0000e919\ntitle: "Long"\nstatus: draft\nversion: 1\ncreated_at: 2026-11-01T00:00:00.000Z\nupdated_at: 2026-11-01T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n';
    for (let i = 1; i <= 900; i++) text += `${i}. [ ] S${String(i).padStart(3, '0')} Step number ${i} ${'x'.repeat(150)}\n`;
    fs.writeFileSync(path.join(root, '.pi', 'plans', 'PLAN-0000e919.md'), text);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('show … | head -1: the first line, nothing on stderr, exit 0', () => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const r = spawnSync('bash', ['-c', `${quote(process.execPath)} ${quote(BIN)} --root ${quote(root)} show PLAN-0000e919 | head -1; echo "cli exit: \${PIPESTATUS[0]}"`], { encoding: 'utf8' });
    assert.equal(r.stdout, 'PLAN-0000e919: Long\ncli exit: 0\n');
    assert.equal(r.stderr, '');
  });
});
