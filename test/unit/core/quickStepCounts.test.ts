import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bodyOf, computeOutline, createPlanText, editStep, parsePlan, quickStepCounts, quickSteps } from '../../../src/core';

/** The count as it was written before it matched in place (a copy of each line's start, a match array): the reference. */
function reference(body: string): { total: number; done: number } {
  let total = 0;
  let done = 0;
  const at = /^##[ \t]+Steps[ \t]*\r?$/im.exec(body);
  if (!at) return { total, done };
  let pos = body.indexOf('\n', at.index) + 1;
  if (pos === 0) return { total, done };
  let inFence = false;
  const fence = / {0,3}(```|~~~)/y;
  while (pos < body.length) {
    let end = body.indexOf('\n', pos);
    if (end === -1) end = body.length;
    const c = body.charCodeAt(pos);
    if (c === 0x60 || c === 0x7e || c === 0x20) {
      fence.lastIndex = pos;
      if (fence.test(body)) inFence = !inFence;
    } else if (!inFence) {
      if (c === 0x23 && /^#{1,2}[ \t\r]|^#{1,2}$/.test(body.slice(pos, Math.min(end, pos + 3)))) break;
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2a || c === 0x2b) {
        const m = /^(?:\d{1,9}[.)]|[-*+])[ \t]+(\[[ xX]\])?/.exec(body.slice(pos, Math.min(end, pos + 16)));
        if (m) {
          total++;
          if (m[1] === '[x]' || m[1] === '[X]') done++;
        }
      }
    }
    pos = end + 1;
  }
  return { total, done };
}

const PIECE = fc.constantFrom('1.', '2)', '1234567890.', '123456789.', '-', '*', '+', ' ', '  ', '\t', '         ', '[x]', '[X]', '[ ]', '[y]', '[x', 'S001', 'text', '→', '\r', '```', '~~~', '#', '## ', '## Steps', '### Sub', 'x');
const LINE = fc.array(PIECE, { maxLength: 6 }).map((p) => p.join(''));
const BODY = fc.array(LINE, { maxLength: 30 }).map((lines) => ['', '## Goal', 'g', '', '## Steps', ...lines].join('\n'));

describe('quickStepCounts (the index step count)', () => {
  it('counts as the reference did on random bodies: markers, blanks, checkboxes at the 16-character edge, fences, headings', () => {
    fc.assert(
      fc.property(BODY, (body) => {
        assert.deepEqual(quickStepCounts(body), reference(body), JSON.stringify(body));
      }),
      { numRuns: 5000 },
    );
  });

  it('edge cases by hand', () => {
    const at = (lines: string[]) => quickStepCounts(['## Steps', ...lines].join('\n'));
    assert.deepEqual(at(['1. [x] a', '2. [X] b', '3. [ ] c', '- [x] d']), { total: 4, done: 3 });
    // A checkbox past the first 16 characters of its line does not count as done.
    assert.deepEqual(at(['123456789.    [x] far', '123456789.   [x] near']), { total: 2, done: 1 });
    assert.deepEqual(at(['1.[x] no blank', '1.', '1. ', '- ']), { total: 2, done: 0 });
    assert.deepEqual(at(['```', '1. [x] fenced', '```', '1. [x] out']), { total: 1, done: 1 });
  });

  it('agrees with the full parse on a plan our writer made', () => {
    const body = ['', '## Steps', ...Array.from({ length: 50 }, (_, i) => `${i + 1}. [${i % 3 ? ' ' : 'x'}] S${String(i + 1).padStart(3, '0')} step ${i} → src/f${i}.ts`), '', '## Risks', '- none', ''].join('\n');
    const o = computeOutline(body);
    assert.equal(quickStepCounts(body).total, o.steps.length);
    assert.equal(quickStepCounts(body).done, 17);
  });
});

describe('quickSteps (one plan\'s steps without the Markdown stack, for the agent hook)', () => {
  /** What the full parse says of the steps (ids as the file carries them or by position, as quickSteps gives). */
  const full = (text: string) => parsePlan(text).steps.map(({ id, hasId, status, text: t, tool, operation, target, details, note }) => ({ id: hasId ? id : undefined, status, text: t, tool, operation, target, details, note }));
  const quick = (text: string) => quickSteps(bodyOf(text)!).map(({ id, hasId, status, text: t, tool, operation, target, details, note }) => ({ id: hasId ? id : undefined, status, text: t, tool, operation, target, details, note }));

  it('reads what the full parse reads on every corpus plan (pi-planner forms, CRLF and BOM, hand edits)', () => {
    const dir = path.resolve(__dirname, '../../fixtures/corpus');
    let checked = 0;
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.md'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      let expected;
      try {
        expected = full(text);
      } catch {
        continue; // a plan the parse refuses (a conflict): the hook fails open on it, nothing to compare
      }
      assert.deepEqual(quick(text), expected, f);
      checked++;
    }
    assert.ok(checked >= 4, `${checked} corpus plans compared`);
  });

  it('reads statuses, targets, details and notes as our writer writes them', () => {
    const now = '2026-01-02T00:00:00.000Z';
    let doc = parsePlan(createPlanText({ id: 'PLAN-0000abcd', title: 'T', goal: 'G', steps: [{ text: 'one', tool: 'edit', operation: 'change', target: 'src/a.ts', details: 'more\nlines' }, { text: 'two' }, { text: 'three', tool: 'edit', operation: 'create', target: 'docs/' }] }, now));
    doc = parsePlan(editStep(doc, { op: 'add', text: 'four' }, { now, actor: 'agent' }).text);
    // S002 in progress with a note, as the store writes a mark (the writer's own header and note line).
    doc = parsePlan(doc.text.replace(/^2\. \[ \] S002 two$/m, '2. [ ] S002 *in progress* two\n   > Note: working on it'));
    assert.deepEqual(quick(doc.text), full(doc.text));
    assert.deepEqual(quickSteps(bodyOf(doc.text)!).map((s) => [s.id, s.status, s.target]), [['S001', 'pending', 'src/a.ts'], ['S002', 'in_progress', undefined], ['S003', 'pending', 'docs/'], ['S004', 'pending', undefined]]);
  });
});

