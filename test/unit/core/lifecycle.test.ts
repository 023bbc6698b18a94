import { strict as assert } from 'node:assert';
import {
  Actor,
  canDo,
  HUMAN_ONLY_ACTIONS,
  isPlanError,
  nextStatus,
  PLAN_STATUSES,
  PlanAction,
  PlanStatus,
  TERMINAL_STATUSES,
} from '../../../src/core';
import { errorOf } from '../../helpers/assertions';

const ID = 'PLAN-0000abcd';

/** Every action, written out: a new action in the code must be added here on purpose. */
const ALL_ACTIONS: readonly PlanAction[] = [
  'submit',
  'approve',
  'reject',
  'cancel',
  'edit',
  'reopen',
  'start',
  'mark_step',
  'complete',
  'fail',
  'stall',
  'revise',
  'retry',
  'resume',
  'withdraw',
  'clone',
  'archive',
];

/** The transition table of docs/plan-format.md, written out literally (not read from TRANSITIONS). */
const EXPECTED: Record<PlanStatus, Partial<Record<PlanAction, PlanStatus>>> = {
  draft: { submit: 'proposed', cancel: 'cancelled', edit: 'draft' },
  proposed: { approve: 'approved', reject: 'rejected', cancel: 'cancelled', edit: 'proposed' },
  rejected: { edit: 'draft', clone: 'rejected' },
  needs_review: { reopen: 'draft', cancel: 'cancelled' },
  approved: { start: 'executing', withdraw: 'proposed', cancel: 'cancelled', edit: 'proposed' },
  executing: {
    mark_step: 'executing',
    complete: 'completed',
    fail: 'failed',
    stall: 'stalled',
    cancel: 'cancelled',
    revise: 'superseded',
    withdraw: 'proposed',
  },
  failed: { retry: 'approved', resume: 'executing', cancel: 'cancelled', clone: 'failed' },
  stalled: { retry: 'approved', resume: 'executing', cancel: 'cancelled', withdraw: 'proposed' },
  completed: { clone: 'completed', archive: 'completed' },
  cancelled: { clone: 'cancelled', archive: 'cancelled' },
  superseded: { clone: 'superseded', archive: 'superseded' },
};

const HUMAN_ONLY: readonly PlanAction[] = ['approve', 'reject', 'reopen', 'retry', 'resume', 'withdraw', 'archive'];


describe('lifecycle: the transition table', () => {
  it('knows exactly the eleven statuses of the spec', () => {
    assert.deepEqual(
      [...PLAN_STATUSES].sort(),
      ['approved', 'cancelled', 'completed', 'draft', 'executing', 'failed', 'needs_review', 'proposed', 'rejected', 'stalled', 'superseded'],
    );
    assert.deepEqual([...TERMINAL_STATUSES].sort(), ['cancelled', 'completed', 'superseded']);
    assert.deepEqual([...HUMAN_ONLY_ACTIONS].sort(), [...HUMAN_ONLY].sort());
  });

  it('covers the full status x action grid (187 pairs)', () => {
    assert.equal(PLAN_STATUSES.length * ALL_ACTIONS.length, 187);
  });

  for (const status of PLAN_STATUSES) {
    for (const action of ALL_ACTIONS) {
      const to = EXPECTED[status][action];
      for (const actor of ['user', 'cli'] as Actor[]) {
        if (to) {
          it(`${status} --${action} (${actor})--> ${to}`, () => {
            assert.equal(nextStatus(ID, status, action, actor), to);
            assert.equal(canDo(status, action), true);
          });
        } else {
          it(`${status} --${action} (${actor})--> INVALID_TRANSITION`, () => {
            const e = errorOf(() => nextStatus(ID, status, action, actor));
            assert.equal(e.code, 'INVALID_TRANSITION');
            assert.ok(isPlanError(e, 'INVALID_TRANSITION'));
            assert.ok(e.message.startsWith(`${ID} is ${status}: `), e.message);
            assert.equal(canDo(status, action), false);
          });
        }
      }
      if (!HUMAN_ONLY.includes(action)) {
        it(`${status} --${action} (agent)--> ${to ?? 'INVALID_TRANSITION'}`, () => {
          if (to) assert.equal(nextStatus(ID, status, action, 'agent'), to);
          else assert.equal(errorOf(() => nextStatus(ID, status, action, 'agent')).code, 'INVALID_TRANSITION');
        });
      }
    }
  }

  it('terminal statuses allow nothing but clone and archive', () => {
    for (const status of ['completed', 'cancelled', 'superseded'] as PlanStatus[]) {
      const allowed = ALL_ACTIONS.filter((a) => canDo(status, a));
      assert.deepEqual(allowed, ['clone', 'archive'], status);
    }
  });
});

describe('lifecycle: human-only actions', () => {
  for (const action of HUMAN_ONLY) {
    for (const status of PLAN_STATUSES) {
      if (!EXPECTED[status][action]) continue;
      it(`${action} by an agent on a ${status} plan is HUMAN_ONLY`, () => {
        const e = errorOf(() => nextStatus(ID, status, action, 'agent'));
        assert.equal(e.code, 'HUMAN_ONLY');
        assert.ok(e.message.startsWith(`${ID}: `), e.message);
      });
    }
  }

  it('approve by an agent with agentMayApprove=true is allowed', () => {
    assert.equal(nextStatus(ID, 'proposed', 'approve', 'agent', { agentMayApprove: true }), 'approved');
  });

  it('approve by an agent with agentMayApprove=false is still HUMAN_ONLY', () => {
    assert.equal(errorOf(() => nextStatus(ID, 'proposed', 'approve', 'agent', { agentMayApprove: false })).code, 'HUMAN_ONLY');
  });

  it('agentMayApprove does not open the other human-only actions', () => {
    assert.equal(errorOf(() => nextStatus(ID, 'proposed', 'reject', 'agent', { agentMayApprove: true })).code, 'HUMAN_ONLY');
    assert.equal(errorOf(() => nextStatus(ID, 'needs_review', 'reopen', 'agent', { agentMayApprove: true })).code, 'HUMAN_ONLY');
    assert.equal(errorOf(() => nextStatus(ID, 'failed', 'retry', 'agent', { agentMayApprove: true })).code, 'HUMAN_ONLY');
    assert.equal(errorOf(() => nextStatus(ID, 'stalled', 'resume', 'agent', { agentMayApprove: true })).code, 'HUMAN_ONLY');
  });

  it('agentMayApprove does not make approve valid outside proposed', () => {
    for (const status of PLAN_STATUSES) {
      if (status === 'proposed') continue;
      assert.equal(errorOf(() => nextStatus(ID, status, 'approve', 'agent', { agentMayApprove: true })).code, 'INVALID_TRANSITION', status);
    }
  });
});

describe('lifecycle: rejections', () => {
  it('first and second rejection land in rejected', () => {
    assert.equal(nextStatus(ID, 'proposed', 'reject', 'user'), 'rejected');
    assert.equal(nextStatus(ID, 'proposed', 'reject', 'user', { rejectionCount: 0 }), 'rejected');
    assert.equal(nextStatus(ID, 'proposed', 'reject', 'cli', { rejectionCount: 1 }), 'rejected');
  });

  it('the third rejection (rejectionCount 2) lands in needs_review', () => {
    assert.equal(nextStatus(ID, 'proposed', 'reject', 'user', { rejectionCount: 2 }), 'needs_review');
    assert.equal(nextStatus(ID, 'proposed', 'reject', 'cli', { rejectionCount: 5 }), 'needs_review');
  });

  it('rejectionCount does not make reject valid outside proposed', () => {
    assert.equal(errorOf(() => nextStatus(ID, 'rejected', 'reject', 'user', { rejectionCount: 2 })).code, 'INVALID_TRANSITION');
    assert.equal(errorOf(() => nextStatus(ID, 'draft', 'reject', 'user', { rejectionCount: 2 })).code, 'INVALID_TRANSITION');
  });
});
