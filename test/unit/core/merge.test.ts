import { sealApproval, seenNow, TEST_APPROVALS, unsealed } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  approve,
  createPlanText,
  editStep,
  markStep,
  mergePlanTexts,
  OpContext,
  parsePlan,
  PlanDocument,
  reject,
  setMetadata,
  StepStatus,
  submit,
} from '../../../src/core';
import { errorOf } from '../../helpers/assertions';

const ID = 'PLAN-0d1ff3e0';
const at = (n: number) => `2026-06-${String(n).padStart(2, '0')}T10:00:00.000Z`;
const agent = (n: number): OpContext => ({ now: at(n), actor: 'agent', approvals: TEST_APPROVALS });
const user = (n: number): OpContext => ({ now: at(n), actor: 'user', approvals: TEST_APPROVALS });

function basePlan(steps = 4): string {
  return createPlanText(
    {
      id: ID,
      title: 'Add rate limiting',
      goal: 'Limit requests per client.',
      risks: ['Clients behind one proxy share a bucket.'],
      steps: Array.from({ length: steps }, (_, i) => ({ text: `Step number ${i + 1}`, details: i % 2 ? `Details of step ${i + 1}.` : undefined })),
    },
    at(1),
  );
}

const doc = (t: string) => parsePlan(t);
const stepOf = (d: PlanDocument, id: string) => d.steps.find((s) => s.id === id)!;

/** The lines of `text` that are not in `ref` (a multiset difference). */
function linesNotIn(text: string, ref: string): string[] {
  const pool = new Map<string, number>();
  for (const l of ref.split('\n')) pool.set(l, (pool.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of text.split('\n')) {
    const n = pool.get(l) ?? 0;
    if (n) pool.set(l, n - 1);
    else out.push(l);
  }
  return out;
}

describe('merging plan files by step id (the git merge driver)', () => {
  it('merges two branches that edited different steps, with the version one past the larger side', () => {
    const base = basePlan();
    // ours: S001 reworded, then S003 marked... a draft cannot mark; reword S001 and add details to S002.
    const ours = editStep(doc(editStep(doc(base), { op: 'update', id: 'S001', text: 'Step one, reworded on main' }, agent(2)).text), { op: 'update', id: 'S002', details: 'New details on main.' }, agent(3)).text;
    const theirs = editStep(doc(base), { op: 'update', id: 'S004', text: 'Step four, reworded on the branch' }, agent(4)).text;
    // Both bumped version and updated_at: a line merge conflicts there.
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const m = doc(r.text);
    assert.equal(stepOf(m, 'S001').text, 'Step one, reworded on main');
    assert.equal(stepOf(m, 'S002').details, 'New details on main.');
    assert.equal(stepOf(m, 'S004').text, 'Step four, reworded on the branch');
    assert.equal(stepOf(m, 'S003').text, 'Step number 3');
    assert.equal(m.fm.version, Math.max(doc(ours).fm.version, doc(theirs).fm.version) + 1);
    assert.equal(m.fm.updated_at, at(4));
    // Every line of ours stays byte for byte but the version, the time and the step theirs changed.
    assert.deepEqual(linesNotIn(ours, r.text), [`version: ${doc(ours).fm.version}`, `updated_at: ${at(3)}`, '4. [ ] S004 Step number 4']);
  });

  it('takes the status and marks of an executing plan from both sides: steps done on each branch', () => {
    let t = basePlan();
    t = submit(doc(t), agent(2)).text;
    t = approve(doc(t), seenNow(doc(t)), user(3)).text;
    const base = t;
    const start = (x: string) => x.replace('status: approved', 'status: executing');
    const ours = markStep(doc(start(base)), 'S001', 'done', agent(5), 'bucket.ts added').text;
    const theirs = markStep(doc(start(base)), 'S003', 'in_progress', agent(6)).text;
    const r = mergePlanTexts(start(base), ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const m = doc(r.text);
    assert.deepEqual(
      m.steps.map((s) => [s.id, s.status]),
      [['S001', 'done'], ['S002', 'pending'], ['S003', 'in_progress'], ['S004', 'pending']],
    );
    assert.equal(stepOf(m, 'S001').note, 'bucket.ts added');
  });

  it('leaves conflict markers around just the step both sides changed differently; validation names its line', () => {
    const base = basePlan();
    const ours = editStep(doc(base), { op: 'update', id: 'S002', text: 'Wire it before auth' }, agent(2)).text;
    const theirs = editStep(doc(editStep(doc(base), { op: 'update', id: 'S002', text: 'Wire it after auth' }, agent(3)).text), { op: 'update', id: 'S004', text: 'A clean change' }, agent(4)).text;
    const r = mergePlanTexts(base, ours, theirs, { ours: 'HEAD', theirs: 'feature' });
    assert.equal(r.conflicts.length, 1);
    assert.equal(r.conflicts[0].what, 'step S002');
    const lines = r.text.split('\n');
    const from = r.conflicts[0].line - 1;
    assert.deepEqual(lines.slice(from, from + 7), [
      '<<<<<<< HEAD',
      '2. [ ] S002 Wire it before auth',
      '   Details of step 2.',
      '=======',
      '2. [ ] S002 Wire it after auth',
      '   Details of step 2.',
      '>>>>>>> feature',
    ]);
    // Only those lines: the other steps are merged around them.
    assert.equal(lines.filter((l) => /^(<{7}|={7}|>{7})/.test(l)).length, 3);
    assert.ok(r.text.includes('4. [ ] S004 A clean change'));
    const e = errorOf(() => parsePlan(r.text));
    assert.equal(e.code, 'INVALID_FILE');
    assert.equal(e.details.line, r.conflicts[0].line);
    assert.match(e.message, /merge-conflict markers/);
  });

  it('merges one step changed on both sides on different lines (its status here, its details there)', () => {
    const base = basePlan().replace('status: draft', 'status: executing');
    const ours = unsealed(markStep(sealApproval(doc(base)), 'S002', 'done', agent(2)).text);
    const theirs = base.replace('   Details of step 2.', '   Details of step 2, made clearer.');
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const s = stepOf(doc(r.text), 'S002');
    assert.equal(s.status, 'done');
    assert.equal(s.details, 'Details of step 2, made clearer.');
  });

  it('renumbers a step id both branches added, on their side, records it, and raises step_seq', () => {
    const base = basePlan(3);
    const ours = editStep(doc(base), { op: 'add', text: 'Added on main' }, agent(2)).text;
    const theirs = editStep(doc(base), { op: 'add', after: 'S001', text: 'Added on the branch' }, agent(3)).text;
    assert.ok(ours.includes('S004 Added on main') && theirs.includes('S004 Added on the branch'));
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    assert.deepEqual(r.renumbered, [{ from: 'S004', to: 'S005' }]);
    const m = doc(r.text);
    assert.deepEqual(m.steps.map((s) => `${s.id} ${s.text}`), ['S001 Step number 1', 'S005 Added on the branch', 'S002 Step number 2', 'S003 Step number 3', 'S004 Added on main']);
    assert.match(stepOf(m, 'S005').note ?? '', /renumbered from S004 by a merge/);
    assert.equal(m.fm.step_seq, 5);
    // Numbered by position.
    assert.deepEqual(m.steps.map((s) => s.bullet), ['1.', '2.', '3.', '4.', '5.']);
  });

  it('keeps a step one side removed when the other did not touch it removed; a removed step the other changed is a conflict', () => {
    const base = basePlan();
    const ours = editStep(doc(base), { op: 'remove', id: 'S003' }, agent(2)).text;
    const theirs = editStep(doc(base), { op: 'update', id: 'S001', text: 'Changed' }, agent(3)).text;
    const clean = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(clean.conflicts, []);
    assert.deepEqual(doc(clean.text).steps.map((s) => s.id), ['S001', 'S002', 'S004']);
    const theirs2 = editStep(doc(base), { op: 'update', id: 'S003', text: 'Changed where main removed it' }, agent(3)).text;
    const r = mergePlanTexts(base, ours, theirs2);
    assert.deepEqual(r.conflicts.map((c) => c.what), ['step S003']);
    const from = r.conflicts[0].line - 1;
    assert.deepEqual(r.text.split('\n').slice(from, from + 4), ['<<<<<<< ours', '=======', '3. [ ] S003 Changed where main removed it', '>>>>>>> theirs']);
  });

  it('follows a reorder made on one side and adds the other side\'s new step after its neighbour', () => {
    const base = basePlan();
    const ours = editStep(doc(base), { op: 'move', id: 'S004', after: 'start' }, agent(2)).text;
    const theirs = editStep(doc(base), { op: 'add', after: 'S002', text: 'New after two' }, agent(3)).text;
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    assert.deepEqual(doc(r.text).steps.map((s) => s.id), ['S004', 'S001', 'S002', 'S005', 'S003']);
  });

  it('conflicts on the status field when the branches decided differently, and merges the sections each added', () => {
    let base = basePlan();
    base = submit(doc(base), agent(2)).text;
    const ours = approve(doc(base), seenNow(doc(base)), user(3)).text;
    const theirs = reject(doc(base), 'Split step 2.', user(4)).text;
    const r = mergePlanTexts(base, ours, theirs);
    assert.ok(r.conflicts.some((c) => c.what === 'field status'), JSON.stringify(r.conflicts));
    const e = errorOf(() => parsePlan(r.text));
    assert.equal(e.details.line, r.conflicts[0].line);
    // The rejection section theirs added is there, once.
    assert.equal(r.text.split('## Rejection (v2)').length, 2);
  });

  it('merges a section changed on one side with steps changed on the other, and identical changes once', () => {
    const base = basePlan();
    const ours = setMetadata(doc(base), { goal: 'Limit requests per client and per key.' }, {}, agent(2)).text;
    const theirs = editStep(doc(editStep(doc(base), { op: 'update', id: 'S002', text: 'Same change' }, agent(3)).text), { op: 'update', id: 'S001', text: 'Only theirs' }, agent(3)).text;
    const ours2 = editStep(doc(ours), { op: 'update', id: 'S002', text: 'Same change' }, agent(4)).text;
    const r = mergePlanTexts(base, ours2, theirs);
    assert.deepEqual(r.conflicts, []);
    const m = doc(r.text);
    assert.match(m.body, /## Goal\nLimit requests per client and per key\.\n/);
    assert.equal(stepOf(m, 'S002').text, 'Same change');
    assert.equal(stepOf(m, 'S001').text, 'Only theirs');
    assert.equal(r.text.split('Same change').length, 2);
  });

  it('keeps CRLF files CRLF and refuses a side that is not a plan (the driver then merges by line)', () => {
    const base = basePlan().replace(/\n/g, '\r\n');
    const ours = editStep(doc(base), { op: 'update', id: 'S001', text: 'CRLF one' }, agent(2)).text;
    const theirs = editStep(doc(basePlan()), { op: 'update', id: 'S003', text: 'LF three' }, agent(3)).text;
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    assert.ok(!/[^\r]\n/.test(r.text), 'every line break is CRLF');
    assert.equal(stepOf(doc(r.text), 'S003').text, 'LF three');
    const e = errorOf(() => mergePlanTexts(base, ours, 'not a plan'));
    assert.equal(e.code, 'INVALID_FILE');
  });

  it('property: edits to disjoint steps on two branches always merge cleanly into both sides\' steps', () => {
    const STATUSES: StepStatus[] = ['pending', 'in_progress', 'done', 'blocked', 'skipped'];
    const change = fc.record({ kind: fc.constantFrom('text', 'status', 'details', 'remove'), n: fc.nat(1000), status: fc.constantFrom(...STATUSES) });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.array(change, { maxLength: 6 }), fc.array(change, { maxLength: 6 }), fc.boolean(), (count, a, b, crlf) => {
        let base = basePlan(count);
        if (crlf) base = base.replace(/\n/g, '\r\n');
        const ids = doc(base).steps.map((s) => s.id);
        // Side A edits steps at even positions, side B at odd ones.
        const apply = (changes: typeof a, parity: number, day: number) => {
          let t = base;
          const expected = new Map<string, string | null>();
          for (const c of changes) {
            const pool = ids.filter((_, i) => i % 2 === parity && expected.get(ids[i]) !== null);
            if (!pool.length) break;
            const id = pool[c.n % pool.length];
            const d = doc(t);
            if (c.kind === 'remove') {
              t = editStep(d, { op: 'remove', id }, agent(day)).text;
              expected.set(id, null);
            } else if (c.kind === 'status') {
              // Marked as an executing plan is (the status line stays a draft's, so the content edits stay allowed).
              t = unsealed(markStep(sealApproval(doc(t.replace(/^status: draft$/m, 'status: executing'))), id, c.status, user(day)).text).replace(/^status: executing$/m, 'status: draft');
            } else if (c.kind === 'text') {
              t = editStep(d, { op: 'update', id, text: `${id} text ${c.n}` }, agent(day)).text;
            } else {
              t = editStep(d, { op: 'update', id, details: `details ${c.n}` }, agent(day)).text;
            }
            if (expected.get(id) !== null) {
              const s = stepOf(doc(t), id);
              expected.set(id, `${s.status}|${s.text}|${s.details ?? ''}`);
            }
          }
          return { t, expected };
        };
        const A = apply(a, 0, 2);
        const B = apply(b, 1, 3);
        if (A.t === base || B.t === base) return; // git merges trivially then; the driver is not called
        const r = mergePlanTexts(base, A.t, B.t);
        assert.deepEqual(r.conflicts, []);
        const m = doc(r.text);
        const want = ids.filter((id) => A.expected.get(id) !== null && B.expected.get(id) !== null);
        assert.deepEqual(m.steps.map((s) => s.id), want);
        for (const s of m.steps) {
          const exp = A.expected.get(s.id) ?? B.expected.get(s.id) ?? (() => {
            const o = stepOf(doc(base), s.id);
            return `${o.status}|${o.text}|${o.details ?? ''}`;
          })();
          assert.equal(`${s.status}|${s.text}|${s.details ?? ''}`, exp);
        }
        assert.equal(m.eol, crlf ? '\r\n' : '\n');
      }),
      { numRuns: 150 },
    );
  });
});
