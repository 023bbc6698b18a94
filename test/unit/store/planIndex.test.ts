import { strict as assert } from 'node:assert';
import { createPlanText } from '../../../src/core';
import { indexEntryFor, notAFileEntry } from '../../../src/store/planIndex';

const stat = { size: 100, mtimeMs: 1_700_000_000_000 };
const bytes = (t: string) => new TextEncoder().encode(t);
const good = createPlanText({ id: 'PLAN-0000a11d', title: 'T', goal: 'G', steps: [{ text: 'a' }] }, '2026-11-24T10:00:00.000Z');

describe('index entries: one shape for every kind of file', () => {
  const entries = {
    valid: indexEntryFor('PLAN-0000a11d.md', bytes(good), stat),
    'bad YAML': indexEntryFor('PLAN-0000a11d.md', bytes(good.replace('status: draft', 'status: [')), stat),
    'wrong id': indexEntryFor('PLAN-0000b11d.md', bytes(good), stat),
    'bad name': indexEntryFor('PLAN-x.md', bytes(good), stat),
    link: indexEntryFor('PLAN-0000a11d.md', undefined, stat, true),
    unread: indexEntryFor('PLAN-0000a11d.md', undefined, stat),
    'not a file': notAFileEntry('PLAN-0000a11d.md', stat, 'a named pipe'),
  };

  it('has the same fields in the same order, valid or not (entries share one object shape; the persisted index and change events compare them field by field)', () => {
    const keys = Object.keys(entries.valid);
    for (const [what, e] of Object.entries(entries)) assert.deepEqual(Object.keys(e), keys, what);
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
