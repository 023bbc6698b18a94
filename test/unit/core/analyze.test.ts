import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyze, applyTextEdits, DEFAULT_CONFIG, submittedHere } from '../../../src/core';

const head = (extra = '', status = 'draft') =>
  `---\nid: PLAN-1a2b3c4d\ntitle: "A plan"\nstatus: ${status}\nversion: 2\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n${extra}---\n`;
const GOOD = `${head()}\n## Goal\nG\n\n## Steps\n1. [ ] S001 one\n2. [ ] S002 two\n`;

describe('analyze: every problem of a plan text, located, never a throw', () => {
  it('a plan ready for review has no problems', () => {
    const a = analyze(GOOD);
    assert.deepEqual(a.problems, []);
    assert.equal(a.doc?.steps.length, 2);
  });

  it('a field of the wrong type: one error on its line, with the whole line as the range', () => {
    const text = GOOD.replace('version: 2', 'version: "3"');
    const [p, ...rest] = analyze(text).problems;
    assert.deepEqual(rest, []);
    assert.equal(p.code, 'frontmatter-field');
    assert.equal(p.severity, 'error');
    assert.equal(p.line, 5);
    assert.deepEqual(p.range, { start: { line: 4, character: 0 }, end: { line: 4, character: 'version: "3"'.length } });
    assert.match(p.message, /version/);
  });

  it('broken YAML, a duplicate step id, merge-conflict markers: each with its code and line', () => {
    const cases: [string, string, number][] = [
      [GOOD.replace('title: "A plan"', 'title: "A plan"\ntitle: "again"'), 'frontmatter-yaml', 4],
      [GOOD.replace('2. [ ] S002 two', '2. [ ] S001 two'), 'duplicate-step-id', 15],
      [GOOD.replace('## Goal\nG', '## Goal\n<<<<<<< HEAD\nG\n=======\nH\n>>>>>>> other'), 'merge-conflict', 11],
      ['no frontmatter at all\n', 'no-frontmatter', 1],
    ];
    for (const [text, code, line] of cases) {
      const ps = analyze(text).problems;
      assert.equal(ps.length, 1, `${code}: ${JSON.stringify(ps)}`);
      assert.equal(ps[0].code, code);
      assert.equal(ps[0].line, line, code);
      assert.equal(ps[0].range.start.line, line - 1);
    }
  });

  it('what keeps a draft from review are warnings; in a plan our submit proposed they are errors, in one another tool proposed warnings', () => {
    const draft = `${head()}\n## Steps\n`;
    const d = analyze(draft).problems;
    assert.deepEqual(d.map((p) => [p.code, p.severity]), [['missing-section', 'warning'], ['no-steps', 'warning']]);
    assert.match(d[0].message, /## Goal.*before submitting for review/);
    assert.equal(d[0].line, 3, 'shown on the title line');
    const proposed = analyze(`${head('', 'proposed')}\n## Steps\n`, { submitted: true }).problems;
    assert.deepEqual(proposed.map((p) => [p.severity, p.message]), [['error', 'add a "## Goal" section saying what the plan achieves'], ['error', 'add at least one step']]);
    // Whether the steps have ids says nothing about who proposed it: only the submit's record does.
    const foreign = analyze(`${head('', 'proposed')}\n## Steps\n1. [ ] S001 one\n`).problems;
    assert.deepEqual(foreign.map((p) => [p.severity, p.message]), [['warning', 'add a "## Goal" section saying what the plan achieves (another tool proposed this plan; a plan submitted through Pi Plans needs it)']]);
    assert.equal(submittedHere([{ type: 'created' }, { type: 'edit' }, { type: 'status' }]), false);
    assert.equal(submittedHere([{ type: 'created' }, { type: 'submitted' }, { type: 'status' }]), true);
    // Not a review question any more; but an executing plan without an approval record is an error.
    assert.deepEqual(analyze(`${head('', 'executing')}\n## Steps\n`).problems.map((p) => [p.code, p.severity, p.line]), [['approval-invalid', 'error', 4]]);
  });

  it('a missing required section has a fix that adds it where the usual order puts it, touching no other line', () => {
    const text = `${head()}\n## Steps\n1. [ ] S001 one\n   details kept\n\n## Context\nC\n`;
    const [p] = analyze(text, { config: { ...DEFAULT_CONFIG, required_sections: ['Goal', 'Verification'] } }).problems;
    assert.equal(p.fix?.title, 'Add a "## Goal" section');
    const fixed = applyTextEdits(text, p.fix!.edits);
    assert.equal(fixed, text.replace('\n## Steps\n', '\n## Goal\nWhat this plan achieves, in one or two sentences.\n\n## Steps\n'));
    const after = analyze(fixed, { config: { ...DEFAULT_CONFIG, required_sections: ['Goal', 'Verification'] } }).problems;
    assert.deepEqual(after.map((x) => x.message), ['add a "## Verification" section before submitting for review']);
    assert.equal(applyTextEdits(fixed, after[0].fix!.edits).includes('## Verification\n- How to tell that the plan worked\n\n## Context\n'), true);
  });

  it('steps without ids (pi-planner) are infos with a fix; applying the fix leaves none', () => {
    const text = fs.readFileSync(path.join(__dirname, '../../fixtures/corpus/pi-planner-proposed.md'), 'utf8');
    const ps = analyze(text).problems.filter((p) => p.code === 'step-without-id');
    assert.ok(ps.length >= 2, JSON.stringify(ps));
    for (const p of ps) {
      assert.equal(p.severity, 'info');
      assert.match(text.split('\n')[p.line - 1], /^\d+\. /);
    }
    const fixed = applyTextEdits(text, ps[0].fix!.edits);
    assert.deepEqual(analyze(fixed).problems.filter((p) => p.code === 'step-without-id'), []);
    assert.deepEqual(analyze(fixed).doc!.steps.map((s) => s.id), analyze(text).doc!.steps.map((s) => s.id), 'the ids the fix writes are the ones announced');
  });

  it('any text: analyze returns, and every range lies inside the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string().map((s) => GOOD.slice(0, 60) + s), fc.string().map((s) => GOOD + s)), (text) => {
        const a = analyze(text);
        const lines = text.split('\n');
        for (const p of a.problems) {
          assert.ok(p.range.start.line >= 0 && p.range.start.line < lines.length, JSON.stringify(p));
          assert.ok(p.range.end.character <= lines[p.range.end.line].length, JSON.stringify(p));
        }
      }),
      { numRuns: 300 },
    );
  });
});
