import { seenNow, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import {
  approve,
  canDo,
  createPlanText,
  editorPrimary,
  fitLabel,
  isFinishedStatus,
  markStep,
  needsPersonNow,
  parsePlan,
  PLAN_STATUSES,
  planCommands,
  planNeed,
  planContextValue,
  planLenses,
  primaryCommands,
  startExecution,
  stepContextValue,
  stepMarks,
  submit,
  TERMINAL_STATUSES,
  textWidthEm,
} from '../../../src/core';

const ctx = { now: '2026-11-23T10:00:00.000Z', actor: 'user' as const, approvals: TEST_APPROVALS };
const draft = createPlanText({ id: 'PLAN-0000abcd', title: 'T', goal: 'G', steps: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] }, ctx.now);
const proposed = submit(parsePlan(draft), ctx).text;
const approved = approve(parsePlan(proposed), seenNow(parsePlan(proposed)), ctx).text;
const executing = startExecution(parsePlan(approved), ctx).text;

describe('core: what a person can do with a plan now (planActions)', () => {
  it('calls finished exactly the terminal statuses, read off the transition table', () => {
    assert.deepEqual(
      PLAN_STATUSES.filter((s) => isFinishedStatus(s)),
      [...TERMINAL_STATUSES],
    );
  });

  it('offers only commands the transition table allows, for every status', () => {
    const asAction = { approve: 'approve', reject: 'reject', withdraw: 'withdraw', retry: 'retry', resume: 'resume', reopen: 'reopen', clone: 'clone', cancel: 'cancel', archive: 'archive' } as const;
    for (const s of PLAN_STATUSES) {
      for (const c of planCommands(s)) {
        if (c in asAction) assert.ok(canDo(s, asAction[c as keyof typeof asAction]), `${c} offered on ${s}`);
      }
      for (const [c, a] of Object.entries(asAction)) {
        if (canDo(s, a)) assert.ok(planCommands(s).includes(c as never), `${c} missing on ${s}`);
      }
    }
  });

  it('offers review on a proposal, execution on an approved or executing plan, archive on a finished one', () => {
    assert.deepEqual(planCommands('proposed'), ['approve', 'reject', 'startWork', 'cancel']);
    assert.deepEqual(planCommands('approved'), ['execute', 'startWork', 'withdraw', 'cancel']);
    // An executing or stalled plan can be sent back to review (a drifted one, say), from its menus.
    assert.deepEqual(planCommands('executing'), ['execute', 'startWork', 'withdraw', 'cancel']);
    assert.deepEqual(primaryCommands('executing'), ['execute']);
    assert.deepEqual(planCommands('stalled'), ['resume', 'retry', 'startWork', 'withdraw', 'cancel']);
    assert.deepEqual(planCommands('completed'), ['clone', 'archive']);
    assert.deepEqual(planCommands('needs_review'), ['reopen', 'startWork', 'cancel']);
  });

  it('offers nothing that runs a plan changed since its approval', () => {
    assert.deepEqual(planCommands('approved', { flag: 'changed' }), ['startWork', 'withdraw', 'cancel']);
    assert.ok(!planCommands('failed', { flag: 'changed' }).includes('resume'));
    assert.deepEqual(primaryCommands('approved', { flag: 'changed' }), ['withdraw']);
  });

  it('puts at most two commands inline, the ones that matter in each status', () => {
    for (const s of PLAN_STATUSES) {
      const p = primaryCommands(s);
      assert.ok(p.length >= 1 && p.length <= 2, `${s}: ${p}`);
      for (const c of p) assert.ok(planCommands(s).includes(c));
    }
    assert.deepEqual(primaryCommands('proposed'), ['approve', 'reject']);
    assert.deepEqual(primaryCommands('stalled'), ['resume']);
  });

  it('writes context values menus can match with /:command:/', () => {
    const v = planContextValue('proposed');
    assert.match(v, /^piPlans\.plan:/);
    assert.match(v, /:approve:/);
    assert.match(v, /:inline-approve:/);
    assert.doesNotMatch(v, /:execute:/);
    assert.match(planContextValue('executing'), /:execute:/);
    assert.equal(stepContextValue('executing', 'pending'), 'piPlans.step:in_progress:done:blocked:skipped:');
    assert.equal(stepContextValue('approved', 'pending'), 'piPlans.step::');
  });

  it('lets a step be marked only while its plan executes', () => {
    assert.deepEqual(stepMarks('executing', 'in_progress'), ['done', 'blocked', 'skipped']);
    assert.deepEqual(stepMarks('executing', 'done'), ['in_progress']);
    assert.deepEqual(stepMarks('proposed', 'pending'), []);
  });

  describe('CodeLens from a text as shown', () => {
    it('puts the status and Approve / Reject on the first line of a proposal', () => {
      const lenses = planLenses(proposed);
      assert.equal(lenses.length, 1);
      const [l] = lenses;
      assert.equal(l.kind, 'plan');
      if (l.kind !== 'plan') return;
      assert.deepEqual({ line: l.line, id: l.id, status: l.status, version: l.version, done: l.done, total: l.total }, { line: 0, id: 'PLAN-0000abcd', status: 'proposed', version: 2, done: 0, total: 3 });
      assert.deepEqual(l.commands, ['approve', 'reject', 'startWork']);
    });

    it('offers "save to approve" instead of Approve for an unsaved buffer', () => {
      const [l] = planLenses(proposed, { dirty: true });
      assert.ok(l.kind === 'plan' && l.commands[0] === 'saveToApprove' && !l.commands.includes('approve'));
    });

    it('judges the buffer as shown: a status typed into it is what counts', () => {
      const [l] = planLenses(proposed.replace('status: proposed', 'status: draft'));
      assert.ok(l.kind === 'plan' && l.status === 'draft' && !l.commands.includes('approve'));
    });

    it('puts Done / Blocked / Skip on each open step line of an executing plan, at its line', () => {
      const marked = markStep(parsePlan(executing), 'S001', 'done', ctx).text;
      const lenses = planLenses(marked);
      const steps = lenses.filter((l) => l.kind === 'step');
      assert.deepEqual(
        steps.map((l) => l.kind === 'step' && l.step),
        ['S002', 'S003'],
      );
      const lines = marked.split('\n');
      for (const l of steps) {
        if (l.kind !== 'step') continue;
        assert.match(lines[l.line], new RegExp(`\\[ \\] ${l.step} `), `line ${l.line} is the step's line`);
        assert.deepEqual(l.marks, ['done', 'blocked', 'skipped']);
      }
    });

    it('gives a broken text one lens naming its problem and line', () => {
      const lenses = planLenses(proposed.replace('version: 2', 'version: "2"'));
      assert.equal(lenses.length, 1);
      const [l] = lenses;
      assert.ok(l.kind === 'invalid');
      if (l.kind !== 'invalid') return;
      assert.match(l.message, /version/);
      assert.equal(typeof l.errorLine, 'number');
    });
  });

  describe('the plan editor\'s one primary action (editorPrimary)', () => {
    it('is what needs the person in each state, never what is already happening', () => {
      const primary = Object.fromEntries(PLAN_STATUSES.map((s) => [s, editorPrimary(s) ?? '']));
      assert.deepEqual(primary, {
        draft: '', proposed: 'approve', approved: 'execute', executing: '', stalled: 'resume', failed: 'resume',
        completed: '', rejected: '', cancelled: '', superseded: '', needs_review: 'reopen',
      });
      // An executing plan whose agent went quiet: handing it to Copilot is what the person does now.
      assert.equal(editorPrimary('executing', { flag: 'stalled' }), 'execute');
    });

    it('is always one of the commands offered, and none where the approval does not hold', () => {
      for (const s of PLAN_STATUSES) for (const flag of [undefined, 'stalled', 'stale', 'changed', 'unapproved', 'foreign'] as const) {
        const p = editorPrimary(s, { flag });
        if (p) assert.ok(planCommands(s, { flag }).includes(p), `${p} on ${s} (${flag})`);
      }
      assert.equal(editorPrimary('approved', { flag: 'changed' }), undefined);
      assert.equal(editorPrimary('executing', { flag: 'unapproved' }), undefined);
      assert.equal(editorPrimary('approved', { flag: 'foreign' }), 'confirm');
    });
  });

  describe('what a plan needs from a person, for the status bar (planNeed)', () => {
    it('counts each plan once, under its most urgent need: a stalled run is not also running, a broken approval not also running', () => {
      assert.equal(planNeed({ valid: true, status: 'executing', flag: 'stalled' }), 'stalled');
      assert.equal(planNeed({ valid: true, status: 'executing' }), 'running');
      assert.equal(planNeed({ valid: true, status: 'stalled' }), 'stalled');
      assert.equal(planNeed({ valid: true, status: 'executing', flag: 'changed' }), 'changed');
      assert.equal(planNeed({ valid: true, status: 'approved', flag: 'foreign' }), 'foreign');
      assert.equal(planNeed({ valid: true, status: 'proposed', flag: 'stale' }), 'review');
      assert.equal(planNeed({ valid: true, status: 'needs_review' }), 'review');
      assert.equal(planNeed({ valid: false }), 'invalid');
      for (const s of ['draft', 'approved', 'completed', 'rejected', 'cancelled', 'superseded'] as const) assert.equal(planNeed({ valid: true, status: s }), undefined, s);
    });

    it('calls for the warning colour only for what is wrong and waits for a person: not a review, a stalled run or an approval to confirm', () => {
      // The demo's first screen: three proposals, the sample's stalled run, a draft, a rejected and a completed plan.
      const demo = [
        { valid: true, status: 'proposed' }, { valid: true, status: 'proposed' }, { valid: true, status: 'proposed' },
        { valid: true, status: 'executing', flag: 'stalled' }, { valid: true, status: 'draft' }, { valid: true, status: 'rejected' }, { valid: true, status: 'completed' },
      ] as const;
      const needs = demo.map((r) => planNeed(r));
      assert.deepEqual(needs.filter(Boolean), ['review', 'review', 'review', 'stalled']);
      assert.equal(needs.some(needsPersonNow), false);
      assert.deepEqual(['invalid', 'unapproved', 'changed', 'foreign', 'review', 'stalled', 'running'].filter((n) => needsPersonNow(n as never)), ['invalid', 'unapproved', 'changed']);
    });
  });

  describe('a row\'s label that fits the side bar (fitLabel)', () => {
    it('keeps a title that fits whole, and cuts a longer one after its last whole word, with an ellipsis, within the width', () => {
      assert.equal(fitLabel('Add a health-check endpoint', 15), 'Add a health-check endpoint');
      // Not "page to…", not "limiting to the…": a cut ends on a word that says something.
      assert.equal(fitLabel('Migrate the settings page to the new form components', 15), 'Migrate the settings page…');
      assert.equal(fitLabel('Add rate limiting to the public API', 15), 'Add rate limiting…');
      for (const t of ['Migrate the settings page to the new form components', 'Send invoice reminder to Acme Corp', 'WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW', 'Return 429 with a Retry-After header — and a body, per RFC 6585', '請求書のリマインダーを送信して、お客様に確認してもらう']) {
        const l = fitLabel(t, 15);
        assert.ok(textWidthEm(l) <= 15, `${l}: ${textWidthEm(l)} em`);
        assert.ok(l.endsWith('…') && t.startsWith(l.slice(0, -1).trimEnd().replace(/[\s,;:·–—-]+$/, '')), l);
      }
      // One long word is cut inside it; a cut never ends on a dash or a comma.
      assert.match(fitLabel('WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW', 15), /^W+…$/);
      assert.equal(fitLabel('Deploy, then verify, then announce the release to everyone', 12), 'Deploy, then verify…');
      assert.equal(fitLabel('  spaced\n  out  ', 15), 'spaced out');
    });

    it('measures text as DejaVu Sans draws it (Linux\'s default, wider than Segoe UI or San Francisco)', () => {
      // 187 px at 13 px, as chromium measured "Add a health-check endpoint" in DejaVu Sans.
      assert.ok(Math.abs(textWidthEm('Add a health-check endpoint') * 13 - 187.1) < 1.5);
      assert.equal(textWidthEm('iiii') < textWidthEm('mmmm'), true);
    });
  });
});
