import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { mergePlanTexts, parsePlan } from '../../../src/core';

// Issue 26: sections are merged by title, and a title used twice was paired by its raw rank
// (the 2nd `## Notes` of base with the 2nd of each side), so a `## Notes` inserted in front of an
// existing one shifted every pairing behind it.

const FM = [
  '---',
  'id: PLAN-0d1ff3e0',
  'title: "Add rate limiting"',
  'status: draft',
  'version: 3',
  'created_at: 2026-06-01T10:00:00.000Z',
  'updated_at: 2026-06-01T10:00:00.000Z',
  'step_seq: 3',
  '---',
  '',
].join('\n');

const GOAL = '## Goal\nLimit requests per client.';
const RISKS = '## Risks\n- Clients behind one proxy share a bucket.';
const steps = (...texts: string[]) => `## Steps\n${texts.map((t, i) => `${i + 1}. [ ] S00${i + 1} ${t}`).join('\n')}`;
const STEPS = steps('Add the bucket', 'Wire it in', 'Test it');
const section = (title: string, text: string, depth = 2) => `${'#'.repeat(depth)} ${title}\n${text}`;
const notes = (text: string, depth = 2) => section('Notes', text, depth);

/** A plan file whose body is these blocks, one blank line apart. */
const plan = (...blocks: string[]) => `${FM}\n${blocks.join('\n\n')}\n`;

/** The body of a plan file as parsed: what the merge must produce, byte for byte. */
const bodyOf = (text: string) => parsePlan(text).body;

const A = 'Ask the gateway team about the header.';
const A1 = 'Ask the gateway team about the header before Friday.';
const A2 = 'Ask the gateway team about the header, and about the quota.';
const B = 'Measure the proxy share first.';
const C = 'Keep the old limiter one release.';

describe('merging plan files with a section title used twice (the git merge driver)', () => {
  it('applies an edit to the `## Notes` that was in base when the other side inserted a second `## Notes` before it', () => {
    const base = plan(GOAL, STEPS, RISKS, notes(A));
    const inserted = plan(GOAL, STEPS, RISKS, notes(B), notes(A));
    const edited = plan(GOAL, STEPS, RISKS, notes(A1));
    const want = bodyOf(plan(GOAL, STEPS, RISKS, notes(B), notes(A1)));
    for (const [ours, theirs] of [[inserted, edited], [edited, inserted]]) {
      const r = mergePlanTexts(base, ours, theirs);
      assert.deepEqual(r.conflicts, []);
      assert.equal(bodyOf(r.text), want);
    }
  });

  it('leaves one conflict, around the `## Notes` both sides changed, with the inserted one outside the markers', () => {
    const base = plan(GOAL, STEPS, RISKS, notes(A));
    const ours = plan(GOAL, STEPS, RISKS, notes(B), notes(A1));
    const theirs = plan(GOAL, STEPS, RISKS, notes(A2));
    const r = mergePlanTexts(base, ours, theirs, { ours: 'HEAD', theirs: 'feature' });
    assert.deepEqual(r.conflicts.map((c) => c.what), ['section notes']);
    const lines = r.text.split('\n');
    const from = r.conflicts[0].line - 1;
    assert.deepEqual(lines.slice(from - 3, from + 7), ['## Notes', B, '', '<<<<<<< HEAD', '## Notes', A1, '=======', '## Notes', A2, '>>>>>>> feature']);
    assert.equal(r.text.split(B).length, 2, 'the inserted section is there once');
  });

  it('keeps `## Notes` sections both sides inserted at different places, and one inserted identically at one place once', () => {
    const base = plan(GOAL, STEPS, RISKS, notes(A));
    const r = mergePlanTexts(base, plan(GOAL, STEPS, RISKS, notes(B), notes(A)), plan(GOAL, STEPS, RISKS, notes(A), notes(C)));
    assert.deepEqual(r.conflicts, []);
    assert.equal(bodyOf(r.text), bodyOf(plan(GOAL, STEPS, RISKS, notes(B), notes(A), notes(C))));

    const same = plan(GOAL, STEPS, RISKS, notes(B), notes(A1));
    const once = mergePlanTexts(base, same, plan(GOAL, STEPS, RISKS, notes(B), notes(A)));
    assert.deepEqual(once.conflicts, []);
    assert.equal(bodyOf(once.text), bodyOf(same));

    // Two different ones at one place: a conflict between them, as for lines inserted at one place.
    const two = mergePlanTexts(base, plan(GOAL, STEPS, RISKS, notes(B), notes(A)), plan(GOAL, STEPS, RISKS, notes(C), notes(A1)));
    assert.deepEqual(two.conflicts.map((x) => x.what), ['section notes']);
    const from = two.conflicts[0].line - 1;
    assert.deepEqual(two.text.split('\n').slice(from, from + 10), ['<<<<<<< ours', '## Notes', B, '=======', '## Notes', C, '>>>>>>> theirs', '', '## Notes', A1]);
  });

  it('follows a duplicate removed on one side: the edit goes to the one that stayed; an edit to the removed one is a conflict on it', () => {
    const base = plan(GOAL, notes(A), STEPS, RISKS, notes(C));
    const ours = plan(GOAL, STEPS, RISKS, notes(C));
    const r = mergePlanTexts(base, ours, plan(GOAL, notes(A), STEPS, RISKS, notes(`${C} Then drop it.`)));
    assert.deepEqual(r.conflicts, []);
    assert.equal(bodyOf(r.text), bodyOf(plan(GOAL, STEPS, RISKS, notes(`${C} Then drop it.`))));

    const c = mergePlanTexts(base, ours, plan(GOAL, notes(A1), STEPS, RISKS, notes(C)));
    assert.deepEqual(c.conflicts.map((x) => x.what), ['section notes']);
    const from = c.conflicts[0].line - 1;
    assert.deepEqual(c.text.split('\n').slice(from, from + 5), ['<<<<<<< ours', '=======', '## Notes', A1, '>>>>>>> theirs']);
    assert.equal(c.text.split(C).length, 2, 'the Notes no one removed stays, once');

    // A removal on one side and an insertion in front of the removed one on the other.
    const gone = mergePlanTexts(plan(GOAL, STEPS, RISKS, notes(A)), plan(GOAL, STEPS, RISKS, notes(B), notes(A)), plan(GOAL, STEPS, RISKS));
    assert.deepEqual(gone.conflicts, []);
    assert.equal(bodyOf(gone.text), bodyOf(plan(GOAL, STEPS, RISKS, notes(B))));
  });

  it('pairs by depth as well: a `## Notes` inserted before `# Notes` and `## Notes` leaves each edit on its own section', () => {
    const X = 'Written by the platform team.';
    const base = plan(GOAL, STEPS, RISKS, notes(X, 1), notes(A));
    const ours = plan(GOAL, STEPS, RISKS, notes(B), notes(X, 1), notes(A));
    const theirs = plan(GOAL, STEPS, RISKS, notes(`${X} Reviewed.`, 1), notes(A1));
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    assert.equal(bodyOf(r.text), bodyOf(plan(GOAL, STEPS, RISKS, notes(B), notes(`${X} Reviewed.`, 1), notes(A1))));
  });

  it('pairs step-less duplicates next to the Steps section: a `## Notes` before it, a second step-less `## Steps` after it', () => {
    const old = section('Steps', 'The old plan, kept for reference.');
    const base = plan(GOAL, STEPS, notes(A), RISKS, old);
    // Ours: a Notes in front of Steps, a step-less Steps in front of the old one, and a step changed.
    const ours = plan(GOAL, notes(B), steps('Add the token bucket', 'Wire it in', 'Test it'), notes(A), RISKS, section('Steps', 'Not a list.'), old);
    // Theirs: both existing duplicates and another step changed.
    const theirs = plan(GOAL, steps('Add the bucket', 'Wire it in', 'Test it under load'), notes(A1), RISKS, section('Steps', 'The old plan, kept for reference until v2.'));
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const want = plan(GOAL, notes(B), steps('Add the token bucket', 'Wire it in', 'Test it under load'), notes(A1), RISKS, section('Steps', 'Not a list.'), section('Steps', 'The old plan, kept for reference until v2.'));
    assert.equal(bodyOf(r.text), bodyOf(want));
    assert.deepEqual(parsePlan(r.text).steps.map((s) => `${s.id} ${s.text}`), ['S001 Add the token bucket', 'S002 Wire it in', 'S003 Test it under load']);
  });

  // A body as blocks: Goal, Steps and Risks fixed, other sections with titles that repeat.
  const extra = fc.record({ title: fc.constantFrom('Notes', 'Context'), depth: fc.constantFrom(1, 2) });
  const layout = fc.record({
    extras: fc.array(fc.record({ s: extra, at: fc.nat(20) }), { minLength: 2, maxLength: 7 }),
    crlf: fc.boolean(),
  });
  /** The blocks of a base plan: each extra section has its own words, so an unchanged one is recognisable. */
  function baseBlocks(extras: { s: { title: string; depth: number }; at: number }[]): string[] {
    const blocks = [GOAL, STEPS, RISKS];
    extras.forEach(({ s, at }, i) => blocks.splice(at % (blocks.length + 1), 0, section(s.title, `Body of section ${i}.`, s.depth)));
    return blocks;
  }
  const fixed = new Set([GOAL, STEPS, RISKS]);
  const withEol = (t: string, crlf: boolean) => (crlf ? t.replace(/\n/g, '\r\n') : t);

  it('property: merging a plan with itself, or with an unchanged base, never conflicts, with section titles used twice', () => {
    const edit = fc.record({ kind: fc.constantFrom('insert', 'remove', 'edit'), s: extra, n: fc.nat(1000), at: fc.nat(30) });
    fc.assert(
      fc.property(layout, fc.array(edit, { maxLength: 5 }), ({ extras, crlf }, edits) => {
        const blocks = baseBlocks(extras);
        const changed = [...blocks];
        for (const e of edits) {
          const movable = changed.map((b, i) => i).filter((i) => !fixed.has(changed[i]));
          if (e.kind === 'insert') changed.splice(e.at % (changed.length + 1), 0, section(e.s.title, `Inserted text ${e.n}.`, e.s.depth));
          else if (movable.length && e.kind === 'remove') changed.splice(movable[e.at % movable.length], 1);
          else if (movable.length) {
            const i = movable[e.at % movable.length];
            changed[i] = `${changed[i].split('\n')[0]}\nRewritten as r${e.n}.`;
          }
        }
        const base = withEol(plan(...blocks), crlf);
        const x = withEol(plan(...changed), crlf);
        for (const [b, o, t] of [[base, x, x], [base, base, x], [base, x, base], [x, x, x]]) {
          const r = mergePlanTexts(b, o, t);
          assert.deepEqual(r.conflicts, []);
          assert.equal(bodyOf(r.text), bodyOf(x));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property: a section inserted on one side and another edited on the other both land, on the sections they were made to', () => {
    fc.assert(
      fc.property(layout, extra, fc.nat(30), fc.nat(30), fc.boolean(), ({ extras, crlf }, s, at, which, swap) => {
        const blocks = baseBlocks(extras);
        const inserted = [...blocks];
        inserted.splice(at % (blocks.length + 1), 0, section(s.title, 'A section no one had before.', s.depth));
        const movable = blocks.map((b, i) => i).filter((i) => !fixed.has(blocks[i]));
        const edited = [...blocks];
        const i = movable[which % movable.length];
        edited[i] = `${blocks[i]} Edited on the other side.`;
        const want = inserted.map((b) => (b === blocks[i] ? edited[i] : b));
        const [o, t] = swap ? [edited, inserted] : [inserted, edited];
        const r = mergePlanTexts(withEol(plan(...blocks), crlf), withEol(plan(...o), crlf), withEol(plan(...t), crlf));
        assert.deepEqual(r.conflicts, []);
        assert.equal(bodyOf(r.text), bodyOf(withEol(plan(...want), crlf)));
      }),
      { numRuns: 300 },
    );
  });
});
