import { strict as assert } from 'node:assert';
import { createPlanText } from '../../../src/core';
import { indexEntryFor, notAFileEntry } from '../../../src/store/planIndex';

const stat = { size: 100, mtimeMs: 1_700_000_000_000 };
const bytes = (t: string) => new TextEncoder().encode(t);
const good = createPlanText({ id: 'PLAN-0000a11d', title: 'T', goal: 'G', steps: [{ text: 'a' }] }, '2026-11-24T10:00:00.000Z');

describe('index entries: one order of fields for every kind of file', () => {
  const entries = {
    valid: indexEntryFor('PLAN-0000a11d.md', bytes(good.replace('status: draft', 'status: draft\nsupersedes: PLAN-0000b11d')), stat),
    'bad YAML': indexEntryFor('PLAN-0000a11d.md', bytes(good.replace('status: draft', 'status: [')), stat),
    'wrong id': indexEntryFor('PLAN-0000b11d.md', bytes(good), stat),
    'bad name': indexEntryFor('PLAN-x.md', bytes(good), stat),
    link: indexEntryFor('PLAN-0000a11d.md', undefined, stat, true),
    unread: indexEntryFor('PLAN-0000a11d.md', undefined, stat),
    'not a file': notAFileEntry('PLAN-0000a11d.md', stat, 'a named pipe'),
  };

  it('has the same fields in the same order, valid (here with a revision link) or not (entries share one object shape; the persisted index and change events compare them field by field)', () => {
    const keys = Object.keys(entries.valid);
    for (const [what, e] of Object.entries(entries)) assert.deepEqual(Object.keys(e), keys, what);
  });

  it("a plain valid plan's entry (no approval record, no revision link) has those fields but the six it would leave undefined, in the same order: its JSON is the same", () => {
    const plain = indexEntryFor('PLAN-0000a11d.md', bytes(good), stat);
    const full = Object.keys(entries.valid);
    const rare = ['error', 'approvedBy', 'approvedVersion', 'approvedHash', 'supersedes', 'supersededBy'];
    assert.deepEqual(Object.keys(plain), full.filter((k) => !rare.includes(k)));
    const filled: Record<string, unknown> = {};
    for (const k of full) filled[k] = (plain as unknown as Record<string, unknown>)[k];
    assert.equal(JSON.stringify(plain), JSON.stringify(filled));
    assert.equal(plain.status, 'draft');
  });

  it('keeps what each kind says: the fields of a valid plan, the reason of an invalid file', () => {
    assert.equal(entries.valid.valid, true);
    assert.equal(entries.valid.title, 'T');
    assert.equal(entries.valid.steps, 1);
    assert.equal(entries.valid.error, undefined);
    assert.equal(entries['wrong id'].valid, false);
    assert.match(entries['wrong id'].error!.message, /the id in the file \(PLAN-0000a11d\) is not the file name's \(PLAN-0000b11d\)/);
    assert.equal(entries['bad YAML'].error!.code, 'INVALID_FILE');
    assert.equal(entries['not a file'].error!.code, 'NOT_A_FILE');
    assert.equal(entries['bad name'].id, 'PLAN-x');
    // What is persisted (JSON) is what it was: absent fields are left out.
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(entries['not a file']))), ['file', 'id', 'steps', 'stepsDone', 'size', 'mtimeMs', 'valid', 'error']);
  });
});
