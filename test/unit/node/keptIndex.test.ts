// The index a snapshot keeps for the next one (the git folder's pi-plans/index), in real
// repositories: what it must never cost in correctness. A same-size edit in the second the index was
// written, a kept index that is damaged or whose shared index is gone, a user whose own index is
// split, two processes at once.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitEvidence, KEPT_FOR_MS, SPLIT_FROM_BYTES } from '../../../src/node/work/gitEvidence';
import { newRepo, repoTools } from '../../helpers/gitRepo';

describe('git evidence: the index kept between snapshots (real repositories)', function () {
  this.timeout(30_000);
  let dir: string;
  const { git, write } = repoTools(() => dir);
  const kept = () => path.join(dir, '.git', 'pi-plans', 'index');
  const shared = () => fs.readdirSync(path.join(dir, '.git')).filter((n) => n.startsWith('sharedindex.')).sort();
  /** What `git add -A` and `git write-tree` on a fresh copy of the user's index say the working tree is (the index kept out of it). */
  const truth = () => {
    const tmp = path.join(os.tmpdir(), `pi-plans-truth-${process.pid}`);
    fs.copyFileSync(path.join(dir, '.git', 'index'), tmp);
    // Keeping the index's time: a copy stamped later would trust a same-size edit made in the
    // second the index was written (this test's own edits can be such), and miss it.
    const st = fs.statSync(path.join(dir, '.git', 'index'));
    fs.utimesSync(tmp, st.atime, st.mtime);
    const env = { ...process.env, GIT_INDEX_FILE: tmp };
    try {
      assert.equal(spawnSync('git', ['add', '-A'], { cwd: dir, env }).status, 0);
      return spawnSync('git', ['write-tree'], { cwd: dir, env, encoding: 'utf8' }).stdout.trim();
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  };

  /** Makes the repository large enough for a split kept index (an index over SPLIT_FROM_BYTES), committed. */
  const grow = () => {
    for (let i = 0; i < 4000; i++) write(`lib/d${i % 40}/g${i}.ts`, `export const g${i} = ${i};\n`);
    git('add', '-A');
    git('commit', '-q', '-m', 'grow');
    assert.ok(fs.statSync(path.join(dir, '.git', 'index')).size > SPLIT_FROM_BYTES);
  };

  beforeEach(() => {
    dir = newRepo('pi-plans-kept-');
    for (let i = 0; i < 20; i++) write(`src/f${i}.ts`, `export const v${i} = ${i};\n`);
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sees a same-size edit made in the same second as the kept index was written', async () => {
    const g = await GitEvidence.open(dir);
    await g.snapshot();
    const file = path.join(dir, 'src', 'f3.ts');
    // Git trusts a file whose size and times match the index, unless the file is as new as the
    // index itself ("racily clean"): only an edit within the index's second tests that. Edits
    // until one lands in it (the first nearly always does).
    let before: string;
    for (let n = 0; ; n++) {
      assert.ok(n < 20, 'no edit landed in the second the kept index was written');
      before = await g.snapshot();
      fs.writeFileSync(file, `export const v3 = ${n % 10};\n`);
      fs.writeFileSync(file, `export const v3 = ${(n + 1) % 10};\n`);
      if (Math.floor(fs.statSync(file).ctimeMs / 1000) === Math.floor(fs.statSync(kept()).mtimeMs / 1000)) break;
    }
    const now = await g.snapshotSince(before);
    assert.deepEqual(
      now.changes.map((c) => c.path),
      ['src/f3.ts'],
    );
    assert.equal(now.tree, truth());
  });

  it('keeps a whole index in a small repository: no shared index file', async () => {
    const g = await GitEvidence.open(dir);
    const before = await g.snapshot();
    write('src/f1.ts', 'changed\n');
    const now = await g.snapshotSince(before);
    assert.deepEqual(now.changes.map((c) => c.path), ['src/f1.ts']);
    assert.deepEqual(shared(), []);
    assert.ok(fs.existsSync(kept()));
  });

  it('keeps a split index in a large repository when the user has none, and leaves the user index byte for byte', async () => {
    grow();
    const userIndex = fs.readFileSync(path.join(dir, '.git', 'index'));
    const g = await GitEvidence.open(dir);
    const before = await g.snapshot();
    write('src/f1.ts', 'changed\n');
    write('src/new.ts', 'new\n');
    const now = await g.snapshotSince(before);
    assert.deepEqual(now.changes.map((c) => `${c.status} ${c.path}`).sort(), ['added src/new.ts', 'modified src/f1.ts']);
    assert.equal(now.tree, truth());
    assert.equal(shared().length, 1, 'one shared index, written by the first snapshot');
    assert.ok(fs.statSync(kept()).size < fs.statSync(path.join(dir, '.git', shared()[0])).size, 'the kept index is the small split part');
    assert.deepEqual(fs.readFileSync(path.join(dir, '.git', 'index')), userIndex);
  });

  it('never splits its index in a repository whose index is split, and never touches the shared index files there', async () => {
    grow();
    git('update-index', '--split-index');
    const theirs = shared();
    assert.equal(theirs.length, 1);
    const bytes = fs.readFileSync(path.join(dir, '.git', theirs[0]));
    const g = await GitEvidence.open(dir);
    let before = await g.snapshot();
    for (let i = 0; i < 12; i++) {
      write(`src/f${i}.ts`, `round ${i}\n`);
      const now = await g.snapshotSince(before);
      assert.deepEqual(now.changes.map((c) => c.path), [`src/f${i}.ts`]);
      before = now.tree;
    }
    assert.equal(before, truth());
    assert.deepEqual(shared(), theirs, 'no shared index of ours beside the user\'s');
    assert.deepEqual(fs.readFileSync(path.join(dir, '.git', theirs[0])), bytes);
    assert.ok(fs.statSync(kept()).size > bytes.length / 2, 'the kept index is whole');
    // The user's split index still reads: their git sees the twelve edits, unstaged.
    assert.equal(git('status', '--porcelain').split('\n').filter((l) => l.startsWith(' M ')).length, 12);
  });

  for (const damage of ['garbage in the kept index', 'the kept index cut short', 'its shared index deleted']) {
    it(`starts again from the user index when the kept one cannot be read (${damage})`, async () => {
      if (damage === 'its shared index deleted') grow();
      const g = await GitEvidence.open(dir);
      const before = await g.snapshot();
      if (damage === 'garbage in the kept index') fs.writeFileSync(kept(), 'not an index\n');
      if (damage === 'the kept index cut short') fs.truncateSync(kept(), 40);
      if (damage === 'its shared index deleted') {
        assert.equal(shared().length, 1);
        for (const s of shared()) fs.rmSync(path.join(dir, '.git', s));
      }
      write('src/f7.ts', 'after the damage\n');
      const now = await g.snapshotSince(before);
      assert.deepEqual(now.changes.map((c) => c.path), ['src/f7.ts']);
      assert.equal(now.tree, truth());
      // The next snapshot runs from a sound kept index again.
      write('src/f8.ts', 'and after\n');
      const next = await g.snapshotSince(now.tree);
      assert.deepEqual(next.changes.map((c) => c.path), ['src/f8.ts']);
    });
  }

  it('two ports snapshotting at once both see the working tree', async () => {
    const [a, b] = await Promise.all([GitEvidence.open(dir), GitEvidence.open(dir)]);
    const before = await a.snapshot();
    for (let round = 0; round < 5; round++) {
      write(`src/f${round}.ts`, `round ${round}\n`);
      const [x, y] = await Promise.all([a.snapshotSince(before), b.snapshotSince(before)]);
      const want = truth();
      assert.equal(x.tree, want);
      assert.equal(y.tree, want);
      assert.deepEqual(x.changes, y.changes);
    }
    assert.deepEqual(fs.readdirSync(path.dirname(kept())), ['index'], 'no temporary index left behind');
  });

  describe('files an ignore rule comes to cover after a snapshot held them', () => {
    it('the top .gitignore changed: the next snapshot leaves them out, as git would', async () => {
      const g = await GitEvidence.open(dir);
      write('build/out.js', 'built\n');
      await g.snapshot();
      write('.gitignore', 'build/\n');
      assert.equal(await g.snapshot(), truth());
      assert.equal(await g.show(await g.snapshot(), 'build/out.js'), undefined);
    });

    it('info/exclude changed: the same', async () => {
      const g = await GitEvidence.open(dir);
      write('notes.tmp', 'scratch\n');
      await g.snapshot();
      fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '*.tmp\n');
      assert.equal(await g.snapshot(), truth());
    });

    it('a .gitignore deeper down changed by a step: the snapshot after the step leaves them out', async () => {
      const g = await GitEvidence.open(dir);
      write('src/gen/out.txt', 'generated\n');
      const before = await g.snapshot();
      write('src/gen/.gitignore', 'out.txt\n');
      const end = await g.snapshotSince(before);
      assert.deepEqual(end.changes.map((c) => c.path), ['src/gen/.gitignore']);
      assert.equal(await g.snapshot(), truth());
    });

    it('a .gitignore deeper down changed outside any step: caught once the kept index is older than it may serve', async () => {
      const g = await GitEvidence.open(dir);
      write('src/gen/out.txt', 'generated\n');
      await g.snapshot();
      write('src/gen/.gitignore', 'out.txt\n');
      const old = new Date(Date.now() - KEPT_FOR_MS - 60_000);
      fs.utimesSync(kept(), old, old);
      assert.equal(await g.snapshot(), truth());
    });
  });
});
