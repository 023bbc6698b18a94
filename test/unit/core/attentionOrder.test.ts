import { strict as assert } from 'node:assert';
import { byAttention, type AttentionRow } from '../../../src/core';

describe('the order a reviewer needs plans in', () => {
  it('awaiting review first, then invalid files, running, stuck, waiting to start, drafts, rejected, finished; newest first within a group', () => {
    const rows: AttentionRow[] = [
      { id: 'PLAN-done', valid: true, status: 'completed', updatedAt: '2026-01-09' },
      { id: 'PLAN-draft', valid: true, status: 'draft', updatedAt: '2026-01-08' },
      { id: 'PLAN-run', valid: true, status: 'executing', updatedAt: '2026-01-07' },
      { id: 'PLAN-runidle', valid: true, status: 'executing', flag: 'stalled', updatedAt: '2026-01-07' },
      { id: 'PLAN-bad', valid: false },
      { id: 'PLAN-old', valid: true, status: 'proposed', updatedAt: '2026-01-01' },
      { id: 'PLAN-new', valid: true, status: 'proposed', updatedAt: '2026-01-05' },
      { id: 'PLAN-third', valid: true, status: 'needs_review', updatedAt: '2026-01-06' },
      { id: 'PLAN-rej', valid: true, status: 'rejected', updatedAt: '2026-01-06' },
      { id: 'PLAN-fail', valid: true, status: 'failed', updatedAt: '2026-01-06' },
      { id: 'PLAN-ok', valid: true, status: 'approved', updatedAt: '2026-01-06' },
      { id: 'PLAN-sup', valid: true, status: 'superseded', updatedAt: '2026-01-10' },
    ];
    assert.deepEqual(
      [...rows].sort(byAttention).map((r) => r.id),
      ['PLAN-new', 'PLAN-old', 'PLAN-third', 'PLAN-bad', 'PLAN-run', 'PLAN-runidle', 'PLAN-fail', 'PLAN-ok', 'PLAN-draft', 'PLAN-rej', 'PLAN-done', 'PLAN-sup'],
    );
  });
});
