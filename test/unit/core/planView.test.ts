import { seenNow, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { approve, createPlanText, editStep, parsePlan, submit } from '../../../src/core';
import fc from 'fast-check';
import { isPlainInline, planView, renderInline, renderMarkdown } from '../../../src/core/views/planView';
import type { ViewNode } from '../../../src/protocol/planEditor';
import { ToWebviewSchema } from '../../../src/protocol/planEditor';

const ctx = { now: '2026-11-23T10:00:00.000Z', actor: 'user' as const, approvals: TEST_APPROVALS };

/** Every tag and attribute name in a rendered tree, and every attribute value. */
function walk(nodes: readonly ViewNode[], out = { tags: new Set<string>(), attrs: new Set<string>(), values: [] as string[] }) {
  for (const n of nodes) {
    if (typeof n === 'string') continue;
    out.tags.add(n.t);
    for (const [k, v] of Object.entries(n.a ?? {})) {
      out.attrs.add(k);
      out.values.push(v);
    }
    walk(n.c ?? [], out);
  }
  return out;
}

/** Model-written plan text that tries to run code in the editor. */
export const XSS_CORPUS = [
  '<script>window.__xss = 1</script>',
  '<img src=x onerror="window.__xss = 2">',
  '<a href="javascript:window.__xss=3">click</a>',
  '[click](javascript:window.__xss=4)',
  '[run](command:workbench.action.terminal.new)',
  '<svg onload="window.__xss=5"><script>window.__xss=6</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=7">',
  '<div style="background:url(javascript:window.__xss=8)">styled</div>',
  '<style>body{display:none}</style>',
  '<iframe src="https://example.com"></iframe>',
  '<form action="https://example.com"><input name=x></form>',
  '<a href="https://example.com" onclick="window.__xss=9">site</a>',
].join('\n\n');

describe('core: the plan editor view (planView)', () => {
  const proposed = submit(parsePlan(createPlanText({ id: 'PLAN-0000abcd', title: 'T', goal: 'Ship **it**', steps: [{ text: 'Do `a`', tool: 'edit', operation: 'create', target: 'src/a.ts' }, { text: 'Two' }], risks: ['None'] }, ctx.now)), ctx).text;

  it('gives the fields, the goal, the steps with annotations, the other sections and the commands valid now', () => {
    const v = planView(proposed, { isFile: (t) => t === 'src/a.ts' });
    assert.equal(v.kind, 'plan');
    if (v.kind !== 'plan') return;
    assert.deepEqual([v.id, v.title, v.status, v.version, v.done, v.total], ['PLAN-0000abcd', 'T', 'proposed', 2, 0, 2]);
    assert.deepEqual(v.goal, [{ t: 'p', c: ['Ship ', { t: 'strong', c: ['it'] }] }]);
    assert.deepEqual(v.steps[0], { id: 'S001', status: 'pending', text: ['Do ', { t: 'code', c: ['a'] }], source: 'Do `a`', tool: 'edit', operation: 'create', target: 'src/a.ts', targetIsFile: true, marks: [] });
    assert.deepEqual(
      v.sections.map((s) => [s.title, s.key, s.source]),
      [['Risks', 'risks', '- None']],
    );
    assert.deepEqual(v.commands, ['approve', 'reject', 'startWork', 'cancel']);
    assert.equal(v.editable, true, 'a proposal is edited in place (it stays proposed)');
    assert.equal(v.goalText, 'Ship **it**');
    // What the host sends passes the schema the webview checks it with.
    assert.ok(ToWebviewSchema.safeParse({ type: 'state', state: v }).success);
  });

  it('offers "save to approve" for an unsaved document, nothing in Restricted Mode, marks while executing', () => {
    const dirty = planView(proposed, { dirty: true });
    assert.ok(dirty.kind === 'plan' && dirty.commands[0] === 'saveToApprove' && dirty.dirty);
    const ro = planView(proposed, { readOnly: true });
    assert.ok(ro.kind === 'plan' && ro.commands.length === 0);
    const approved = approve(parsePlan(proposed), seenNow(parsePlan(proposed)), ctx).text;
    const a = planView(approved, { active: true });
    // Without the keys at hand, the approver the file names (never the actor's code word, "user").
    assert.ok(a.kind === 'plan' && a.approvedBy === 'Test Person' && a.approvedVersion === 2 && a.marks.includes('active'));
    assert.ok(a.kind === 'plan' && !a.editable, 'an approved plan is not edited here: that would void the approval');
  });

  it('shows a broken text as its problem and line, never a blank view', () => {
    const v = planView(proposed.replace('version: 2', 'version: "2"'));
    assert.equal(v.kind, 'invalid');
    assert.ok(v.kind === 'invalid' && /version/.test(v.message) && typeof v.line === 'number');
  });

  it('renders an XSS corpus inert: no script, style, frame, form, SVG or MathML element, no handler, no javascript: or command: link', () => {
    const nodes = renderMarkdown(XSS_CORPUS);
    const { tags, attrs, values } = walk(nodes);
    for (const t of ['script', 'style', 'iframe', 'form', 'input', 'svg', 'math', 'img', 'mglyph']) assert.ok(!tags.has(t) || (t === 'input' && false), `<${t}> survived`);
    for (const a of attrs) assert.ok(['href', 'title', 'class'].includes(a), `attribute ${a} survived`);
    for (const v of values) assert.doesNotMatch(v, /^(javascript|command|vbscript|data):/i, `a link to ${v} survived`);
    // Raw HTML is shown as the text it is, so a reviewer sees it; so is a Markdown link whose address the sanitizer strips.
    const json = JSON.stringify(nodes);
    assert.ok(tags.has('code') && json.includes('<script>window.__xss = 1</script>'));
    assert.ok(json.includes('"[click](javascript:window.__xss=4)"') && json.includes('"[run](command:workbench.action.terminal.new)"'));
  });

  describe('"since the last review" marks (the comparison with the reviewed snapshot)', () => {
    /** The version a person reviewed: four steps and risks, proposed at v2. */
    const reviewed = submit(parsePlan(createPlanText({ id: 'PLAN-0000abcd', title: 'T', goal: 'G', steps: [{ text: 'Build' }, { text: 'Test' }, { text: 'Ship' }, { text: 'Tell' }], risks: ['None'] }, ctx.now)), ctx).text;
    const revise = (...edits: Parameters<typeof editStep>[1][]) => edits.reduce((text, e) => editStep(parsePlan(text), e, ctx).text, reviewed);
    const since = (v: ReturnType<typeof planView>) => (v.kind === 'plan' ? v.steps.map((s) => [s.id, s.since ?? '']) : assert.fail(v.message));

    it('marks steps added and changed, lists the removed ones with their text, and says which comments the revision addressed', () => {
      const now = revise({ op: 'add', text: 'Document', after: 'S001' }, { op: 'remove', id: 'S003' }, { op: 'update', id: 'S004', text: 'Tell the team' });
      const v = planView(now, { reviewed: { text: reviewed, comments: [{ anchor: 'S003', body: 'Why now?' }, { anchor: 'S002', body: 'Which tests?' }, { anchor: 'Risks', body: 'Name one.' }] } });
      assert.deepEqual(since(v), [['S001', ''], ['S005', 'added'], ['S002', ''], ['S004', 'changed']]);
      assert.ok(v.kind === 'plan');
      assert.deepEqual(v.review, {
        fromVersion: 2,
        removed: [{ id: 'S003', text: 'Ship' }],
        comments: [
          { anchor: 'S003', body: 'Why now?', addressed: true },
          { anchor: 'S002', body: 'Which tests?', addressed: false },
          { anchor: 'Risks', body: 'Name one.', addressed: false },
        ],
        changes: 3,
      });
      assert.ok(ToWebviewSchema.safeParse({ type: 'state', state: v }).success);
    });

    it('marks the steps whose place in the order changed as moved (not changed), with nothing removed', () => {
      const v = planView(revise({ op: 'move', id: 'S004', after: 'S001' }), { reviewed: { text: reviewed, comments: [] } });
      assert.deepEqual(since(v), [['S001', ''], ['S004', 'moved'], ['S002', 'moved'], ['S003', 'moved']]);
      assert.ok(v.kind === 'plan' && v.review);
      assert.deepEqual([v.review.removed, v.review.changes], [[], 3]);
      // Moved and edited: changed wins.
      const both = planView(revise({ op: 'move', id: 'S004', after: 'start' }, { op: 'update', id: 'S004', text: 'Tell first' }), { reviewed: { text: reviewed, comments: [] } });
      assert.deepEqual(since(both)[0], ['S004', 'changed']);
    });

    it('a missing, corrupted or foreign snapshot gives the view with no comparison: no marks, no review, never an error', () => {
      const now = revise({ op: 'add', text: 'Document' }, { op: 'remove', id: 'S003' });
      const plain = planView(now);
      assert.ok(plain.kind === 'plan' && plain.review === undefined);
      assert.ok(since(plain).every(([, mark]) => mark === ''));
      const comments = [{ anchor: 'S003', body: 'Why now?' }];
      for (const [what, text] of [
        ['not a plan', 'garbage \u0000\ufffd'],
        ['an empty file', ''],
        ['a broken frontmatter', reviewed.replace(/^version: 2$/m, 'version: [')],
        ['a cut-off file', reviewed.slice(0, 40)],
        ['another plan', reviewed.replace('PLAN-0000abcd', 'PLAN-0000ffff')],
      ] as const) {
        const v = planView(now, { reviewed: { text, comments } });
        assert.deepEqual(v, plain, `${what}: the same view as with no snapshot`);
      }
      // The same comparison works again with a good snapshot (the cases above did not pass by accident).
      const good = planView(now, { reviewed: { text: reviewed, comments } });
      assert.ok(good.kind === 'plan' && good.review?.removed.length === 1);
    });
  });

  describe('the plain-text shortcut for step texts', () => {
    /** What the Markdown parser makes of one line, without the paragraph around it. */
    const parsed = (text: string): ViewNode[] => {
      const nodes = renderMarkdown(text);
      const only = nodes.length === 1 ? nodes[0] : undefined;
      return typeof only === 'object' && only.t === 'p' ? (only.c ?? []) : nodes;
    };
    // Characters near the shortcut's edge: its own alphabet and the ones Markdown and GFM give a meaning.
    const alphabet = [...'aZé1 ,.;:()\'"?/+=%→-', ...'*_`[]<>!&\\~|#@\t', 'www.', 'http://', 'x@y.z', '  ', '1. ', '- '];
    const line = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 14 }).map((a) => a.join(''));

    it('takes a text only when the parser would leave it as that text (random lines)', () => {
      fc.assert(
        fc.property(line, (text) => {
          if (isPlainInline(text)) assert.deepEqual(parsed(text), [text], JSON.stringify(text));
        }),
        { numRuns: 5000, seed: 11 },
      );
    });

    it('leaves Markdown to the parser', () => {
      for (const t of ['Fix the `parser`', 'Ship *now*', 'see www.example.com', 'mail a@b.c', 'Open http://x.y', '1. list', 'a &amp; b', 'a\\*b', 'a ~~b~~', 'a | b', 'a <b>', 'trailing ']) {
        assert.equal(isPlainInline(t), false, t);
        assert.deepEqual(renderInline(t), parsed(t), t);
      }
      assert.deepEqual(renderInline('Build the parser: tests, then code (step 2/3)'), ['Build the parser: tests, then code (step 2/3)']);
    });

    it('renders a repeated text once: the second render of a text is the same nodes', () => {
      const t = `A *unique* text ${Math.random()}`;
      assert.equal(renderMarkdown(t), renderMarkdown(t));
    });
  });
});
