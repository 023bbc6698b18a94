// pi-plans verify, show and drift run for real (issue 30): the built CLI (dist/cli.js) in temporary
// git repositories, the machine's git and shell. A check passing and failing (the exit code CI
// reads), a plan approved at the terminal whose target a pulled commit changes, acknowledgement,
// and the hook's context summary naming the drift.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { summary } from '../../../src/hosts/policy/decide';
import { readPlanFacts } from '../../../src/hosts/hook/workspace';
import { atTerminalSync } from '../../helpers/person.mjs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const ID = 'PLAN-c11e0001';
const PLAN = `---\nid: ${ID}\ntitle: "Health"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 2\n---\n\n## Goal\nA health endpoint\n\n## Steps\n1. [ ] S001 Change the handler (edit: modify → src/health.ts)\n   verify: grep -q ok src/health.ts && echo handler ok\n2. [ ] S002 Run the docs check\n   verify: echo docs missing; exit 2\n`;

describe('pi-plans verify, show and drift (real repositories, the built CLI)', function () {
  this.timeout(120_000);
  let tmp: string;
  let upstream: string;
  let dir: string;

  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', dir, ...args], { cwd: dir, encoding: 'utf8', env: process.env });
  const config = (cwd: string) => {
    git(cwd, 'config', 'user.email', 'test@example.com');
    git(cwd, 'config', 'user.name', 'Test');
    git(cwd, 'config', 'commit.gpgsign', 'false');
  };
  const approve = () => {
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(cli('show', ID).stdout)?.[1];
    assert.ok(digest);
    atTerminalSync(CLI, ['--root', dir, 'approve', ID, '--digest', digest], { cwd: dir });
  };

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cli-verify-'));
    upstream = path.join(tmp, 'upstream');
    dir = path.join(tmp, 'work');
    fs.mkdirSync(path.join(upstream, 'src'), { recursive: true });
    git(upstream, 'init', '-q', '-b', 'main');
    config(upstream);
    fs.writeFileSync(path.join(upstream, 'src', 'health.ts'), 'export const ok = 1;\n');
    git(upstream, 'add', '-A');
    git(upstream, 'commit', '-q', '-m', 'start');
    git(tmp, 'clone', '-q', upstream, dir);
    config(dir);
    fs.mkdirSync(path.join(dir, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.pi', 'plans', `${ID}.md`), PLAN);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('verify refuses an unapproved plan; once approved it runs the checks, prints their output, records them and exits 1 when one fails', () => {
    const refused = cli('verify', ID);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /is proposed: only the checks of a plan a person approved run/);
    assert.doesNotMatch(refused.stdout, /handler ok/);
    approve();
    const all = cli('verify', ID);
    assert.equal(all.status, 1, all.stderr);
    assert.match(all.stdout, /S001: \$ grep -q ok src\/health\.ts && echo handler ok\nhandler ok\n/);
    assert.match(all.stdout, /S001: passed · exit 0 · /);
    assert.match(all.stdout, /S002: failed · exit 2 · /);
    assert.match(all.stdout, /1 of 2 checks failed: S002\./);
    const one = cli('verify', ID, 'S001', '--quiet');
    assert.equal(one.status, 0, one.stderr);
    assert.doesNotMatch(one.stdout, /^handler ok$/m);
    assert.match(one.stdout, /1 check passed\./);
    const shown = cli('show', ID);
    assert.match(shown.stdout, /S001 check passed \(passed · exit 0 · .*\): `grep -q ok src\/health\.ts && echo handler ok`/);
    assert.match(shown.stdout, /S002 check failed \(failed · exit 2 · /);
    assert.match(shown.stdout, /approved by .* at v1/);
    // The step's file changes: the pass no longer speaks for it.
    fs.writeFileSync(path.join(dir, 'src', 'health.ts'), 'export const ok = 2;\n');
    assert.match(cli('show', ID).stdout, /S001 check stale \(passed · exit 0/);
    const json = JSON.parse(cli('show', ID, '--json').stdout);
    assert.equal(json.facts.checks.S001.reading, 'stale');
  });

  it('a commit pulled in after approval drifts the target: show, drift and the hook summary name it; --ack takes the files as they are', () => {
    approve();
    assert.match(cli('drift', ID).stdout, /no drift since approval .*1 target watched/);
    fs.writeFileSync(path.join(upstream, 'src', 'health.ts'), 'export const ok = 3;\n');
    git(upstream, 'commit', '-q', '-am', 'Upstream rewrites the handler');
    git(dir, 'pull', '-q', '--no-rebase');
    const drift = cli('drift', ID);
    assert.equal(drift.status, 0, drift.stderr);
    assert.match(drift.stdout, /drifted since approval: src\/health\.ts \[[0-9a-f]{7,} Upstream rewrites the handler\]/);
    assert.match(cli('show', ID).stdout, /DRIFTED: drifted since approval: src\/health\.ts .*pi-plans drift PLAN-c11e0001 --ack/);
    // The hook reads what the last look found, without git.
    const facts = readPlanFacts(dir, ID);
    assert.deepEqual(facts.drifted, ['src/health.ts']);
    assert.match(summary([{ facts }], { session: 's' }), /DRIFTED since approval: src\/health\.ts changed by something other than this plan's steps/);
    // Acknowledging is a person's act: an agent's plain command changes nothing.
    const agent = cli('drift', ID, '--ack');
    assert.equal(agent.status, 1);
    assert.match(agent.stderr, /the drift was not acknowledged: that is a person's decision, and there is no terminal here to ask one/);
    assert.deepEqual(readPlanFacts(dir, ID).drifted, ['src/health.ts']);
    const ack = atTerminalSync(CLI, ['--root', dir, 'drift', ID, '--ack'], { cwd: dir });
    assert.match(ack.stdout, /drift acknowledged; 1 target as they are now at [0-9a-f]{7} are the new base/);
    assert.match(cli('drift', ID).stdout, /no drift since the last acknowledgement/);
    assert.equal(readPlanFacts(dir, ID).drifted, undefined);
    fs.rmSync(path.join(dir, 'src', 'health.ts'));
    assert.match(cli('drift', ID).stdout, /src\/health\.ts \(deleted\)/);
  });

  it('a `verify:` line the reviewer reads as an example (in a fence) or never sees (in a comment) is no check: the approved plan runs nothing of it', () => {
    const planted = PLAN.replace('   verify: echo docs missing; exit 2\n', '   ```sh\n   verify: touch fenced-ran\n   ```\n   <!--\n   verify: touch commented-ran\n   -->\n');
    fs.writeFileSync(path.join(dir, '.pi', 'plans', `${ID}.md`), planted);
    approve();
    const one = cli('verify', ID, 'S002');
    assert.equal(one.status, 1);
    assert.match(one.stderr, /S002 names no check/);
    const all = cli('verify', ID);
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /1 check passed\./);
    assert.equal(fs.existsSync(path.join(dir, 'fenced-ran')), false);
    assert.equal(fs.existsSync(path.join(dir, 'commented-ran')), false);
    assert.doesNotMatch(cli('show', ID).stdout, /S002 check/);
  });
});
