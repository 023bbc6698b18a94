import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { applyTextEdits, diffEdits, positionAt } from '../../../src/core';

const lines = fc.array(fc.constantFrom('a\n', 'b\n', 'c\r\n', '\n', 'step\n', '  nested\n', 'x'), { maxLength: 30 }).map((l) => l.join(''));

describe('text edits (diffEdits)', () => {
  it('applying the edits to the old text gives the new text, for any two texts', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        assert.equal(applyTextEdits(a, diffEdits(a, b)), b);
      }),
      { numRuns: 500 },
    );
  });

  it('edits cover whole lines, never overlap, and leave a line that was only moved around alone', () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const edits = diffEdits(a, b);
        let last = -1;
        for (const e of edits) {
          assert.ok(e.start >= last, 'in order, not overlapping');
          last = e.end;
          assert.ok(e.start === 0 || a[e.start - 1] === '\n', 'starts at a line start');
          assert.ok(e.end === e.start || e.end === a.length || a[e.end - 1] === '\n', 'ends after a line break (or inserts at a line start)');
          assert.deepEqual(e.range.start, positionAt(a, e.start));
          assert.deepEqual(e.range.end, positionAt(a, e.end));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('one changed line in a long text is one edit of that line', () => {
    const a = Array.from({ length: 400 }, (_, i) => `line ${i}\n`).join('');
    const b = a.replace('line 200\n', 'line 200 changed\n');
    const edits = diffEdits(a, b);
    assert.equal(edits.length, 1);
    assert.equal(a.slice(edits[0].start, edits[0].end), 'line 200\n');
    assert.deepEqual(edits[0].range, { start: { line: 200, character: 0 }, end: { line: 201, character: 0 } });
  });
});
