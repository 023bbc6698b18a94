import { seenNow, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import {
  contentDigest,
  approve,
  changeStatus,
  clonePlan,
  createPlanText,
  CreateInput,
  DEFAULT_CONFIG,
  editStep,
  finishExecution,
  Frontmatter,
  isStale,
  isStalled,
  markStep,
  OpContext,
  parsePlan,
  PlanDocument,
  reject,
  setContent,
  setMetadata,
  startExecution,
  StepStatus,
  submit,
} from '../../../src/core';
import { errorOf, diffLines } from '../../helpers/assertions';

// ---------- helpers ----------

const ID = 'PLAN-0000abcd';
const T0 = '2026-05-01T10:00:00.000Z';
/** A distinct time per write: day n of May 2026. */
const at = (n: number) => `2026-05-${String(n).padStart(2, '0')}T10:00:00.000Z`;
const user = (n: number, extra: Partial<OpContext> = {}): OpContext => ({ now: at(n), actor: 'user', approvals: TEST_APPROVALS, ...extra });
const agent = (n: number, extra: Partial<OpContext> = {}): OpContext => ({ now: at(n), actor: 'agent', approvals: TEST_APPROVALS, ...extra });



const BASE: CreateInput = {
  id: ID,
  title: 'Add a rate limiter',
  goal: 'Limit requests per client.',
  steps: [
    { text: 'Add a token-bucket module', tool: 'edit', operation: 'create', target: 'src/limits/bucket.ts' },
    { text: 'Wire the limiter into the pipeline' },
    { text: 'Return 429 with Retry-After', details: 'Use the standard header.\nDocument it.' },
  ],
};

const BASE_TEXT = [
  '---',
  'id: PLAN-0000abcd',
  'title: "Add a rate limiter"',
  'status: draft',
  'version: 1',
  'created_at: 2026-05-01T10:00:00.000Z',
  'updated_at: 2026-05-01T10:00:00.000Z',
  'step_seq: 3',
  '---',
  '',
  '## Goal',
  'Limit requests per client.',
  '',
  '## Steps',
  '1. [ ] S001 Add a token-bucket module (edit: create → src/limits/bucket.ts)',
  '2. [ ] S002 Wire the limiter into the pipeline',
  '3. [ ] S003 Return 429 with Retry-After',
  '   Use the standard header.',
  '   Document it.',
  '',
].join('\n');

function draft(input: Partial<CreateInput> = {}): PlanDocument {
  return parsePlan(createPlanText({ ...BASE, ...input }, T0));
}
const ids = (d: PlanDocument) => d.steps.map((s) => s.id);
const texts = (d: PlanDocument) => d.steps.map((s) => s.text);
const titles = (d: PlanDocument) => d.outline.sections.map((s) => s.title);

/** draft -> proposed (v2) -> approved (v3). */
function approved(input: Partial<CreateInput> = {}): PlanDocument {
  const p = parsePlan(submit(draft(input), user(2)).text);
  return parsePlan(approve(p, seenNow(p), user(3)).text);
}
/** ... -> executing (v4). */
function executing(input: Partial<CreateInput> = {}): PlanDocument {
  return parsePlan(startExecution(approved(input), agent(4), 'session-1').text);
}

// ---------- createPlanText ----------

describe('operations: createPlanText', () => {
  it('writes the exact pi-planner-compatible text', () => {
    assert.equal(createPlanText(BASE, T0), BASE_TEXT);
  });

  it('writes every section in the usual order and reads back', () => {
    const text = createPlanText(
      {
        ...BASE,
        status: 'proposed',
        planner_model: 'claude-sonnet',
        executor_model: 'claude-haiku',
        tools_required: ['edit', 'bash'],
        context: 'Background.',
        files: ['src/limits/bucket.ts'],
        verification: ['npm test passes'],
        risks: 'Clients may retry too fast.',
        assumptions: ['one process'],
      },
      T0,
    );
    const d = parsePlan(text);
    assert.deepEqual(titles(d), ['Goal', 'Steps', 'Assumptions', 'Risks', 'Verification', 'Files', 'Context']);
    assert.equal(d.fm.status, 'proposed');
    assert.equal(d.fm.version, 1);
    assert.equal(d.fm.planner_model, 'claude-sonnet');
    assert.equal(d.fm.executor_model, 'claude-haiku');
    assert.deepEqual(d.fm.tools_required, ['edit', 'bash']);
    assert.ok(text.includes('\ntools_required:\n  - edit\n  - bash\n'), text);
    assert.ok(text.includes('\n## Assumptions\n- one process\n\n## Risks\nClients may retry too fast.\n'), text);
    assert.deepEqual(ids(d), ['S001', 'S002', 'S003']);
    assert.deepEqual(d.steps[0], {
      id: 'S001',
      hasId: true,
      status: 'pending',
      text: 'Add a token-bucket module',
      tool: 'edit',
      operation: 'create',
      target: 'src/limits/bucket.ts',
      bullet: '1.',
      index: 0,
    });
    assert.equal(d.steps[2].details, 'Use the standard header.\nDocument it.');
  });

  it('refuses a half annotation and an empty step', () => {
    assert.equal(errorOf(() => createPlanText({ ...BASE, steps: [{ text: 'x', tool: 'edit' }] }, T0)).code, 'INVALID_INPUT');
    assert.equal(errorOf(() => createPlanText({ ...BASE, steps: [{ text: '  ' }] }, T0)).code, 'INVALID_INPUT');
    assert.equal(errorOf(() => createPlanText({ ...BASE, steps: [{ text: 'x', tool: 'two words', operation: 'op' }] }, T0)).code, 'INVALID_INPUT');
  });
});

// ---------- editStep ----------

describe('operations: editStep', () => {
  it('adds at the end with the next id', () => {
    const r = editStep(draft(), { op: 'add', text: 'Add tests', tool: 'bash', operation: 'run', target: 'npm test' }, agent(2));
    assert.equal(r.status, 'draft');
    assert.equal(r.step, 'S004');
    assert.equal(r.event, 'edit');
    const d = parsePlan(r.text);
    assert.deepEqual(ids(d), ['S001', 'S002', 'S003', 'S004']);
    assert.equal(d.fm.step_seq, 4);
    assert.equal(d.fm.version, 2);
    assert.equal(d.fm.updated_at, at(2));
    assert.equal(d.fm.created_at, T0);
    assert.ok(r.text.endsWith('   Document it.\n4. [ ] S004 Add tests (bash: run → npm test)\n'), r.text);
  });

  it('adds after a given id, and at the start, renumbering the list', () => {
    const r1 = editStep(draft(), { op: 'add', text: 'Measure first', after: 'S001' }, agent(2));
    const d1 = parsePlan(r1.text);
    assert.deepEqual(ids(d1), ['S001', 'S004', 'S002', 'S003']);
    assert.deepEqual(d1.steps.map((s) => s.bullet), ['1.', '2.', '3.', '4.']);
    assert.ok(r1.text.includes('\n2. [ ] S004 Measure first\n3. [ ] S002 Wire the limiter into the pipeline\n4. [ ] S003 Return 429 with Retry-After\n   Use the standard header.\n'), r1.text);

    const r2 = editStep(d1, { op: 'add', text: 'Read the issue', after: 'start' }, agent(3));
    const d2 = parsePlan(r2.text);
    assert.deepEqual(ids(d2), ['S005', 'S001', 'S004', 'S002', 'S003']);
    assert.ok(r2.text.includes('\n## Steps\n1. [ ] S005 Read the issue\n2. [ ] S001 Add a token-bucket module'), r2.text);
    assert.equal(d2.fm.version, 3);
    assert.equal(d2.fm.step_seq, 5);
  });

  it('update changes only that step line plus version and updated_at', () => {
    const before = draft();
    const r = editStep(before, { op: 'update', id: 'S002', text: 'Wire the limiter into every route' }, agent(2));
    assert.equal(r.step, 'S002');
    assert.deepEqual(diffLines(before.text, r.text), {
      removed: ['version: 1', 'updated_at: 2026-05-01T10:00:00.000Z', '2. [ ] S002 Wire the limiter into the pipeline'],
      added: ['version: 2', 'updated_at: 2026-05-02T10:00:00.000Z', '2. [ ] S002 Wire the limiter into every route'],
    });
    assert.equal(r.text.split('\n').length, before.text.split('\n').length);
  });

  it('update of the text keeps the annotation; update of the annotation keeps the text', () => {
    const r1 = editStep(draft(), { op: 'update', id: 'S001', text: 'Add a bucket' }, agent(2));
    assert.deepEqual(diffLines(draft().text, r1.text).added.slice(2), ['1. [ ] S001 Add a bucket (edit: create → src/limits/bucket.ts)']);
    const r2 = editStep(parsePlan(r1.text), { op: 'update', id: 'S001', target: 'src/bucket.ts' }, agent(3));
    const s = parsePlan(r2.text).steps[0];
    assert.deepEqual([s.text, s.tool, s.operation, s.target], ['Add a bucket', 'edit', 'create', 'src/bucket.ts']);
    assert.equal(parsePlan(r2.text).fm.version, 3);
  });

  it('update with nothing to change is refused', () => {
    assert.equal(errorOf(() => editStep(draft(), { op: 'update', id: 'S001' }, agent(2))).code, 'INVALID_INPUT');
  });

  it('removes a step and renumbers', () => {
    const r = editStep(draft(), { op: 'remove', id: 'S002' }, agent(2));
    const d = parsePlan(r.text);
    assert.deepEqual(ids(d), ['S001', 'S003']);
    assert.ok(r.text.includes('\n1. [ ] S001 Add a token-bucket module (edit: create → src/limits/bucket.ts)\n2. [ ] S003 Return 429 with Retry-After\n   Use the standard header.\n   Document it.\n'), r.text);
    assert.equal(d.fm.step_seq, 3);
    assert.equal(d.fm.version, 2);
  });

  it('never reuses an id: remove S003 then add gives S004', () => {
    const d1 = parsePlan(editStep(draft(), { op: 'remove', id: 'S003' }, agent(2)).text);
    assert.deepEqual(ids(d1), ['S001', 'S002']);
    const r = editStep(d1, { op: 'add', text: 'Another step' }, agent(3));
    assert.equal(r.step, 'S004');
    const d2 = parsePlan(r.text);
    assert.deepEqual(ids(d2), ['S001', 'S002', 'S004']);
    assert.equal(d2.fm.step_seq, 4);
    assert.equal(d2.fm.version, 3);
  });

  it('moves a step after another and to the start', () => {
    const r1 = editStep(draft(), { op: 'move', id: 'S003', after: 'S001' }, agent(2));
    const d1 = parsePlan(r1.text);
    assert.deepEqual(ids(d1), ['S001', 'S003', 'S002']);
    assert.ok(r1.text.includes('\n2. [ ] S003 Return 429 with Retry-After\n   Use the standard header.\n   Document it.\n3. [ ] S002 Wire the limiter into the pipeline\n'), r1.text);
    assert.equal(d1.steps[1].details, 'Use the standard header.\nDocument it.');
    const r2 = editStep(d1, { op: 'move', id: 'S002', after: 'start' }, agent(3));
    assert.deepEqual(ids(parsePlan(r2.text)), ['S002', 'S001', 'S003']);
    const r3 = editStep(parsePlan(r2.text), { op: 'move', id: 'S002' }, agent(4));
    assert.deepEqual(ids(parsePlan(r3.text)), ['S001', 'S003', 'S002']);
    assert.equal(parsePlan(r3.text).fm.step_seq, 3);
    assert.equal(parsePlan(r3.text).fm.version, 4);
    assert.equal(errorOf(() => editStep(draft(), { op: 'move', id: 'S002', after: 'S002' }, agent(2))).code, 'INVALID_INPUT');
  });

  it('an unknown id is NOT_FOUND and lists the ids', () => {
    for (const op of [
      { op: 'update', id: 'S009', text: 'x' },
      { op: 'remove', id: 'S009' },
      { op: 'move', id: 'S009' },
      { op: 'move', id: 'S001', after: 'S009' },
      { op: 'add', text: 'x', after: 'S009' },
    ] as const) {
      const e = errorOf(() => editStep(draft(), op, agent(2)));
      assert.equal(e.code, 'NOT_FOUND', JSON.stringify(op));
      assert.ok(e.message.includes('no step S009 (its steps: S001, S002, S003)'), e.message);
    }
    const removed = parsePlan(editStep(draft(), { op: 'remove', id: 'S003' }, agent(2)).text);
    const e = errorOf(() => editStep(removed, { op: 'update', id: 'S003', text: 'x' }, agent(3)));
    assert.equal(e.code, 'NOT_FOUND');
    assert.ok(e.message.includes('(its steps: S001, S002)'), e.message);
  });

  it('version goes +1 per write over a chain of edits', () => {
    let d = draft();
    const ops = [
      { op: 'add', text: 'four' },
      { op: 'update', id: 'S004', text: 'four!' },
      { op: 'move', id: 'S004', after: 'start' },
      { op: 'remove', id: 'S001' },
    ] as const;
    ops.forEach((op, i) => {
      d = parsePlan(editStep(d, op, agent(i + 2)).text);
      assert.equal(d.fm.version, i + 2);
      assert.equal(d.fm.updated_at, at(i + 2));
    });
    assert.deepEqual(ids(d), ['S004', 'S002', 'S003']);
    assert.deepEqual(texts(d), ['four!', 'Wire the limiter into the pipeline', 'Return 429 with Retry-After']);
  });

  it('status effects: proposed stays, approved goes back to proposed (approval void), rejected to draft', () => {
    const p = parsePlan(submit(draft(), user(2)).text);
    assert.equal(editStep(p, { op: 'add', text: 'x' }, agent(3)).status, 'proposed');

    const a = approved();
    const r = editStep(a, { op: 'update', id: 'S001', text: 'changed' }, agent(4));
    assert.equal(r.status, 'proposed');
    const d = parsePlan(r.text);
    assert.equal(d.fm.approved_by, undefined);
    assert.equal(d.fm.approved_version, undefined);
    assert.equal(d.fm.approved_at, undefined);
    assert.ok(!/^approved_/m.test(r.text), r.text);

    const rj = parsePlan(reject(p, 'no', user(3)).text);
    assert.equal(editStep(rj, { op: 'remove', id: 'S003' }, agent(4)).status, 'draft');
  });

  it('is refused on executing and terminal plans', () => {
    const e = executing();
    assert.equal(errorOf(() => editStep(e, { op: 'add', text: 'x' }, agent(5))).code, 'INVALID_TRANSITION');
    const done = parsePlan(finishExecution(e, 'complete', undefined, user(5)).text);
    assert.equal(errorOf(() => editStep(done, { op: 'remove', id: 'S001' }, user(6))).code, 'INVALID_TRANSITION');
  });
});

// ---------- setMetadata ----------

describe('operations: setMetadata', () => {
  const bare = () => draft({ goal: undefined });

  it('a NUL byte in a value sent is refused as the value\'s (INVALID_INPUT), not as an invalid file', () => {
    const e = errorOf(() => setMetadata(bare(), { context: 'a\u0000b' }, {}, agent(2)));
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.message, 'a value sent contains a NUL byte: plans are text; send it again without it');
  });

  it('creates sections in the usual order', () => {
    const r = setMetadata(bare(), { verification: ['npm test'], goal: 'Limit requests.', context: 'See issue 12.', assumptions: 'One process.' }, {}, agent(2));
    const d = parsePlan(r.text);
    assert.deepEqual(titles(d), ['Goal', 'Steps', 'Assumptions', 'Verification', 'Context']);
    assert.equal(d.fm.version, 2);
    assert.equal(r.status, 'draft');
    const body = r.text.slice(r.text.indexOf('\n---\n') + 5);
    assert.equal(
      body,
      [
        '',
        '## Goal',
        'Limit requests.',
        '',
        '## Steps',
        '1. [ ] S001 Add a token-bucket module (edit: create → src/limits/bucket.ts)',
        '2. [ ] S002 Wire the limiter into the pipeline',
        '3. [ ] S003 Return 429 with Retry-After',
        '   Use the standard header.',
        '   Document it.',
        '',
        '## Assumptions',
        'One process.',
        '',
        '## Verification',
        '- npm test',
        '',
        '## Context',
        'See issue 12.',
        '',
      ].join('\n'),
    );
  });

  it('replaces a section whole, in place', () => {
    const d1 = parsePlan(setMetadata(draft(), { risks: ['a', 'b'], files: ['x.ts'] }, {}, agent(2)).text);
    const r = setMetadata(d1, { risks: ['c'] }, {}, agent(3));
    const d2 = parsePlan(r.text);
    assert.deepEqual(titles(d2), ['Goal', 'Steps', 'Risks', 'Files']);
    assert.ok(r.text.includes('\n## Risks\n- c\n\n## Files\n- x.ts\n'), r.text);
    assert.deepEqual(diffLines(d1.text, r.text), {
      removed: ['version: 2', 'updated_at: 2026-05-02T10:00:00.000Z', '- a', '- b'],
      added: ['version: 3', 'updated_at: 2026-05-03T10:00:00.000Z', '- c'],
    });
  });

  it('an emptied section is removed with its heading', () => {
    const d1 = parsePlan(setMetadata(draft(), { risks: ['a'], files: ['x.ts'] }, {}, agent(2)).text);
    const r = setMetadata(d1, { goal: '', files: [] }, {}, agent(3));
    const d2 = parsePlan(r.text);
    assert.deepEqual(titles(d2), ['Steps', 'Risks']);
    assert.ok(!r.text.includes('## Goal') && !r.text.includes('## Files') && !r.text.includes('x.ts'), r.text);
    assert.equal(d2.fm.version, 3);
  });

  it('sets the title and tools_required; an empty list removes the key', () => {
    const r = setMetadata(draft(), {}, { title: 'Rate limiter, v2', tools_required: ['edit', 'bash'] }, agent(2));
    const d = parsePlan(r.text);
    assert.equal(d.fm.title, 'Rate limiter, v2');
    assert.deepEqual(d.fm.tools_required, ['edit', 'bash']);
    assert.ok(r.text.includes('\ntitle: "Rate limiter, v2"\n'), r.text);
    assert.ok(r.text.includes('\ntools_required:\n  - edit\n  - bash\n'), r.text);
    const r2 = setMetadata(d, {}, { tools_required: [] }, agent(3));
    assert.equal(parsePlan(r2.text).fm.tools_required, undefined);
    assert.ok(!r2.text.includes('tools_required'), r2.text);
    assert.equal(parsePlan(r2.text).fm.version, 3);
  });

  it('refuses an empty title', () => {
    assert.equal(errorOf(() => setMetadata(draft(), {}, { title: ' \n ' }, agent(2))).code, 'INVALID_INPUT');
  });

  it('on an approved plan voids the approval', () => {
    const r = setMetadata(approved(), { risks: 'new risk' }, {}, agent(4));
    assert.equal(r.status, 'proposed');
    const d = parsePlan(r.text);
    assert.deepEqual([d.fm.approved_by, d.fm.approved_version, d.fm.approved_at], [undefined, undefined, undefined]);
  });
});

// ---------- setContent ----------

const NEW_MD = '## Goal\nNew goal.\n\n## Steps\n1. [ ] S001 First thing\n2. [ ] S002 Second thing\n';

describe('operations: setContent', () => {
  it('overwrites a draft', () => {
    const r = setContent(draft(), NEW_MD, agent(2));
    assert.equal(r.status, 'draft');
    const d = parsePlan(r.text);
    assert.equal(d.fm.version, 2);
    assert.equal(d.body, '\n' + NEW_MD);
    assert.deepEqual(ids(d), ['S001', 'S002']);
    assert.equal(d.fm.step_seq, 3);
  });

  it('sets the title when given', () => {
    const d = parsePlan(setContent(draft(), NEW_MD, agent(2), { title: 'Fresh title' }).text);
    assert.equal(d.fm.title, 'Fresh title');
  });

  it('proposed stays proposed, version + 1', () => {
    const p = parsePlan(submit(draft(), user(2)).text);
    assert.equal(p.fm.version, 2);
    const r = setContent(p, NEW_MD, agent(3));
    assert.equal(r.status, 'proposed');
    assert.equal(parsePlan(r.text).fm.version, 3);
  });

  it('rejected goes back to draft', () => {
    const p = parsePlan(submit(draft(), user(2)).text);
    const rj = parsePlan(reject(p, 'too vague', user(3)).text);
    const r = setContent(rj, NEW_MD, agent(4));
    assert.equal(r.status, 'draft');
    assert.equal(parsePlan(r.text).fm.status, 'draft');
    assert.equal(parsePlan(r.text).fm.version, 4);
  });

  it('approved goes back to proposed with approved_* cleared', () => {
    const a = approved();
    assert.equal(a.fm.approved_by, 'user');
    const r = setContent(a, NEW_MD, agent(4));
    assert.equal(r.status, 'proposed');
    const d = parsePlan(r.text);
    assert.equal(d.fm.version, 4);
    assert.deepEqual([d.fm.approved_by, d.fm.approved_version, d.fm.approved_at], [undefined, undefined, undefined]);
    assert.ok(!/^approved_/m.test(r.text), r.text);
  });

  it('executing: creates a revision; the old plan is superseded, done and skipped steps carried over', () => {
    let e = executing();
    e = parsePlan(markStep(e, 'S001', 'done', agent(5)).text);
    e = parsePlan(markStep(e, 'S002', 'skipped', agent(6)).text);
    assert.equal(e.fm.version, 6);
    const md = '## Goal\nRevised.\n\n## Steps\n1. [ ] S001 Add a token-bucket module\n2. [ ] S002 Wire the limiter\n3. [ ] S003 Return 429\n';
    const r = setContent(e, md, agent(7), { revisionId: 'PLAN-0000beef' });
    assert.equal(r.status, 'superseded');
    const old = parsePlan(r.text);
    assert.equal(old.fm.status, 'superseded');
    assert.equal(old.fm.superseded_by, 'PLAN-0000beef');
    assert.equal(old.fm.execution_ended_at, at(7));
    assert.equal(old.fm.version, 7);
    assert.equal(old.body, e.body, 'the old plan body is kept as it was');

    assert.equal(r.created?.length, 1);
    assert.equal(r.created![0].id, 'PLAN-0000beef');
    const rev = parsePlan(r.created![0].text);
    assert.equal(rev.fm.id, 'PLAN-0000beef');
    assert.equal(rev.fm.status, 'proposed');
    assert.equal(rev.fm.supersedes, ID);
    assert.equal(rev.fm.version, 1);
    assert.equal(rev.fm.created_at, at(7));
    assert.equal(rev.fm.title, 'Add a rate limiter');
    assert.deepEqual(rev.steps.map((s) => [s.id, s.status]), [['S001', 'done'], ['S002', 'skipped'], ['S003', 'pending']]);
    assert.ok(r.created![0].text.includes('\n1. [x] S001 Add a token-bucket module\n2. [x] S002 *skipped* Wire the limiter\n3. [ ] S003 Return 429\n'), r.created![0].text);
  });

  it('executing without a revision id is refused', () => {
    assert.equal(errorOf(() => setContent(executing(), NEW_MD, agent(5))).code, 'INVALID_INPUT');
  });

  it('terminal plans are refused', () => {
    const done = parsePlan(finishExecution(executing(), 'complete', 'ok', user(5)).text);
    const cancelled = parsePlan(changeStatus(draft(), 'cancel', user(2)).text);
    const superseded = parsePlan(setContent(executing(), NEW_MD, agent(5), { revisionId: 'PLAN-0000beef' }).text);
    for (const d of [done, cancelled, superseded]) {
      const e = errorOf(() => setContent(d, NEW_MD, agent(9), { revisionId: 'PLAN-0000bee2' }));
      assert.equal(e.code, 'INVALID_TRANSITION', d.fm.status);
    }
  });

  it('a frontmatter block in the Markdown is refused', () => {
    for (const md of ['---\nid: PLAN-0000abcd\n---\n## Steps\n1. x\n', '\ufeff---\r\ntitle: x\r\n---\r\n', '---\n']) {
      assert.equal(errorOf(() => setContent(draft(), md, agent(2))).code, 'INVALID_INPUT', JSON.stringify(md));
    }
  });

  it('steps written without ids get new ids from the counter, never a removed one', () => {
    // S003 was issued and removed: step_seq is 3, so the next new step is S004.
    const d1 = parsePlan(editStep(draft(), { op: 'remove', id: 'S003' }, agent(2)).text);
    assert.equal(d1.fm.step_seq, 3);
    const r = setContent(d1, '## Goal\nG\n\n## Steps\n1. [ ] S001 Keep\n2. [ ] S002 Keep too\n3. A new step\n', agent(3));
    const d2 = parsePlan(r.text);
    assert.deepEqual(ids(d2), ['S001', 'S002', 'S004']);
    assert.equal(d2.fm.step_seq, 4);
  });

  it('a revision does not carry a done status onto a new step that lands on a done step\'s position', () => {
    let e = executing();
    e = parsePlan(markStep(e, 'S003', 'done', agent(5)).text);
    const r = setContent(e, '## Steps\n1. [ ] S001 Keep\n2. [ ] S002 Keep\n3. Brand new work\n', agent(6), { revisionId: 'PLAN-0000beef' });
    const rev = parsePlan(r.created![0].text);
    const added = rev.steps[2];
    assert.equal(added.text, 'Brand new work');
    assert.equal(added.status, 'pending', 'a step that did not exist before cannot be done already');
    assert.equal(added.id, 'S004', 'S003 was issued in the old plan: a new step gets a new id');
  });
});

// ---------- review: submit / approve / reject ----------

describe('operations: submit', () => {
  it('draft -> proposed, version + 1', () => {
    const r = submit(draft(), agent(2));
    assert.equal(r.status, 'proposed');
    assert.equal(r.event, 'submitted', 'the log records a submit as one (see submittedHere)');
    const d = parsePlan(r.text);
    assert.equal(d.fm.status, 'proposed');
    assert.equal(d.fm.version, 2);
    assert.deepEqual(diffLines(draft().text, r.text), {
      removed: ['status: draft', 'version: 1', 'updated_at: 2026-05-01T10:00:00.000Z'],
      added: ['status: proposed', 'version: 2', 'updated_at: 2026-05-02T10:00:00.000Z'],
    });
  });

  it('lists every problem in error.details.problems; the plan stays a draft', () => {
    const d = draft({ goal: undefined });
    const before = d.text;
    const e = errorOf(() => submit(d, agent(2, { config: { ...DEFAULT_CONFIG, required_sections: ['Goal', 'Risks'] } })));
    assert.equal(e.code, 'VALIDATION_FAILED');
    assert.deepEqual(e.details.problems, ['add a "## Goal" section saying what the plan achieves', 'add a "## Risks" section']);
    assert.ok(e.message.includes('stays a draft'), e.message);
    assert.equal(d.text, before);
    assert.equal(d.fm.status, 'draft');
  });

  it('an empty required section counts as missing', () => {
    const d = parsePlan(setContent(draft(), '## Goal\n\n## Steps\n1. [ ] S001 x\n', agent(2)).text);
    const e = errorOf(() => submit(d, agent(3)));
    assert.deepEqual(e.details.problems, ['add a "## Goal" section saying what the plan achieves']);
  });

  it('a plan with no steps is cancelled', () => {
    const r = submit(draft({ steps: [] }), agent(2));
    assert.equal(r.status, 'cancelled');
    const d = parsePlan(r.text);
    assert.equal(d.fm.status, 'cancelled');
    assert.equal(d.fm.version, 2);
    assert.equal(d.fm.result_summary, 'Cancelled on submit: the plan had no steps.');
  });

  it('is refused outside draft', () => {
    const p = parsePlan(submit(draft(), agent(2)).text);
    assert.equal(errorOf(() => submit(p, agent(3))).code, 'INVALID_TRANSITION');
  });
});

describe('operations: approve', () => {
  const proposed = () => parsePlan(submit(draft(), agent(2)).text);

  it('records approved_by, approved_version and approved_at', () => {
    const r = approve(proposed(), seenNow(proposed()), user(3));
    assert.equal(r.status, 'approved');
    const d = parsePlan(r.text);
    assert.equal(d.fm.status, 'approved');
    assert.equal(d.fm.version, 3);
    assert.equal(d.fm.approved_by, 'user');
    assert.equal(d.fm.approved_version, 2);
    assert.equal(d.fm.approved_at, at(3));
    assert.ok(r.text.includes(`\napproved_by: user\napproved_version: 2\napproved_at: 2026-05-03T10:00:00.000Z\napproved_hash: ${contentDigest(d)}\napprover: "Test Person"\napproval_key: ${d.fm.approval_key}\napproval_sig: `), r.text);
    assert.equal(parsePlan(approve(proposed(), seenNow(proposed()), { now: at(3), actor: 'cli', approvals: TEST_APPROVALS }).text).fm.approved_by, 'cli');
  });

  it('a stale seenVersion is STALE_APPROVAL', () => {
    const e = errorOf(() => approve(proposed(), seenNow(proposed(), 1), user(3)));
    assert.equal(e.code, 'STALE_APPROVAL');
    assert.equal(e.details.currentVersion, 2);
    assert.ok(e.message.includes('you reviewed v1'), e.message);
  });

  it('an agent may not approve, unless the user opted in', () => {
    assert.equal(errorOf(() => approve(proposed(), seenNow(proposed()), agent(3))).code, 'HUMAN_ONLY');
    const d = parsePlan(approve(proposed(), seenNow(proposed()), agent(3, { agentMayApprove: true })).text);
    assert.equal(d.fm.status, 'approved');
    assert.equal(d.fm.approved_by, 'agent');
  });

  it('is refused on a draft', () => {
    assert.equal(errorOf(() => approve(draft(), seenNow(draft()), user(2))).code, 'INVALID_TRANSITION');
  });
});

describe('operations: reject', () => {
  const proposed = () => parsePlan(submit(draft(), agent(2)).text);

  it('appends ## Rejection (vN) with N the version rejected', () => {
    const r = reject(proposed(), 'Say which routes.\nAnd the limits.', user(3));
    assert.equal(r.status, 'rejected');
    assert.equal(r.note, 'Say which routes.\nAnd the limits.');
    const d = parsePlan(r.text);
    assert.equal(d.fm.version, 3);
    assert.deepEqual(d.rejections, [{ version: 2, feedback: 'Say which routes.\nAnd the limits.' }]);
    assert.ok(r.text.endsWith('   Document it.\n\n## Rejection (v2)\nSay which routes.\nAnd the limits.\n'), r.text);
  });

  it('needs feedback', () => {
    assert.equal(errorOf(() => reject(proposed(), '', user(3))).code, 'INVALID_INPUT');
    assert.equal(errorOf(() => reject(proposed(), ' \n\t ', user(3))).code, 'INVALID_INPUT');
  });

  it('is human-only and checks seenVersion', () => {
    assert.equal(errorOf(() => reject(proposed(), 'no', agent(3))).code, 'HUMAN_ONLY');
    assert.equal(errorOf(() => reject(proposed(), 'no', user(3), 1)).code, 'STALE_APPROVAL');
    assert.equal(reject(proposed(), 'no', user(3), 2).status, 'rejected');
  });

  it('the third rejection lands in needs_review', () => {
    let d = proposed(); // v2
    const statuses: string[] = [];
    for (let round = 0; round < 3; round++) {
      const n = 3 + round * 3;
      const r = reject(d, `round ${round + 1}`, user(n));
      statuses.push(r.status);
      d = parsePlan(r.text);
      if (round < 2) {
        d = parsePlan(editStep(d, { op: 'update', id: 'S001', text: `step, round ${round + 2}` }, agent(n + 1)).text);
        assert.equal(d.fm.status, 'draft');
        d = parsePlan(submit(d, agent(n + 2)).text);
      }
    }
    assert.deepEqual(statuses, ['rejected', 'rejected', 'needs_review']);
    assert.equal(d.fm.status, 'needs_review');
    assert.deepEqual(d.rejections.map((x) => x.version), [2, 5, 8]);
    assert.deepEqual(d.rejections.map((x) => x.feedback), ['round 1', 'round 2', 'round 3']);
    assert.equal(d.fm.version, 9);
    assert.ok(d.text.endsWith('\n## Rejection (v2)\nround 1\n\n## Rejection (v5)\nround 2\n\n## Rejection (v8)\nround 3\n'), d.text);
  });

  it('the review history survives a whole-Markdown replacement, so the third rejection still lands in needs_review', () => {
    // The usual agent loop: rejected -> plan_set_content with the fix -> submit -> rejected again.
    let d = proposed(); // v2
    const statuses: string[] = [];
    for (let round = 0; round < 3; round++) {
      const r = reject(d, `round ${round + 1}`, user(3 + round * 3));
      statuses.push(r.status);
      d = parsePlan(r.text);
      if (round < 2) {
        d = parsePlan(setContent(d, `## Goal\nG${round}\n\n## Steps\n1. [ ] S001 step\n`, agent(4 + round * 3)).text);
        assert.deepEqual(d.rejections.map((x) => x.version), round === 0 ? [2] : [2, 5], 'setContent kept the ## Rejection sections');
        d = parsePlan(submit(d, agent(5 + round * 3)).text);
      }
    }
    assert.deepEqual(statuses, ['rejected', 'rejected', 'needs_review']);
  });
});

// ---------- changeStatus ----------

describe('operations: changeStatus', () => {
  it('cancel records the reason; on executing also the end time', () => {
    const r = changeStatus(draft(), 'cancel', agent(2), 'Not needed any more');
    assert.equal(r.status, 'cancelled');
    const d = parsePlan(r.text);
    assert.equal(d.fm.result_summary, 'Not needed any more');
    assert.equal(d.fm.version, 2);
    const e = parsePlan(changeStatus(executing(), 'cancel', agent(5)).text);
    assert.equal(e.fm.status, 'cancelled');
    assert.equal(e.fm.execution_ended_at, at(5));
  });

  it('stall (executing -> stalled) and resume (stalled -> executing, human)', () => {
    const s = parsePlan(changeStatus(executing(), 'stall', agent(5)).text);
    assert.equal(s.fm.status, 'stalled');
    assert.equal(s.fm.version, 5);
    assert.equal(errorOf(() => changeStatus(s, 'resume', agent(6))).code, 'HUMAN_ONLY');
    const r = changeStatus(s, 'resume', user(6));
    assert.equal(r.status, 'executing');
    assert.equal(parsePlan(r.text).fm.version, 6);
  });

  it('retry: failed -> approved, clears the end time and summary', () => {
    const f = parsePlan(finishExecution(executing(), 'fail', 'the build broke', agent(5)).text);
    assert.equal(f.fm.result_summary, 'the build broke');
    assert.equal(errorOf(() => changeStatus(f, 'retry', agent(6))).code, 'HUMAN_ONLY');
    const d = parsePlan(changeStatus(f, 'retry', user(6)).text);
    assert.equal(d.fm.status, 'approved');
    assert.equal(d.fm.execution_ended_at, undefined);
    assert.equal(d.fm.result_summary, undefined);
    assert.equal(d.fm.version, 6);
  });

  it('reopen: needs_review -> draft (human)', () => {
    let d = parsePlan(submit(draft(), agent(2)).text);
    for (let i = 0; i < 3; i++) {
      d = parsePlan(reject(d, `no ${i}`, user(3 + i * 3)).text);
      if (i < 2) d = parsePlan(submit(parsePlan(editStep(d, { op: 'update', id: 'S001', text: `x${i}` }, agent(4 + i * 3)).text), agent(5 + i * 3)).text);
    }
    assert.equal(d.fm.status, 'needs_review');
    assert.equal(errorOf(() => changeStatus(d, 'reopen', agent(20))).code, 'HUMAN_ONLY');
    const r = changeStatus(d, 'reopen', { now: at(20), actor: 'cli' });
    assert.equal(r.status, 'draft');
    assert.equal(parsePlan(r.text).fm.version, d.fm.version + 1);
  });

  it('refuses what the table refuses', () => {
    assert.equal(errorOf(() => changeStatus(draft(), 'stall', agent(2))).code, 'INVALID_TRANSITION');
    assert.equal(errorOf(() => changeStatus(draft(), 'retry', user(2))).code, 'INVALID_TRANSITION');
    const done = parsePlan(finishExecution(executing(), 'complete', undefined, user(5)).text);
    assert.equal(errorOf(() => changeStatus(done, 'cancel', user(6))).code, 'INVALID_TRANSITION');
  });
});

// ---------- execution ----------

describe('operations: startExecution', () => {
  it('approved -> executing with start time and session', () => {
    const r = startExecution(approved(), agent(4), 'session-9');
    assert.equal(r.status, 'executing');
    const d = parsePlan(r.text);
    assert.equal(d.fm.execution_started_at, at(4));
    assert.equal(d.fm.execution_session, 'session-9');
    assert.equal(d.fm.version, 4);
  });

  it('is refused outside approved', () => {
    assert.equal(errorOf(() => startExecution(draft(), agent(2))).code, 'INVALID_TRANSITION');
    assert.equal(errorOf(() => startExecution(parsePlan(submit(draft(), agent(2)).text), agent(3))).code, 'INVALID_TRANSITION');
  });
});

describe('operations: markStep', () => {
  const LINES: Record<StepStatus, string> = {
    pending: '2. [ ] S002 Wire the limiter into the pipeline',
    in_progress: '2. [ ] S002 *in progress* Wire the limiter into the pipeline',
    blocked: '2. [ ] S002 *blocked* Wire the limiter into the pipeline',
    failed: '2. [ ] S002 *failed* Wire the limiter into the pipeline',
    skipped: '2. [x] S002 *skipped* Wire the limiter into the pipeline',
    done: '2. [x] S002 Wire the limiter into the pipeline',
  };

  for (const [status, line] of Object.entries(LINES) as [StepStatus, string][]) {
    it(`${status}: renders "${line}" and parses back`, () => {
      const e = executing();
      const r = markStep(e, 'S002', status, agent(5), `note for ${status}`);
      assert.equal(r.status, 'executing');
      assert.equal(r.event, 'step');
      assert.equal(r.step, 'S002');
      assert.equal(r.autoCompleted, false);
      const old = '2. [ ] S002 Wire the limiter into the pipeline';
      assert.deepEqual(diffLines(e.text, r.text), {
        removed: ['version: 4', 'updated_at: 2026-05-04T10:00:00.000Z', ...(line === old ? [] : [old])],
        added: ['version: 5', 'updated_at: 2026-05-05T10:00:00.000Z', ...(line === old ? [] : [line]), `   > Note: note for ${status}`],
      });
      const s = parsePlan(r.text).steps[1];
      assert.equal(s.status, status);
      assert.equal(s.note, `note for ${status}`);
      assert.equal(s.text, 'Wire the limiter into the pipeline');
    });
  }

  it('the note goes on one line; a new note replaces the old; no note keeps it', () => {
    const e = executing();
    const d1 = parsePlan(markStep(e, 'S001', 'in_progress', agent(5), 'first\nsecond line').text);
    assert.equal(d1.steps[0].note, 'first second line');
    assert.ok(d1.text.includes('\n   > Note: first second line\n2. [ ] S002'), d1.text);
    const d2 = parsePlan(markStep(d1, 'S001', 'blocked', agent(6)).text);
    assert.equal(d2.steps[0].note, 'first second line');
    const d3 = parsePlan(markStep(d2, 'S001', 'in_progress', agent(7), 'unblocked').text);
    assert.equal(d3.steps[0].note, 'unblocked');
    assert.equal((d3.text.match(/> Note:/g) ?? []).length, 1);
    assert.equal(d3.fm.version, 7);
  });

  it('marking the last open step done completes the plan', () => {
    let d = executing();
    let r = markStep(d, 'S001', 'done', agent(5));
    assert.equal(r.autoCompleted, false);
    d = parsePlan(r.text);
    r = markStep(d, 'S003', 'skipped', agent(6));
    assert.equal(r.autoCompleted, false);
    d = parsePlan(r.text);
    r = markStep(d, 'S002', 'done', agent(7), 'all wired');
    assert.equal(r.status, 'completed');
    assert.equal(r.autoCompleted, true);
    d = parsePlan(r.text);
    assert.equal(d.fm.status, 'completed');
    assert.equal(d.fm.execution_ended_at, at(7));
    assert.equal(d.fm.result_summary, 'All steps done.');
    assert.equal(d.fm.version, 7);
  });

  it('marking the last open step skipped completes the plan too', () => {
    let d = executing();
    d = parsePlan(markStep(d, 'S001', 'done', agent(5)).text);
    d = parsePlan(markStep(d, 'S002', 'done', agent(6)).text);
    const r = markStep(d, 'S003', 'skipped', agent(7));
    assert.equal(r.status, 'completed');
    assert.equal(parsePlan(r.text).fm.status, 'completed');
  });

  it('does not complete while another step is failed or blocked', () => {
    let d = executing();
    d = parsePlan(markStep(d, 'S001', 'failed', agent(5)).text);
    d = parsePlan(markStep(d, 'S002', 'done', agent(6)).text);
    const r = markStep(d, 'S003', 'done', agent(7));
    assert.equal(r.status, 'executing');
    assert.equal(r.autoCompleted, false);
    assert.equal(parsePlan(r.text).fm.status, 'executing');
  });

  it('is refused when the plan is not executing, and for an unknown step', () => {
    for (const d of [draft(), approved()]) {
      assert.equal(errorOf(() => markStep(d, 'S001', 'done', agent(9))).code, 'INVALID_TRANSITION', d.fm.status);
    }
    const e = errorOf(() => markStep(executing(), 'S042', 'done', agent(5)));
    assert.equal(e.code, 'NOT_FOUND');
    assert.ok(e.message.includes('(its steps: S001, S002, S003)'), e.message);
  });
});

describe('operations: finishExecution', () => {
  it('fail needs a summary', () => {
    assert.equal(errorOf(() => finishExecution(executing(), 'fail', undefined, agent(5))).code, 'INVALID_INPUT');
    assert.equal(errorOf(() => finishExecution(executing(), 'fail', '   ', agent(5))).code, 'INVALID_INPUT');
    const r = finishExecution(executing(), 'fail', 'tests fail on CI', agent(5));
    assert.equal(r.status, 'failed');
    const d = parsePlan(r.text);
    assert.equal(d.fm.result_summary, 'tests fail on CI');
    assert.equal(d.fm.execution_ended_at, at(5));
    assert.equal(d.fm.version, 5);
  });

  it('complete works with or without a summary', () => {
    const d1 = parsePlan(finishExecution(executing(), 'complete', undefined, user(5)).text);
    assert.equal(d1.fm.status, 'completed');
    assert.equal(d1.fm.result_summary, undefined);
    const d2 = parsePlan(finishExecution(executing(), 'complete', 'shipped', user(5)).text);
    assert.equal(d2.fm.result_summary, 'shipped');
    // An agent completes only finished work: its steps are still open here.
    assert.match(errorOf(() => finishExecution(executing(), 'complete', undefined, agent(5))).message, /cannot be completed: S001 \(pending\)/);
  });

  it('is refused outside executing', () => {
    assert.equal(errorOf(() => finishExecution(approved(), 'complete', 'x', agent(4))).code, 'INVALID_TRANSITION');
  });
});

// ---------- clone ----------

describe('operations: clonePlan', () => {
  it('a completed plan with review history: new id, proposed, steps pending, no rejection sections', () => {
    let d = parsePlan(submit(draft(), agent(2)).text);
    d = parsePlan(reject(d, 'more detail please', user(3)).text);
    d = parsePlan(setMetadata(d, { risks: ['none'] }, {}, agent(4)).text);
    d = parsePlan(submit(d, agent(5)).text);
    d = parsePlan(approve(d, seenNow(d), user(6)).text);
    d = parsePlan(startExecution(d, agent(7)).text);
    d = parsePlan(markStep(d, 'S001', 'done', agent(8), 'done it').text);
    d = parsePlan(markStep(d, 'S002', 'skipped', agent(9)).text);
    d = parsePlan(markStep(d, 'S003', 'done', agent(10)).text);
    assert.equal(d.fm.status, 'completed');
    assert.deepEqual(d.rejections.map((r) => r.version), [2]);

    const text = clonePlan(d, 'PLAN-11112222', agent(11));
    const c = parsePlan(text);
    assert.equal(c.fm.id, 'PLAN-11112222');
    assert.equal(c.fm.status, 'proposed');
    assert.equal(c.fm.version, 1);
    assert.equal(c.fm.title, 'Add a rate limiter');
    assert.equal(c.fm.created_at, at(11));
    assert.equal(c.fm.step_seq, 3);
    assert.equal(c.fm.approved_by, undefined);
    assert.equal(c.fm.execution_started_at, undefined);
    assert.deepEqual(c.steps.map((s) => [s.id, s.status, s.note]), [['S001', 'pending', undefined], ['S002', 'pending', undefined], ['S003', 'pending', undefined]]);
    assert.deepEqual(c.rejections, []);
    assert.deepEqual(titles(c), ['Goal', 'Steps', 'Risks']);
    assert.ok(!text.includes('Rejection') && !text.includes('more detail please') && !text.includes('Note:'), text);
    // The source is not changed.
    assert.equal(d.fm.status, 'completed');
  });

  it('clones rejected, failed, cancelled and superseded plans', () => {
    const p = parsePlan(submit(draft(), agent(2)).text);
    const rejected = parsePlan(reject(p, 'no', user(3)).text);
    const failed = parsePlan(finishExecution(executing(), 'fail', 'x', agent(5)).text);
    const cancelled = parsePlan(changeStatus(draft(), 'cancel', user(2)).text);
    const superseded = parsePlan(setContent(executing(), NEW_MD, agent(5), { revisionId: 'PLAN-0000beef' }).text);
    for (const d of [rejected, failed, cancelled, superseded]) {
      const c = parsePlan(clonePlan(d, 'PLAN-22223333', agent(9)));
      assert.equal(c.fm.status, 'proposed', d.fm.status);
      assert.equal(c.fm.supersedes, undefined);
      assert.equal(c.fm.superseded_by, undefined);
      assert.deepEqual(ids(c), ['S001', 'S002', 'S003'], d.fm.status);
      assert.deepEqual(c.rejections, []);
    }
  });

  it('is refused from draft, proposed, approved, executing', () => {
    for (const d of [draft(), parsePlan(submit(draft(), agent(2)).text), approved(), executing()]) {
      assert.equal(errorOf(() => clonePlan(d, 'PLAN-22223333', agent(9))).code, 'INVALID_TRANSITION', d.fm.status);
    }
  });
});

// ---------- detection ----------

describe('operations: isStalled and isStale', () => {
  const fm = (over: Partial<Frontmatter>): Frontmatter =>
    ({
      id: ID,
      title: 't',
      status: 'executing',
      version: 4,
      created_at: '2026-05-01T08:00:00.000Z',
      updated_at: '2026-05-01T09:00:00.000Z',
      execution_started_at: '2026-05-01T09:00:00.000Z',
      ...over,
    }) as Frontmatter;

  it('a long run with recent activity is not stalled', () => {
    // Started 5 hours ago, last checkpoint 2 minutes ago.
    assert.equal(isStalled(fm({}), '2026-05-01T13:58:00.000Z', '2026-05-01T14:00:00.000Z'), false);
  });

  it('idle past executor_timeout_minutes is stalled (default 30)', () => {
    assert.equal(isStalled(fm({}), '2026-05-01T13:29:00.000Z', '2026-05-01T14:00:00.000Z'), true);
    assert.equal(isStalled(fm({}), '2026-05-01T13:31:00.000Z', '2026-05-01T14:00:00.000Z'), false);
    // No checkpoint at all: the start and the last write count.
    assert.equal(isStalled(fm({}), undefined, '2026-05-01T09:29:00.000Z'), false);
    assert.equal(isStalled(fm({}), undefined, '2026-05-01T09:31:00.000Z'), true);
    assert.equal(isStalled(fm({ updated_at: '2026-05-01T13:50:00.000Z' }), undefined, '2026-05-01T14:00:00.000Z'), false);
  });

  it('honours a configured timeout', () => {
    const config = { ...DEFAULT_CONFIG, executor_timeout_minutes: 5 };
    assert.equal(isStalled(fm({}), '2026-05-01T13:54:00.000Z', '2026-05-01T14:00:00.000Z', config), true);
    assert.equal(isStalled(fm({}), '2026-05-01T13:56:00.000Z', '2026-05-01T14:00:00.000Z', config), false);
  });

  it('only an executing plan can be stalled', () => {
    for (const status of ['approved', 'failed', 'stalled', 'completed'] as const) {
      assert.equal(isStalled(fm({ status }), undefined, '2026-06-01T00:00:00.000Z'), false, status);
    }
  });

  it('a proposed plan untouched for stale_after_days is stale', () => {
    const p = fm({ status: 'proposed', updated_at: '2026-05-01T00:00:00.000Z' });
    assert.equal(isStale(p, '2026-05-30T00:00:00.000Z'), false);
    assert.equal(isStale(p, '2026-06-01T00:00:00.000Z'), true);
    assert.equal(isStale(p, '2026-05-04T00:00:00.000Z', { ...DEFAULT_CONFIG, stale_after_days: 2 }), true);
    assert.equal(isStale(fm({ status: 'draft', updated_at: '2026-01-01T00:00:00.000Z' }), '2026-06-01T00:00:00.000Z'), false);
    assert.equal(isStale(fm({ status: 'approved', updated_at: '2026-01-01T00:00:00.000Z' }), '2026-06-01T00:00:00.000Z'), false);
  });
});
