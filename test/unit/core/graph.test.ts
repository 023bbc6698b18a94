import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { planView } from '../../../src/core/views/planView';
import type { PlanView } from '../../../src/core/views/planViewModel';
import { afterOf, analyze, dependencyLine, applyTextEdits, GraphStep, isFinished, planGraph, runnableSteps, StepStatus, wavesOf, withAfterLine } from '../../../src/core';

const head = (status = 'draft') =>
  `---\nid: PLAN-1a2b3c4d\ntitle: "A plan"\nstatus: ${status}\nversion: 2\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n`;
const step = (id: string, after?: string, status: StepStatus = 'pending'): GraphStep => ({ id, status, ...(after !== undefined ? { details: `some detail\nafter: ${after}` } : {}) });
const id = (n: number) => `S${String(n).padStart(3, '0')}`;

describe('the step graph: after: lines, runnable steps, waves', () => {
  it('reads after: lines (any case, commas or spaces), "none" as nothing, and none as undefined', () => {
    assert.deepEqual(afterOf('x\nAFTER: S001, S003'), ['S001', 'S003']);
    assert.deepEqual(afterOf('after: S001 S002\nafter: S004'), ['S001', 'S002', 'S004']);
    assert.deepEqual(afterOf('after: none'), []);
    assert.equal(afterOf('a step that happens after: lunch'), undefined);
    assert.equal(afterOf(undefined), undefined);
  });

  it('withAfterLine replaces the after: lines and keeps the rest', () => {
    assert.equal(withAfterLine('one\nafter: S009\ntwo', ['S001', 'S002']), 'one\ntwo\nafter: S001, S002');
    assert.equal(withAfterLine(undefined, []), 'after: none');
    assert.equal(withAfterLine('after: S001', undefined), undefined);
  });

  it('a plan without after: is a sequence: one step runnable at a time, one step per wave', () => {
    const steps = [step('S001', undefined, 'done'), step('S002'), step('S003')];
    const g = planGraph(steps);
    assert.equal(g.explicit.size, 0);
    assert.deepEqual(runnableSteps(steps, g).map((s) => s.id), ['S002']);
    assert.deepEqual(wavesOf(steps, g).waves, [['S001'], ['S002'], ['S003']]);
  });

  it('a mix: a step with after: waits for those; a step without waits for the one before it in the list', () => {
    // S001; S002 after none; S003 (waits for S002); S004 after S001, S003.
    const steps = [step('S001'), step('S002', 'none'), step('S003'), step('S004', 'S001, S003')];
    const g = planGraph(steps);
    assert.deepEqual(g.deps.get('S003'), ['S002']);
    assert.deepEqual(runnableSteps(steps, g).map((s) => s.id), ['S001', 'S002']);
    assert.deepEqual(wavesOf(steps, g).waves, [['S001', 'S002'], ['S003'], ['S004']]);
    const later = steps.map((s) => (s.id === 'S002' ? { ...s, status: 'skipped' as const } : s));
    assert.deepEqual(runnableSteps(later).map((s) => s.id), ['S001', 'S003']);
  });

  it('unknown ids, a step waiting for itself and a cycle are problems; the cycle is named and its steps never run', () => {
    const steps = [step('S001', 'S003'), step('S002', 'S001, S009, S002'), step('S003', 'S002'), step('S004', 'none')];
    const g = planGraph(steps);
    const codes = g.problems.map((p) => `${p.code}@${p.step}:${p.remove.join(',')}`).sort();
    assert.deepEqual(codes, ['dependency-cycle@S001:S003', 'self-dependency@S002:S002', 'unknown-dependency@S002:S009']);
    assert.match(g.problems.find((p) => p.code === 'dependency-cycle')!.message, /S001 → S003 → S002 → S001/);
    assert.deepEqual([...g.cyclic].sort(), ['S001', 'S002', 'S003']);
    assert.deepEqual(runnableSteps(steps, g).map((s) => s.id), ['S004']);
    assert.deepEqual(wavesOf(steps, g), { waves: [['S004']], unplaced: ['S001', 'S002', 'S003'] });
  });

  it('analyze locates each problem on its after: line, and its quick fix removes the offending id', () => {
    const text = `${head('proposed')}1. [ ] S001 one\n   after: S002\n2. [ ] S002 two\n   after: S001, S007\n`;
    const ps = analyze(text).problems.filter((p) => /dependency/.test(p.code));
    assert.deepEqual(ps.map((p) => [p.code, p.line, p.severity]).sort(), [
      ['dependency-cycle', 15, 'error'],
      ['unknown-dependency', 17, 'error'],
    ]);
    const cycle = ps.find((p) => p.code === 'dependency-cycle')!;
    assert.equal(cycle.range.start.character, 3);
    const fixed = applyTextEdits(text, cycle.fix!.edits);
    assert.match(fixed, /1\. \[ \] S001 one\n {3}after: none\n/);
    const unknown = ps.find((p) => p.code === 'unknown-dependency')!;
    assert.match(applyTextEdits(text, unknown.fix!.edits), /S002 two\n {3}after: S001\n$/);
    // Both fixed: no problem of the graph is left.
    const both = applyTextEdits(applyTextEdits(text, cycle.fix!.edits), analyze(applyTextEdits(text, cycle.fix!.edits)).problems.find((p) => p.code === 'unknown-dependency')!.fix!.edits);
    assert.deepEqual(analyze(both).problems.filter((p) => /dependency/.test(p.code)), []);
  });

  it('the plan editor\'s view: the waves, each step\'s dependencies and whether it can start; none of it for a plain list', () => {
    const text = `${head('executing')}1. [x] S001 one\n2. [ ] S002 two\n   after: none\n3. [ ] S003 three\n4. [ ] S004 four\n   after: S001, S003\n`;
    const v = planView(text) as PlanView;
    assert.deepEqual(v.waves, [['S001', 'S002'], ['S003'], ['S004']]);
    assert.deepEqual(v.steps.map((s) => [s.id, s.waitsFor, s.runnable]), [
      ['S001', [], false],
      ['S002', [], true],
      ['S003', ['S002'], false],
      ['S004', ['S001', 'S003'], false],
    ]);
    const plain = planView(`${head('executing')}1. [ ] S001 one\n2. [ ] S002 two\n`) as PlanView;
    assert.equal(plain.waves, undefined);
    assert.ok(plain.steps.every((s) => s.waitsFor === undefined && s.runnable === undefined));
  });

  it('dependencyLine says what a step waits for, what of it is open, and its wave (nothing for a plain list)', () => {
    const steps = [step('S001', undefined, 'done'), step('S002', 'none'), step('S003'), step('S004', 'S001, S003')];
    assert.equal(dependencyLine(steps, 'S002'), 'Waits for nothing · wave 1');
    assert.equal(dependencyLine(steps, 'S004'), 'Waits for S001, S003 (open: S003) · wave 3');
    assert.equal(dependencyLine([step('S001', undefined, 'done'), step('S002', 'S001')], 'S002'), 'Waits for S001 (all done) · wave 2');
    assert.equal(dependencyLine([step('S001', 'S002'), step('S002', 'S001')], 'S001'), 'Waits for S002 (open: S002) · on a cycle of after: lines');
    assert.equal(dependencyLine([step('S001'), step('S002')], 'S002'), undefined);
  });

  it('a draft shows graph problems as warnings, an executing plan as errors', () => {
    const body = '1. [ ] S001 one\n   after: S001\n';
    assert.equal(analyze(`${head('draft')}${body}`).problems.find((p) => p.code === 'self-dependency')?.severity, 'warning');
    assert.equal(analyze(`${head('executing')}${body}`).problems.find((p) => p.code === 'self-dependency')?.severity, 'error');
  });
});

/** A random DAG over n steps: each step waits for a random set of earlier ones (after: by id), or, at random, for the one before it (no after: line). */
const dag = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      fc.record({ implicit: fc.boolean(), deps: fc.subarray(Array.from({ length: i }, (_, j) => id(j + 1))) }),
    ),
  ).map((specs) => specs.map((sp, i) => ({ id: id(i + 1), status: 'pending' as StepStatus, ...(sp.implicit ? {} : { details: `after: ${sp.deps.join(', ') || 'none'}` }) }))),
);

describe('the step graph, as properties', () => {
  it('random DAGs and random claim orders: a claimed step never has an open dependency, no step has two owners, and every step gets done', () => {
    fc.assert(
      fc.property(dag, fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (steps0, picks, agents) => {
        let steps = steps0.map((s) => ({ ...s }));
        const owner = new Map<string, number>();
        const g = planGraph(steps);
        assert.deepEqual(g.problems, []);
        let k = 0;
        while (!steps.every((s) => isFinished(s.status))) {
          const pick = picks[k++ % picks.length];
          const agent = pick % agents;
          const mine = steps.find((s) => s.status === 'in_progress' && owner.get(s.id) === agent);
          if (mine && pick % 3 !== 0) {
            mine.status = 'done';
            continue;
          }
          const r = runnableSteps(steps, g);
          if (!r.length) {
            // Nothing runnable: someone holds a step (they finish it next time round).
            assert.ok(steps.some((s) => s.status === 'in_progress'), 'nothing runnable and nothing running');
            const held = steps.find((s) => s.status === 'in_progress')!;
            held.status = 'done';
            continue;
          }
          const claimed = r[pick % r.length];
          assert.equal(claimed.status, 'pending');
          assert.ok(!owner.has(claimed.id), `${claimed.id} claimed twice`);
          for (const d of g.deps.get(claimed.id)!) assert.ok(isFinished(steps.find((s) => s.id === d)!.status), `${claimed.id} claimed before ${d}`);
          owner.set(claimed.id, agent);
          steps = steps.map((s) => (s.id === claimed.id ? Object.assign(s, { status: 'in_progress' as StepStatus }) : s));
        }
        assert.equal(owner.size, steps.length);
      }),
      { numRuns: 200 },
    );
  });

  it('waves: every step is in a wave after each of its dependencies, and in the first wave when it waits for nothing', () => {
    fc.assert(
      fc.property(dag, (steps) => {
        const g = planGraph(steps);
        const { waves, unplaced } = wavesOf(steps, g);
        assert.deepEqual(unplaced, []);
        const layer = new Map(waves.flatMap((w, i) => w.map((s) => [s, i] as const)));
        assert.equal(layer.size, steps.length);
        for (const s of steps) {
          const deps = g.deps.get(s.id)!;
          for (const d of deps) assert.ok(layer.get(d)! < layer.get(s.id)!);
          assert.equal(layer.get(s.id), deps.length ? Math.max(...deps.map((d) => layer.get(d)!)) + 1 : 0);
        }
        // The first wave is what runs first: the steps runnable on a fresh plan.
        assert.deepEqual(runnableSteps(steps, g).map((s) => s.id), waves[0]);
      }),
      { numRuns: 300 },
    );
  });

  it('an edge added from an earlier step to a later one that reaches it makes a cycle that is found and named', () => {
    fc.assert(
      fc.property(dag, fc.nat(), (steps, r) => {
        if (steps.length < 2) return;
        const g = planGraph(steps);
        // Pick a step and one of its transitive dependencies; make that dependency wait for it.
        const s = steps[1 + (r % (steps.length - 1))];
        const reach: string[] = [];
        const walk = (x: string) => g.deps.get(x)!.forEach((d) => (reach.includes(d) ? undefined : (reach.push(d), walk(d))));
        walk(s.id);
        if (!reach.length) return;
        const target = reach[r % reach.length];
        const closed = steps.map((x) => (x.id === target ? { ...x, details: `after: ${[...(afterOf(x.details) ?? []), s.id].join(', ')}` } : x));
        const g2 = planGraph(closed);
        assert.ok(g2.cyclic.has(s.id) && g2.cyclic.has(target));
        const p = g2.problems.find((q) => q.code === 'dependency-cycle')!;
        assert.ok(p, 'the cycle is a problem');
        // Taking the named edge out leaves no cycle among those steps.
        const fixed = closed.map((x) => (x.id === p.step ? { ...x, details: withAfterLine(x.details, (afterOf(x.details) ?? []).filter((w) => !p.remove.includes(w))) } : x));
        assert.ok(planGraph(fixed).cyclic.size < g2.cyclic.size || planGraph(fixed).problems.filter((q) => q.code === 'dependency-cycle').length < g2.problems.filter((q) => q.code === 'dependency-cycle').length);
      }),
      { numRuns: 300 },
    );
  });
});
