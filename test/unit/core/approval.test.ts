import { strict as assert } from 'node:assert';
import {
  approvalDigest,
  approve,
  changedSinceApproval,
  changeStatus,
  editStep,
  markStep,
  OpContext,
  parsePlan,
  PlanDocument,
  reject,
  setContent,
  setContentBodies,
  setMetadata,
  startExecution,
  submit,
} from '../../../src/core';

const ctx = (actor: OpContext['actor'] = 'user'): OpContext => ({ now: '2026-02-01T00:00:00.000Z', actor });
const PROPOSED = `---\nid: PLAN-1a2b3c4d\ntitle: "A plan"\nstatus: proposed\nversion: 3\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nShip it\n\n## Steps\n1. [ ] S001 Write the code (edit: create → src/a.ts)\n   with details\n2. [ ] S002 Test it\n\n## Risks\n- none\n`;
const approved = (text = PROPOSED) => parsePlan(approve(parsePlan(text), 3, ctx()).text);
/** A plain file edit, as an agent's edit tool makes it: the text changes, the version does not. */
const edited = (doc: PlanDocument, from: string, to: string) => {
  assert.ok(doc.text.includes(from), from);
  return parsePlan(doc.text.replace(from, to));
};

describe('approval digest: an edit after the approval is seen', () => {
  it('approve records the digest of what was approved; nothing is flagged right after', () => {
    const d = approved();
    assert.match(d.fm.approved_hash!, /^[0-9a-f]{16}$/);
    assert.equal(d.fm.approved_hash, approvalDigest(parsePlan(PROPOSED)));
    assert.equal(changedSinceApproval(d), false);
  });

  it('a changed step text, annotation, details, goal, a new step, a new section: each is flagged', () => {
    const d = approved();
    const cases: [string, string][] = [
      ['S001 Write the code', 'S001 Delete the code'],
      ['(edit: create → src/a.ts)', '(edit: create → /etc/passwd)'],
      ['   with details', '   with other details'],
      ['Ship it', 'Ship something else'],
      ['2. [ ] S002 Test it\n', '2. [ ] S002 Test it\n3. [ ] S003 Push to main\n'],
      ['## Risks\n- none\n', '## Risks\n- none\n\n## Notes\nrm -rf\n'],
      ['title: "A plan"', 'title: "Another plan"'],
    ];
    for (const [from, to] of cases) assert.equal(changedSinceApproval(edited(d, from, to)), true, `${from} -> ${to}`);
  });

  it('what execution writes is not a change: start, marks, notes, ids given to pi-planner steps, completion', () => {
    let d = parsePlan(startExecution(approved(), ctx('agent')).text);
    assert.equal(changedSinceApproval(d), false);
    d = parsePlan(markStep(d, 'S001', 'in_progress', ctx('agent'), 'working').text);
    d = parsePlan(markStep(d, 'S001', 'done', ctx('agent'), 'done it').text);
    assert.equal(changedSinceApproval(d), false);
    // pi-planner's form: no ids, no checkboxes; the start adds ids.
    const pi = PROPOSED.replace('1. [ ] S001 ', '1. ').replace('2. [ ] S002 ', '2. ');
    const p = parsePlan(startExecution(approved(pi), ctx('agent')).text);
    assert.match(p.text, /S001 Write the code/);
    assert.equal(changedSinceApproval(p), false);
    // CRLF line ends (a checkout on Windows) are not a change either.
    assert.equal(changedSinceApproval(parsePlan(approved().text.replace(/\n/g, '\r\n'))), false);
  });

  it('a changed approved plan cannot be started; it can be submitted again, which voids the approval', () => {
    const d = edited(approved(), 'S002 Test it', 'S002 Skip the tests');
    assert.throws(() => startExecution(d, ctx('agent')), (e: Error & { code?: string }) => e.code === 'CHANGED_SINCE_APPROVAL' && /approved v3.*Submit it for review again \(pi_plan_submit\)/.test(e.message));
    const again = parsePlan(submit(d, ctx('agent')).text);
    assert.equal(again.fm.status, 'proposed');
    assert.equal(again.fm.approved_by, undefined);
    assert.equal(again.fm.approved_hash, undefined);
    assert.equal(changedSinceApproval(again), false);
    // An unchanged approved plan is not sent back by a submit.
    assert.throws(() => submit(approved(), ctx('agent')), /approved: "submit" is not possible now/);
  });

  it('a stalled plan changed since its approval cannot be resumed; editing or reopening clears the digest', () => {
    const running = parsePlan(startExecution(approved(), ctx('agent')).text);
    const stalled = parsePlan(changeStatus(running, 'stall', ctx('cli')).text);
    assert.throws(() => changeStatus(edited(stalled, 'Test it', 'Test nothing'), 'resume', ctx()), /CHANGED|changed after user approved v3.*retries it/);
    assert.equal(parsePlan(changeStatus(stalled, 'resume', ctx()).text).fm.status, 'executing');
    const reEdited = parsePlan(editStep(approved(), { op: 'update', id: 'S002', text: 'Test more' }, ctx('agent')).text);
    assert.equal(reEdited.fm.status, 'proposed');
    assert.equal(reEdited.fm.approved_hash, undefined);
    const meta = parsePlan(setMetadata(approved(), { risks: ['some'] }, {}, ctx('agent')).text);
    assert.equal(meta.fm.approved_hash, undefined);
  });

  it('plans approved before digests existed, and finished or rejected plans, are never flagged', () => {
    const old = parsePlan(approved().text.replace(/approved_hash: .*\n/, ''));
    assert.equal(changedSinceApproval(edited(old, 'Test it', 'Test nothing')), false);
    const rejected = parsePlan(reject(parsePlan(PROPOSED), 'no', ctx()).text);
    assert.equal(changedSinceApproval(rejected), false);
  });
});

describe('setContentBodies: the body a replacement will parse, known before it runs', () => {
  it('equals the body written, in place and for the revision of an executing plan', () => {
    const md = '## Goal\nShip it better\n\n## Steps\n1. [ ] S001 Write the code\n2. [ ] S002 Test it twice\n';
    const proposed = parsePlan(PROPOSED);
    const [inPlace] = setContentBodies(proposed, md);
    assert.equal(parsePlan(setContent(proposed, md, ctx('agent')).text).body, inPlace);
    const running = parsePlan(startExecution(approved(), ctx('agent')).text);
    const [rev] = setContentBodies(running, md);
    const r = setContent(running, md, ctx('agent'), { revisionId: 'PLAN-0000beef' });
    assert.equal(parsePlan(r.created![0].text).body, rev);
    assert.deepEqual(setContentBodies(proposed, '---\nid: x\n---\n'), [], 'refused input: nothing to prepare');
  });
});
