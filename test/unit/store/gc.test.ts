// What `pi-plans gc` removes, decided from a listing (src/store/gc.ts): a record goes with its plan
// only when every file of that plan reads and says a finished status, an expired record only when
// its owner's rule says so, never a kept kind's, never one that is not a plain file of its own.
import { strict as assert } from 'node:assert';
import { finishedPlans, gcChoose, gcRows, type GcKind, type GcRecord } from '../../../src/store/gc';

const KINDS: GcKind[] = [
  { kind: 'copies', where: 'w', policy: 'finished', bound: 'b' },
  { kind: 'calls', where: 'w', policy: 'expired', bound: 'b' },
  { kind: 'ledger', where: 'w', policy: 'kept', bound: 'b' },
];

describe('gc: what it removes, from a listing', () => {
  it('a plan is finished only when every file of its id reads and says completed, cancelled or superseded', () => {
    const finished = finishedPlans([
      { id: 'PLAN-00000001', status: 'completed', where: 'plans' },
      { id: 'PLAN-00000002', status: 'cancelled', where: 'archive' },
      { id: 'PLAN-00000003', status: 'superseded', where: 'plans' },
      { id: 'PLAN-00000004', status: 'executing', where: 'plans' },
      { id: 'PLAN-00000005', status: 'rejected', where: 'plans' },
      { id: 'PLAN-00000006', status: undefined, where: 'plans' },
      // Archived as completed, but a file of the same id in the plans folder is executing.
      { id: 'PLAN-00000007', status: 'completed', where: 'archive' },
      { id: 'PLAN-00000007', status: 'executing', where: 'plans' },
      // An unreadable second file of a completed plan.
      { id: 'PLAN-00000008', status: 'completed', where: 'plans' },
      { id: 'PLAN-00000008', status: undefined, where: 'archive' },
      { id: 'PLAN-00000009', status: 'approved', where: 'plans' },
      { id: 'PLAN-0000000a', status: 'proposed', where: 'plans' },
      { id: 'PLAN-0000000b', status: 'failed', where: 'plans' },
      { id: 'PLAN-0000000c', status: 'stalled', where: 'plans' },
      { id: 'PLAN-0000000d', status: 'needs_review', where: 'plans' },
      { id: 'PLAN-0000000e', status: 'draft', where: 'plans' },
    ]);
    assert.deepEqual([...finished].sort(), ['PLAN-00000001', 'PLAN-00000002', 'PLAN-00000003']);
  });

  it('removes a finished plan\'s records and expired ones; keeps those of other plans, of no plan, of kept kinds and of unknown kinds; a blocked one is said, not removed', () => {
    const records: GcRecord[] = [
      { kind: 'copies', plan: 'PLAN-00000001', name: 'a', bytes: 10 },
      { kind: 'copies', plan: 'PLAN-00000001', name: 'link', bytes: 0, blocked: 'a link' },
      { kind: 'copies', plan: 'PLAN-00000004', name: 'b', bytes: 20 },
      { kind: 'copies', name: 'c', bytes: 30 },
      { kind: 'calls', name: 'old', bytes: 5, expired: true },
      { kind: 'calls', name: 'new', bytes: 6, expired: false },
      { kind: 'calls', name: 'unknown age', bytes: 7 },
      { kind: 'ledger', plan: 'PLAN-00000001', name: 'ledger', bytes: 40, expired: true },
      { kind: 'other', plan: 'PLAN-00000001', name: 'other', bytes: 50, expired: true },
    ];
    const { remove, blocked } = gcChoose(KINDS, records, new Set(['PLAN-00000001']));
    assert.deepEqual(remove.map((r) => r.name), ['a', 'old']);
    assert.deepEqual(blocked.map((r) => r.name), ['link']);
    const rows = gcRows(KINDS, records, remove);
    assert.deepEqual(
      rows.map((r) => [r.kind, r.count, r.bytes, r.removeCount, r.removeBytes]),
      [
        ['copies', 4, 60, 1, 10],
        ['calls', 3, 18, 1, 5],
        ['ledger', 1, 40, 0, 0],
      ],
    );
  });

  it('counts lines: a row of many records', () => {
    const records: GcRecord[] = [{ kind: 'copies', plan: 'PLAN-00000001', name: 'f#PLAN-00000001', bytes: 300, count: 3 }];
    const { remove } = gcChoose(KINDS, records, new Set(['PLAN-00000001']));
    assert.deepEqual(gcRows(KINDS, records, remove)[0], { ...KINDS[0], count: 3, bytes: 300, removeCount: 3, removeBytes: 300 });
  });
});
