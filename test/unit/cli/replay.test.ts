// Decisions that cannot be replayed: a person approves, withdraws, rejects; an agent writes the
// approved file's old bytes back (or the same bytes with a higher version number). The built CLI,
// with the person's acts at a terminal, and the record of decisions in the user's state folder.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { personSync } from '../../helpers/person.mjs';
import { CLI } from '../../helpers/terminal';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ID = 'PLAN-0000000a';
const PLAN = `---\nid: ${ID}\ntitle: "Fix the thing"\nstatus: proposed\nversion: 3\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-02T00:00:00.000Z\n---\n\n## Goal\nMake it work\n\n## Steps\n1. [ ] S001 first\n2. [ ] S002 second\n`;

describe('decisions that cannot be replayed (the record of decisions in the user\'s state folder)', function () {
  this.timeout(60_000);
  let root: string;
  let home: string;
  const env = () => ({ ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_STATE_HOME: path.join(home, 'state'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') });
  const planFile = () => path.join(root, '.pi', 'plans', `${ID}.md`);
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', root, ...args], { env: env(), encoding: 'utf8' });
  const person = (...args: string[]) => {
    const r = personSync(CLI, ['--root', root, ...args], { env: env() });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout}`);
    return r.stdout;
  };
  const approval = () => JSON.parse(cli('show', ID, '--json').stdout).approval as { state: string; reason?: string };

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-replay-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-replay-home-'));
    fs.mkdirSync(path.dirname(planFile()), { recursive: true });
    fs.writeFileSync(planFile(), PLAN);
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ name: 'Ana' }));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('withdrawn, then rejected: the approved file written back does not hold, nor with its version raised; the person approves again', () => {
    person('approve', ID);
    const approvedBytes = fs.readFileSync(planFile());
    assert.equal(approval().state, 'valid');
    person('withdraw', ID);
    person('reject', ID, '--feedback', 'Not this way');
    const after = /^version: (\d+)$/m.exec(fs.readFileSync(planFile(), 'utf8'))![1];
    // The agent writes the old bytes back.
    fs.writeFileSync(planFile(), approvedBytes);
    let a = approval();
    assert.equal(a.state, 'invalid');
    assert.match(a.reason!, new RegExp(`this file \\(v4\\) is older than your last decision on ${ID}: you rejected it at v${after}`));
    assert.match(cli('list').stdout, /APPROVAL NOT VALID/);
    // The same bytes with a version above the last decision's.
    fs.writeFileSync(planFile(), approvedBytes.toString().replace(/^version: \d+$/m, 'version: 99'));
    a = approval();
    assert.equal(a.state, 'invalid');
    assert.match(a.reason!, /a person withdrew its approval at v\d+ \(.*\), after this approval was made: it no longer holds/);
    // The person takes it back to review and approves it: valid again.
    person('withdraw', ID);
    person('approve', ID);
    assert.equal(approval().state, 'valid');
  });

  it('the record lives outside the workspace, one per workspace: another clone of the plan is judged by its own decisions', () => {
    person('approve', ID);
    const dir = path.join(home, 'state', 'pi-plans', 'decisions');
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1);
    const lines = fs.readFileSync(path.join(dir, files[0]), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.plan, l.decision, l.version]), [[ID, 'approve', 4]]);
    assert.match(lines[0].signature, /^[A-Za-z0-9_-]+$/);
    assert.ok(!fs.readdirSync(root, { recursive: true }).some((f) => String(f).includes('decisions')), 'nothing of it in the workspace');
    // A second workspace with the same plan, proposed: its own record is empty, and it is approved there on its own.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-replay-other-'));
    try {
      fs.mkdirSync(path.join(other, '.pi', 'plans'), { recursive: true });
      fs.writeFileSync(path.join(other, '.pi', 'plans', `${ID}.md`), PLAN);
      const r = personSync(CLI, ['--root', other, 'approve', ID], { env: env() });
      assert.equal(r.status, 0, r.stdout);
      assert.equal(fs.readdirSync(dir).length, 2);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
