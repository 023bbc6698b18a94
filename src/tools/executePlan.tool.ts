import * as z from 'zod/mini';
import { cleanSession, noEvidenceAdvice, openReview, PlanError, unverifiedWords } from '../core';
import type { PlanDocument } from '../core';
import { finishPlan, handOffStep, markPlanStep, nextPlanStep, Place, startPlan } from '../service';
import type { ClaimInput } from '../core';
import { argsObject } from './arguments';
import { approvalSuggestions, asData, defineTool, guarded, header, idField, locate, nextStep, placeOf, recovery, result, resultFor, runnableLine, stepIdField, text, versionField } from './toolkit';

/** The statuses a mark sets. */
const STEP_MARKS = ['in_progress', 'done', 'blocked', 'failed', 'skipped', 'pending'] as const;

export const executePlanTool = defineTool({
  name: 'pi_plan_execute',
  displayName: 'Track Plan Execution',
  toolReferenceName: 'planExecute',
  userDescription: 'Start an approved plan, mark its steps, complete or fail it.',
  modelDescription:
    'Run an approved plan. op=start hands you a step; op=mark (step, status, note?) it done hands you the next; the last done completes the plan. op=next claims a runnable step (wait=true: waits for one); takeover=true: a stalled claim; fail with summary.',
  icon: '$(run)',
  gated: true,
  schema: argsObject({
    id: z.optional(idField),
    op: z.enum(['start', 'next', 'mark', 'complete', 'fail']),
    step: z.optional(stepIdField),
    status: z.optional(z.enum(STEP_MARKS)),
    note: z.optional(z.string().check(z.maxLength(1000))),
    summary: z.optional(text(4000)),
    takeover: z.optional(z.boolean()),
    wait: z.optional(z.boolean()),
    version: z.optional(versionField),
  }),
  invocationMessage: (i) =>
    i.op === 'mark' ? `Marking ${i.step} ${i.status?.replace('_', ' ')} in ${i.id ?? 'the active plan'}` : `${{ start: 'Starting', next: 'Claiming the next step of', complete: 'Completing', fail: 'Failing' }[i.op]} ${i.id ?? 'the active plan'}`,
  run: (i, ctx) =>
    guarded(i.id, async () => {
      const { store, id } = locate(ctx, i.id, { gated: true });
      const place = placeOf(ctx, store);
      const act = { actor: 'agent' as const, expectedVersion: i.version };
      if (i.op === 'start') {
        const started = await startPlan(place, id, act, ctx.session);
        // The approval's suggestions, as its signed record names them: the agent sees them as it starts.
        const open = openReview(started.doc, await store.approvalStanding(started.doc));
        const suggestions = open?.kind === 'approval' ? approvalSuggestions(started.doc, open.version, open.notes.comments) : undefined;
        // An agent's session is handed its first step at once: another session joining can never be told the same one.
        const handed = ctx.session ? await handOff(place, id, ctx.session) : undefined;
        const doc = handed?.doc ?? started.doc;
        return resultFor(ctx.session, doc, 'Execution started.', handed?.line, runnableLine(doc), handed?.details, suggestions);
      }
      if (i.op === 'next') return claimNextStep(place, id, { session: ctx.session ?? 'agent' }, act, i.wait ? (ctx.signal ?? new AbortController().signal) : undefined);
      if (i.op === 'mark') {
        if (!i.step || !i.status) {
          // The call to make, with the step it most likely means: the one given, else the next open one.
          const step = i.step ?? nextStep(await store.read(id))?.id ?? '<step id>';
          throw new PlanError(
            'INVALID_INPUT',
            `op=mark needs "step" and "status": call pi_plan_execute {"id":"${id}","op":"mark","step":"${step}","status":"${i.status ?? 'done'}"} (status: ${STEP_MARKS.join(', ').replace(/, (\w+)$/, ' or $1')}).`,
          );
        }
        const claim = ctx.session ? { session: ctx.session, takeover: i.takeover } : i.takeover ? { session: 'agent', takeover: true } : undefined;
        const { doc, result: r, evidence } = await markPlanStep(place, id, i.step, i.status, i.note, act, claim);
        const taken = r.takenOver ? ` (${r.takenOver})` : '';
        const changed = evidence?.changed ? `Changed: ${evidence.changed}` : undefined;
        const flag = evidence?.flag === 'no evidence' ? noEvidenceAdvice(id, i.step, doc.fm.status === 'executing') : evidence?.flag === 'no change, explained' ? `${i.step}: no change, explained (the note says why).` : undefined;
        const problem = evidence?.problem ? `${i.step}: ${evidence.problem}; its change will be "not recorded".` : undefined;
        // A step marked done whose approved check has not passed on the files now: allowed, and said.
        const facts = i.status === 'done' && ctx.facts ? await ctx.facts.of(store, doc).catch(() => undefined) : undefined;
        const unverified = unverifiedWords(id, r.step ?? i.step, facts);
        // A step finished: the session is handed its next one (unless it still holds another).
        const handed = ctx.session && (i.status === 'done' || i.status === 'skipped') ? await handOff(place, id, ctx.session) : undefined;
        const now = handed?.doc ?? doc;
        return resultFor(ctx.session, now, `${i.step} is ${i.status.replace('_', ' ')}${taken}${r.autoCompleted ? '; every step is done, so the plan is completed' : ''}.`, changed, flag, unverified, problem, handed?.line, runnableLine(now), handed?.details);
      }
      // The plan completed by itself (its last step marked): completing it again is what was asked, done.
      if (i.op === 'complete') {
        const now = await store.read(id);
        if (now.fm.status === 'completed') return result(now, 'Already completed: every step is done or skipped. Nothing is left to call for this plan.');
      }
      const { doc } = await finishPlan(place, id, i.op, i.summary, act);
      return result(doc, i.op === 'complete' ? 'Completed.' : 'Marked failed; the user may retry or resume it.');
    }),
});

/**
 * The step a session is handed after it starts the plan or finishes a step (see `handOffStep`):
 * the line that says so and the step's details, with the plan as written; only the plan as read
 * when nothing can start now (its "Next:" says why); undefined when it holds a step or the plan ended.
 */
async function handOff(place: Place, id: string, session: string): Promise<{ doc: PlanDocument; line?: string; details?: string } | undefined> {
  const r = await handOffStep(place, id, { session }, { actor: 'agent' }).catch(() => undefined);
  // Nothing could start: the plan as read then (another session's claim since the mark) says what to do.
  if (r?.none) return { doc: r.doc };
  if (!r?.done) return undefined;
  const doc = r.done.doc;
  const s = doc.steps.find((x) => x.id === r.done.result.step);
  if (!s) return undefined;
  return { doc, line: `${s.id} is yours now (claimed for ${cleanSession(session)}, in progress).`, details: s.details ? asData(doc, s.details) : undefined };
}

/** How long op=next with wait=true waits for a step to become runnable: inside an MCP client's usual 60 s. */
const NEXT_WAIT_MS = 40_000;

/** Resolves when the plan's file changes (any writer: another session's mark), after `ms`, or when `signal` aborts. */
function planChanged(place: Place, id: string, signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    const sub = place.store.onDidChangePlans((ev) => [...ev.changed, ...ev.removed].includes(`${id}.md`) && done());
    signal.addEventListener('abort', done);
  });
}

/**
 * op=next: the first line names the step claimed (its id first) and the call that finishes it; or
 * says that no step can start now and why, or that the plan is complete.
 */
async function claimNextStep(place: Place, id: string, claim: ClaimInput, act: { actor: 'agent'; expectedVersion?: number }, wait?: AbortSignal): Promise<string> {
  const started = Date.now();
  let r = await nextPlanStep(place, id, claim, act);
  // wait=true: until a step can start (another session's mark frees one), the plan completes, or the time is up.
  while (wait && r.none && !r.none.complete && r.doc.fm.status === 'executing' && Date.now() - started < NEXT_WAIT_MS && !wait.aborted) {
    await planChanged(place, id, wait, NEXT_WAIT_MS - (Date.now() - started));
    r = await nextPlanStep(place, id, claim, act);
  }
  if (r.none) {
    const waited = wait ? ` (waited ${Math.round((Date.now() - started) / 1000)} s)` : '';
    const first = r.none.complete ? `Complete: ${r.none.why}.` : `No step is runnable now${waited}: ${r.none.why}. To wait until one is, call pi_plan_execute {"id":"${id}","op":"next","wait":true}.`;
    return [first, header(r.doc), recovery(r.doc)].join('\n');
  }
  const doc = r.done.doc;
  const s = doc.steps.find((x) => x.id === r.done.result.step)!;
  const first = `${s.id} is yours (claimed by ${claim.session}): "${s.text}". Do it, then pi_plan_execute {"id":"${id}","op":"mark","step":"${s.id}","status":"done"}.`;
  return [first, header(doc), runnableLine(doc), s.details ? asData(doc, s.details) : undefined, recovery(doc)].filter(Boolean).join('\n');
}
