/**
 * The graph's problems (unknown ids, a step waiting for itself, a cycle) located on the `after:`
 * line that causes each, with the quick fix that takes the offending ids out of that line. For
 * `analyze` (the Problems panel, `pi-plans validate`, pi_plan_get).
 */
import type { PlanDocument } from '../format/document';
import { afterOf, isAfterLine, planGraph, renderAfterLine } from './graph';
import { diffEdits, positionAt, TextEdit, TextPosition } from '../format/textEdits';

/** A graph problem as `analyze` reports it (its `PlanProblem`, without importing it back). */
export interface GraphPlanProblem {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  range: { start: TextPosition; end: TextPosition };
  line: number;
  fix: { title: string; edits: TextEdit[] };
}

export const GRAPH_CODES: ReadonlySet<string> = new Set(['unknown-dependency', 'self-dependency', 'dependency-cycle']);

/** Where the first `after:` line of a step is in the plan's text: its start and end offsets. */
function afterLineAt(doc: PlanDocument, stepId: string): { start: number; end: number } | undefined {
  const s = doc.steps.find((x) => x.id === stepId);
  if (!s) return undefined;
  const it = doc.outline.steps[s.index];
  const src = doc.body.slice(it.start, it.end);
  let offset = 0;
  for (const line of src.split('\n')) {
    if (offset > 0 && isAfterLine(line)) {
      const base = doc.block.bodyStart + it.start + offset;
      const lead = line.length - line.trimStart().length;
      return { start: base + lead, end: base + line.replace(/\r$/, '').length };
    }
    offset += line.length + 1;
  }
  return undefined;
}

/** Every problem of the plan's step graph, located, each with its fix. */
export function graphProblems(doc: PlanDocument, severity: 'error' | 'warning'): GraphPlanProblem[] {
  const graph = planGraph(doc.steps);
  const out: GraphPlanProblem[] = [];
  for (const g of graph.problems) {
    const at = afterLineAt(doc, g.step);
    if (!at) continue;
    const step = doc.steps.find((x) => x.id === g.step)!;
    const kept = (afterOf(step.details) ?? []).filter((w) => !g.remove.includes(w));
    // The step's `after:` lines become one, without the offending ids (other `after:` lines of the step go).
    const fixed = replaceAfterLines(doc, g.step, at, renderAfterLine(kept));
    const start = positionAt(doc.text, at.start);
    out.push({
      code: g.code,
      severity,
      message: g.message,
      range: { start, end: positionAt(doc.text, at.end) },
      line: start.line + 1,
      fix: { title: `Take ${g.remove.join(', ')} out of ${g.step}'s "after:" line`, edits: diffEdits(doc.text, fixed) },
    });
  }
  return out;
}

/** The plan's text with the step's first `after:` line replaced by `line` and its other `after:` lines removed. */
function replaceAfterLines(doc: PlanDocument, stepId: string, first: { start: number; end: number }, line: string): string {
  const s = doc.steps.find((x) => x.id === stepId)!;
  const it = doc.outline.steps[s.index];
  const from = doc.block.bodyStart + it.start;
  const to = doc.block.bodyStart + it.end;
  const item = doc.text.slice(from, to);
  const lines = item.split('\n');
  let offset = 0;
  const kept: string[] = [];
  for (const [i, l] of lines.entries()) {
    const at = from + offset;
    offset += l.length + 1;
    if (i > 0 && isAfterLine(l)) {
      if (at + (l.length - l.trimStart().length) === first.start) kept.push(l.slice(0, l.length - l.trimStart().length) + line + (l.endsWith('\r') ? '\r' : ''));
      continue;
    }
    kept.push(l);
  }
  return doc.text.slice(0, from) + kept.join('\n') + doc.text.slice(to);
}
