/**
 * Claims: a step in progress belongs to the session that started it. The store writes the claim
 * as the step's record line `> Claimed: <session> at <ISO time>` (see `RECORD_KEYS` in steps.ts),
 * kept once the step is finished as the record of who did it. A claim older than the stall
 * threshold (`executor_timeout_minutes`, never below a floor) may be taken over explicitly; the
 * new claim then says whose it was: `> Claimed: <session> at <ISO time> (taken over from <session>,
 * claimed <ISO time>)`. The line is text in a file any agent can edit, so the checkpoint log has
 * the last word where it speaks: a claim's age counts from the step's last event there (a line
 * back-dated by hand is no older), and an in-progress step whose line is gone is held by the
 * session the log last saw acting on it.
 */
export { type Claim, cleanSession, hostSession, parseClaim, renderClaim } from '../format/claimText';
import { isFinished } from '../format/policy';
import { DEFAULT_CONFIG, PlansConfig, StepStatus } from '../format/schema';
import { type Claim, cleanSession, parseClaim, renderClaim } from '../format/claimText';
import { PlanError } from '../limits/errors';
import type { StepActivity } from './opsShared';
import { openDependencies, planGraph, PlanGraph, runnableSteps } from '../rules/graph';

/** Who acts on a step: the session (an agent's conversation, an MCP connection) and whether it takes over a stalled claim. */
export interface ClaimInput {
  session: string;
  takeover?: boolean;
}

/** Minutes since a claim was made (at `now`). */
export function claimAgeMinutes(c: Claim, now: string): number {
  return Math.max(0, (Date.parse(now) - Date.parse(c.at)) / 60_000);
}

/**
 * The least age, in minutes, at which a claim counts as stalled, whatever the plan's
 * `executor_timeout_minutes` says: `.pi/plans.json` is a file an agent writes, and a threshold of
 * 0 would let any session take any live claim.
 */
export const CLAIM_STALL_FLOOR_MINUTES = 10;

/** The age in minutes past which a claim counts as stalled: the plan's threshold, never below the floor. */
export function claimStallMinutes(config: PlansConfig = DEFAULT_CONFIG): number {
  return Math.max(config.executor_timeout_minutes, CLAIM_STALL_FLOOR_MINUTES);
}

/** True when a claim is older than the stall threshold (never below the floor), so another session may take it over. */
export function claimStalled(c: Claim, now: string, config: PlansConfig = DEFAULT_CONFIG): boolean {
  return claimAgeMinutes(c, now) > claimStallMinutes(config);
}

/** What the graph and the claims say of a step, for a reader. */
export interface ClaimStep {
  id: string;
  status: StepStatus;
  details?: string;
  claim?: Claim;
}

/**
 * Why no step can be claimed now, in a few words: the plan is complete, or which steps hold the
 * rest (in progress, and by whom; blocked or failed; on a cycle) and what the others wait for.
 */
export function whyNoneRunnable(steps: readonly ClaimStep[], graph: PlanGraph = planGraph(steps)): string {
  if (steps.every((s) => isFinished(s.status))) return 'every step is done or skipped: the plan is complete';
  const running = steps.filter((s) => s.status === 'in_progress').map((s) => (s.claim ? `${s.id} (in progress, ${s.claim.session} since ${s.claim.at})` : `${s.id} (in progress)`));
  const stuck = steps.filter((s) => s.status === 'blocked' || s.status === 'failed').map((s) => `${s.id} (${s.status})`);
  const cyclic = steps.filter((s) => graph.cyclic.has(s.id)).map((s) => s.id);
  const waiting = steps
    .filter((s) => s.status === 'pending' && !graph.cyclic.has(s.id))
    .slice(0, 5)
    .map((s) => `${s.id} waits for ${openDependencies(steps, s.id, graph).join(', ')}`);
  const parts = [
    running.length ? `held by ${running.join(', ')}` : '',
    stuck.length ? `stopped at ${stuck.join(', ')}` : '',
    cyclic.length ? `${cyclic.join(', ')} wait for each other in a circle (fix their "after:" lines)` : '',
    waiting.length ? waiting.join('; ') : '',
  ].filter(Boolean);
  return parts.join('; ') || 'every open step waits for another';
}

/** The steps that can be claimed now (see `runnableSteps`), for a result line. */
export function runnableIds(steps: readonly ClaimStep[], graph: PlanGraph = planGraph(steps)): string[] {
  return runnableSteps(steps, graph).map((s) => s.id);
}

/**
 * What a mark does to a step's claim: the record line's new text (null: removed; undefined: as it
 * is) and, for a takeover, what the log says. Refuses a mark of a step another session holds,
 * naming the holder; a stalled claim is taken over with `takeover`, and a person (not an agent)
 * may take over any claim with it.
 */
export function claimChange(
  plan: string,
  step: { id: string; status: StepStatus },
  held: string | undefined,
  status: StepStatus,
  who: ClaimInput & { person?: boolean },
  now: string,
  config: PlansConfig = DEFAULT_CONFIG,
  activity?: StepActivity | null,
): { text?: string | null; takenOver?: string } {
  const session = cleanSession(who.session);
  // A finished step is the record of who did it: only that session, or a person, reopens it.
  const doneBy = isFinished(step.status) && status !== step.status ? parseClaim(held) : undefined;
  if (doneBy && doneBy.session !== session && !who.person) {
    throw new PlanError(
      'STEP_CLAIMED',
      `${step.id} is ${step.status}, done by ${doneBy.session}: only that session or a person reopens it. Call pi_plan_execute {"id":"${plan}","op":"next"} for a step that can run now, or ask the user if ${step.id} must be done again`,
    );
  }
  const written = step.status === 'in_progress' ? parseClaim(held) : undefined;
  // No claim line on a step in progress: the session the log last saw acting on it holds it.
  const holder = written ?? (step.status === 'in_progress' && activity?.session ? { session: activity.session, at: activity.at } : undefined);
  if (holder && holder.session !== session) {
    // Its age counts from the later of the line's time and the log's last event of the step.
    const last = activity && Date.parse(activity.at) > Date.parse(holder.at) ? { ...holder, at: activity.at } : holder;
    // The log was read and holds no event of the step: its age cannot be told, so it is not stalled (a person may still take it over).
    const unknownAge = activity === null;
    const stalled = !unknownAge && claimStalled(last, now, config);
    const age = Math.floor(claimAgeMinutes(last, now));
    if (!who.takeover || (!stalled && !who.person)) {
      const retake = `pi_plan_execute {"id":"${plan}","op":"mark","step":"${step.id}","status":"${status}","takeover":true}`;
      throw new PlanError(
        'STEP_CLAIMED',
        `${step.id} is in progress, claimed by ${holder.session} at ${holder.at} (${age} min ago): leave it to that session and call pi_plan_execute {"id":"${plan}","op":"next"} for another step${
          stalled
            ? `; its claim is older than the stall threshold (${claimStallMinutes(config)} min), so you may take it over with ${retake}`
            : unknownAge
              ? '; the checkpoint log has no event of that step, so how long it has been idle cannot be told: only a person can take it over (ask the user)'
              : `; it can be taken over once it is older than ${claimStallMinutes(config)} min without activity`
        }`,
      );
    }
    const claim: Claim = { session, at: now, takenFrom: { session: holder.session, at: holder.at } };
    return { text: status === 'pending' ? null : renderClaim(claim), takenOver: `${step.id} taken over from ${holder.session} (claimed ${holder.at}, ${age} min ago) by ${session}` };
  }
  // Back to pending: nobody's. The holder goes on (its claim stays), or the step is new to anyone: it is claimed now.
  if (status === 'pending') return { text: held === undefined ? undefined : null };
  if (written) return {};
  // Held by this session per the log, its line gone: written again.
  if (holder) return { text: renderClaim({ session, at: holder.at }) };
  if (step.status === 'in_progress' && held !== undefined && parseClaim(held)?.session === session) return {};
  if (isFinished(step.status) && held !== undefined) return {};
  return { text: renderClaim({ session, at: now }) };
}

/**
 * The steps another session worked on while `step` ran (its window: from its claim, or for a step
 * never marked in progress from the plan's last mark, to now): steps another session holds now,
 * and steps another session acted on last after the window opened (the checkpoint log's `activity`).
 * A step's evidence names them: its snapshots hold their changes too, unless hooks tell them apart.
 */
export function stepsAlongside(
  steps: readonly { id: string; status: StepStatus; record?: { Claimed?: string } }[],
  step: { id: string; status: StepStatus; record?: { Claimed?: string } },
  session: string,
  activity?: ReadonlyMap<string, { at: string; session?: string; status?: StepStatus }>,
): string[] {
  const me = cleanSession(session);
  const own = step.status === 'in_progress' ? parseClaim(step.record?.Claimed) : undefined;
  // A step marked done straight from pending counts from the plan's last mark: the log's latest event of another step.
  const opened = own
    ? Date.parse(own.at)
    : Math.max(-Infinity, ...[...(activity?.entries() ?? [])].filter(([id]) => id !== step.id).map(([, a]) => Date.parse(a.at)).filter((t) => !Number.isNaN(t)));
  const out: string[] = [];
  for (const s of steps) {
    if (s.id === step.id) continue;
    const holder = parseClaim(s.record?.Claimed)?.session ?? activity?.get(s.id)?.session;
    if (!holder || holder === me) continue;
    if (s.status === 'in_progress') out.push(s.id);
    else if (own || Number.isFinite(opened)) {
      const last = activity?.get(s.id);
      // Its last event fell inside the window (strictly after it opened: the mark that opened it is not "alongside").
      if (last && Date.parse(last.at) > opened && (last.session === undefined || last.session === holder)) out.push(s.id);
      // Or its status in the file is not yet in the log (another process appends its event after it lets the plan's lock go): it ended just now.
      else if (last?.status === 'in_progress') out.push(s.id);
    }
  }
  return out;
}
