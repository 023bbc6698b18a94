import { sealApproval, TEST_APPROVALS } from '../../helpers/approvals';
// Step operations on plans whose steps carry hostile Markdown (unclosed and closed code fences,
// nested lists, HTML blocks, blank lines, tabs, lines that look like steps, CRLF): no step is ever
// lost or renamed, every line an operation does not own stays byte for byte, and what the cache
// holds is what a fresh parse finds.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { computeOutline } from '../../../src/core/format/outline';
import { applyTextEdits, editStep, ensureStepIds, markStep, OpContext, parsePlan, PlanDocument, StepOp, StepStatus } from '../../../src/core';

const NOW = '2026-02-01T10:00:00.000Z';
const agent: OpContext = { now: NOW, actor: 'agent', approvals: TEST_APPROVALS };
const person: OpContext = { now: NOW, actor: 'user', approvals: TEST_APPROVALS };

/** Detail lines a person might write under a step (indented into the item by the generator). */
const DETAIL_LINES = [
  '```sh', // a fence, closed only if the generator happens to add another
  'npm run build',
  '~~~',
  '```',
  '- nested item',
  '  with indentation',
  '  - deeper',
  '',
  '<div>',
  '</div>',
  '\tcode after a tab',
  '2. [ ] S099 a line that looks like a step',
  '* [x] S098 another look-alike',
  '> a quote that is not a note',
  '| a | table |',
  '# not a heading inside an item',
  'plain prose (with: parentheses → arrows)',
];

interface GenStep {
  status: StepStatus;
  text: string;
  details: string[];
  note?: string;
}

const statusArb = fc.constantFrom<StepStatus>('pending', 'done', 'in_progress', 'blocked', 'failed', 'skipped');
const stepArb: fc.Arbitrary<GenStep> = fc.record({
  status: statusArb,
  text: fc.constantFrom('Build it', 'Fix the `parser`', 'Write tests (edit: create → a.ts)', 'Ship *now*', 'Check a:b'),
  details: fc.array(fc.constantFrom(...DETAIL_LINES), { maxLength: 6 }),
  note: fc.option(fc.constantFrom('ok', 'done with care', 'see #12'), { nil: undefined }),
});

const MARK: Partial<Record<StepStatus, string>> = { in_progress: '*in progress* ', blocked: '*blocked* ', failed: '*failed* ', skipped: '*skipped* ' };

function planText(steps: GenStep[], crlf: boolean, loose: boolean): string {
  const lines = [
    '---',
    'id: PLAN-0a0b0c0d',
    'title: "Hostile details"',
    'status: executing',
    'version: 4',
    'created_at: 2026-01-01T10:00:00.000Z',
    'updated_at: 2026-01-01T10:00:00.000Z',
    `step_seq: ${steps.length}`,
    '---',
    '',
    '## Goal',
    'G',
    '',
    '## Steps',
  ];
  steps.forEach((s, i) => {
    const check = s.status === 'done' || s.status === 'skipped' ? 'x' : ' ';
    lines.push(`${i + 1}. [${check}] S${String(i + 1).padStart(3, '0')} ${MARK[s.status] ?? ''}${s.text}`);
    for (const d of s.details) lines.push(d ? `   ${d}` : '');
    if (s.note) lines.push(`   > Note: ${s.note}`);
    if (loose) lines.push('');
  });
  lines.push('', '## Risks', '- none', '');
  return lines.join(crlf ? '\r\n' : '\n');
}

/** A parse that trusts no cache. */
const fresh = (text: string) => parsePlan(text, undefined, { fresh: true });
const ids = (d: PlanDocument) => d.steps.map((s) => s.id);

/** The body's lines without the header and note lines of one step (what a mark must not touch). */
function linesBesides(d: PlanDocument, stepId: string): string[] {
  const s = d.steps.find((x) => x.id === stepId)!;
  const it = d.outline.steps[s.index];
  const owned = new Set<number>();
  const lineAt = (off: number) => d.body.slice(0, off).split('\n').length - 1;
  owned.add(lineAt(it.start));
  const lines = d.body.split('\n');
  for (let l = lineAt(it.start) + 1; l <= lineAt(it.end); l++) {
    const t = lines[l].replace(/\r$/, '').trim();
    if (t.startsWith('> ') || t === '>') owned.add(l);
  }
  return lines.filter((_, i) => !owned.has(i));
}

/** The plans the generator makes, kept only when a fresh parse finds exactly the steps written (the premise). */
const planArb = fc
  .record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 7 }), crlf: fc.boolean(), loose: fc.boolean() })
  .map(({ steps, crlf, loose }) => ({ steps, text: planText(steps, crlf, loose) }))
  .filter(({ steps, text }) => {
    try {
      return fresh(text).steps.length === steps.length;
    } catch {
      return false;
    }
  });

describe('properties: step operations on hostile Markdown', () => {
  it('the premise holds for most generated plans (the generator is not filtered to nothing)', () => {
    const sample = fc.sample(fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 7 }), crlf: fc.boolean(), loose: fc.boolean() }), { numRuns: 300, seed: 7 });
    const kept = sample.filter(({ steps, crlf, loose }) => {
      try {
        return fresh(planText(steps, crlf, loose)).steps.length === steps.length;
      } catch {
        return false;
      }
    }).length;
    assert.ok(kept > 200, `only ${kept} of 300 generated plans read back with their steps`);
  });

  it('marking a step changes its own header and note lines only; every step keeps its id; the cache equals a fresh parse', () => {
    fc.assert(
      fc.property(planArb, fc.nat(), statusArb, fc.option(fc.constantFrom('ok', 'a note (with: colon)', ''), { nil: undefined }), ({ text: raw }, pick, status, note) => {
        // An executing plan runs on a person's approval: its record, as their approval writes it.
        const text = sealApproval(fresh(raw)).text;
        const before = fresh(text);
        const id = before.steps[pick % before.steps.length].id;
        // A person's mark: an agent's reopening of a finished step needs a reason (checked elsewhere); these are about the text.
        const r = markStep(before, id, status, person, note);
        const after = fresh(r.text);
        assert.deepEqual(ids(after), ids(before), 'same steps, same ids, same order');
        const expected = before.steps.map((s) => (s.id === id ? status : s.status));
        const finishing = (status === 'done' || status === 'skipped') && expected.every((x) => x === 'done' || x === 'skipped');
        assert.deepEqual(after.steps.map((s) => s.status), expected);
        if (note) assert.equal(after.steps.find((s) => s.id === id)!.note, note);
        if (note === '') assert.equal(after.steps.find((s) => s.id === id)!.note, undefined);
        assert.equal(after.fm.status, finishing ? 'completed' : 'executing');
        for (const s of before.steps) if (s.id !== id) assert.equal(after.steps.find((x) => x.id === s.id)!.details, s.details, `${s.id} details`);
        assert.equal(after.steps.find((x) => x.id === id)!.details, before.steps.find((x) => x.id === id)!.details, 'own details');
        assert.deepEqual(linesBesides(after, id), linesBesides(before, id), 'every line the mark does not own is unchanged');
        assert.deepEqual(parsePlan(r.text).outline, after.outline, 'the cached outline is a fresh one (after is a fresh parse)');
        // Marked on a cached parse, the steps kept for the new text (only the marked one read
        // again, the rest carried over) are a fresh parse's.
        const viaCache = markStep(parsePlan(text), id, status, person, note);
        assert.equal(viaCache.text, r.text);
        assert.deepEqual(parsePlan(viaCache.text).steps, after.steps, 'the cached steps are a fresh parse\'s');
        // The edits an editor would apply: they give the same text, and replace only the lines the mark owns.
        assert.equal(applyTextEdits(text, r.edits!), r.text);
        // Every edit lies in the frontmatter or inside the marked step's own lines.
        const it = before.outline.steps[before.steps.find((x) => x.id === id)!.index];
        const from = before.block.bodyStart + before.body.lastIndexOf('\n', it.start - 1) + 1;
        const to = before.block.bodyStart + it.end + before.eol.length;
        for (const e of r.edits!) {
          const inFrontmatter = e.end <= before.block.bodyStart;
          assert.ok(inFrontmatter || (e.start >= from && e.end <= to), `an edit outside ${id}: ${JSON.stringify(text.slice(e.start, e.end))}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('giving pi-planner steps their ids (a header-only edit) keeps every step, and the shifted outline equals a fresh parse', () => {
    fc.assert(
      fc.property(planArb, ({ text }) => {
        const before = fresh(text);
        // pi-planner's form: the same plan with its step ids taken off the header lines.
        const stripped = text.replace(/^(\d+\. \[[ x]\] )S\d{3} /gm, '$1').replace(/^step_seq: \d+\r?\n/m, '');
        const doc = fresh(stripped);
        fc.pre(doc.steps.length === before.steps.length && doc.steps.every((s) => !s.hasId));
        const withIds = ensureStepIds(doc);
        assert.deepEqual(ids(withIds), ids(before), 'the ids announced are the ids written');
        assert.deepEqual(withIds.outline, computeOutline(withIds.body), 'the cache equals a fresh parse');
        assert.deepEqual(ids(fresh(withIds.text)), ids(before));
      }),
      { numRuns: 150 },
    );
  });

  it('adding, removing, moving and updating steps keep every other step whole: ids, details, notes, lines', () => {
    const opArb = fc.oneof(
      fc.record({ op: fc.constant('add' as const), text: fc.constantFrom('New step', 'Another (x: y)'), at: fc.nat() }),
      fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
      fc.record({ op: fc.constant('update' as const), at: fc.nat(), text: fc.constantFrom('Renamed', 'Renamed (edit: update → b.ts)') }),
    );
    fc.assert(
      fc.property(planArb, fc.array(opArb, { minLength: 1, maxLength: 5 }), ({ text }, ops) => {
        // Edits are refused while executing: make it a draft with the same body.
        let doc = fresh(text.replace('status: executing', 'status: draft'));
        const original = new Map(doc.steps.map((s) => [s.id, s]));
        let model = doc.steps.map((s) => s.id);
        for (const o of ops) {
          const n = model.length;
          let op: StepOp;
          if (o.op === 'add') op = { op: 'add', text: o.text, after: o.at % (n + 1) === 0 ? 'start' : model[(o.at % (n + 1)) - 1] };
          else if (!n) continue;
          else if (o.op === 'remove') op = { op: 'remove', id: model[o.at % n] };
          else if (o.op === 'update') op = { op: 'update', id: model[o.at % n], text: o.text };
          else {
            const id = model[o.at % n];
            const rest = model.filter((x) => x !== id);
            op = { op: 'move', id, after: o.to % (rest.length + 1) === 0 ? 'start' : rest[(o.to % (rest.length + 1)) - 1] };
          }
          const r = editStep(doc, op, agent);
          const next = fresh(r.text);
          // The model of the ids.
          if (op.op === 'add') {
            const at = op.after === 'start' ? 0 : model.indexOf(op.after!) + 1;
            model = [...model.slice(0, at), r.step!, ...model.slice(at)];
          } else if (op.op === 'remove') model = model.filter((x) => x !== op.id);
          else if (op.op === 'move') {
            const rest = model.filter((x) => x !== op.id);
            const at = op.after === 'start' ? 0 : rest.indexOf(op.after!) + 1;
            model = [...rest.slice(0, at), op.id, ...rest.slice(at)];
          }
          assert.deepEqual(ids(next), model, `after ${JSON.stringify(op)}`);
          assert.deepEqual(parsePlan(r.text).outline, next.outline, 'the cached outline is a fresh one (next is a fresh parse)');
          doc = next;
        }
        // Steps that were there at the start keep their status, details and note (an update changes the text only).
        for (const s of doc.steps) {
          const o = original.get(s.id);
          if (!o) continue;
          assert.equal(s.status, o.status, `${s.id} status`);
          assert.equal(s.details, o.details, `${s.id} details`);
          assert.equal(s.note, o.note, `${s.id} note`);
        }
        // Everything outside the Steps list is unchanged.
        const tail = (t: string) => t.slice(t.indexOf('## Risks'));
        assert.equal(tail(doc.text), tail(text));
      }),
      { numRuns: 150 },
    );
  });

  it('the defects found in review: an unclosed fence in S001 loses no step; a blank line and a nested list under S003 stay as written', () => {
    const text = planText(
      [
        { status: 'pending', text: 'First', details: ['```sh', 'npm run build'] },
        { status: 'pending', text: 'Second', details: [] },
        { status: 'pending', text: 'Third', details: ['', '- nested item', '  with indentation'] },
        { status: 'pending', text: 'Fourth', details: [] },
      ],
      false,
      false,
    );
    const r1 = markStep(sealApproval(fresh(text)), 'S001', 'done', agent, 'ok');
    assert.deepEqual(ids(fresh(r1.text)), ['S001', 'S002', 'S003', 'S004']);
    assert.ok(r1.text.includes('   npm run build\n   > Note: ok\n2. [ ] S002 Second\n'), r1.text);
    const r3 = markStep(sealApproval(fresh(text)), 'S003', 'done', agent);
    assert.ok(r3.text.includes('3. [x] S003 Third\n\n   - nested item\n     with indentation\n4. [ ] S004 Fourth\n'), r3.text);
  });
});
