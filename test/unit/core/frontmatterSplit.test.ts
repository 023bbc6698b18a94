import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { splitFrontmatter } from '../../../src/core/format/frontmatter';
import { isPlanError, summarizePlan } from '../../../src/core';

/** What a split gives: its data and block, or its error (code, message, line, rule). */
function outcome(text: string, direct: boolean): unknown {
  try {
    const { data, block } = splitFrontmatter(text, direct);
    // The data's prototype is part of the answer: gray-matter's "{}" for an empty block is a plain object.
    return { data, proto: data && typeof data === 'object' ? Object.getPrototypeOf(data) === null : undefined, block };
  } catch (e) {
    if (!isPlanError(e)) return { thrown: String(e) };
    return { code: e.code, message: e.message, line: e.details.line, rule: e.details.rule };
  }
}

// Lines a head is made of: delimiters good and bad, fields, lists, comments, blanks, YAML that
// fails, anchors, language tags, and what a body may start with.
const LINE = fc.constantFrom(
  '---',
  '---',
  '---',
  '--- ',
  '----',
  '---yaml',
  '---js',
  ' ---',
  '--- # x',
  'id: PLAN-0000abcd',
  'title: "A plan"',
  'title: A plan',
  'status: draft',
  'version: 3',
  'version: 3',
  'created_at: 2026-01-01T00:00:00.000Z',
  'tools_required:',
  '  - edit',
  '  - "run tests"',
  '# a comment',
  '   # an indented comment',
  '',
  '   ',
  'key: [unclosed',
  'key: {a: 1',
  'title: dup',
  'a: &x 1',
  'b: *x',
  '~',
  'just a scalar',
  '- a list item',
  '\t tab: 1',
  '## Steps',
  '1. [ ] S001 Do it',
  'body text →',
);

const TEXT = fc
  .record({
    bom: fc.boolean(),
    crlf: fc.constantFrom('never', 'always', 'some'),
    lines: fc.array(LINE, { minLength: 0, maxLength: 14 }),
    end: fc.constantFrom('', '\n', '\r\n'),
    seed: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
  })
  .map(({ bom, crlf, lines, end, seed }) => {
    let s = bom ? '\ufeff' : '';
    lines.forEach((l, i) => {
      s += l;
      if (i < lines.length - 1) s += crlf === 'always' || (crlf === 'some' && seed[i]) ? '\r\n' : '\n';
    });
    return s + end;
  });

describe('frontmatter split without gray-matter (the index path)', () => {
  it('gives what gray-matter gives: the same data, block and errors, on random heads', () => {
    fc.assert(
      fc.property(TEXT, (text) => {
        assert.deepEqual(outcome(text, true), outcome(text, false), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('on random heads that open with a valid plan frontmatter (the common case)', () => {
    const head = '---\nid: PLAN-0000abcd\ntitle: "T"\nstatus: draft\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n';
    fc.assert(
      fc.property(fc.array(LINE, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const text = (head + lines.join('\n')).replace(/\n/g, eol);
        assert.deepEqual(outcome(text, true), outcome(text, false), JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('the cases that tell the two apart when they drift', () => {
    for (const text of [
      '---\n---\n',
      '---\n# only a comment\n---\nbody',
      '---\n   \n---',
      '---\r\nid: x\r\n---\r\n\r\nbody',
      '---\nid: x\n---',
      '---\nid: x\n--- \nbody',
      '---\nid: x\n----\n',
      '---\nkey: [unclosed\n',
      '---\nid: x\n',
      '\ufeff---\nid: x\n---\n',
      '---yaml\nid: x\n---\n',
      '---\n~\n---\n',
      '---\njust a scalar\n---\n',
      // Only comments, which gray-matter never parses: over the frontmatter's size cap (the
      // parse would refuse it), and a line the parser refuses inside a comment-only matter.
      `---\n${'# a comment line\n'.repeat(1200)}---\nbody`,
      '---\n# a\n%YAML 1.2 # a\n---\n',
      '---\n%YAML 1.2\n---\n',
      // Blanks to JavaScript that YAML reads as text: gray-matter's test sees nothing to parse.
      '---\n\u00a0\n---\n# body\n',
      '---\n\u3000# a comment\n---\n',
      '---\n\ufeff\n---\n',
      '---\n\u2028\n---\n',
    ]) {
      assert.deepEqual(outcome(text, true), outcome(text, false), JSON.stringify(text).slice(0, 200));
    }
  });

  it('the index reads a plan the same as before: summarizePlan on a real plan', () => {
    const text = '---\nid: PLAN-0000abcd\ntitle: "T"\nstatus: executing\nversion: 2\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Steps\n1. [x] S001 One\n2. [ ] S002 Two\n';
    const s = summarizePlan(text);
    assert.equal(s.fm.id, 'PLAN-0000abcd');
    assert.equal(s.fm.status, 'executing');
    assert.deepEqual([s.steps, s.stepsDone], [2, 1]);
  });
});
