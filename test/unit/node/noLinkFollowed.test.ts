// No write or delete follows a link or leaves its allowed roots (issue 26, finding 6): a symlinked
// `reviews/`, `reviews/<id>/`, `archive/` or `sessions/` is refused by the file-system adapter
// itself, and nothing in the folder the link points to is written, created or deleted. On the
// real disk, through `NodeFileSystem` with roots and through the store with `nodePorts`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { changeStatus, isPlanError, submit } from '../../../src/core';
import { NodeFileSystem, nodePorts } from '../../../src/node';
import { PlanStore } from '../../../src/store';
import { refusal } from '../../helpers/assertions';

const enc = (s: string) => new TextEncoder().encode(s);
const ID = 'PLAN-0000000a';

/** Everything under `dir` (names, kinds and contents), to compare before and after. */
function snapshot(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((n) => {
      const st = fs.lstatSync(path.join(dir, n));
      return `${n} ${st.isFile() ? fs.readFileSync(path.join(dir, n), 'utf8') : st.isSymbolicLink() ? 'link' : 'dir'}`;
    });
}

for (const blocking of [true, false])
  describe(`no write or delete through a link (real disk, ${blocking ? 'synchronous calls' : 'no synchronous call'})`, () => {
    let tmp: string;
    let root: string;
    let plans: string;
    let outside: string;
    let nfs: NodeFileSystem;
    beforeEach(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-links-'));
      root = path.join(tmp, 'ws');
      plans = path.join(root, '.pi', 'plans');
      outside = path.join(tmp, 'outside');
      fs.mkdirSync(plans, { recursive: true });
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, 'v1.md'), 'someone else\n');
      fs.writeFileSync(path.join(outside, 'v2.md'), 'someone else too\n');
      fs.writeFileSync(path.join(outside, `${ID}.md`), 'not ours\n');
      fs.writeFileSync(path.join(outside, `${ID}.jsonl`), 'theirs\n');
      nfs = new NodeFileSystem({ blocking, roots: [root] });
    });
    afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

    const unsafe = (e: Error, link: string) => {
      assert.ok(isPlanError(e, 'UNSAFE_PATH'), `UNSAFE_PATH, got ${String(e)}`);
      assert.match(e.message, new RegExp(`^${link.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a symbolic link: Pi Plans never writes through links; replace it with a real folder`));
      assert.equal(e.details.file, link);
    };

    it('a linked reviews/: writing, pruning and making a review copy are refused; the linked folder is untouched', async () => {
      fs.symlinkSync(outside, path.join(plans, 'reviews'));
      const before = snapshot(outside);
      const dir = path.join(plans, 'reviews', ID);
      unsafe(await refusal(nfs.mkdirp(dir)), '.pi/plans/reviews');
      unsafe(await refusal(nfs.writeFileAtomic(path.join(plans, 'reviews', 'v1.md'), enc('x'))), '.pi/plans/reviews');
      unsafe(await refusal(nfs.removeFile(path.join(plans, 'reviews', 'v1.md'))), '.pi/plans/reviews');
      unsafe(await refusal(nfs.writeFileAtomic(path.join(dir, 'v3.md'), enc('x'))), '.pi/plans/reviews');
      assert.deepEqual(snapshot(outside), before);
    });

    it('a linked reviews/<id>/: the copy is refused and pruning old copies deletes nothing in the folder it points to', async () => {
      fs.mkdirSync(path.join(plans, 'reviews'));
      fs.symlinkSync(outside, path.join(plans, 'reviews', ID));
      const before = snapshot(outside);
      const dir = path.join(plans, 'reviews', ID);
      unsafe(await refusal(nfs.mkdirp(dir)), `.pi/plans/reviews/${ID}`);
      unsafe(await refusal(nfs.writeFileAtomic(path.join(dir, 'v3.md'), enc('x'))), `.pi/plans/reviews/${ID}`);
      for (const v of ['v1.md', 'v2.md']) unsafe(await refusal(nfs.removeFile(path.join(dir, v))), `.pi/plans/reviews/${ID}`);
      assert.deepEqual(snapshot(outside), before);
      // The link itself is still there, as it was: fixing it is the person's call.
      assert.ok(fs.lstatSync(dir).isSymbolicLink());
    });

    it('a linked archive/: archiving a plan is refused and nothing is created in the folder it points to', async () => {
      fs.symlinkSync(outside, path.join(plans, 'archive'));
      fs.unlinkSync(path.join(outside, `${ID}.md`));
      const before = snapshot(outside);
      unsafe(await refusal(nfs.mkdirp(path.join(plans, 'archive'))), '.pi/plans/archive');
      unsafe(await refusal(nfs.createFileExclusive(path.join(plans, 'archive', `${ID}.md`), enc('plan\n'))), '.pi/plans/archive');
      assert.deepEqual(snapshot(outside), before);
    });

    it('a linked sessions/: appending a checkpoint is refused; the file it points to is unchanged', async () => {
      fs.symlinkSync(outside, path.join(plans, 'sessions'));
      const before = snapshot(outside);
      unsafe(await refusal(nfs.mkdirp(path.join(plans, 'sessions'))), '.pi/plans/sessions');
      unsafe(await refusal(nfs.appendFile(path.join(plans, 'sessions', `${ID}.jsonl`), enc('{}\n'))), '.pi/plans/sessions');
      assert.deepEqual(snapshot(outside), before);
    });

    it('a linked .pi/: every write below it is refused (the check covers every folder from the root down)', async () => {
      const realPi = path.join(tmp, 'pi-elsewhere');
      fs.renameSync(path.join(root, '.pi'), realPi);
      fs.symlinkSync(realPi, path.join(root, '.pi'));
      const before = snapshot(realPi);
      unsafe(await refusal(nfs.writeFileAtomic(path.join(plans, `${ID}.md`), enc('x'))), '.pi');
      unsafe(await refusal(nfs.mkdirp(path.join(plans, 'sessions'))), '.pi');
      assert.deepEqual(snapshot(realPi), before);
    });

    it('sweeping temp files in a linked folder deletes nothing there', async () => {
      fs.symlinkSync(outside, path.join(plans, 'reviews'));
      const dead = `.v1.md.2147480000.deadbeef.tmp`;
      fs.writeFileSync(path.join(outside, dead), 'partial');
      const before = snapshot(outside);
      unsafe(await refusal(nfs.sweepTempFiles(path.join(plans, 'reviews'))), '.pi/plans/reviews');
      assert.deepEqual(snapshot(outside), before);
    });

    it('sweeping never deletes a name that leads out of the folder', async () => {
      const victim = path.join(outside, 'x.2147480000.deadbeef.tmp');
      fs.writeFileSync(victim, 'keep');
      const sneaky = `./${path.relative(plans, victim)}`;
      assert.equal(await nfs.sweepTempFiles(plans, [sneaky]), 0);
      assert.ok(fs.existsSync(victim));
    });

    it('a path outside every root is refused, however it is spelled', async () => {
      for (const p of [path.join(outside, 'v1.md'), `${root}/.pi/../../outside/v1.md`, `${root}-sibling/x.md`]) {
        for (const op of [() => nfs.writeFileAtomic(p, enc('x')), () => nfs.removeFile(p), () => nfs.appendFile(p, enc('x')), () => nfs.createFileExclusive(p, enc('x')), () => nfs.mkdirp(p)]) {
          const e = await refusal(op());
          assert.ok(isPlanError(e, 'UNSAFE_PATH'), String(e));
          assert.match(e.message, /is outside the folders Pi Plans may change/);
        }
      }
      assert.equal(fs.readFileSync(path.join(outside, 'v1.md'), 'utf8'), 'someone else\n');
      assert.equal(fs.existsSync(`${root}-sibling`), false);
    });

    it('real folders work as before: made on demand, written, appended, removed, swept', async () => {
      const dir = path.join(plans, 'reviews', ID);
      await nfs.mkdirp(dir);
      await nfs.mkdirp(dir);
      await nfs.writeFileAtomic(path.join(dir, 'v1.md'), enc('one\n'));
      await nfs.createFileExclusive(path.join(plans, 'archive-free.md'), enc('x'));
      await nfs.mkdirp(path.join(plans, 'sessions'));
      await nfs.appendFile(path.join(plans, 'sessions', `${ID}.jsonl`), enc('a\n'));
      await nfs.appendFile(path.join(plans, 'sessions', `${ID}.jsonl`), enc('b\n'));
      await nfs.removeFile(path.join(dir, 'v1.md'));
      await nfs.removeFile(path.join(dir, 'v1.md'));
      fs.writeFileSync(path.join(plans, `.${ID}.md.2147480000.deadbeef.tmp`), 'partial');
      assert.equal(await nfs.sweepTempFiles(plans), 1);
      assert.deepEqual(fs.readdirSync(dir), []);
      assert.equal(fs.readFileSync(path.join(plans, 'sessions', `${ID}.jsonl`), 'utf8'), 'a\nb\n');
    });

    it('a file where a folder should be is named as such, and nothing is made', async () => {
      fs.writeFileSync(path.join(plans, 'reviews'), 'a file');
      const e = await refusal(nfs.mkdirp(path.join(plans, 'reviews', ID)));
      assert.ok(isPlanError(e, 'NOT_A_FILE'), String(e));
      assert.match(e.message, /^\.pi\/plans\/reviews is a file, not a folder/);
      assert.equal(fs.readFileSync(path.join(plans, 'reviews'), 'utf8'), 'a file');
    });

    it('a root that itself sits under a link (like /tmp -> /private/tmp) works: only folders below the root count', async () => {
      const linkedRoot = path.join(tmp, 'ws-link');
      fs.symlinkSync(root, linkedRoot);
      const viaLink = new NodeFileSystem({ blocking, roots: [linkedRoot] });
      const dir = path.join(linkedRoot, '.pi', 'plans', 'sessions');
      await viaLink.mkdirp(dir);
      await viaLink.appendFile(path.join(dir, `${ID}.jsonl`), enc('a\n'));
      await viaLink.writeFileAtomic(path.join(linkedRoot, '.pi', 'plans', `${ID}.md`), enc('plan\n'));
      await viaLink.removeFile(path.join(linkedRoot, '.pi', 'plans', `${ID}.md`));
      assert.equal(fs.readFileSync(path.join(plans, 'sessions', `${ID}.jsonl`), 'utf8'), 'a\n');
      // ...while a link below it is still refused.
      fs.symlinkSync(outside, path.join(plans, 'archive'));
      unsafe(await refusal(viaLink.createFileExclusive(path.join(linkedRoot, '.pi', 'plans', 'archive', `${ID}.md`), enc('x'))), '.pi/plans/archive');
    });

    it('a root that does not exist yet is made (a state folder outside the workspace, on first use)', async () => {
      const state = path.join(tmp, 'state', 'pi-plans');
      const withState = new NodeFileSystem({ blocking, roots: [root, state] });
      await withState.mkdirp(path.join(state, 'reviews', ID));
      await withState.writeFileAtomic(path.join(state, 'reviews', ID, 'v1.md'), enc('one\n'));
      assert.equal(fs.readFileSync(path.join(state, 'reviews', ID, 'v1.md'), 'utf8'), 'one\n');
      // A link inside the extra root is refused as well, and named by its full path.
      fs.symlinkSync(outside, path.join(state, 'reviews', 'PLAN-0000000b'));
      const e = await refusal(withState.writeFileAtomic(path.join(state, 'reviews', 'PLAN-0000000b', 'v1.md'), enc('x')));
      assert.ok(isPlanError(e, 'UNSAFE_PATH'));
      assert.match(e.message, /reviews\/PLAN-0000000b is a symbolic link/);
      assert.equal(fs.readFileSync(path.join(outside, 'v1.md'), 'utf8'), 'someone else\n');
    });

    it('nodePorts: the workspace and the extra roots given are the allowed roots', async () => {
      const state = path.join(tmp, 'state');
      const ports = nodePorts(root, { indexCache: false, blocking, extraRoots: [state] });
      await ports.fs.mkdirp(path.join(state, 'reviews'));
      await ports.fs.writeFileAtomic(path.join(state, 'reviews', 'v1.md'), enc('x'));
      await ports.fs.writeFileAtomic(path.join(plans, `${ID}.md`), enc('x'));
      const e = await refusal(ports.fs.writeFileAtomic(path.join(outside, 'v9.md'), enc('x')));
      assert.ok(isPlanError(e, 'UNSAFE_PATH'));
      assert.equal(fs.existsSync(path.join(outside, 'v9.md')), false);
    });

    it('through the store: a symlinked archive/ makes archive refuse with UNSAFE_PATH; the plan stays, the link target is untouched', async () => {
      const store = await PlanStore.open(root, nodePorts(root, { indexCache: false, blocking }));
      const { fm } = await store.create({ title: 'Done with', goal: 'g', steps: [{ text: 'a' }] }, 'agent');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      await store.update(fm.id, 'user', (d, ctx) => changeStatus(d, 'cancel', ctx, 'not needed'));
      fs.symlinkSync(outside, path.join(plans, 'archive'));
      const before = snapshot(outside);
      const planFile = path.join(plans, `${fm.id}.md`);
      const text = fs.readFileSync(planFile, 'utf8');
      unsafe(await refusal(store.archive(fm.id, 'user')), '.pi/plans/archive');
      assert.deepEqual(snapshot(outside), before);
      assert.equal(fs.readFileSync(planFile, 'utf8'), text, 'the plan is still in place, unchanged');
      // Once the link is replaced by a real folder, the same call goes through.
      fs.unlinkSync(path.join(plans, 'archive'));
      await store.archive(fm.id, 'user');
      assert.equal(fs.readFileSync(path.join(plans, 'archive', `${fm.id}.md`), 'utf8'), text);
    });
  });
