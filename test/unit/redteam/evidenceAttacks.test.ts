// Red-team attacks on issue 30's step evidence, checks and drift (an agent that can write any file
// of the workspace and its git folder), in real repositories with the machine's git. Each test is an
// attack: it fails if the attack works.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitEvidence, pinRef } from '../../../src/node/gitEvidence';

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
  });

  describe('ref names', () => {
    it('a plan or step id cannot leave refs/pi-plans/evidence/', () => {
      for (const [p, s] of [['PLAN-1/../../heads/main', 'S001'], ['PLAN-1', '..'], ['PLAN-1', 'S001/../../x'], ['PLAN-1', 'S001 '], ['PLAN-1', ''], ['..', 'S001']]) {
        assert.throws(() => pinRef(p, s, 'before'), /not a plan and step id/);
      }
    });
  });
});
