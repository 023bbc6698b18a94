/**
 * What `pi_plan_get` returns of a long plan's Markdown by default: what an agent needs to go on
 * after its context was compacted, within a budget, not the whole file. The goal; the steps done,
 * in brief (runs of ids); the steps in progress and the ones that can run now (the current wave)
 * in full, with their details; the rest of the steps one line each while the budget lasts; the
 * other sections by name. The whole file is one call away (`full`), one section another (`section`).
 */
import { isFinished, planGraph, PlanDocument, runnableSteps } from '../core';

/** A plan whose body is at most this long is returned whole. */
export const WHOLE_UP_TO = 4_000;
/** About how many characters the brief view of a longer plan takes (the caller's other lines come on top). */
const BUDGET = 3_600;
/** The longest part of one step or of the goal shown in full. */
const PART = 900;

const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** "S001–S004, S006": ids as runs. */
function runs(ids: readonly string[]): string {
  const out: string[] = [];
  let from = 0;
  const num = (id: string) => Number(id.slice(1));
  for (let i = 1; i <= ids.length; i++) {
    if (i < ids.length && num(ids[i]) === num(ids[i - 1]) + 1) continue;
    out.push(i - 1 > from ? `${ids[from]}–${ids[i - 1]}` : ids[from]);
    from = i;
  }
  return out.join(', ');
}

/** The plan's Markdown: whole when short, else the brief view (see the top of this file). */
export function planBody(doc: PlanDocument, full: boolean): string {
  if (full || doc.body.length <= WHOLE_UP_TO) return doc.body;
  const id = doc.fm.id;
  const { sections, stepsSection } = doc.outline;
  const text = (from: number, to: number) => doc.body.slice(from, to).trim();
  const out: string[] = [`(The plan is ${doc.body.length} characters: here its goal, the steps under way in full and the rest in brief. The whole file: pi_plan_get {"id":"${id}","full":true}; one section: "section":"<name>".)`];
  const goal = sections.find((s) => s.depth === 2 && s.title === 'Goal');
  if (goal) out.push('## Goal', cut(text(goal.headingEnd, goal.end), PART));
  const steps = doc.steps;
  const done = steps.filter((s) => isFinished(s.status));
  const now = new Set([...steps.filter((s) => s.status === 'in_progress' || s.status === 'blocked' || s.status === 'failed').map((s) => s.id), ...runnableSteps(steps, planGraph(steps)).map((s) => s.id)]);
  out.push(`## Steps (${done.length} of ${steps.length} done or skipped)`);
  if (done.length) out.push(`Done or skipped: ${runs(done.map((s) => s.id))}.`);
  let used = out.join('\n').length;
  let left = 0;
  for (const s of steps) {
    if (isFinished(s.status)) continue;
    const place = doc.outline.steps[s.index];
    const line = now.has(s.id) ? cut(text(place.start, place.end), PART) : `- ${s.id} [${s.status.replace('_', ' ')}] ${cut(s.text, 100)}`;
    if (used + line.length > BUDGET && !now.has(s.id)) {
      left++;
      continue;
    }
    out.push(line);
    used += line.length + 1;
  }
  if (left) out.push(`… and ${left} more step${left === 1 ? '' : 's'} after these (pi_plan_get with "full": true lists them).`);
  const others = sections.filter((s, i) => s.depth === 2 && i !== stepsSection && s.title !== 'Goal').map((s) => s.title);
  if (others.length) out.push(`Sections: ${others.join(', ')} (read one with "section").`);
  return out.join('\n');
}
