import { TEST_APPROVALS } from '../../helpers/approvals';
// Defects a review of the update fast paths found: what an operation's result parses to, and
// what a parse refuses, must not depend on what the caches hold.
import { strict as assert } from 'node:assert';
import { bodyOf, computeOutline, finishExecution, OpContext, parsePlan, PlanDocument, rememberOutline } from '../../../src/core';

const ctx: OpContext = { now: '2026-03-01T00:00:00.000Z', actor: 'agent', approvals: TEST_APPROVALS };
const FIELDS = ['id: PLAN-7e57ab1e', 'title: "Reconcile"', 'status: executing', 'version: 3', 'created_at: 2026-02-11T08:00:00.000Z', 'updated_at: 2026-02-11T08:30:00.000Z'];
const plan = (head: string[], body = '\n## Steps\n1. [ ] S001 Import\n2. [ ] S002 Match\n') => `---\n${head.join('\n')}\n---\n${body}`;

/** The parse of `text` through the caches says what a parse that trusts none says. */
function sameAsFresh(text: string): void {
  const outcome = (f: () => PlanDocument) => {
    try {
      const d = f();
      return { fm: d.fm, steps: d.steps.map((s) => [s.id, s.status]) };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const fresh = outcome(() => parsePlan(text, undefined, { fresh: true }));
  assert.deepStrictEqual(outcome(() => parsePlan(text)), fresh);
}

describe('review findings: results parse as a fresh parse would', () => {
  it('a frontmatter an edit makes invalid (an indented mapping, a "..." end, a block over the cap) is refused, as a fresh parse refuses it', () => {
    const cases: [string, string, (d: PlanDocument) => string][] = [
      // Failing a run appends keys (execution_ended_at, result_summary); it needs no approval, so the
      // frontmatter's shape is what decides.
      ['indented mapping', plan(FIELDS.map((l) => `  ${l}`)), (d) => finishExecution(d, 'fail', 'no', ctx).text],
      ['"..." document end', plan([...FIELDS, '...'], '\n## Steps\n1. [x] S001 Import\n2. [ ] S002 Match\n'), (d) => finishExecution(d, 'fail', 'no', ctx).text],
      ['comments near the cap', plan([...FIELDS, ...Array.from({ length: 150 }, (_, i) => `# ${'x'.repeat(95)} ${i}`)]), (d) => finishExecution(d, 'fail', 'y'.repeat(3000), ctx).text],
    ];
    for (const [label, text, op] of cases) {
      let out: string;
      try {
        out = op(parsePlan(text));
      } catch (e) {
        // Refused by the operation (it reads its own result's frontmatter): nothing to write.
        assert.match((e as Error).message, /frontmatter/, label);
        continue;
      }
      sameAsFresh(out);
      assert.throws(() => parsePlan(out), `${label}: the result must be refused`);
    }
  });

  it('a cached outline does not let a hostile step count through: the count is checked unless this body passed it', () => {
    const text = plan(FIELDS, `\n## Steps\n1. [ ] S001 Import\n\n<!--\n${Array.from({ length: 1001 }, (_, i) => `- old ${i}`).join('\n')}\n-->\n`);
    assert.throws(() => parsePlan(text, undefined, { fresh: true }), /over the 1000-step limit/);
    // What the parser worker does: the outline of the body, computed elsewhere and cached.
    const body = bodyOf(text)!;
    rememberOutline(body, computeOutline(body));
    assert.throws(() => parsePlan(text), /over the 1000-step limit/);
  });
});
