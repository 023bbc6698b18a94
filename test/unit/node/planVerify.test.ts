// Checks the person approved, run for real (issue 30): a real git repository in a temporary folder,
// the machine's git and shell, the store on Node. A check passing, failing and going stale; a plan
// whose approval does not hold runs nothing; a step marked done without a passing check is unverified.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PlanError, unverifiedWords } from '../../../src/core';
import { checkStandings, openNodeStore, planWorkFacts, readPlanState, verifyPlan } from '../../../src/node';
import { sealedByUser } from '../../helpers/approvals';

const ID = 'PLAN-c4ec0001';
const plan = (status: string, s1 = 'verify: echo checking && test -f src/health.ts', s2 = 'verify: echo broken >&2; exit 3') =>
  `---\nid: ${ID}\ntitle: "Health"\nstatus: ${status}\nversion: 2\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 3\n---\n\n## Goal\nA health endpoint\n\n## Steps\n1. [ ] S001 Add the handler (edit: modify → src/health.ts)\n   ${s1}\n2. [ ] S002 Check the docs\n   ${s2}\n3. [ ] S003 Tell the team\n`;

describe('checks the person approved (real git repository, real shell)', function () {
  this.timeout(60_000);
  let root: string;
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: root, encoding: 'utf8' }).status, 0, `git ${args.join(' ')}`);
  const file = () => path.join(root, '.pi', 'plans', `${ID}.md`);
  const write = async (text: string, seal = true) => fs.writeFileSync(file(), seal ? await sealedByUser(text, root) : text);
  const run = async (steps?: string[]) => verifyPlan(await openNodeStore(root, { index: false }), ID, { actor: 'cli', steps });

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verify-'));
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'Test');
    git('config', 'commit.gpgsign', 'false');
    fs.mkdirSync(path.join(root, 'src'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'health.ts'), 'export const ok = 1;\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a passing and a failing check are recorded (on a step being worked on, as its record line); the approval still holds; the last output lines are kept', async () => {
    await write(plan('approved'));
    const [passed, failed] = await run();
    assert.equal(passed.record.outcome, 'passed');
    assert.equal(passed.record.exit, 0);
    assert.match(passed.line, /^passed · exit 0 · \d+\.\d s · tree [0-9a-f]{7} · \d{4}-\d\d-\d\dT\d\d:\d\dZ$/);
    assert.equal(failed.record.outcome, 'failed');
    assert.equal(failed.record.exit, 3);
    assert.deepEqual(failed.tail, ['broken']);
    const st = await openNodeStore(root, { index: false });
    // Steps not yet worked on keep their results beside the plan: a record line on a pending step
    // would block the plan's next approval, should it go back to review.
    assert.doesNotMatch(fs.readFileSync(file(), 'utf8'), /> Check:/);
    assert.equal(readPlanState(root, ID).checks.S001.line, passed.line);
    // A step being worked on gets its result as its record line.
    fs.writeFileSync(file(), fs.readFileSync(file(), 'utf8').replace('status: approved', 'status: executing').replace('1. [ ] S001 ', '1. [ ] S001 *in progress* '));
    const [again] = await run(['S001']);
    const doc = await st.read(ID);
    assert.equal(doc.steps[0].record?.Check, again.line);
    assert.match(fs.readFileSync(file(), 'utf8'), /\n {3}> Check: passed · exit 0 ·/);
    assert.equal(doc.steps[1].record, undefined);
    assert.equal((await st.approvalStanding(doc)).state, 'valid');
    assert.deepEqual(readPlanState(root, ID).checks.S001.tail, ['checking']);
    const standing = await checkStandings(root, doc);
    assert.equal(standing.get('S001')?.reading, 'passed');
    assert.equal(standing.get('S002')?.reading, 'failed');
    assert.equal(standing.has('S003'), false);
    // The state beside the plan is ignored by git, by its own folder's .gitignore.
    assert.equal(spawnSync('git', ['status', '--porcelain', '--', '.pi/plans/checks'], { cwd: root, encoding: 'utf8' }).stdout, '');
  });

  it('a check goes stale when its step\'s files change after it ran; one step\'s check runs alone', async () => {
    await write(plan('approved'));
    await run(['S001']);
    const st = await openNodeStore(root, { index: false });
    assert.equal((await checkStandings(root, await st.read(ID))).get('S001')?.reading, 'passed');
    // Another file changing does not touch S001's result: it names its target.
    fs.writeFileSync(path.join(root, 'README.md'), 'unrelated\n');
    assert.equal((await checkStandings(root, await st.read(ID))).get('S001')?.reading, 'passed');
    fs.writeFileSync(path.join(root, 'src', 'health.ts'), 'export const ok = 2;\n');
    const stale = (await checkStandings(root, await st.read(ID))).get('S001');
    assert.equal(stale?.reading, 'stale');
    assert.equal(stale?.unverified, false);
    // S002 never ran: only the step named did.
    assert.equal((await checkStandings(root, await st.read(ID))).get('S002')?.reading, 'not run');
  });

  it('a step marked done whose check has not passed on the current files is unverified (allowed, and said)', async () => {
    await write(plan('approved'));
    await run();
    const done = fs.readFileSync(file(), 'utf8').replace('status: approved', 'status: executing').replace('2. [ ] S002', '2. [x] S002');
    fs.writeFileSync(file(), done); // status and checkbox are execution state: the approval still holds
    const st = await openNodeStore(root, { index: false });
    const doc = await st.read(ID);
    assert.equal((await st.approvalStanding(doc)).state, 'valid');
    const facts = await planWorkFacts(root, doc);
    assert.equal(facts.checks.S002.unverified, true);
    assert.match(unverifiedWords(ID, 'S002', facts) ?? '', /S002 is unverified: its check `echo broken >&2; exit 3` has failed\. Run it \(`pi-plans verify PLAN-c4ec0001 S002`/);
    assert.equal(unverifiedWords(ID, 'S001', facts), undefined);
  });

  it('an unapproved plan, or one whose verify line changed after approval, runs nothing and says why', async () => {
    const marker = path.join(root, 'ran');
    await write(plan('proposed', `verify: touch ${marker}`), false);
    await assert.rejects(run(), (e: PlanError) => /is proposed: only the checks of a plan a person approved run/.test(e.message));
    assert.equal(fs.existsSync(marker), false);
    await write(plan('approved'));
    fs.writeFileSync(file(), fs.readFileSync(file(), 'utf8').replace('verify: echo checking && test -f src/health.ts', `verify: touch ${marker}`));
    await assert.rejects(run(), (e: PlanError) => e.code === 'CHANGED_SINCE_APPROVAL' && /changed since .*its checks do not run/.test(e.message));
    assert.equal(fs.existsSync(marker), false);
    await write(plan('approved'));
    await assert.rejects(run(['S003']), (e: PlanError) => /S003 names no check: add a details line `verify: <command>`/.test(e.message));
  });
});
