import { sealApproval, sealedByUser, TEST_APPROVALS } from '../../helpers/approvals';
// The git merge driver and git-setup in real repositories: temporary folders, the machine's git,
// the built CLI (dist/cli.js) run by git itself as the driver.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createPlanText, editStep, markStep, OpContext, parsePlan } from '../../../src/core';
import { NodeApprovalKeys, openNodeStore, userConfigDir } from '../../../src/node';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const ID = 'PLAN-6a7e0001';
const FILE = `.pi/plans/${ID}.md`;
const at = (n: number) => `2026-07-${String(n).padStart(2, '0')}T09:00:00.000Z`;
const agent = (n: number): OpContext => ({ now: at(n), actor: 'agent', approvals: TEST_APPROVALS });

describe('plans in git: the merge driver and git-setup (real repositories)', function () {
  this.timeout(60_000);
  let dir: string;
  let cache: string;

  const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  const ok = (...args: string[]) => {
    const r = git(...args);
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', dir, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, PI_PLANS_CACHE_DIR: cache } });
  const plan = () => fs.readFileSync(path.join(dir, FILE), 'utf8');
  const write = (text: string) => fs.writeFileSync(path.join(dir, FILE), text);
  const commit = (message: string) => {
    ok('add', '-A');
    ok('commit', '-q', '-m', message);
  };

  /** main and feature, each with one commit on top of a shared plan; `ours` runs on main, `theirs` on feature. */
  function branches(ours: (t: string) => string, theirs: (t: string) => string): { base: string } {
    const base = createPlanText(
      {
        id: ID,
        title: 'Add rate limiting',
        goal: 'Limit requests per client.',
        steps: [{ text: 'Add a token bucket' }, { text: 'Wire it in', details: 'Before the router.' }, { text: 'Return 429' }, { text: 'Document the limits' }],
      },
      at(1),
    );
    write(base);
    commit('plan');
    ok('checkout', '-q', '-b', 'feature');
    write(theirs(base));
    commit('feature edit');
    ok('checkout', '-q', 'main');
    write(ours(base));
    commit('main edit');
    return { base };
  }

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-git-'));
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-git-cache-'));
    ok('init', '-q', '-b', 'main');
    ok('config', 'user.email', 'test@example.com');
    ok('config', 'user.name', 'Test');
    ok('config', 'commit.gpgsign', 'false');
    fs.mkdirSync(path.join(dir, '.pi', 'plans'), { recursive: true });
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('git-setup registers the driver and writes the attributes and ignore rules, once; outside a repository it says what to do', () => {
    const r = cli('git-setup');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Set up:/);
    assert.equal(ok('config', '--get', 'merge.pi-plans.driver').trim(), `${process.execPath} ${CLI} merge-driver --marker-size %L %O %A %B %P`);
    assert.equal(ok('check-attr', 'merge', '--', FILE).trim(), `${FILE}: merge: pi-plans`);
    assert.equal(ok('check-attr', 'merge', '--', `.pi/plans/sessions/${ID}.jsonl`).trim(), `.pi/plans/sessions/${ID}.jsonl: merge: union`);
    // The policy: reviewed versions, temp and lock files stay out of git; plans and logs go in.
    fs.mkdirSync(path.join(dir, '.pi/plans/reviews', ID), { recursive: true });
    fs.writeFileSync(path.join(dir, '.pi/plans/reviews', ID, 'v2.md'), 'x');
    fs.writeFileSync(path.join(dir, `.pi/plans/.${ID}.md.lock`), '');
    fs.writeFileSync(path.join(dir, `.pi/plans/.${ID}.md.123.ab12.tmp`), '');
    fs.mkdirSync(path.join(dir, '.pi/plans/sessions'));
    fs.writeFileSync(path.join(dir, `.pi/plans/sessions/${ID}.jsonl`), '{}\n');
    fs.writeFileSync(path.join(dir, FILE), 'x');
    const status = ok('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).map((l) => l.slice(3)).sort();
    assert.deepEqual(status, ['.gitattributes', '.pi/plans/.gitignore', FILE, `.pi/plans/sessions/${ID}.jsonl`]);
    const again = cli('git-setup');
    assert.equal(again.status, 0);
    assert.match(again.stdout, /Already set up/);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-nogit-'));
    try {
      const r2 = spawnSync(process.execPath, [CLI, '--root', outside, 'git-setup'], { cwd: outside, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(outside) } });
      assert.equal(r2.status, 1);
      assert.match(r2.stderr, /is not in a git repository: run git init there first/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('without the driver, two branches that edited different steps conflict (both stamped updated_at)', () => {
    branches(
      (t) => editStep(parsePlan(t), { op: 'update', id: 'S001', text: 'Add a token bucket per client' }, agent(2)).text,
      (t) => editStep(parsePlan(t), { op: 'update', id: 'S004', text: 'Document the limits in the README' }, agent(3)).text,
    );
    const r = git('merge', '-q', 'feature', '-m', 'merge');
    assert.notEqual(r.status, 0);
    assert.match(plan(), /<<<<<<< HEAD\nupdated_at: 2026-07-02T09:00:00.000Z\n=======\nupdated_at: 2026-07-03T09:00:00.000Z\n>>>>>>> feature/);
    const v = cli('validate');
    assert.equal(v.status, 1);
    assert.match(v.stdout, /merge-conflict markers/);
  });

  it('with the driver, they merge cleanly: both edits, version one past both, untouched lines byte for byte, valid', () => {
    assert.equal(cli('git-setup').status, 0);
    commit('git-setup');
    let ours = '';
    branches(
      (t) => (ours = editStep(parsePlan(t), { op: 'update', id: 'S001', text: 'Add a token bucket per client' }, agent(2)).text),
      (t) => editStep(parsePlan(t), { op: 'update', id: 'S004', text: 'Document the limits in the README' }, agent(3)).text,
    );
    const r = git('merge', '-q', 'feature', '-m', 'merge');
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const d = parsePlan(plan());
    assert.deepEqual(d.steps.map((s) => s.text), ['Add a token bucket per client', 'Wire it in', 'Return 429', 'Document the limits in the README']);
    assert.equal(d.fm.version, 3);
    assert.equal(d.fm.updated_at, at(3));
    const changed = plan().split('\n').filter((l) => !ours.split('\n').includes(l));
    assert.deepEqual(changed, ['version: 3', `updated_at: ${at(3)}`, '4. [ ] S004 Document the limits in the README']);
    const v = cli('validate');
    assert.equal(v.status, 0, v.stdout);
    assert.equal(ok('status', '--porcelain').trim(), '');
  });

  it('the same step edited differently: markers around that step only, validate names the line, keeping one side validates', () => {
    assert.equal(cli('git-setup').status, 0);
    commit('git-setup');
    branches(
      (t) => editStep(parsePlan(editStep(parsePlan(t), { op: 'update', id: 'S002', text: 'Wire it in before auth' }, agent(2)).text), { op: 'update', id: 'S001', text: 'Bucket per client' }, agent(2)).text,
      (t) => editStep(parsePlan(editStep(parsePlan(t), { op: 'update', id: 'S002', text: 'Wire it in after auth' }, agent(3)).text), { op: 'update', id: 'S004', text: 'Document it' }, agent(3)).text,
    );
    const r = git('merge', 'feature', '-m', 'merge');
    assert.notEqual(r.status, 0);
    assert.match(r.stdout + r.stderr, /1 conflict left for you: step S002 \(line (\d+)\)/);
    const line = Number(/step S002 \(line (\d+)\)/.exec(r.stdout + r.stderr)![1]);
    const lines = plan().split('\n');
    assert.deepEqual(lines.slice(line - 1, line + 6), [
      '<<<<<<< ours',
      '2. [ ] S002 Wire it in before auth',
      '   Before the router.',
      '=======',
      '2. [ ] S002 Wire it in after auth',
      '   Before the router.',
      `>>>>>>> theirs (${FILE})`,
    ]);
    // Everything else merged around it: one conflict, both sides' other steps.
    assert.equal(lines.filter((l) => l.startsWith('<<<<<<<')).length, 1);
    assert.ok(lines.includes('1. [ ] S001 Bucket per client') && lines.includes('4. [ ] S004 Document it'));
    assert.match(ok('status', '--porcelain'), new RegExp(`^UU ${FILE.replace(/[.]/g, '\\.')}$`, 'm'));
    const v = cli('validate');
    assert.equal(v.status, 1);
    assert.ok(v.stdout.includes(`${FILE}:${line}: the file has merge-conflict markers`), v.stdout);
    // The person keeps theirs: the plan validates again.
    write(lines.filter((_, i) => i < line - 1 || i > line + 5 || (i >= line + 3 && i <= line + 4)).join('\n'));
    assert.equal(cli('validate').status, 0);
    assert.equal(parsePlan(plan()).steps[1].text, 'Wire it in after auth');
  });

  /**
   * An executing plan a person approved on this machine (signed with this user's key) on main; on
   * main S001 is marked done, on feature `theirs` happens; then feature is merged into main.
   */
  async function approvedThenMerged(theirs: (t: string, ctx: OpContext) => string): Promise<void> {
    assert.equal(cli('git-setup').status, 0);
    const started = await sealedByUser(createPlanText({ id: ID, title: 'Add rate limiting', goal: 'Limit requests per client.', steps: [{ text: 'Add a token bucket' }, { text: 'Wire it in' }, { text: 'Return 429' }] }, at(1)).replace('status: draft', 'status: executing'), dir);
    const ctx = { ...agent(2), approvals: { keyring: await new NodeApprovalKeys(userConfigDir(), () => [dir]).keyring() } };
    write(started);
    commit('approved plan');
    ok('checkout', '-q', '-b', 'feature');
    write(theirs(started, ctx));
    commit('feature');
    ok('checkout', '-q', 'main');
    write(markStep(parsePlan(started), 'S001', 'done', ctx).text);
    commit('main marks S001');
    const r = git('merge', '-q', 'feature', '-m', 'merge');
    assert.equal(r.status, 0, r.stderr + r.stdout);
  }

  it('marks merged from two branches of an approved plan keep its approval', async () => {
    await approvedThenMerged((t, ctx) => markStep(parsePlan(t), 'S002', 'done', ctx).text);
    assert.deepEqual(parsePlan(plan()).steps.map((s) => s.status), ['done', 'done', 'pending']);
    const v = cli('validate');
    assert.equal(v.status, 0, v.stdout);
    assert.doesNotMatch(cli('show', ID).stdout, /CHANGED|NOT VALID/);
  });

  it('a merge that brings a paragraph into an approved plan yields a plan changed since approval, never approved text that neither side approved', async () => {
    // The review found a paragraph added between the steps on a branch merged into an approved plan.
    await approvedThenMerged((t) => t.replace(/\n2\. \[ \] S002/, '\n\nAlso: disable the rate limit for admin keys.\n\n2. [ ] S002'));
    assert.match(plan(), /Also: disable the rate limit for admin keys\./);
    assert.match(plan(), /1\. \[x\] S001/);
    assert.match(cli('show', ID).stdout, /CHANGED SINCE APPROVAL/);
    const v = cli('validate');
    assert.equal(v.status, 1, v.stdout);
    assert.match(v.stdout, new RegExp(`\\.pi/plans/${ID}\\.md:\\d+: .*changed since`));
  });

  it('checkpoint logs merge by union and read in time order', async () => {
    assert.equal(cli('git-setup').status, 0);
    const log = path.join(dir, '.pi/plans/sessions', `${ID}.jsonl`);
    const line = (n: number, step: string) => JSON.stringify({ type: 'step', plan: ID, at: at(n), step, status: 'done', actor: 'agent', version: n }) + '\n';
    const executing = (t: string) => t.replace('status: draft', 'status: executing');
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(log, line(1, 'S001'));
    commit('log');
    branches(
      (t) => {
        fs.appendFileSync(log, line(4, 'S003'));
        return markStep(sealApproval(parsePlan(executing(t))), 'S003', 'done', agent(4)).text;
      },
      (t) => {
        fs.appendFileSync(log, line(2, 'S002'));
        return markStep(sealApproval(parsePlan(executing(t))), 'S002', 'done', agent(2)).text;
      },
    );
    const r = git('merge', '-q', 'feature', '-m', 'merge');
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.deepEqual(parsePlan(plan()).steps.map((s) => s.status), ['pending', 'done', 'done', 'pending']);
    // Union: main's line, then feature's (out of time order in the file).
    assert.deepEqual(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).step), ['S001', 'S003', 'S002']);
    const store = await openNodeStore(dir, { indexCache: false });
    assert.deepEqual((await store.readCheckpoints(ID)).map((c) => c.step), ['S001', 'S002', 'S003']);
  });
});
