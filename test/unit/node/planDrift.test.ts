// Drift since approval in real git repositories (issue 30): the machine's git, temporary folders.
// A commit pulled in after approval, a deleted target, the plan's own step, an acknowledgement,
// and a folder outside git.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OpContext, parsePlan, PlanDocument } from '../../../src/core';
import { acknowledgeDrift, lastDrift, lookForDrift, readPlanState, recordDriftBase } from '../../../src/node';
import { approveNow, TEST_APPROVALS } from '../../helpers/approvals';

const ID = 'PLAN-d41f0001';
const ctx: OpContext = { now: '2026-11-26T18:00:00.000Z', actor: 'user', approvals: TEST_APPROVALS };
const PLAN = `---\nid: ${ID}\ntitle: "Health"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\n---\n\n## Goal\nA health endpoint\n\n## Steps\n1. [ ] S001 Change the handler (edit: modify → src/health.ts)\n2. [ ] S002 Change the docs (edit: modify → docs/)\n3. [ ] S003 Keep the old file (edit: modify → src/old.ts)\n`;

describe('drift since approval (real git repositories)', function () {
  this.timeout(60_000);
  let tmp: string;
  let upstream: string;
  let work: string;

  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const config = (cwd: string) => {
    git(cwd, 'config', 'user.email', 'test@example.com');
    git(cwd, 'config', 'user.name', 'Test');
    git(cwd, 'config', 'commit.gpgsign', 'false');
  };
  const write = (dir: string, file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  const commitAll = (dir: string, message: string) => {
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', message);
  };
  /** The plan approved by the test person, with steps moved to `statuses`. */
  const approvedPlan = (statuses: Record<string, string> = {}, status = 'approved'): PlanDocument => {
    let text = approveNow(parsePlan(PLAN), ctx).text.replace('status: approved', `status: ${status}`);
    if (statuses.S001 === 'in_progress') text = text.replace('1. [ ] S001 ', '1. [ ] S001 *in progress* ');
    if (statuses.S001 === 'done') text = text.replace('1. [ ] S001 ', '1. [x] S001 ');
    if (statuses.S001Changed) text = text.replace('(edit: modify → src/health.ts)\n', `(edit: modify → src/health.ts)\n   > Changed: ${statuses.S001Changed}\n`);
    return parsePlan(text);
  };

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-drift-'));
    upstream = path.join(tmp, 'upstream');
    work = path.join(tmp, 'work');
    fs.mkdirSync(upstream);
    git(upstream, 'init', '-q', '-b', 'main');
    config(upstream);
    write(upstream, 'src/health.ts', 'export const ok = 1;\n');
    write(upstream, 'src/old.ts', 'export const old = 1;\n');
    write(upstream, 'docs/health.md', '# Health\n');
    write(upstream, 'README.md', 'hello\n');
    commitAll(upstream, 'start');
    git(tmp, 'clone', '-q', upstream, work);
    config(work);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a commit pulled in after approval drifts the target it touches, naming the commit; an unrelated file does not', async () => {
    const doc = approvedPlan();
    const base = await recordDriftBase(work, doc, ctx.now);
    assert.equal(base?.taken, 'approval');
    assert.deepEqual(Object.keys(base?.targets ?? {}), ['docs', 'src/health.ts', 'src/old.ts']);
    assert.deepEqual((await lookForDrift(work, doc, ctx.now)).drifted, []);
    write(upstream, 'src/health.ts', 'export const ok = 2;\n');
    write(upstream, 'README.md', 'hello again\n');
    commitAll(upstream, 'Upstream changes the handler');
    git(work, 'pull', '-q', '--no-rebase');
    const look = await lookForDrift(work, doc, ctx.now);
    assert.deepEqual(look.drifted.map((d) => d.path), ['src/health.ts']);
    assert.match(look.drifted[0].commits?.[0] ?? '', /^[0-9a-f]{7,} Upstream changes the handler$/);
    // What the look found is kept for the readers that must not run git (the hook, the explorer).
    assert.deepEqual(lastDrift(work, doc).map((d) => d.path), ['src/health.ts']);
    // A file in a folder target counts for the folder; an uncommitted edit counts too.
    write(work, 'docs/health.md', '# Health, edited by someone\n');
    assert.deepEqual((await lookForDrift(work, doc, ctx.now)).drifted.map((d) => d.path), ['docs', 'src/health.ts']);
  });

  it('a workspace folder inside the repository watches its targets from that folder', async () => {
    const app = path.join(work, 'app');
    for (const f of ['src/health.ts', 'src/old.ts', 'docs/health.md']) write(app, f, `${f} in the app\n`);
    // The repository's own src/health.ts, outside the workspace folder, must not be mistaken for the target.
    commitAll(work, 'an app folder');
    const doc = approvedPlan();
    const base = await recordDriftBase(app, doc, ctx.now);
    assert.deepEqual(Object.keys(base?.targets ?? {}), ['docs', 'src/health.ts', 'src/old.ts']);
    assert.ok(Object.values(base?.targets ?? {}).every((h) => typeof h === 'string'), 'every target is found in the subfolder');
    write(work, 'src/health.ts', 'the repository root changes\n');
    assert.deepEqual((await lookForDrift(app, doc, ctx.now)).drifted, []);
    write(app, 'src/health.ts', 'the app changes\n');
    assert.deepEqual((await lookForDrift(app, doc, ctx.now)).drifted.map((d) => d.path), ['src/health.ts']);
  });

  it('a target deleted after approval drifts as deleted', async () => {
    const doc = approvedPlan();
    await recordDriftBase(work, doc, ctx.now);
    fs.rmSync(path.join(work, 'src/old.ts'));
    const [d] = (await lookForDrift(work, doc, ctx.now)).drifted;
    assert.equal(d.path, 'src/old.ts');
    assert.equal(d.now, null);
  });

  it('the plan\'s own step changing its target is not drift; a change after the step is done is', async () => {
    await recordDriftBase(work, approvedPlan(), ctx.now);
    const running = approvedPlan({ S001: 'in_progress' }, 'executing');
    write(work, 'src/health.ts', 'export const ok = 3; // the step\'s change\n');
    assert.deepEqual((await lookForDrift(work, running, ctx.now)).drifted, []);
    const done = approvedPlan({ S001: 'done' }, 'executing');
    assert.deepEqual((await lookForDrift(work, done, ctx.now)).drifted, []);
    write(work, 'src/health.ts', 'export const ok = 4; // someone else\n');
    assert.deepEqual((await lookForDrift(work, done, ctx.now)).drifted.map((d) => d.path), ['src/health.ts']);
  });

  it('acknowledging drift makes the files as they are now the new base', async () => {
    const doc = approvedPlan();
    await recordDriftBase(work, doc, ctx.now);
    write(work, 'src/health.ts', 'export const ok = 5;\n');
    assert.equal((await lookForDrift(work, doc, ctx.now)).drifted.length, 1);
    const base = await acknowledgeDrift(work, doc, '2026-11-26T19:00:00.000Z');
    assert.equal(base?.taken, 'acknowledged');
    assert.deepEqual((await lookForDrift(work, doc, ctx.now)).drifted, []);
    assert.deepEqual(lastDrift(work, doc), []);
    // The state is beside the plan, in a folder git ignores by itself.
    assert.equal(readPlanState(work, ID).drift?.taken, 'acknowledged');
    assert.equal(git(work, 'status', '--porcelain', '--', '.pi'), '');
  });

  it('a plan approved where no base was taken gets one at the first look; a new approval starts a new base; outside git nothing is watched', async () => {
    const doc = approvedPlan();
    const first = await lookForDrift(work, doc, ctx.now);
    assert.equal(first.base?.taken, 'first look');
    const other = parsePlan(doc.text.replace(/approved_hash: .*/, 'approved_hash: sha256:' + '0'.repeat(64)));
    assert.equal(lastDrift(work, other).length, 0);
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(plain);
    write(plain, 'src/health.ts', 'x\n');
    const env = process.env.GIT_CEILING_DIRECTORIES;
    process.env.GIT_CEILING_DIRECTORIES = tmp;
    try {
      assert.equal(await recordDriftBase(plain, doc, ctx.now), undefined);
      assert.deepEqual((await lookForDrift(plain, doc, ctx.now)).drifted, []);
    } finally {
      if (env === undefined) delete process.env.GIT_CEILING_DIRECTORIES;
      else process.env.GIT_CEILING_DIRECTORIES = env;
    }
  });

  it('a step whose evidence line lists its files owns only those: its target changed by something else while it ran is drift', async () => {
    await recordDriftBase(work, approvedPlan(), ctx.now);
    write(work, 'src/health.ts', 'export const ok = 6; // a pull while the step ran\n');
    const done = approvedPlan({ S001: 'done', S001Changed: 'README.md (+1 −0) · 1 file +1 −0 · tree 1a2b3c4d5e..5d6e7f8a9b' }, 'executing');
    assert.equal(done.steps[0].record?.Changed?.startsWith('README.md'), true);
    assert.deepEqual((await lookForDrift(work, done, ctx.now)).drifted.map((d) => d.path), ['src/health.ts']);
    await recordDriftBase(work, approvedPlan(), ctx.now);
    write(work, 'src/health.ts', 'export const ok = 7; // the step itself\n');
    const own = approvedPlan({ S001: 'done', S001Changed: 'src/health.ts (+1 −1) · 1 file +1 −1 · tree 1a2b3c4d5e..5d6e7f8a9b' }, 'executing');
    assert.deepEqual((await lookForDrift(work, own, ctx.now)).drifted, []);
  });
});
