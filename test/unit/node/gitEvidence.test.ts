// Snapshots of the working tree and their differences, in real repositories (temporary folders, the
// machine's git): what each kind of change looks like, and that the user's index, stash and refs
// stay as they were.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitEvidence, NotRecorded, parseRawNumstat, PIN_NAMESPACE } from '../../../src/node/work/gitEvidence';
import { newRepo, repoTools } from '../../helpers/gitRepo';

describe('git evidence: snapshots of the working tree (real repositories)', function () {
  this.timeout(30_000);
  let dir: string;
  const { git, write } = repoTools(() => dir);
  /** What the user sees of their repository. */
  const userView = () => ({ status: git('status', '--porcelain=v1', '-uall'), stash: git('stash', 'list'), refs: git('for-each-ref').split('\n').filter((l) => !l.includes(PIN_NAMESPACE)).join('\n'), index: git('ls-files', '-s') });

  beforeEach(() => {
    dir = newRepo('pi-plans-evidence-');
    write('a.txt', 'one\ntwo\nthree\n');
    write('old-name.ts', 'export const x = 1;\nexport const y = 2;\nexport const z = 3;\n');
    write('gone.md', 'bye\n');
    write('.gitignore', '*.log\n');
    write('.pi/plans/PLAN-00000001.md', 'plan\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sees edits, a rename, a binary file, a deletion and an untracked file; leaves ignored files and .pi/ out', async () => {
    const g = await GitEvidence.open(dir);
    const before = await g.snapshot();
    write('a.txt', 'one\n2\nthree\nfour\n');
    fs.renameSync(path.join(dir, 'old-name.ts'), path.join(dir, 'new-name.ts'));
    write('img.bin', Buffer.from([0, 1, 2, 0, 255, 0]));
    fs.rmSync(path.join(dir, 'gone.md'));
    write('src/fresh.ts', 'a\nb\n');
    write('debug.log', 'ignored\n');
    write('.pi/plans/PLAN-00000001.md', 'plan changed\n');
    const after = await g.snapshot();
    const changes = await g.diff(before, after);
    const by = Object.fromEntries(changes.map((c) => [c.path, c]));
    assert.deepEqual(Object.keys(by).sort(), ['a.txt', 'gone.md', 'img.bin', 'new-name.ts', 'src/fresh.ts']);
    assert.deepEqual(by['a.txt'], { status: 'modified', path: 'a.txt', added: 2, removed: 1, binary: false });
    assert.deepEqual(by['new-name.ts'], { status: 'renamed', path: 'new-name.ts', from: 'old-name.ts', added: 0, removed: 0, binary: false });
    assert.deepEqual(by['img.bin'], { status: 'added', path: 'img.bin', binary: true });
    assert.deepEqual(by['gone.md'], { status: 'deleted', path: 'gone.md', added: 0, removed: 1, binary: false });
    assert.deepEqual(by['src/fresh.ts'], { status: 'added', path: 'src/fresh.ts', added: 2, removed: 0, binary: false });
    assert.equal(await g.show(after, 'src/fresh.ts'), 'a\nb\n');
    assert.equal(await g.show(before, 'src/fresh.ts'), undefined);
  });

  it('leaves out only the workspace\'s own .pi/: code in a nested .pi/ folder (src/.pi/) is a change like any other, and so is one in a subfolder workspace\'s parent', async () => {
    const g = await GitEvidence.open(dir);
    assert.equal(g.plans, '.pi/');
    const before = await g.snapshot();
    write('src/.pi/tool.ts', 'export const planted = 1;\n');
    write('.pi/plans/PLAN-00000001.md', 'plan changed\n');
    const after = await g.snapshot();
    assert.deepEqual((await g.diff(before, after)).map((c) => c.path), ['src/.pi/tool.ts']);
    // A workspace in a subfolder of the repository: its own sub/.pi/ is left out, the top's .pi/ is not.
    fs.mkdirSync(path.join(dir, 'sub', '.pi', 'plans'), { recursive: true });
    const sub = await GitEvidence.open(path.join(dir, 'sub'));
    assert.equal(sub.plans, 'sub/.pi/');
    const b2 = await sub.snapshot();
    write('sub/.pi/plans/PLAN-00000002.md', 'plan\n');
    write('.pi/plans/PLAN-00000001.md', 'changed again\n');
    assert.deepEqual((await sub.diff(b2, await sub.snapshot())).map((c) => c.path), ['.pi/plans/PLAN-00000001.md']);
    // What checks and drift compare leaves out the same folder only.
    const without = await g.snapshotWithoutPlans();
    assert.equal(await g.show(without, 'src/.pi/tool.ts'), 'export const planted = 1;\n');
    assert.equal(await g.show(without, '.pi/plans/PLAN-00000001.md'), undefined);
  });

  it('leaves the user index, stash and refs as they were, with staged and unstaged work', async () => {
    write('a.txt', 'staged\n');
    git('add', 'a.txt');
    write('a.txt', 'staged then edited\n');
    write('new.txt', 'untracked\n');
    git('stash', 'push', '-q', '--keep-index', '-m', 'kept');
    write('new.txt', 'untracked again\n');
    const seen = userView();
    const log = git('log', '--all', '--oneline');
    const g = await GitEvidence.open(dir);
    const before = await g.snapshot();
    write('b.txt', 'more\n');
    const after = await g.snapshot();
    await g.pin('PLAN-00000001', 'S001', 'before', before);
    await g.pin('PLAN-00000001', 'S001', 'after', after);
    fs.rmSync(path.join(dir, 'b.txt'));
    assert.deepEqual(userView(), seen);
    assert.equal(git('log', '--all', '--oneline'), log, 'git log --all does not show the pins');
    assert.equal(git('branch', '--list').trim(), '* ' + git('branch', '--show-current').trim());
  });

  it('pins the trees so that git gc --prune=now keeps them; an unpinned tree is pruned', async () => {
    const g = await GitEvidence.open(dir);
    write('kept.txt', 'kept\n');
    const kept = await g.snapshot();
    await g.pin('PLAN-00000001', 'S001', 'after', kept);
    write('kept.txt', 'lost\n');
    const lost = await g.snapshot();
    git('gc', '-q', '--prune=now');
    assert.equal(git('cat-file', '-t', kept).trim(), 'tree');
    assert.equal(spawnSync('git', ['cat-file', '-t', lost], { cwd: dir }).status, 128);
    assert.equal(await g.pinned('PLAN-00000001', 'S001', 'after'), kept);
    assert.equal(await g.pinned('PLAN-00000001', 'S002', 'after'), undefined);
  });

  it('a folder outside any repository is "not a git repository"', async () => {
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-plain-'));
    try {
      await assert.rejects(GitEvidence.open(plain), (e) => e instanceof NotRecorded && e.message === 'not a git repository');
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
  });

  it('parses a rename and a binary file in -z output', () => {
    const out = [':100644 100644 a b R090', 'x.ts', 'y.ts', ':000000 100644 0 c A', 'p.png', '1\t2\t', 'x.ts', 'y.ts', '-\t-\tp.png', ''].join('\0');
    assert.deepEqual(parseRawNumstat(out), [
      { status: 'renamed', path: 'y.ts', from: 'x.ts', added: 1, removed: 2, binary: false },
      { status: 'added', path: 'p.png', binary: true },
    ]);
  });
});
