import { seenIn } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { isPlanError, PlanError } from '../../../src/core';
import { ActivePlans, approvePlan, waitForDecision, archivePlan, changePlanStatus, compareWithReviewed, editPlanStep, finishPlan, markPlanStep, rejectPlan, revisePlan, startPlan, submitPlan, updatePlan } from '../../../src/service';
import { SNAPSHOT_MAX_BYTES, SNAPSHOTS_KEPT } from '../../../src/store';
import { PlanStore } from '../../../src/store';
import { memoryPorts } from '../../helpers/memoryPorts';

/** Plan work mode as a face keeps it (VS Code's workspace state; here a list). */
function activePlans(): ActivePlans & { ids(): string[] } {
  let list: { id: string; folder: string }[] = [];
  return {
    list: () => list,
    set: (id, folder) => void (list = [...list.filter((a) => a.folder !== folder && a.id !== id), { id, folder }]),
    clear: (id) => void (list = list.filter((a) => a.id !== id)),
    ids: () => list.map((a) => `${a.id}@${a.folder}`),
  };
}

async function planReady(store: PlanStore): Promise<string> {
  const doc = await store.create({ title: 'Use cases', goal: 'G', steps: [{ text: 'One' }, { text: 'Two' }] }, 'agent');
  return doc.fm.id;
}

/** A plan the agent proposed and a person approved (v3), in a store in memory, with the place the use cases act in. */
async function approvedPlan() {
  const { ports } = memoryPorts();
  const store = await PlanStore.open('/ws', ports);
  const place = { store, folder: 'ws', active: activePlans() };
  const id = await planReady(store);
  await submitPlan(place, id, { actor: 'agent' });
  await approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id, 2) });
  return { store, place, id };
}

describe('use cases (src/service): one path for every face', () => {
  it('a person withdraws an approval before execution: back to review, the approval gone; an agent cannot', async () => {
    const { place, id } = await approvedPlan();
    await assert.rejects(changePlanStatus(place, id, 'withdraw', { actor: 'agent' }), (e) => isPlanError(e, 'HUMAN_ONLY'));
    const w = await changePlanStatus(place, id, 'withdraw', { actor: 'user', expectedVersion: 3 });
    assert.equal(w.doc.fm.status, 'proposed');
    assert.deepEqual([w.doc.fm.approved_by, w.doc.fm.approved_version, w.doc.fm.approved_hash], [undefined, undefined, undefined]);
    await startPlan(place, id, { actor: 'agent' }).then(
      () => assert.fail('started without an approval'),
      (e) => assert.ok(isPlanError(e, 'INVALID_TRANSITION')),
    );
  });

  it('a person sends an executing plan back to review (a drifted one, say): its approval gone, its progress kept; the agent marks nothing until a person approves it again', async () => {
    const { store, place, id } = await approvedPlan();
    await startPlan(place, id, { actor: 'agent' });
    await markPlanStep(place, id, 'S001', 'done', 'first done', { actor: 'agent' });
    const running = await markPlanStep(place, id, 'S002', 'in_progress', undefined, { actor: 'agent' });
    await assert.rejects(changePlanStatus(place, id, 'withdraw', { actor: 'agent' }), (e) => isPlanError(e, 'HUMAN_ONLY'));
    const w = await changePlanStatus(place, id, 'withdraw', { actor: 'user', expectedVersion: running.doc.fm.version });
    assert.equal(w.doc.fm.status, 'proposed');
    assert.deepEqual([w.doc.fm.approved_by, w.doc.fm.approved_hash, w.doc.fm.approval_sig], [undefined, undefined, undefined]);
    assert.deepEqual(w.doc.steps.map((s) => [s.id, s.status]), [['S001', 'done'], ['S002', 'in_progress']]);
    assert.equal(w.doc.steps[0].record?.Note, 'first done');
    await assert.rejects(markPlanStep(place, id, 'S002', 'done', undefined, { actor: 'agent' }), (e) => isPlanError(e, 'INVALID_TRANSITION') && /is proposed/.test(e.message));
    // Approved again, it goes on from where it was.
    await approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id, w.doc.fm.version) });
    await startPlan(place, id, { actor: 'agent' });
    const last = await markPlanStep(place, id, 'S002', 'done', undefined, { actor: 'agent' });
    assert.equal(last.doc.fm.status, 'completed');
  });

  it('archives a finished plan byte for byte into .pi/plans/archive/, out of the index; refuses an unfinished one and never overwrites', async () => {
    const { ports, fs } = memoryPorts();
    const store = await PlanStore.open('/ws', ports);
    const active = activePlans();
    const place = { store, folder: 'ws', active };
    const id = await planReady(store);
    await assert.rejects(archivePlan(place, id, { actor: 'user' }), (e) => isPlanError(e, 'INVALID_TRANSITION') && /archive/.test(e.message));
    await changePlanStatus(place, id, 'cancel', { actor: 'user', reason: 'not needed' });
    await assert.rejects(archivePlan(place, id, { actor: 'agent' }), (e) => isPlanError(e, 'HUMAN_ONLY'));
    const bytes = fs.files.get(store.pathOf(id))!;
    const { path } = await archivePlan(place, id, { actor: 'user' });
    assert.equal(path, `/ws/.pi/plans/archive/${id}.md`);
    assert.deepEqual(fs.files.get(path), bytes);
    assert.equal(fs.files.has(store.pathOf(id)), false);
    assert.equal(store.entry(id), undefined);
    await store.rescan();
    assert.equal(store.list().length, 0, 'an archived plan is never indexed again');
    // A second plan of the same id archived again is refused, and stays where it is.
    fs.files.set(store.pathOf(id), bytes);
    await store.rescan();
    await assert.rejects(archivePlan(place, id, { actor: 'user' }), (e) => isPlanError(e) && /exists already/.test(e.message));
    assert.ok(fs.files.has(store.pathOf(id)));
  });

  it('a whole life: who acts is recorded, the version seen is checked, plan work mode follows start and finish', async () => {
    const { ports } = memoryPorts();
    const store = await PlanStore.open('/ws', ports);
    const active = activePlans();
    const place = { store, folder: 'ws', active };
    const id = await planReady(store);
    await updatePlan(place, id, { risks: ['none'] }, {}, { actor: 'agent', expectedVersion: 1 });
    // A version the agent did not see is refused, and nothing changes.
    await assert.rejects(editPlanStep(place, id, { op: 'add', text: 'Three' }, { actor: 'agent', expectedVersion: 1 }), (e) => isPlanError(e, 'VERSION_CONFLICT'));
    const sub = await submitPlan(place, id, { actor: 'agent', expectedVersion: 2 });
    assert.equal(sub.cancelled, false);
    assert.equal(sub.doc.fm.status, 'proposed');
    // A person approves what they reviewed; an agent cannot without the opt-in.
    await assert.rejects(approvePlan(place, id, { actor: 'agent', seen: await seenIn(store, id) }), (e) => isPlanError(e, 'HUMAN_ONLY'));
    await assert.rejects(approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id, 2) }), (e) => isPlanError(e, 'STALE_APPROVAL'));
    const ok = await approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id, 3) });
    assert.deepEqual([ok.doc.fm.approved_by, ok.doc.fm.approved_version], ['user', 3]);
    assert.deepEqual(active.ids(), []);
    await startPlan(place, id, { actor: 'agent' });
    assert.deepEqual(active.ids(), [`${id}@ws`]);
    await markPlanStep(place, id, 'S001', 'done', 'first done', { actor: 'agent' });
    const last = await markPlanStep(place, id, 'S002', 'skipped', undefined, { actor: 'agent' });
    assert.equal(last.result.autoCompleted, true);
    assert.equal(last.doc.fm.status, 'completed');
    assert.deepEqual(active.ids(), [], 'a finished plan leaves plan work mode');
  });

  it('a rejection records the feedback at the version reviewed; a revision of an executing plan takes its place in plan work mode', async () => {
    const { ports } = memoryPorts();
    const store = await PlanStore.open('/ws', ports);
    const active = activePlans();
    const place = { store, folder: 'ws', active };
    const id = await planReady(store);
    await submitPlan(place, id, { actor: 'agent' });
    const r = await rejectPlan(place, id, { actor: 'cli', feedback: 'Split step one', seenVersion: 2 });
    assert.deepEqual(r.doc.rejections, [{ version: 2, feedback: 'Split step one' }]);
    await editPlanStep(place, id, { op: 'update', id: 'S001', text: 'One, split' }, { actor: 'agent' });
    await submitPlan(place, id, { actor: 'agent' });
    await approvePlan(place, id, { actor: 'cli', seen: await seenIn(store, id) });
    await startPlan(place, id, { actor: 'agent' });
    await markPlanStep(place, id, 'S001', 'done', undefined, { actor: 'agent' });
    const { doc, revision } = await revisePlan(place, id, '## Goal\nG\n\n## Steps\n1. [x] S001 One, split\n2. [ ] S002 Two, better\n', {}, { actor: 'agent' });
    assert.equal(doc.fm.status, 'superseded');
    assert.ok(revision);
    assert.equal(revision.fm.status, 'proposed');
    assert.deepEqual(active.ids(), [`${revision.fm.id}@ws`]);
  });

  it('without plan work mode (the CLI, MCP): the same use cases, nothing else to keep', async () => {
    const { ports } = memoryPorts();
    const store = await PlanStore.open('/ws', ports);
    const id = await planReady(store);
    await submitPlan({ store }, id, { actor: 'agent' });
    await approvePlan({ store }, id, { actor: 'cli', seen: await seenIn(store, id) });
    await startPlan({ store }, id, { actor: 'agent' });
    const failed = await finishPlan({ store }, id, 'fail', 'the build broke', { actor: 'agent' });
    assert.equal(failed.doc.fm.status, 'failed');
    assert.equal((await changePlanStatus({ store }, id, 'retry', { actor: 'cli' })).doc.fm.status, 'approved');
    await assert.rejects(changePlanStatus({ store }, id, 'retry', { actor: 'agent' }), (e) => isPlanError(e));
  });

  describe('an approval that fails after it was written says exactly what stood', () => {
    it('a checkpoint, a review copy, the index refresh and the lock\'s release that fail after the write: the approval stands, valid, and each failure is named; nothing is thrown', async () => {
      const { ports, fs } = memoryPorts();
      const store = await PlanStore.open('/ws', ports);
      const place = { store };
      const id = await planReady(store);
      await submitPlan(place, id, { actor: 'agent' });
      const seen = await seenIn(store, id);
      // After the checks, `sessions/` turns into a broken link (what the Node adapter refuses to follow), the
      // state folder cannot be written, the plan's stat fails and the lock cannot be released.
      const path = store.pathOf(id);
      let written = false;
      const write = fs.writeFileAtomic.bind(fs);
      fs.writeFileAtomic = async (p, data) => {
        if (p.startsWith(store.reviewsDir!)) throw new Error('EACCES: permission denied, open the review copy');
        await write(p, data);
        if (p === path) written = true;
      };
      fs.appendFile = async () => {
        throw new PlanError('UNSAFE_PATH', '.pi/plans/sessions is a symbolic link: plans are only read and written in real folders inside the workspace; replace the link with a folder');
      };
      const stat = fs.stat.bind(fs);
      fs.stat = async (p) => {
        if (written && p === path) throw new Error('EIO: i/o error, stat');
        return stat(p);
      };
      const acquire = ports.lock.acquire.bind(ports.lock);
      ports.lock.acquire = async (p) => {
        const release = await acquire(p);
        return async () => {
          await release();
          if (written) throw new Error('ENOENT: the lock file was removed');
        };
      };
      const done = await approvePlan(place, id, { actor: 'user', seen });
      assert.equal(done.doc.fm.status, 'approved');
      assert.deepEqual(done.warnings, [
        "the plan's lock could not be released (ENOENT: the lock file was removed)",
        'the change was written, but its checkpoint could not be logged (.pi/plans/sessions is a symbolic link: plans are only read and written in real folders inside the workspace; replace the link with a folder)',
        "the plan list could not be brought up to date with the change (EIO: i/o error, stat)",
        'the reviewed version v2 was not kept for the next comparison (EACCES: permission denied, open the review copy)',
      ]);
      fs.stat = stat;
      const now = await store.read(id);
      assert.equal(now.fm.status, 'approved');
      assert.equal((await store.approvalStanding(now)).state, 'valid');
    });
  });

  describe('the versions a person decided on (review snapshots)', () => {
    it('keeps only decided versions, byte for byte, outside the index; compares the next round with them', async () => {
      const { ports, fs } = memoryPorts();
      const store = await PlanStore.open('/ws', ports);
      const place = { store };
      const id = await planReady(store);
      await submitPlan(place, id, { actor: 'agent' });
      const reviewed = new TextDecoder().decode(fs.files.get(store.pathOf(id))!);
      await rejectPlan(place, id, { actor: 'user', feedback: 'No.', comments: [{ anchor: 'S001', body: 'Smaller.' }, { anchor: 'S002', body: 'Why?' }] });
      assert.deepEqual(await store.snapshotVersions(id), [2]);
      assert.equal((await store.readSnapshot(id))!.text, reviewed);
      // Edits and a submit are not decisions: no snapshot.
      await editPlanStep(place, id, { op: 'update', id: 'S001', text: 'One, smaller' }, { actor: 'agent' });
      await submitPlan(place, id, { actor: 'agent' });
      assert.deepEqual(await store.snapshotVersions(id), [2]);
      const cmp = await compareWithReviewed(place, id);
      assert.deepEqual(cmp.comparison!.changed, ['S001']);
      assert.deepEqual(cmp.comments.map((c) => `${c.anchor}:${c.addressed}`), ['S001:true', 'S002:false']);
      // Never indexed, never listed.
      assert.deepEqual(store.list().map((e) => e.id), [id]);
      await approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id) });
      assert.deepEqual(await store.snapshotVersions(id), [2, 5]);
    });

    it('keeps at most the latest versions and none over the size cap', async () => {
      const { ports } = memoryPorts();
      const store = await PlanStore.open('/ws', ports);
      const id = await planReady(store);
      for (let v = 1; v <= SNAPSHOTS_KEPT + 3; v++) await store.saveSnapshot(id, v, `text ${v}`);
      const kept = await store.snapshotVersions(id);
      assert.equal(kept.length, SNAPSHOTS_KEPT);
      assert.equal(kept[0], 4);
      await store.saveSnapshot(id, 99, 'x'.repeat(SNAPSHOT_MAX_BYTES + 1));
      assert.equal((await store.snapshotVersions(id)).includes(99), false);
    });

    it('a missing or corrupted snapshot is "no comparison available", never an error in the review', async () => {
      const { ports, fs } = memoryPorts();
      const store = await PlanStore.open('/ws', ports);
      const place = { store };
      const id = await planReady(store);
      await submitPlan(place, id, { actor: 'agent' });
      assert.match((await compareWithReviewed(place, id)).unavailable!, /no reviewed version/);
      await rejectPlan(place, id, { actor: 'user', feedback: 'No.', comments: [{ anchor: 'S001', body: 'x' }] });
      const snap = `${store.reviewsDir}/${id}/v2.md`;
      fs.files.set(snap, new TextEncoder().encode('---\nnot: a plan\n---\n'));
      await editPlanStep(place, id, { op: 'update', id: 'S001', text: 'changed' }, { actor: 'agent' });
      assert.deepEqual(await compareWithReviewed(place, id), { unavailable: `the review copy was changed: it is not ${id}'s text of v2`, unreadableVersion: 2, comments: [] });
      // Bytes that are not UTF-8: that kept version is named as unreadable, not "none kept".
      fs.files.set(snap, new Uint8Array([0xff, 0xfe, 0x00]));
      assert.deepEqual(await compareWithReviewed(place, id), { unavailable: 'the kept version v2 could not be read (corrupted: its file is not valid UTF-8)', unreadableVersion: 2, comments: [] });
      assert.deepEqual(await compareWithReviewed(place, id, { version: 2 }), { unavailable: 'the kept version v2 could not be read (corrupted: its file is not valid UTF-8)', unreadableVersion: 2, comments: [] });
      assert.equal(await store.readSnapshot(id), undefined, 'readers of the text alone still get none');
      // The resubmission goes through, without naming untouched comments it cannot know.
      const done = await submitPlan(place, id, { actor: 'agent' });
      assert.equal(done.doc.fm.status, 'proposed');
      assert.deepEqual(done.untouched, []);
      // A folder that cannot be written (a file where the folder should be) does not fail a decision.
      fs.files.set(`${store.reviewsDir}/${id}`, new Uint8Array());
      await rejectPlan(place, id, { actor: 'user', feedback: 'Still no.' });
      assert.equal((await store.read(id)).fm.status, 'rejected');
    });
  });
  it('a review wait trusts the file: an index that has not caught up (it still says draft) while the file says proposed does not end the wait', async () => {
    const { ports } = memoryPorts();
    const store = await PlanStore.open('/ws', ports);
    const id = await planReady(store);
    assert.equal(store.entry(id)?.status, 'draft');
    // Another process submitted it: the file says proposed; this store has not re-read it yet.
    const file = `/ws/.pi/plans/${id}.md`;
    ports.fs.put(file, ports.fs.text(file)!.replace(/^status: draft$/m, 'status: proposed'));
    assert.equal(store.entry(id)?.status, 'draft', 'the index lags');
    const outcome = await waitForDecision(store, id, new AbortController().signal, { timeoutMs: 50 });
    assert.deepEqual(outcome, { kind: 'waiting', afterMs: 50 });
  });
});
