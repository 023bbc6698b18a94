import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { contentDigest, editStep, parsePlan, submit } from '../../../src/core';
import { NodeApprovalKeys, openNodeStore, reviewCopiesDir, userConfigDir } from '../../../src/node';
import { sealApproval } from '../../helpers/approvals';

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A plan file as hand-written (or left by pi-planner / another tool). */
function planText(id: string, o: { status?: string; version?: number; title?: string; steps?: string[]; extra?: string; updated?: string } = {}): string {
  const steps = o.steps ?? ['[x] S001 first', '[ ] S002 second'];
  return [
    '---',
    `id: ${id}`,
    `title: ${o.title ?? 'Fix the thing'}`,
    `status: ${o.status ?? 'proposed'}`,
    `version: ${o.version ?? 3}`,
    'created_at: 2026-01-01T00:00:00.000Z',
    `updated_at: ${o.updated ?? '2026-01-02T00:00:00.000Z'}`,
    ...(o.extra ? [o.extra] : []),
    '---',
    '',
    '## Goal',
    'Make it work',
    '',
    '## Steps',
    ...steps.map((s, i) => `${i + 1}. ${s}`),
    '',
  ].join('\n');
}

describe('pi-plans CLI (in-process, real disk)', function () {
  this.timeout(20_000);
  let root: string;
  let plans: string;
  let cacheDir: string;
  let savedCache: string | undefined;

  before(() => {
    savedCache = process.env.PI_PLANS_CACHE_DIR;
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cli-cache-'));
    process.env.PI_PLANS_CACHE_DIR = cacheDir;
  });
  after(() => {
    if (savedCache === undefined) delete process.env.PI_PLANS_CACHE_DIR;
    else process.env.PI_PLANS_CACHE_DIR = savedCache;
    fs.rmSync(cacheDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cli-'));
    plans = path.join(root, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
  });
  afterEach(() => {
    process.exitCode = 0;
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function cli(...args: string[]): Promise<Run> {
    let out = '';
    let err = '';
    const code = await runCli([...args, '--root', root], { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  }
  const put = (id: string, text: string) => fs.writeFileSync(path.join(plans, `${id}.md`), text);
  /** The digest `pi-plans show` prints for a plan now. */
  const digestOf = async (id: string) => /^digest: (sha256:[0-9a-f]{64})$/m.exec((await cli('show', id)).out)![1];

  const file = (id: string) => fs.readFileSync(path.join(plans, `${id}.md`), 'utf8');
  const checkpoints = (id: string) =>
    fs
      .readFileSync(path.join(plans, 'sessions', `${id}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  describe('list', () => {
    it('lists valid and invalid plans as text, oldest first, invalid ones with file:line', async () => {
      const now = new Date().toISOString();
      put('PLAN-0000000a', planText('PLAN-0000000a', { updated: now }));
      put('PLAN-0000000b', planText('PLAN-0000000b', { status: 'draft', version: 1, title: 'Other plan', steps: [], updated: now }));
      put('PLAN-0000000c', planText('PLAN-0000000d'));
      // Waiting for review far longer than stale_after_days (30).
      put('PLAN-0000000e', planText('PLAN-0000000e', { title: 'Old plan', updated: '2000-01-01T00:00:00.000Z' }));
      fs.writeFileSync(path.join(plans, 'notes.txt'), 'not a plan');
      const r = await cli('list');
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, '');
      assert.equal(
        r.out,
        [
          'PLAN-0000000c  INVALID  .pi/plans/PLAN-0000000c.md:2: the id in the file (PLAN-0000000d) is not the file name\'s (PLAN-0000000c): make them the same',
          'PLAN-0000000a  proposed     v3    1/2 steps    Fix the thing',
          'PLAN-0000000b  draft        v1    no steps     Other plan',
          'PLAN-0000000e  proposed     v3    1/2 steps    Old plan  (stale: waiting for review longer than stale_after_days)',
          '',
        ].join('\n'),
      );
    });

    it('--json gives the index entries; --status filters (and drops invalid files)', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      put('PLAN-0000000b', planText('PLAN-0000000b', { status: 'draft', version: 1 }));
      put('PLAN-0000000c', '---\nid: PLAN-0000000c\ntitle: x\nstatus: nope\n---\n');
      const r = await cli('list', '--json');
      assert.equal(r.code, 0, r.err);
      const rows = JSON.parse(r.out) as { id: string; valid: boolean; status?: string; version?: number; steps: number; stepsDone: number; error?: { code: string; line?: number } }[];
      assert.deepEqual(
        rows.map((e) => [e.id, e.valid, e.status, e.version, e.steps, e.stepsDone]),
        [
          ['PLAN-0000000c', false, undefined, undefined, 0, 0],
          ['PLAN-0000000a', true, 'proposed', 3, 2, 1],
          ['PLAN-0000000b', true, 'draft', 1, 2, 1],
        ],
      );
      assert.deepEqual([rows[0].error?.code, rows[0].error?.line], ['INVALID_FILE', 4]);

      const f = await cli('list', '--status', 'draft', '--json');
      assert.deepEqual((JSON.parse(f.out) as { id: string }[]).map((e) => e.id), ['PLAN-0000000b']);
      const t = await cli('list', '--status', 'executing');
      assert.equal(t.code, 0);
      assert.equal(t.out, `No plans with status executing in ${path.join(root, '.pi/plans')}.\n`);
      const bad = await cli('list', '--status', 'bogus');
      assert.equal(bad.code, 2);
      assert.match(bad.err, /bogus/);
    });

    it('--root before the subcommand works too', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      let out = '';
      const code = await runCli(['--root', root, 'list', '--json'], { out: (s) => (out += s), err: () => undefined });
      assert.equal(code, 0);
      assert.deepEqual((JSON.parse(out) as { id: string }[]).map((e) => e.id), ['PLAN-0000000a']);
    });

    it('an empty workspace says so, how plans get there, and the setup command that makes an agent write them', async () => {
      const empty = [
        `No plans in ${path.join(root, '.pi/plans')} yet.`,
        'An agent writes them, through the plan tools, once it is set up for this workspace:',
        '  pi-plans setup --agent claude      (or codex, copilot-cli, cursor)',
        '  pi-plans setup --agent copilot     (Copilot in VS Code, with the Pi Plans extension)',
        'Then ask the agent for a plan of the task: it waits here for your review (pi-plans show, pi-plans approve).',
        '',
      ].join('\n');
      const r = await cli('list');
      assert.equal(r.code, 0);
      assert.equal(r.out, empty);
      // A filter on an empty folder: the same (the filter is not why nothing is listed).
      assert.equal((await cli('list', '--status', 'draft')).out, empty);
    });
  });

  describe('show', () => {
    it('shows a plan as text and as JSON', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const r = await cli('show', 'PLAN-0000000a');
      assert.equal(r.code, 0, r.err);
      const digest = contentDigest(parsePlan(file('PLAN-0000000a')));
      assert.equal(
        r.out,
        `PLAN-0000000a: Fix the thing\nstatus: proposed   version: 3   steps: 1/2 done   updated: 2026-01-02T00:00:00.000Z\ndigest: ${digest}\n\n## Goal\nMake it work\n\n## Steps\n1. [x] S001 first\n2. [ ] S002 second\n`,
      );
      const j = await cli('show', 'PLAN-0000000a', '--json');
      assert.equal(j.code, 0, j.err);
      assert.deepEqual(JSON.parse(j.out), {
        id: 'PLAN-0000000a',
        title: 'Fix the thing',
        status: 'proposed',
        version: 3,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-02T00:00:00.000Z',
        digest,
        steps: [
          { id: 'S001', status: 'done', text: 'first' },
          { id: 'S002', status: 'pending', text: 'second' },
        ],
        sections: { Goal: 'Make it work' },
        rejections: [],
      });
    });

    it('an unknown id: exit 1, stderr names the fix', async () => {
      const r = await cli('show', 'PLAN-0000abcd');
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      // The store's words name the command at a terminal (agents read `pi_plan_list` instead).
      assert.equal(r.err, 'pi-plans: PLAN-0000abcd does not exist in .pi/plans: run `pi-plans list` to find the right id\n');
    });

    it('a bad id (../x): exit 1 with INVALID_ID, nothing read outside', async () => {
      fs.writeFileSync(path.join(root, '.pi', 'x.md'), planText('PLAN-0000000a'));
      const r = await cli('show', '../x');
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.equal(r.err, 'pi-plans: "../x" is not a plan id: ids are PLAN- and 8 lowercase hex digits, e.g. PLAN-1a2b3c4d; run `pi-plans list` to find one\n');
    });

    it('an invalid file: exit 1 with file:line', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a').replace('version: 3', 'version: "3"'));
      const r = await cli('show', 'PLAN-0000000a');
      assert.equal(r.code, 1);
      assert.equal(r.err, 'pi-plans: .pi/plans/PLAN-0000000a.md:5: the field "version" is invalid (Invalid input: expected number, received string): fix its value\n');
    });
  });

  describe('validate', () => {
    it('exit 0 on good plans', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      put('PLAN-0000000b', planText('PLAN-0000000b', { status: 'draft' }));
      const r = await cli('validate');
      assert.equal(r.code, 0, r.out + r.err);
      assert.equal(r.out, '2 plan files checked, 0 problems.\n');
    });

    it('exit 1 with one file:line: message line per invalid plan; --json', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      put('PLAN-0000000b', planText('PLAN-0000000b').replace('status: proposed', 'status: bogus'));
      put('PLAN-0000000c', planText('PLAN-0000000c').replace('## Steps', '<<<<<<< HEAD\n## Steps'));
      // Valid frontmatter, but the full parse refuses the body (duplicate step id).
      put('PLAN-0000000d', planText('PLAN-0000000d', { steps: ['[ ] S001 one', '[ ] S001 again'] }));
      const r = await cli('validate');
      assert.equal(r.code, 1);
      assert.equal(
        r.out,
        [
          '.pi/plans/PLAN-0000000b.md:4: the field "status" is invalid (Invalid option: expected one of "draft"|"proposed"|"approved"|"executing"|"completed"|"failed"|"stalled"|"rejected"|"needs_review"|"cancelled"|"superseded"): fix its value',
          '.pi/plans/PLAN-0000000c.md:13: the file has merge-conflict markers: resolve the conflict, then save',
          '.pi/plans/PLAN-0000000d.md:15: step id S001 is used twice: give the second one a new id or remove it',
          '4 plan files checked, 3 problems.',
          '',
        ].join('\n'),
      );
      process.exitCode = 0;
      const j = await cli('validate', '--json');
      assert.equal(j.code, 1);
      const parsed = JSON.parse(j.out) as { checked: number; problems: { file: string; line?: number; code: string }[] };
      assert.equal(parsed.checked, 4);
      assert.deepEqual(
        parsed.problems.map((p) => [p.file, p.line, p.code]),
        [
          ['.pi/plans/PLAN-0000000b.md', 4, 'frontmatter-field'],
          ['.pi/plans/PLAN-0000000c.md', 13, 'merge-conflict'],
          ['.pi/plans/PLAN-0000000d.md', 15, 'duplicate-step-id'],
        ],
      );
    });

    it('what keeps a plan from review: a warning on a draft (exit 0), an error on a plan Pi Plans submitted (exit 1); notes only in --json', async () => {
      const noGoal = (id: string, status: string) => planText(id, { status }).replace('## Goal\nMake it work\n', '');
      put('PLAN-0000000a', noGoal('PLAN-0000000a', 'draft'));
      let r = await cli('validate');
      assert.equal(r.code, 0, r.out);
      assert.equal(r.out, '.pi/plans/PLAN-0000000a.md:3: warning: add a "## Goal" section saying what the plan achieves before submitting for review\n1 plan file checked, 0 problems, 1 warning.\n');
      // Proposed by our submit (its checkpoint log says so), and its Goal removed since.
      put('PLAN-0000000b', noGoal('PLAN-0000000b', 'proposed'));
      fs.mkdirSync(path.join(plans, 'sessions'));
      fs.writeFileSync(path.join(plans, 'sessions', 'PLAN-0000000b.jsonl'), '{"type":"submitted","plan":"PLAN-0000000b","at":"2026-01-01T00:00:00.000Z","version":2,"status":"proposed","actor":"agent"}\n');
      // pi-planner's steps (no ids): a note, not a problem.
      put('PLAN-0000000c', planText('PLAN-0000000c', { steps: ['First thing', 'Second thing'] }));
      r = await cli('validate');
      assert.equal(r.code, 1);
      assert.match(r.out, /^\.pi\/plans\/PLAN-0000000b\.md:3: add a "## Goal" section saying what the plan achieves$/m);
      assert.match(r.out, /3 plan files checked, 1 problem, 1 warning\.\n$/);
      process.exitCode = 0;
      const j = JSON.parse((await cli('validate', '--json')).out) as { errors: number; warnings: number; problems: { file: string; severity: string; code: string; line: number; column: number }[] };
      assert.deepEqual([j.errors, j.warnings], [1, 1]);
      assert.deepEqual(
        j.problems.map((p) => [p.file.slice(-16), p.severity, p.code, p.line, p.column]),
        [
          ['PLAN-0000000a.md', 'warning', 'missing-section', 3, 1],
          ['PLAN-0000000b.md', 'error', 'missing-section', 3, 1],
          ['PLAN-0000000c.md', 'info', 'step-without-id', 14, 1],
          ['PLAN-0000000c.md', 'info', 'step-without-id', 15, 1],
        ],
      );
    });

    it('reports an invalid .pi/plans.json', async () => {
      fs.writeFileSync(path.join(root, '.pi', 'plans.json'), '{"stale_after_days": -1}');
      const r = await cli('validate');
      assert.equal(r.code, 1);
      assert.match(r.out, /^\.pi\/plans\.json: \.pi\/plans\.json: "stale_after_days" .*defaults are used until then\)\n0 plan files checked, 1 problem\.\n$/);
    });
  });

  describe('commands on one named plan', () => {
    it('build no index (nothing is read but that plan: no index cache is written), where list does', async () => {
      for (const f of fs.readdirSync(cacheDir)) fs.rmSync(path.join(cacheDir, f), { force: true });
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      put('PLAN-0000000b', planText('PLAN-0000000b'));
      put('PLAN-0000000c', planText('PLAN-0000000c', { status: 'completed' }));
      for (const args of [['show', 'PLAN-0000000a'], ['approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a')], ['reject', 'PLAN-0000000b', '--feedback', 'no'], ['diff', 'PLAN-0000000b'], ['clone', 'PLAN-0000000c'], ['cancel', 'PLAN-0000000a']]) {
        const r = args[0] === 'approve' ? await atTerminal('y', ...args) : await cli(...args);
        assert.ok(r.code === 0 || args[0] === 'diff', `${args.join(' ')}: ${r.err}`);
        assert.deepEqual(fs.readdirSync(cacheDir), [], `${args[0]} built no index`);
      }
      assert.match(file('PLAN-0000000a'), /^status: cancelled$/m);
      assert.equal((await cli('list')).code, 0);
      assert.equal(fs.readdirSync(cacheDir).length, 1, 'list builds the index (and keeps its cache)');
    });
  });

  describe('archive', () => {
    it('moves a finished plan into .pi/plans/archive/ when the person at a terminal says yes; an agent\'s command, a no and an unfinished plan move nothing', async () => {
      put('PLAN-0000000c', planText('PLAN-0000000c', { status: 'completed' }));
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const plain = await cli('archive', 'PLAN-0000000c');
      assert.equal(plain.code, 1);
      assert.match(plain.err, /PLAN-0000000c was not archived: it is a person's decision, and there is no terminal here/);
      assert.equal((await atTerminal('n', 'archive', 'PLAN-0000000c')).code, 1);
      assert.ok(fs.existsSync(path.join(plans, 'PLAN-0000000c.md')));
      const open = await atTerminal('y', 'archive', 'PLAN-0000000a');
      assert.equal(open.code, 1);
      assert.match(open.err, /PLAN-0000000a is proposed: "archive" is not possible now/);
      const r = await atTerminal('y', 'archive', 'PLAN-0000000c');
      assert.equal(r.code, 0, r.err);
      assert.match(r.asked[0], /^Archive PLAN-0000000c ".*" \(completed\) into \.pi\/plans\/archive\/\? \[y\/N\] $/);
      assert.ok(!fs.existsSync(path.join(plans, 'PLAN-0000000c.md')));
      assert.ok(fs.existsSync(path.join(plans, 'archive', 'PLAN-0000000c.md')));
    });
  });

  /** The CLI with a person at the terminal who answers `answer` to its question (what it asked is in `asked`). */
  async function atTerminal(answer: string, ...args: string[]): Promise<Run & { asked: string[] }> {
    let out = '';
    let err = '';
    const asked: string[] = [];
    const code = await runCli([...args, '--root', root], { out: (s) => (out += s), err: (s) => (err += s), ask: async (q) => (asked.push(q), answer) });
    return { code, out, err, asked };
  }

  describe('approve', () => {
    it('without a terminal and without --digest nothing is approved: a script or an agent cannot stand in for the person', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const before = file('PLAN-0000000a');
      const r = await cli('approve', 'PLAN-0000000a');
      assert.equal(r.code, 1);
      assert.match(r.err, /PLAN-0000000a was not approved: approving a plan is a person's decision, and there is no terminal here to ask one/);
      assert.doesNotMatch(r.err, /--digest|pi-plans show/, 'nothing that tells a model how to approve');
      // The version alone (what a forged text keeps) approves nothing either.
      assert.equal((await cli('approve', 'PLAN-0000000a', '--seen-version', '3')).code, 1);
      assert.equal(file('PLAN-0000000a'), before);
    });

    it('an approval that cannot keep its review copy after it was written says exactly what stood: approved (exit 0), and what was not kept', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const blocker = path.join(root, '..', `${path.basename(root)}-state-file`);
      fs.writeFileSync(blocker, 'a file where the state folder should be');
      const saved = process.env.PI_PLANS_STATE_DIR;
      process.env.PI_PLANS_STATE_DIR = path.join(blocker, 'pi-plans');
      try {
        const r = await atTerminal('y', 'approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a'));
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /\nPLAN-0000000a approved at v3 \(now v4\), signed by Test Person\.\n$/);
        assert.match(r.err, /^pi-plans: warning: PLAN-0000000a is approved, and that stands; but the reviewed version v3 was not kept for the next comparison \(.+\)\npi-plans: warning: PLAN-0000000a is approved, and that stands; but the decision was not recorded in your state folder \(.+\), so an older copy of the file written back would not be recognised as one\n$/);
        assert.match(file('PLAN-0000000a'), /^status: approved$/m);
        assert.deepEqual(checkpoints('PLAN-0000000a').map((c) => [c.type, c.status]), [['status', 'approved']]);
      } finally {
        if (saved === undefined) delete process.env.PI_PLANS_STATE_DIR;
        else process.env.PI_PLANS_STATE_DIR = saved;
        fs.rmSync(blocker, { force: true });
      }
    });

    it('on a terminal it shows the plan\'s text, title, version and digest and asks; yes approves (signed), no leaves the plan as it was', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const before = file('PLAN-0000000a');
      const no = await atTerminal('n', 'approve', 'PLAN-0000000a');
      assert.equal(no.code, 1);
      // What is approved, before the question: the goal and every step, as written.
      assert.match(no.out, /^The plan, as it will be approved:\n {2}## Goal\n {2}Make it work\n[\s\S]* {2}1\. \[x\] S001 first\n {2}2\. \[ \] S002 second\n/);
      assert.match(no.out, /\nPLAN-0000000a: Fix the thing\nstatus: proposed {3}version: 3 {3}steps: 1\/2 done\ndigest: sha256:[0-9a-f]{64}\n$/);
      assert.deepEqual(no.asked, ['Approve PLAN-0000000a "Fix the thing" at v3? [y/N] ']);
      assert.equal(no.err, 'PLAN-0000000a was not approved.\n');
      assert.equal(file('PLAN-0000000a'), before);
      const yes = await atTerminal('y', 'approve', 'PLAN-0000000a');
      assert.equal(yes.code, 0, yes.err);
      assert.match(yes.out, /PLAN-0000000a approved at v3 \(now v4\), signed by Test Person\.\n$/);
      const text = file('PLAN-0000000a');
      assert.match(text, /^status: approved$/m);
      assert.match(text, /^approved_by: cli$/m);
      assert.match(text, /^approved_version: 3$/m);
      assert.match(text, /^approval_key: ed25519:/m);
      assert.match((await cli('show', 'PLAN-0000000a')).out, /approved by Test Person at v3 \(signed with your key\)/);
      assert.deepEqual(
        checkpoints('PLAN-0000000a').map((c) => [c.type, c.status, c.actor, c.version]),
        [['status', 'approved', 'cli', 4]],
      );
    });

    it('after a rejection, it shows what changed since the version the person reviewed; a terminal escape in the text is shown, never run', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a', { steps: ['[ ] S001 first', '[ ] S002 second'] }));
      assert.equal((await atTerminal('y', 'reject', 'PLAN-0000000a', '--feedback', 'split the second step')).code, 0);
      const rejected = file('PLAN-0000000a');
      put('PLAN-0000000a', rejected.replace(/^status: \w+$/m, 'status: proposed').replace('S002 second', 'S002 second, in two parts \u001b[2K\u001b[1Ahidden'));
      const r = await atTerminal('n', 'approve', 'PLAN-0000000a');
      assert.match(r.out, /^Changed since v3, the version last reviewed:\n {2}~ S002 /);
      assert.match(r.out, /S002 second, in two parts \\x1b\[2K\\x1b\[1Ahidden/, 'the escape is written out, not sent to the terminal');
      assert.ok(!r.out.includes('\u001b'), 'no escape character reaches the terminal');
    });

    it('--digest without a terminal approves nothing: the digest `pi_plan_get` prints is no way around the person', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const before = file('PLAN-0000000a');
      for (const extra of [[], ['--seen-version', '3'], ['--comment', 'S001=fine']]) {
        const r = await cli('approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a'), ...extra);
        assert.equal(r.code, 1, r.out);
        assert.match(r.err, /PLAN-0000000a was not approved: approving a plan is a person's decision, and there is no terminal here to ask one/);
        assert.doesNotMatch(r.err, /--digest|pi-plans show/);
      }
      assert.equal(file('PLAN-0000000a'), before);
    });

    it('--digest at a terminal approves exactly the text `show` printed; a text changed since (same version) is refused before anything is asked', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const digest = await digestOf('PLAN-0000000a');
      // The agent changes a step and keeps version 3.
      put('PLAN-0000000a', file('PLAN-0000000a').replace('S002 second', 'S002 second, then drop the tables'));
      const stale = await atTerminal('y', 'approve', 'PLAN-0000000a', '--digest', digest);
      assert.equal(stale.code, 1);
      assert.deepEqual(stale.asked, [], 'refused before the question');
      assert.match(stale.err, /the text of PLAN-0000000a changed since you read it \(you reviewed sha256:[0-9a-f]{12}, it is now sha256:[0-9a-f]{12} at v3\)\. Review the current text, then approve it\./);
      assert.match(file('PLAN-0000000a'), /^status: proposed$/m);
      const ok = await atTerminal('y', 'approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a'));
      assert.equal(ok.code, 0, ok.err);
      assert.match(file('PLAN-0000000a'), /^status: approved$/m);
      assert.equal((await cli('approve', 'PLAN-0000000a', '--digest', 'abc')).code, 2, 'a digest of the wrong form is a usage error');
    });

    it('an approved plan edited as a file afterwards is listed and shown as changed since approval; one marked approved by hand as not valid', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      assert.equal((await atTerminal('y', 'approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a'))).code, 0);
      assert.doesNotMatch((await cli('list')).out, /CHANGED|NOT VALID/);
      put('PLAN-0000000a', file('PLAN-0000000a').replace('S002 second', 'S002 second, and push to main'));
      assert.match((await cli('list')).out, /PLAN-0000000a {2}approved .*Fix the thing {2}\(CHANGED SINCE APPROVAL: approve it again before it runs\)/);
      const rows = JSON.parse((await cli('list', '--json')).out) as { id: string; attention?: string }[];
      assert.equal(rows[0].attention, 'changed');
      assert.match((await cli('show', 'PLAN-0000000a')).out, /CHANGED SINCE APPROVAL: PLAN-0000000a changed since Test Person approved v3/);
      put('PLAN-0000000b', planText('PLAN-0000000b', { status: 'approved' }));
      assert.match((await cli('list')).out, /PLAN-0000000b {2}approved .*\(APPROVAL NOT VALID: no valid approval record; a person approves it before it runs\)/);
      assert.match((await cli('show', 'PLAN-0000000b', '--json')).out, /"state": "invalid"/);
    });

    it('--seen-version that is not a number: usage error', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const r = await cli('approve', 'PLAN-0000000a', '--seen-version', 'abc');
      assert.notEqual(r.code, 0);
      assert.match(r.err, /--seen-version takes a whole number/);
      assert.match(file('PLAN-0000000a'), /^status: proposed$/m);
    });

    it('approving a draft is refused (exit 1), file unchanged', async () => {
      const store = await openNodeStore(root, { indexCache: false });
      const { fm } = await store.create({ title: 'Draft plan', goal: 'g', steps: [{ text: 'a' }] }, 'agent');
      const before = file(fm.id);
      const r = await cli('approve', fm.id);
      assert.equal(r.code, 1);
      assert.equal(r.err, `pi-plans: ${fm.id} is draft: "approve" is not possible now; edit it, or submit it for review\n`);
      assert.equal(file(fm.id), before);
      // Once submitted by the agent, the person approves it from the CLI.
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      const ok = await atTerminal('y', 'approve', fm.id, '--digest', await digestOf(fm.id));
      assert.equal(ok.code, 0, ok.err);
      assert.ok(ok.out.endsWith(`\n${fm.id} approved at v2 (now v3), signed by Test Person.\n`), ok.out);
    });

    it('--comment (repeatable) approves and writes the comments as suggestions in one "## Approval (vN)" section, by anchor', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const r = await atTerminal('y', 'approve', 'PLAN-0000000a', '--digest', await digestOf('PLAN-0000000a'), '--comment', 'S001=Log how many rows it touched', '--comment', 'Goal=Say "work" for whom');
      assert.equal(r.code, 0, r.err);
      assert.ok(r.out.endsWith('\nPLAN-0000000a approved at v3 (now v4) with 2 suggestions, signed by Test Person.\n'), r.out);
      const text = file('PLAN-0000000a');
      assert.match(text, /^status: approved$/m);
      assert.match(text, /^approved_version: 3$/m);
      assert.ok(text.endsWith('2. [ ] S002 second\n\n## Approval (v3)\n- S001: Log how many rows it touched\n- Goal: Say "work" for whom\n'), text);
    });
  });

  describe('confirm', () => {
    it('on a plan with no approval from another machine: "nothing to confirm", why, and what to do instead, before any talk of a terminal; nothing asked, nothing written', async () => {
      const ID = 'PLAN-0000000a';
      const about = '`pi-plans confirm` is for an approval signed on another machine by a key not trusted here';
      put(ID, planText(ID));
      const proposed = file(ID);
      for (const run of [() => cli('confirm', ID), () => atTerminal('y', 'confirm', ID)]) {
        const r = await run();
        assert.equal(r.code, 1);
        assert.equal(r.err, `pi-plans: ${ID}: nothing to confirm: it is proposed, and no one has approved it yet (${about}): review it and approve it with \`pi-plans approve ${ID}\`.\n`);
        assert.deepEqual((r as { asked?: string[] }).asked ?? [], [], 'nothing asked');
      }
      assert.equal(file(ID), proposed);
      put(ID, planText(ID, { status: 'draft' }));
      assert.match((await cli('confirm', ID)).err, new RegExp(`^pi-plans: ${ID}: nothing to confirm: it is draft, with no approval \\(.*\\): the agent submits it for review, then a person approves it\\.\n$`));
      // Approved here, with this person's own key: the approval holds already.
      put(ID, planText(ID));
      assert.equal((await atTerminal('y', 'approve', ID)).code, 0);
      const approved = file(ID);
      const held = await cli('confirm', ID);
      assert.equal(held.code, 1);
      assert.match(held.err, new RegExp(`^pi-plans: ${ID}: nothing to confirm: the approval by .* at v3 holds on this machine \\(signed with your key\\): the plan can run as it is\\.\n$`));
      // Its text changed since: that approval no longer holds, and confirming would not make it.
      fs.writeFileSync(path.join(plans, `${ID}.md`), approved.replace('Make it work', 'Make it work, and more'));
      assert.match((await cli('confirm', ID)).err, new RegExp(`^pi-plans: ${ID}: nothing to confirm: its text changed since it was approved at v3, so that approval no longer holds: send it back for review \\(\`pi-plans withdraw ${ID}\`\\), then approve the current text \\(\`pi-plans approve ${ID}\`\\)\\.\n$`));
    });
  });

  describe('unlock', () => {
    it('a link planted as a plan\'s lock is named with the fix; unlock removes the link itself, never its target', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-cli-outside-'));
      try {
        fs.writeFileSync(path.join(outside, 'keep.txt'), 'keep');
        fs.symlinkSync(outside, path.join(plans, '.PLAN-0000000a.md.lock'));
        const refused = await cli('cancel', 'PLAN-0000000a');
        assert.equal(refused.code, 1);
        assert.match(refused.err, /pi-plans unlock PLAN-0000000a/);
        assert.match(file('PLAN-0000000a'), /^status: proposed$/m);
        const r = await cli('unlock', 'PLAN-0000000a');
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /PLAN-0000000a: its lock \(symlink\) was cleared\./);
        assert.equal(fs.existsSync(path.join(plans, '.PLAN-0000000a.md.lock')), false);
        assert.deepEqual(fs.readdirSync(outside), ['keep.txt'], 'the link\'s target is untouched');
        assert.equal((await cli('cancel', 'PLAN-0000000a')).code, 0);
        assert.equal((await cli('unlock', 'PLAN-0000000a')).out, 'PLAN-0000000a has no lock to clear.\n');
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });
  });

  describe('reject', () => {
    it('--feedback appends "## Rejection (vN)" and sets rejected', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const r = await cli('reject', 'PLAN-0000000a', '--feedback', 'Add a rollback step');
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, 'PLAN-0000000a rejected (v4).\n');
      const text = file('PLAN-0000000a');
      assert.ok(text.endsWith('2. [ ] S002 second\n\n## Rejection (v3)\nAdd a rollback step\n'), text);
      assert.match(text, /^status: rejected$/m);
      assert.match(text, /^version: 4$/m);
    });

    it('the third rejection lands in needs_review', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a').replace(/\n$/, '\n\n## Rejection (v1)\nno\n\n## Rejection (v2)\nstill no\n'));
      const r = await cli('reject', 'PLAN-0000000a', '--feedback', 'third time');
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, 'PLAN-0000000a rejected a third time: needs_review (reopen it to continue) (v4).\n');
      assert.match(file('PLAN-0000000a'), /^status: needs_review$/m);
    });

    it('neither --feedback nor --comment is a usage error (exit 2), file unchanged', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a'));
      const before = file('PLAN-0000000a');
      const r = await cli('reject', 'PLAN-0000000a');
      assert.equal(r.code, 2);
      assert.match(r.err, /say what must change: --feedback "…" and\/or --comment S003="…"/);
      const bad = await cli('reject', 'PLAN-0000000a', '--comment', 'S001');
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--comment takes ANCHOR=TEXT/);
      assert.equal(file('PLAN-0000000a'), before);
    });

    it('--comment (repeatable) writes one "- S002: …" line per comment after the feedback; diff then compares the revision with the rejected version', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a', { steps: ['[ ] S001 first', '[ ] S002 second'] }));
      const r = await cli('reject', 'PLAN-0000000a', '--feedback', 'Almost.', '--comment', 'S002=Say which tests', '--comment', 'Goal=Too vague: name the endpoint');
      assert.equal(r.code, 0, r.err);
      assert.ok(file('PLAN-0000000a').endsWith('## Rejection (v3)\nAlmost.\n\n- S002: Say which tests\n- Goal: Too vague: name the endpoint\n'), file('PLAN-0000000a'));
      // The agent revises S001 only (through the store, as a tool would).
      const store = await openNodeStore(root);
      await store.update('PLAN-0000000a', 'agent', (d, c) => editStep(d, { op: 'update', id: 'S001', text: 'first, done right' }, c));
      const d = await cli('diff', 'PLAN-0000000a');
      assert.equal(d.code, 0, d.err);
      assert.equal(
        d.out,
        [
          'PLAN-0000000a: v3 (reviewed) → v5',
          '  ~ S001 changed: "first" → "first, done right"',
          'Comments of the v3 review:',
          '  untouched  S002: Say which tests',
          '  untouched  Goal: Too vague: name the endpoint',
          '',
        ].join('\n'),
      );
      const json = JSON.parse((await cli('diff', 'PLAN-0000000a', '--json')).out);
      assert.deepEqual(json.changed, ['S001']);
      const none = await cli('diff', 'PLAN-0000000a', '--from', '2');
      assert.equal(none.code, 1);
      assert.match(none.err, /no comparison available: no snapshot of v2 is kept\. Versions kept: v3\./);
    });
  });

  describe('diff', () => {
    /** A plan rejected at v3 (comment on S002), revised in S001, rejected again at v6, then revised in S002 (now v8). */
    async function twoRounds(): Promise<void> {
      put('PLAN-0000000a', planText('PLAN-0000000a', { steps: ['[ ] S001 first', '[ ] S002 second'] }));
      assert.equal((await cli('reject', 'PLAN-0000000a', '--comment', 'S002=Say which tests')).code, 0);
      const store = await openNodeStore(root);
      await store.update('PLAN-0000000a', 'agent', (d, c) => editStep(d, { op: 'update', id: 'S001', text: 'first, done right' }, c));
      await store.update('PLAN-0000000a', 'agent', (d, c) => submit(d, c));
      assert.equal((await cli('reject', 'PLAN-0000000a', '--comment', 'Goal=Name the endpoint')).code, 0);
      await store.update('PLAN-0000000a', 'agent', (d, c) => editStep(d, { op: 'update', id: 'S002', text: 'second, with unit tests' }, c));
      assert.match(file('PLAN-0000000a'), /^version: 8$/m);
    }

    it('compares with the last reviewed version by default, and with the older one --from names, as 3 or as v3', async () => {
      await twoRounds();
      const last = await cli('diff', 'PLAN-0000000a');
      assert.equal(last.code, 0, last.err);
      assert.equal(
        last.out,
        ['PLAN-0000000a: v6 (reviewed) → v8', '  ~ S002 changed: "second" → "second, with unit tests"', 'Comments of the v6 review:', '  untouched  Goal: Name the endpoint', ''].join('\n'),
      );
      const v3 = [
        'PLAN-0000000a: v3 (reviewed) → v8',
        '  ~ S001 changed: "first" → "first, done right"',
        '  ~ S002 changed: "second" → "second, with unit tests"',
        'Comments of the v3 review:',
        '  revised    S002: Say which tests',
        '',
      ].join('\n');
      for (const from of ['3', 'v3', 'V3']) {
        const r = await cli('diff', 'PLAN-0000000a', '--from', from);
        assert.equal(r.code, 0, `--from ${from}: ${r.err}`);
        assert.equal(r.out, v3, `--from ${from}`);
      }
      const json = JSON.parse((await cli('diff', 'PLAN-0000000a', '--from', 'v3', '--json')).out);
      assert.deepEqual([json.fromVersion, json.toVersion, json.changed], [3, 8, ['S001', 'S002']]);
    });

    it('review copies live outside the workspace: one written into .pi/plans/reviews by an agent changes nothing; a copy that is not that version\'s text is "comparison unavailable", never "no change"', async () => {
      await twoRounds();
      assert.equal(fs.existsSync(path.join(plans, 'reviews')), false, 'nothing kept in the workspace');
      // The finding: after a rejection the agent revises, then overwrites the review copy with the current text.
      fs.mkdirSync(path.join(plans, 'reviews', 'PLAN-0000000a'), { recursive: true });
      fs.writeFileSync(path.join(plans, 'reviews', 'PLAN-0000000a', 'v6.md'), file('PLAN-0000000a'));
      assert.match((await cli('diff', 'PLAN-0000000a')).out, /~ S002 changed: "second" → "second, with unit tests"/);
      // The kept copy itself rewritten with the current text (another version's): no comparison, said so.
      fs.writeFileSync(path.join(reviewCopiesDir(root), 'PLAN-0000000a', 'v6.md'), file('PLAN-0000000a'));
      const r = await cli('diff', 'PLAN-0000000a');
      assert.equal(r.code, 1);
      assert.doesNotMatch(r.out, /no change/);
      assert.match(r.err, /no comparison available: the review copy was changed: it is not PLAN-0000000a's text of v6\./);
    });

    it('a kept version whose file is not UTF-8 is named as kept but unreadable (corrupted), with the fix; no comparison, exit 1', async () => {
      await twoRounds();
      fs.writeFileSync(path.join(reviewCopiesDir(root), 'PLAN-0000000a', 'v6.md'), Buffer.from([0xff, 0xfe, 0x00, 0x2d]));
      const r = await cli('diff', 'PLAN-0000000a');
      assert.equal(r.code, 1);
      assert.equal(r.out, '');
      assert.equal(
        r.err,
        [
          'PLAN-0000000a: no comparison available: the kept version v6 could not be read (corrupted: its file is not valid UTF-8). Versions kept: v3, v6.',
          `To fix: delete ${reviewCopiesDir(root)}/PLAN-0000000a/v6.md and its record v6.json (the next approval or rejection keeps a new version), or compare with another kept version: --from v3.`,
          '',
        ].join('\n'),
      );
      const json = JSON.parse((await cli('diff', 'PLAN-0000000a', '--from', 'v6', '--json')).out);
      assert.deepEqual([json.unavailable, json.unreadableVersion], ['the kept version v6 could not be read (corrupted: its file is not valid UTF-8)', 6]);
      // The other kept version still compares.
      assert.equal((await cli('diff', 'PLAN-0000000a', '--from', 'v3')).code, 0);
    });

    it('--from that is not a version is a usage error (exit 2) that shows both forms', async () => {
      await twoRounds();
      for (const from of ['x3', 'v', 'v-3', '3.0', 'vv3']) {
        const r = await cli('diff', 'PLAN-0000000a', '--from', from);
        assert.equal(r.code, 2, `--from ${from}`);
        assert.match(r.err, /--from takes a version, e\.g\. --from v3 or --from 3/);
      }
    });
  });

  describe('cancel, reopen, retry, resume, withdraw, clone', () => {
    const cases: { cmd: string; from: string; to: string; refusedFrom: string; hint: string; extra?: string[] }[] = [
      { cmd: 'cancel', from: 'proposed', to: 'cancelled', refusedFrom: 'completed', hint: 'it is finished: clone it to start a new plan, or archive it', extra: ['--reason', 'not needed'] },
      { cmd: 'reopen', from: 'needs_review', to: 'draft', refusedFrom: 'draft', hint: 'edit it, or submit it for review' },
      { cmd: 'retry', from: 'failed', to: 'approved', refusedFrom: 'proposed', hint: 'wait for a person to approve or reject it, edit it (it stays proposed), or cancel it' },
      { cmd: 'resume', from: 'stalled', to: 'executing', refusedFrom: 'completed', hint: 'it is finished: clone it to start a new plan, or archive it' },
      { cmd: 'withdraw', from: 'executing', to: 'proposed', refusedFrom: 'draft', hint: 'edit it, or submit it for review' },
    ];
    for (const c of cases) {
      it(`${c.cmd}: ${c.from} -> ${c.to}; refused from ${c.refusedFrom}`, async () => {
        const text0 = planText('PLAN-0000000a', { status: c.from });
        // A plan resumes only on a person's approval: the record this machine's person signed.
        put('PLAN-0000000a', c.cmd === 'resume' ? sealApproval(parsePlan(text0), await new NodeApprovalKeys(userConfigDir(), () => [root]).signer()).text : text0);
        if (c.cmd !== 'cancel') {
          // A person's decision: without a terminal (an agent's command) nothing moves.
          const before = file('PLAN-0000000a');
          const none = await cli(c.cmd, 'PLAN-0000000a');
          assert.equal(none.code, 1);
          assert.match(none.err, new RegExp(`PLAN-0000000a: "${c.cmd}" was not done: it is a person's decision, and there is no terminal here to ask one`));
          assert.equal(file('PLAN-0000000a'), before);
          const no = await atTerminal('n', c.cmd, 'PLAN-0000000a');
          assert.equal(no.code, 1);
          assert.deepEqual(no.asked, [`${c.cmd[0].toUpperCase()}${c.cmd.slice(1)} PLAN-0000000a "Fix the thing" (${c.from} -> ${c.to})? [y/N] `]);
          assert.equal(file('PLAN-0000000a'), before);
        }
        const r = c.cmd === 'cancel' ? await cli(c.cmd, 'PLAN-0000000a', ...(c.extra ?? [])) : await atTerminal('y', c.cmd, 'PLAN-0000000a');
        assert.equal(r.code, 0, r.err);
        assert.equal(r.out, `PLAN-0000000a is now ${c.to} (v4).\n`);
        const text = file('PLAN-0000000a');
        assert.match(text, new RegExp(`^status: ${c.to}$`, 'm'));
        assert.match(text, /^version: 4$/m);
        if (c.cmd === 'cancel') assert.match(text, /^result_summary: "?not needed"?$/m);
        assert.deepEqual(
          checkpoints('PLAN-0000000a').map((x) => [x.type, x.status, x.actor, x.version]),
          [['status', c.to, 'cli', 4]],
        );

        put('PLAN-0000000b', planText('PLAN-0000000b', { status: c.refusedFrom }));
        const before = file('PLAN-0000000b');
        const no = await cli(c.cmd, 'PLAN-0000000b');
        assert.equal(no.code, 1);
        assert.equal(no.out, '');
        assert.equal(no.err, `pi-plans: PLAN-0000000b is ${c.refusedFrom}: "${c.cmd}" is not possible now; ${c.hint}\n`);
        assert.equal(file('PLAN-0000000b'), before);
        assert.equal(fs.existsSync(path.join(plans, 'sessions', 'PLAN-0000000b.jsonl')), false);
      });
    }

    it('clone: a completed plan -> a new proposed plan; cloning a draft is refused', async () => {
      put('PLAN-0000000a', planText('PLAN-0000000a', { status: 'completed', steps: ['[x] S001 first', '[x] S002 second'] }));
      const before = file('PLAN-0000000a');
      const r = await cli('clone', 'PLAN-0000000a');
      assert.equal(r.code, 0, r.err);
      const m = /^(PLAN-[0-9a-f]{8}) created from PLAN-0000000a \(proposed\)\.\n$/.exec(r.out);
      assert.ok(m, r.out);
      const id = m[1];
      assert.notEqual(id, 'PLAN-0000000a');
      assert.equal(file('PLAN-0000000a'), before);
      const shown = await cli('show', id, '--json');
      const doc = JSON.parse(shown.out) as { status: string; version: number; title: string; steps: { id: string; status: string }[] };
      assert.deepEqual(
        [doc.status, doc.version, doc.title, doc.steps.map((s) => [s.id, s.status])],
        ['proposed', 1, 'Fix the thing', [['S001', 'pending'], ['S002', 'pending']]],
      );
      assert.deepEqual(checkpoints(id).map((c) => [c.type, c.status, c.note]), [['created', 'proposed', 'cloned from PLAN-0000000a']]);

      put('PLAN-0000000b', planText('PLAN-0000000b', { status: 'draft' }));
      const names = fs.readdirSync(plans).sort();
      const no = await cli('clone', 'PLAN-0000000b');
      assert.equal(no.code, 1);
      assert.equal(no.err, 'pi-plans: PLAN-0000000b is draft: "clone" is not possible now; edit it, or submit it for review\n');
      assert.deepEqual(fs.readdirSync(plans).sort(), names);
    });
  });

  it('an unknown command is a usage error (exit 2)', async () => {
    const r = await cli('frobnicate');
    assert.equal(r.code, 2);
  });
});
