/**
 * A plan's steps as a small graph: what each step waits for, which steps can run now, and the
 * waves (steps that can run together). Pure: read from the steps as the file says them, never
 * stored. A step says what it waits for on a detail line `after: S001, S003` (`after: none`: it
 * waits for nothing); a step without one waits for the step before it in the list, which is what
 * a plan without `after:` lines always meant: a sequence.
 */
import { isFinished } from '../format/policy';
import type { StepStatus } from '../format/schema';

/** What the graph reads of a step. */
export interface GraphStep {
  id: string;
  status: StepStatus;
  details?: string;
}

/** A problem of the graph, on the `after:` line of `step`. */
export interface GraphProblem {
  code: 'unknown-dependency' | 'self-dependency' | 'dependency-cycle';
  step: string;
  message: string;
  /** The ids to take out of `step`'s `after:` line to fix it. */
  remove: string[];
}

/** The graph of a plan's steps. */
export interface PlanGraph {
  /** Step ids in list order. */
  order: string[];
  /** What each step waits for: its `after:` ids that name other steps, else the step before it. */
  deps: Map<string, string[]>;
  /** True for a step whose dependencies come from an `after:` line. */
  explicit: Set<string>;
  /** Steps on a cycle: they can never run until it is broken. */
  cyclic: Set<string>;
  problems: GraphProblem[];
}

const AFTER_LINE = /^after:(.*)$/i;
const STEP_ID = /^S\d{3,4}$/;
/** The word that says "waits for nothing". */
export const AFTER_NONE = 'none';

/** True for a detail line (trimmed) that says what a step waits for. */
export function isAfterLine(line: string): boolean {
  return AFTER_LINE.test(line.trim());
}

/** The ids (and other words) of a step's `after:` lines, as written; undefined when it has none. */
export function afterOf(details: string | undefined): string[] | undefined {
  if (!details) return undefined;
  let out: string[] | undefined;
  for (const line of details.split(/\r?\n/)) {
    const m = AFTER_LINE.exec(line.trim());
    if (!m) continue;
    out ??= [];
    for (const w of m[1].split(/[\s,]+/)) if (w && w.toLowerCase() !== AFTER_NONE) out.push(w);
  }
  return out;
}

/** The `after:` line for these ids (`after: none` for none). */
export function renderAfterLine(ids: readonly string[]): string {
  return `after: ${ids.length ? ids.join(', ') : AFTER_NONE}`;
}

/**
 * Details with their `after:` lines replaced by one for `ids` (appended last), or removed when
 * `ids` is undefined. Other lines stay as they are.
 */
export function withAfterLine(details: string | undefined, ids: readonly string[] | undefined): string | undefined {
  const kept = (details ?? '').split(/\r?\n/).filter((l) => l.trim() && !isAfterLine(l));
  if (ids !== undefined) kept.push(renderAfterLine(ids));
  return kept.length ? kept.join('\n') : undefined;
}

/** Reads the graph of `steps` (in list order) and every problem of it. */
export function planGraph(steps: readonly GraphStep[]): PlanGraph {
  const order = steps.map((s) => s.id);
  const known = new Set(order);
  const deps = new Map<string, string[]>();
  const explicit = new Set<string>();
  const problems: GraphProblem[] = [];
  steps.forEach((s, i) => {
    const after = afterOf(s.details);
    if (after === undefined) {
      deps.set(s.id, i > 0 ? [steps[i - 1].id] : []);
      return;
    }
    explicit.add(s.id);
    const unknown = after.filter((w) => !known.has(w));
    if (after.includes(s.id)) {
      problems.push({ code: 'self-dependency', step: s.id, message: `${s.id} waits for itself: take ${s.id} out of its "after:" line`, remove: [s.id] });
    }
    if (unknown.length) {
      const what = unknown.map((w) => (STEP_ID.test(w) ? w : JSON.stringify(w))).join(', ');
      problems.push({
        code: 'unknown-dependency',
        step: s.id,
        message: `${s.id} waits for ${what}, which ${unknown.length === 1 ? 'is' : 'are'} not a step of this plan: name existing step ids in its "after:" line (or "after: none")`,
        remove: unknown,
      });
    }
    deps.set(s.id, [...new Set(after.filter((w) => known.has(w) && w !== s.id))]);
  });
  const cyclic = new Set<string>();
  for (const cycle of cyclesOf(order, deps, explicit)) {
    cycle.ids.forEach((id) => cyclic.add(id));
    problems.push({
      code: 'dependency-cycle',
      step: cycle.from,
      message: `the steps wait for each other in a circle (${[...cycle.path, cycle.path[0]].join(' → ')}), so none of them can run: take ${cycle.to} out of ${cycle.from}'s "after:" line`,
      remove: [cycle.to],
    });
  }
  return { order, deps, explicit, cyclic, problems };
}

/**
 * The cycles of the graph, one per strongly connected set of steps (Tarjan's algorithm), each
 * with a path round it and the edge that closes it: an `after:` edge to a step later in the list
 * (every cycle has one: a step without `after:` waits only for the one before it).
 */
function cyclesOf(order: readonly string[], deps: Map<string, string[]>, explicit: Set<string>): { ids: string[]; path: string[]; from: string; to: string }[] {
  const pos = new Map(order.map((id, i) => [id, i]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const sets: string[][] = [];
  let n = 0;
  // Iterative, so a long chain of steps cannot overflow the call stack.
  for (const root of order) {
    if (index.has(root)) continue;
    const work: { id: string; next: number }[] = [{ id: root, next: 0 }];
    index.set(root, n);
    low.set(root, n++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1];
      const out = deps.get(top.id) ?? [];
      if (top.next < out.length) {
        const w = out[top.next++];
        if (!index.has(w)) {
          index.set(w, n);
          low.set(w, n++);
          stack.push(w);
          onStack.add(w);
          work.push({ id: w, next: 0 });
        } else if (onStack.has(w)) low.set(top.id, Math.min(low.get(top.id)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].id, Math.min(low.get(work[work.length - 1].id)!, low.get(top.id)!));
      if (low.get(top.id) === index.get(top.id)) {
        const set: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          set.push(w);
        } while (w !== top.id);
        if (set.length > 1) sets.push(set);
      }
    }
  }
  return sets.map((set) => {
    const inSet = new Set(set);
    const sorted = [...set].sort((a, b) => pos.get(a)! - pos.get(b)!);
    // The closing edge: the first step (in list order) that waits, by `after:`, for a later step of the set.
    let from = sorted[0];
    let to = sorted[0];
    found: for (const u of sorted) {
      if (!explicit.has(u)) continue;
      for (const v of deps.get(u) ?? []) {
        if (inSet.has(v) && pos.get(v)! > pos.get(u)!) {
          from = u;
          to = v;
          break found;
        }
      }
    }
    return { ids: sorted, path: [from, ...pathWithin(to, from, deps, inSet)], from, to };
  });
}

/** A shortest path of dependencies from `start` to `goal` within `inSet` (start included, goal left out). */
function pathWithin(start: string, goal: string, deps: Map<string, string[]>, inSet: Set<string>): string[] {
  const prev = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length) {
    const u = queue.shift()!;
    if (u === goal) break;
    for (const v of deps.get(u) ?? []) {
      if (inSet.has(v) && !prev.has(v)) {
        prev.set(v, u);
        queue.push(v);
      }
    }
  }
  if (!prev.has(goal)) return [start];
  const path: string[] = [];
  for (let u = prev.get(goal)!; ; u = prev.get(u)!) {
    path.unshift(u);
    if (u === start) break;
  }
  return path;
}

/** The dependencies of `id` that are not done or skipped yet (in list order). */
export function openDependencies(steps: readonly GraphStep[], id: string, graph: PlanGraph = planGraph(steps)): string[] {
  const status = new Map(steps.map((s) => [s.id, s.status]));
  return (graph.deps.get(id) ?? []).filter((d) => !isFinished(status.get(d) ?? 'pending'));
}

/** The steps that can start now: pending, off any cycle, and every dependency done or skipped (in list order). */
export function runnableSteps<T extends GraphStep>(steps: readonly T[], graph: PlanGraph = planGraph(steps)): T[] {
  const finished = new Set(steps.filter((s) => isFinished(s.status)).map((s) => s.id));
  return steps.filter((s) => s.status === 'pending' && !graph.cyclic.has(s.id) && (graph.deps.get(s.id) ?? []).every((d) => finished.has(d)));
}

/**
 * The waves: step ids by layer, a step one layer after the latest of its dependencies (the steps
 * of a wave can run together once the waves before are done). Steps on a cycle, or waiting on
 * one, are in no wave: `unplaced` lists them.
 */
export function wavesOf(steps: readonly GraphStep[], graph: PlanGraph = planGraph(steps)): { waves: string[][]; unplaced: string[] } {
  const layer = new Map<string, number>();
  const placing = new Set<string>();
  const place = (id: string): number => {
    const known = layer.get(id);
    if (known !== undefined) return known;
    if (graph.cyclic.has(id) || placing.has(id)) return -1;
    placing.add(id);
    let l = 0;
    for (const d of graph.deps.get(id) ?? []) {
      const dl = place(d);
      if (dl < 0) {
        l = -1;
        break;
      }
      l = Math.max(l, dl + 1);
    }
    placing.delete(id);
    layer.set(id, l);
    return l;
  };
  // In list order: a step's dependencies without `after:` are the step before it, so the
  // recursion stays shallow (each call finds the step before placed already).
  const waves: string[][] = [];
  const unplaced: string[] = [];
  for (const id of graph.order) {
    const l = place(id);
    if (l < 0) unplaced.push(id);
    else (waves[l] ??= []).push(id);
  }
  return { waves: waves.filter(Boolean), unplaced };
}

const graphs = new WeakMap<readonly GraphStep[], { graph: PlanGraph; waves: Map<string, number> }>();

/**
 * What a step waits for and its wave, in words, for a plan that uses `after:` lines (a tooltip,
 * a card); undefined for a plain list. The graph is read once per list of steps.
 */
export function dependencyLine(steps: readonly GraphStep[], id: string): string | undefined {
  let g = graphs.get(steps);
  if (!g) {
    const graph = planGraph(steps);
    const waves = new Map(wavesOf(steps, graph).waves.flatMap((w, i) => w.map((s) => [s, i + 1] as const)));
    graphs.set(steps, (g = { graph, waves }));
  }
  if (!g.graph.explicit.size) return undefined;
  const deps = g.graph.deps.get(id) ?? [];
  const open = openDependencies(steps, id, g.graph);
  const wave = g.waves.get(id);
  const waits = deps.length ? `Waits for ${deps.join(', ')}${open.length ? ` (open: ${open.join(', ')})` : ' (all done)'}` : 'Waits for nothing';
  return `${waits} · ${wave ? `wave ${wave}` : 'on a cycle of after: lines'}`;
}
