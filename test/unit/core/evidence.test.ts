// The `> Changed:` line: written from the changes, read back, long lists summarised, the flags.
import { strict as assert } from 'node:assert';
import { planView } from '../../../src/core/views/planView';
import { ToWebviewSchema } from '../../../src/protocol/planEditor';
import { changedLine, evidenceFlag, evidenceSummary, FileChange, LIMITS, readChangedLine, SHOWN_FILES, StepActivity, stepsAlongside, withAlongside } from '../../../src/core';

const T1 = '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d';
const T2 = '5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e';

describe('evidence lines (core)', () => {
  it('writes one line with counts and trees and reads it back', () => {
    const files: FileChange[] = [
      { status: 'modified', path: 'src/health.ts', added: 24, removed: 0, binary: false },
      { status: 'added', path: 'test/health.test.ts', added: 31, removed: 0, binary: false },
      { status: 'renamed', path: 'b, c.ts', from: 'a.ts', added: 1, removed: 1, binary: false },
      { status: 'added', path: 'img.png', binary: true },
    ];
    const line = changedLine({ recorded: true, files, before: T1, after: T2 });
    assert.equal(line, 'src/health.ts (+24 −0), test/health.test.ts (new, +31 −0), a.ts → b, c.ts (+1 −1), img.png (new, binary) · 4 files +56 −1 · tree 1a2b3c4d5e..5d6e7f8a9b');
    const back = readChangedLine(line);
    assert.deepEqual([back.recorded, back.files, back.added, back.removed, back.before, back.after], [true, 4, 56, 1, '1a2b3c4d5e', '5d6e7f8a9b']);
    assert.deepEqual(back.shown.map((s) => s.path), ['src/health.ts', 'test/health.test.ts', 'b, c.ts', 'img.png']);
  });

  it('summarises a long list within the record line limit, and names files another process changed', () => {
    const files: FileChange[] = Array.from({ length: 300 }, (_, i) => ({ status: 'modified', path: `src/deep/folder/file-${i}.ts`, added: 1, removed: 0, binary: false }));
    const line = changedLine({ recorded: true, files, before: T1, after: T2, notBySession: ['x.ts', 'y.ts'] });
    assert.ok(line.length <= LIMITS.note, `${line.length} characters`);
    assert.match(line, / and 294 more files · 300 files \+300 −0 · tree 1a2b3c4d5e\.\.5d6e7f8a9b · not by the session: x\.ts, y\.ts$/);
    const back = readChangedLine(line);
    assert.equal(back.shown.length, SHOWN_FILES);
    assert.deepEqual(back.notBySession, ['x.ts', 'y.ts']);
  });

  it('names the steps that ran alongside after the rest, within the limit; reads them back; leaves a line that records nothing as it is', () => {
    const line = changedLine({ recorded: true, files: [{ status: 'added', path: 'a.ts', added: 1, removed: 0, binary: false }], before: T1, after: T2, notBySession: ['b.ts'] });
    const along = withAlongside(line, ['S002', 'S010']);
    assert.equal(along, `${line} · ran alongside: S002, S010`);
    assert.deepEqual([readChangedLine(along).alongside, readChangedLine(along).notBySession, readChangedLine(along).files], [['S002', 'S010'], ['b.ts'], 1]);
    assert.equal(withAlongside(along, ['S003']), along, 'named once');
    const many = withAlongside(line, ['S002', 'S003', 'S004', 'S005', 'S006', 'S007']);
    assert.match(many, / · ran alongside: S002, S003, S004, S005 and 2 more$/);
    assert.deepEqual(readChangedLine(many).alongside, ['S002', 'S003', 'S004', 'S005']);
    assert.equal(withAlongside('not recorded (not a git repository)', ['S002']), 'not recorded (not a git repository)');
    const long = changedLine({ recorded: true, files: Array.from({ length: 300 }, (_, i) => ({ status: 'modified' as const, path: `src/deep/folder/file-${i}.ts`, added: 1, removed: 0, binary: false })), before: T1, after: T2 });
    assert.ok(withAlongside(long, ['S002']).length <= LIMITS.note);
    assert.deepEqual(readChangedLine(line).alongside, []);
  });

  it('the steps alongside: another session\'s step in progress, or acted on after this step\'s claim; never this session\'s own, nor one finished before', () => {
    const claimed = (session: string, at: string) => ({ Claimed: `${session} at ${at}` });
    const steps = [
      { id: 'S001', status: 'in_progress' as const, record: claimed('a', '2026-01-01T10:00:00.000Z') },
      { id: 'S002', status: 'in_progress' as const, record: claimed('b', '2026-01-01T10:05:00.000Z') },
      { id: 'S003', status: 'done' as const, record: claimed('b', '2026-01-01T09:00:00.000Z') },
      { id: 'S004', status: 'done' as const, record: claimed('c', '2026-01-01T09:30:00.000Z') },
      { id: 'S005', status: 'in_progress' as const, record: claimed('a', '2026-01-01T10:01:00.000Z') },
      { id: 'S006', status: 'pending' as const },
    ];
    const activity = new Map<string, StepActivity>([
      ['S003', { at: '2026-01-01T09:50:00.000Z', session: 'b' }],
      ['S004', { at: '2026-01-01T10:02:00.000Z', session: 'c' }],
    ]);
    assert.deepEqual(stepsAlongside(steps, steps[0], 'a', activity), ['S002', 'S004']);
    assert.deepEqual(stepsAlongside(steps, steps[0], 'a'), ['S002'], 'without the log: the steps in progress only');
    // A step the file says is done whose done is not in the log yet (another process appends it after the lock): it ended just now.
    const unlogged = new Map([...activity, ['S003', { at: '2026-01-01T09:00:00.000Z', session: 'b', status: 'in_progress' as const }]]);
    assert.deepEqual(stepsAlongside(steps, steps[0], 'a', unlogged), ['S002', 'S003', 'S004']);
    // A step done straight from pending counts from the plan's last mark (the log's latest event).
    const pending = { id: 'S006', status: 'pending' as const };
    assert.deepEqual(stepsAlongside(steps, pending, 'a', new Map([...activity, ['S005', { at: '2026-01-01T10:03:00.000Z', session: 'a' }]])), ['S002']);
  });

  it('flags a done step: changed, no evidence, no change explained, checked', () => {
    const changed = changedLine({ recorded: true, files: [{ status: 'modified', path: 'a', added: 1, removed: 0, binary: false }], before: T1, after: T2 });
    const nothing = changedLine({ recorded: true, files: [], before: T1, after: T1 });
    assert.equal(nothing, 'nothing · tree 1a2b3c4d5e..1a2b3c4d5e');
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: changed } }), 'changed');
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: nothing } }), 'no evidence');
    assert.equal(evidenceFlag({ status: 'done' }), 'no evidence');
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: nothing, Note: 'docs only' } }), 'no change, explained');
    // A note explains an empty record; it never stands in for one that is missing (git failed, the start went unrecorded).
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: 'not recorded (not a git repository)', Note: 'docs only' } }), 'no evidence');
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: 'not recorded (its start was not recorded)', Note: 'nothing to change' } }), 'no evidence');
    assert.equal(evidenceFlag({ status: 'done', record: { Changed: nothing, Check: 'passed · exit 0' } }), 'checked');
    assert.equal(evidenceFlag({ status: 'blocked', record: { Changed: nothing } }), undefined);
    const sum = evidenceSummary([{ status: 'done', record: { Changed: changed } }, { status: 'done', record: { Changed: nothing } }, { status: 'skipped' }]);
    assert.deepEqual(sum, { files: 1, added: 1, removed: 0, noEvidence: 1, explained: 0, recorded: 2 });
  });

  it('the plan editor view carries each step\'s evidence, its flag and a finished plan\'s summary', () => {
    const changed = changedLine({ recorded: true, files: Array.from({ length: 8 }, (_, i) => ({ status: 'modified' as const, path: `f${i}.ts`, added: 2, removed: 1, binary: false })), before: T1, after: T2 });
    const text = ['---', 'id: PLAN-0e0e0e0e', 'title: Evidence', 'status: completed', 'version: 5', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-02T00:00:00.000Z', '---', '', '## Goal', 'G', '', '## Steps', '1. [x] S001 Eight files', `   > Changed: ${changed}`, '2. [x] S002 Nothing', '   > Changed: nothing · tree 1a2b3c4d5e..1a2b3c4d5e', '3. [x] S003 Explained', '   > Changed: nothing · tree 1a2b3c4d5e..1a2b3c4d5e', '   > Note: already there', ''].join('\n');
    const v = planView(text);
    assert.equal(v.kind, 'plan');
    if (v.kind !== 'plan') return;
    assert.deepEqual(v.steps[0].evidence, { flag: 'changed', recorded: true, files: ['f0.ts (+2 −1)', 'f1.ts (+2 −1)', 'f2.ts (+2 −1)', 'f3.ts (+2 −1)', 'f4.ts (+2 −1)', 'f5.ts (+2 −1)'], count: 8, added: 16, removed: 8, canView: true });
    assert.equal(v.steps[1].evidence?.flag, 'no evidence');
    assert.equal(v.steps[1].evidence?.canView, false);
    assert.equal(v.steps[2].evidence?.flag, 'no change, explained');
    assert.deepEqual(v.evidenceSummary, { files: 8, added: 16, removed: 8, noEvidence: 1, explained: 1 });
    assert.ok(ToWebviewSchema.safeParse({ type: 'state', state: v }).success, 'the protocol carries it');
    // A step that ran alongside another session's: the view names that step.
    const along = planView(text.replace(`> Changed: ${changed}`, `> Changed: ${withAlongside(changed, ['S003'])}`));
    assert.ok(along.kind === 'plan' && along.steps[0].evidence?.alongside?.[0] === 'S003');
    assert.ok(ToWebviewSchema.safeParse({ type: 'state', state: along }).success);
  });
});
