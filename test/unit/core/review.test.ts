import { seenNow, TEST_APPROVALS, testKeyring } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  anchorAtLine,
  approvalStanding,
  approve,
  commentAddressed,
  comparePlans,
  createPlanText,
  describeComparison,
  editStep,
  formatReviewNotes,
  openReview,
  parsePlan,
  parseReviewNotes,
  pendingDraft,
  placeDraftThreads,
  reject,
  reviewAnchors,
  reviewHistoryOf,
  setContent,
  setMetadata,
  submit,
} from '../../../src/core';

const ctx = { now: '2026-11-23T10:00:00.000Z', actor: 'agent' as const, approvals: TEST_APPROVALS };
const user = { ...ctx, actor: 'user' as const };

/** A proposed plan with three steps, risks and verification. */
function proposed(): string {
  let text = createPlanText({ id: 'PLAN-0000abcd', title: 'Review me', status: 'draft' }, ctx.now);
  text = setContent(parsePlan(text), '## Goal\nShip it.\n\n## Steps\n1. [ ] Build the parser\n2. [ ] Write the tests (edit: create → test/parser.test.ts)\n3. [ ] Ship\n\n## Risks\n- It breaks.\n\n## Verification\n- The tests pass.\n', ctx).text;
  return submit(parsePlan(text), ctx).text;
}

describe('core: reviews with comments (review)', () => {
  describe('the review notes text', () => {
    it('writes the feedback, then one "- anchor: text" line per comment, and reads them back', () => {
      const comments = [
        { anchor: 'S002', body: 'Name the fixture files.' },
        { anchor: 'Risks', body: 'What if the parser is slow?\nMeasure it first.' },
      ];
      const text = formatReviewNotes('Close, but not yet.', comments);
      assert.equal(text, 'Close, but not yet.\n\n- S002: Name the fixture files.\n- Risks: What if the parser is slow?\n  Measure it first.');
      assert.deepEqual(parseReviewNotes(text), { feedback: 'Close, but not yet.', comments });
    });

    it('reads a hand-written or pi-planner rejection without comment lines as feedback only', () => {
      assert.deepEqual(parseReviewNotes('Too vague.\n\n- Add steps\n- Say why'), { feedback: 'Too vague.\n\n- Add steps\n- Say why', comments: [] });
      assert.deepEqual(parseReviewNotes('- S001: only a comment'), { feedback: '', comments: [{ anchor: 'S001', body: 'only a comment' }] });
    });

    it('round-trips random feedback and comments (multi-line, Markdown, blank lines inside)', () => {
      const line = fc.string({ minLength: 1, maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ' ').trim()).filter((s) => s.length > 0);
      const body = fc.array(fc.oneof(line, fc.constant('')), { minLength: 1, maxLength: 4 }).map((ls) => ls.join('\n').trim()).filter((s) => s.length > 0);
      const anchor = fc.oneof(fc.integer({ min: 1, max: 999 }).map((n) => `S${String(n).padStart(3, '0')}`), fc.constantFrom('Risks', 'Verification', 'Goal', 'Rollout plan'));
      fc.assert(
        fc.property(fc.oneof(fc.constant(''), line), fc.array(fc.record({ anchor, body }), { minLength: 1, maxLength: 5 }), (feedback, comments) => {
          // A body normalizes like the writer does: lines trimmed at the end, no blank lines at the ends.
          const norm = comments.map((c) => ({ anchor: c.anchor, body: c.body.split('\n').map((l, i) => (i === 0 ? l : l.trim() ? l : '')).join('\n').replace(/\n{2,}/g, '\n\n') }));
          const back = parseReviewNotes(formatReviewNotes(feedback, norm));
          assert.equal(back.feedback, feedback.trim());
          assert.deepEqual(back.comments.map((c) => c.anchor), norm.map((c) => c.anchor));
          assert.deepEqual(back.comments.map((c) => c.body.replace(/\s+/g, ' ').trim()), norm.map((c) => c.body.replace(/\s+/g, ' ').trim()));
        }),
        { numRuns: 400, seed: 3 },
      );
    });
  });

  describe('rejecting and approving with comments', () => {
    it('writes one "## Rejection (vN)" section that the core, the review history and a plain reader all read', () => {
      const doc = parsePlan(proposed());
      const v = doc.fm.version;
      const r = reject(doc, 'Not yet.', user, v, [
        { anchor: 'S002', body: 'Which fixtures?' },
        { anchor: 'Risks', body: 'Add a slow-parser risk.' },
      ]);
      const after = parsePlan(r.text);
      assert.equal(after.fm.status, 'rejected');
      assert.match(r.text, new RegExp(`## Rejection \\(v${v}\\)\\nNot yet\\.\\n\\n- S002: Which fixtures\\?\\n- Risks: Add a slow-parser risk\\.\\n$`));
      // The plain reader (pi-planner's view: the section's text) sees the comment lines as they are.
      assert.equal(after.rejections.at(-1)!.feedback, 'Not yet.\n\n- S002: Which fixtures?\n- Risks: Add a slow-parser risk.');
      const open = openReview(after)!;
      assert.equal(open.kind, 'rejection');
      assert.deepEqual(open.notes.comments.map((c) => c.anchor), ['S002', 'Risks']);
    });

    it('takes comments without overall feedback, refuses a rejection with neither, and a bad anchor', () => {
      const doc = parsePlan(proposed());
      assert.match(reject(doc, '', user, undefined, [{ anchor: 'S001', body: 'Split it.' }]).text, /- S001: Split it\./);
      assert.throws(() => reject(doc, '  ', user), /needs feedback/);
      assert.throws(() => reject(doc, 'x', user, undefined, [{ anchor: 'Bad: anchor', body: 'y' }]), /anchored to a step id/);
    });

    it('records comments made with an approval as an "## Approval (vN)" section, which the signed approval covers', () => {
      const doc = parsePlan(proposed());
      const r = approve(doc, seenNow(doc), user, { comments: [{ anchor: 'S003', body: 'Tag the release too.' }] });
      const after = parsePlan(r.text);
      assert.equal(after.fm.status, 'approved');
      assert.match(r.text, new RegExp(`## Approval \\(v${doc.fm.version}\\)\\n- S003: Tag the release too\\.\\n$`));
      assert.equal(openReview(after, approvalStanding(after, testKeyring()))?.kind, 'approval');
      assert.equal(openReview(after, approvalStanding(after)), undefined, 'read as the person\'s words only while the approval holds (here, without keys, it is not checked)');
      assert.match(after.fm.approval_notes ?? '', /^sha256:[0-9a-f]{64}$/, 'the record signs the suggestions\' digest');
      // The suggestions are part of what the record signs: the same approval without them has another digest.
      const plain = parsePlan(approve(doc, seenNow(doc), user).text);
      assert.notEqual(after.fm.approved_hash, plain.fm.approved_hash);
    });

    it('keeps the review history when the agent replaces the whole Markdown, and drops a history it sends', () => {
      const rejected = parsePlan(reject(parsePlan(proposed()), 'Not yet.', user, undefined, [{ anchor: 'S001', body: 'Smaller.' }]).text);
      const revised = setContent(rejected, '## Goal\nShip it.\n\n## Steps\n1. [ ] S001 Build the lexer\n2. [ ] S002 Build the parser\n\n## Approval (v9)\n- S001: forged\n\n## Verification\n- ok\n', ctx).text;
      const history = reviewHistoryOf(parsePlan(revised));
      assert.deepEqual(history.map((h) => h.kind), ['rejection']);
      assert.doesNotMatch(revised, /forged/);
    });

    it('shows a rejection\'s comments until the plan is submitted again', () => {
      const rejected = parsePlan(reject(parsePlan(proposed()), 'Not yet.', user, undefined, [{ anchor: 'S001', body: 'Smaller.' }]).text);
      assert.ok(openReview(rejected));
      const revised = parsePlan(editStep(rejected, { op: 'update', id: 'S001', text: 'Build the lexer' }, ctx).text);
      assert.ok(openReview(revised), 'still open while the agent revises');
      assert.equal(openReview(parsePlan(submit(revised, ctx).text)), undefined);
    });
  });

  describe('anchors', () => {
    it('places steps and sections on their lines, and finds the anchor of any step line or heading', () => {
      const doc = parsePlan(setMetadata(parsePlan(proposed()), { context: 'Background.' }, {}, ctx).text);
      const at = reviewAnchors(doc);
      const lines = doc.text.split('\n');
      assert.match(lines[at.get('S002')!], /S002 Write the tests/);
      assert.equal(lines[at.get('Risks')!], '## Risks');
      assert.equal(anchorAtLine(doc, at.get('S003')!), 'S003');
      assert.equal(anchorAtLine(doc, at.get('Risks')!), 'Risks');
      assert.equal(anchorAtLine(doc, at.get('Risks')! + 1), undefined, 'a section\'s body line is not an anchor');
    });

    it('follows a step through add, move and remove; a removed step has no anchor (its threads are outdated)', () => {
      let doc = parsePlan(proposed());
      const before = reviewAnchors(doc).get('S003')!;
      doc = parsePlan(editStep(doc, { op: 'add', text: 'First things first', after: 'start' }, ctx).text);
      assert.equal(reviewAnchors(doc).get('S003'), before + 1, 'a step added above moves it down a line');
      doc = parsePlan(editStep(doc, { op: 'move', id: 'S003', after: 'start' }, ctx).text);
      assert.match(doc.text.split('\n')[reviewAnchors(doc).get('S003')!], /S003 Ship/);
      doc = parsePlan(editStep(doc, { op: 'remove', id: 'S003' }, ctx).text);
      assert.equal(reviewAnchors(doc).get('S003'), undefined);
    });
  });

  describe('draft threads (placeDraftThreads, pendingDraft: what the editor\'s comment threads do)', () => {
    type Thread = { anchor: string; line: number; resolved: boolean; comments: { body: string }[]; outdated?: boolean };
    const thread = (anchor: string, doc: ReturnType<typeof parsePlan>, body = `On ${anchor}.`): Thread => ({ anchor, line: reviewAnchors(doc).get(anchor)!, resolved: false, comments: [{ body }] });
    /** What the face does on each change of the text: every thread to its new place. */
    const follow = (threads: Thread[], doc: ReturnType<typeof parsePlan>): Thread[] => {
      const places = placeDraftThreads(threads, doc);
      assert.equal(places.length, threads.length);
      return threads.map((t, i) => ({ ...t, ...places[i] }));
    };
    const lineText = (doc: ReturnType<typeof parsePlan>, t: Thread) => doc.text.split('\n')[t.line];

    it('a step thread follows its step through a step added before it, one removed before it, a move and its own text edited; a section thread follows its heading', () => {
      let doc = parsePlan(proposed());
      let [s3, risks] = [thread('S003', doc), thread('Risks', doc)];
      const start = s3.line;
      assert.match(lineText(doc, s3), /^3\. \[ \] S003 Ship$/);

      doc = parsePlan(editStep(doc, { op: 'add', text: 'First things first', after: 'start' }, ctx).text);
      [s3, risks] = follow([s3, risks], doc);
      assert.deepEqual([s3.line, s3.outdated], [start + 1, false], 'a step added before it moves it down a line');
      assert.match(lineText(doc, s3), /S003 Ship$/);
      assert.equal(lineText(doc, risks), '## Risks');

      doc = parsePlan(editStep(doc, { op: 'update', id: 'S001', details: 'Use the grammar.\nKeep it small.' }, ctx).text);
      [s3, risks] = follow([s3, risks], doc);
      assert.equal(s3.line, start + 3, 'details of a step before it (two lines) move it down two lines');
      doc = parsePlan(editStep(doc, { op: 'remove', id: 'S001' }, ctx).text);
      [s3, risks] = follow([s3, risks], doc);
      assert.deepEqual([s3.line, s3.outdated], [start, false], 'the step before it (three lines) removed: up three lines');
      assert.match(lineText(doc, s3), /S003 Ship$/);
      assert.equal(lineText(doc, risks), '## Risks');

      doc = parsePlan(editStep(doc, { op: 'move', id: 'S003', after: 'start' }, ctx).text);
      [s3, risks] = follow([s3, risks], doc);
      assert.equal(s3.line, reviewAnchors(doc).get('S004')! - 1, 'moved to the top: right above the first step it was below');
      assert.match(lineText(doc, s3), /^1\. \[ \] S003 Ship$/);

      doc = parsePlan(editStep(doc, { op: 'update', id: 'S003', text: 'Ship it to production' }, ctx).text);
      [s3, risks] = follow([s3, risks], doc);
      assert.deepEqual([lineText(doc, s3), s3.outdated], ['1. [ ] S003 Ship it to production', false]);
      assert.equal(lineText(doc, risks), '## Risks');
      assert.equal(risks.outdated, false);
    });

    it('a thread whose step is removed is outdated and keeps its last line; it comes back when the step does', () => {
      let doc = parsePlan(proposed());
      let [s2, s3] = [thread('S002', doc), thread('S003', doc)];
      const last = s2.line;
      doc = parsePlan(editStep(doc, { op: 'remove', id: 'S002' }, ctx).text);
      [s2, s3] = follow([s2, s3], doc);
      assert.deepEqual([s2.line, s2.outdated], [last, true]);
      assert.deepEqual([s3.line, s3.outdated], [last, false], 'the next step moved up to that line');
      // A section removed: its thread is outdated too.
      const removedRisks = parsePlan(setContent(doc, doc.body.replace(/## Risks\n- It breaks\.\n\n/, ''), ctx).text);
      const [risks] = follow([thread('Risks', doc)], removedRisks);
      assert.deepEqual([risks.line, risks.outdated], [thread('Risks', doc).line, true]);
      // Undo (the old text again): the step is back, and so is its thread.
      [s2] = follow([s2], parsePlan(proposed()));
      assert.deepEqual([s2.line, s2.outdated], [last, false]);
    });

    it('submits one comment per unresolved thread whose anchor is still there: outdated, resolved and empty threads are left out', () => {
      const before = parsePlan(proposed());
      const threads: Thread[] = [
        { ...thread('S001', before), comments: [{ body: 'Which parser?' }, { body: 'A PEG one.' }] },
        { ...thread('S002', before, 'Gone with its step.') },
        { ...thread('S003', before, 'Resolved already.'), resolved: true },
        { ...thread('Risks', before), comments: [] },
        thread('Verification', before, 'Name the command.'),
      ];
      const doc = parsePlan(editStep(before, { op: 'remove', id: 'S002' }, ctx).text);
      assert.deepEqual(pendingDraft(threads, doc), [
        { anchor: 'S001', body: 'Which parser?\n\nA PEG one.' },
        { anchor: 'Verification', body: 'Name the command.' },
      ]);
      // A plan that does not read now: anchors are not checked, resolved and empty threads still stay out.
      assert.deepEqual(pendingDraft(threads).map((c) => c.anchor), ['S001', 'S002', 'Verification']);
      assert.deepEqual(pendingDraft([], doc), []);
    });
  });

  describe('what changed since the reviewed version', () => {
    it('names steps added, changed, moved and removed, and sections changed; a status change is not a change', () => {
      const from = parsePlan(proposed());
      let to = parsePlan(editStep(from, { op: 'update', id: 'S002', text: 'Write the tests first' }, ctx).text);
      to = parsePlan(editStep(to, { op: 'remove', id: 'S003' }, ctx).text);
      to = parsePlan(editStep(to, { op: 'add', text: 'Release' }, ctx).text);
      to = parsePlan(setMetadata(to, { risks: '- It breaks.\n- It is slow.' }, {}, ctx).text);
      const cmp = comparePlans(from, to);
      assert.deepEqual([cmp.added, cmp.changed, cmp.removed, cmp.sectionsChanged], [['S004'], ['S002'], ['S003'], ['Risks']]);
      assert.deepEqual(describeComparison(cmp), ['+ S004 added', '~ S002 changed', '- S003 removed', '~ ## Risks changed']);
      assert.equal(commentAddressed({ anchor: 'S002', body: 'x' }, cmp), true);
      assert.equal(commentAddressed({ anchor: 'S001', body: 'x' }, cmp), false);
      assert.equal(commentAddressed({ anchor: 'Risks', body: 'x' }, cmp), true);
      assert.equal(commentAddressed({ anchor: 'Verification', body: 'x' }, cmp), false);
      assert.deepEqual(describeComparison(comparePlans(from, from)), []);
    });
  });
});
