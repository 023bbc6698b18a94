/**
 * `Run checks` on Node (issue 30): runs the `verify:` commands of an approved plan's steps, one
 * after the other, in the workspace; records each result on its step (a `> Check:` record line,
 * written through the store) and its output's last lines in the state (planChecks.ts). Refused,
 * with the reason, when the plan's approval does not hold: only commands a person approved run.
 * Also how a step's check reads now (passed, failed, stale) against the working tree.
 */
import { type Actor, type CheckRecord, type CheckStanding, checkStanding, checksRefusal, formatCheckRecord, PlanError, type PlanDocument, type PlanWorkFacts, stepCheck, type Step, targetPaths } from '../../core';
import type { PlanStore } from '../../store';
import { pathHashes, workingTree } from './checkTree';
import { checkRecordOf, readPlanState, runCommand, writePlanState } from './planChecks';
import { recordCheckLine } from './checkRecord';
import { lookForDrift } from './planDrift';

/** One check that ran. */
export interface CheckResult {
  step: string;
  command: string;
  record: CheckRecord;
  /** The record line's text as written under the step. */
  line: string;
  tail: string[];
}

export interface VerifyOptions {
  /** Only these steps (each must name a check); all steps with a check otherwise. */
  steps?: readonly string[];
  actor: Actor;
  /** Called before each command starts, and with its output as it comes. */
  onStart?(step: string, command: string): void;
  onOutput?(chunk: string): void;
  now?: () => Date;
}

/** The steps whose checks run: the named ones (each must have a check) or every step that has one. */
function stepsToRun(doc: PlanDocument, only: readonly string[] | undefined): Step[] {
  if (!only?.length) {
    const all = doc.steps.filter((s) => stepCheck(s));
    if (!all.length) throw new PlanError('NOT_FOUND', `${doc.fm.id} has no step with a check: a step names one with a details line \`verify: <command>\`, and a person approves it`);
    return all;
  }
  return only.map((id) => {
    const s = doc.steps.find((x) => x.id === id.toUpperCase());
    if (!s) throw new PlanError('NOT_FOUND', `${doc.fm.id} has no step ${id}: its steps are ${doc.steps.map((x) => x.id).join(', ')}`);
    if (!stepCheck(s)) throw new PlanError('NOT_FOUND', `${doc.fm.id} ${s.id} names no check: add a details line \`verify: <command>\` and have the plan approved again`);
    return s;
  });
}

/**
 * Runs the approved checks of plan `id` and records their results. Throws APPROVAL_INVALID (or
 * CHANGED_SINCE_APPROVAL) before running anything when the approval does not hold.
 */
export async function verifyPlan(store: PlanStore, id: string, opts: VerifyOptions): Promise<CheckResult[]> {
  const now = opts.now ?? (() => new Date());
  const doc = await store.read(id);
  const refusal = checksRefusal(doc, await store.keyring());
  if (refusal) throw new PlanError(doc.fm.status === 'proposed' || doc.fm.status === 'draft' ? 'APPROVAL_INVALID' : 'CHANGED_SINCE_APPROVAL', refusal);
  const out: CheckResult[] = [];
  for (const step of stepsToRun(doc, opts.steps)) {
    const command = stepCheck(step) as string;
    const paths = targetPaths([step]);
    const tree = await workingTree(store.root);
    const targets = tree && paths.length ? await pathHashes(store.root, tree, paths) : undefined;
    opts.onStart?.(step.id, command);
    const ran = await runCommand(store.root, command, opts.onOutput);
    const at = now().toISOString();
    const record = checkRecordOf(ran, tree, at);
    const line = formatCheckRecord(record);
    const state = readPlanState(store.root, id);
    state.checks[step.id] = { command, ...(tree ? { tree } : {}), ...(targets ? { targets } : {}), tail: ran.tail, at, line };
    writePlanState(store.root, state);
    // On the step once it is worked on; a pending step keeps it beside the plan only (approve()
    // refuses a pending step that carries a record line, so a plan sent back to review would be stuck).
    if ((await store.read(id)).steps.find((s) => s.id === step.id)?.status !== 'pending') await recordCheckLine(store, id, step.id, command, line, opts.actor);
    out.push({ step: step.id, command, record, line, tail: ran.tail });
  }
  return out;
}

/**
 * How each step's check reads now, by step id: its record line against the working tree (the
 * step's target files when it names some, else the whole tree; `.pi/` left out). One snapshot of
 * the tree for all steps; none when no check has run.
 */
export async function checkStandings(root: string, doc: PlanDocument, treeNow: () => Promise<string | undefined> = () => workingTree(root)): Promise<Map<string, CheckStanding>> {
  const state = readPlanState(root, doc.fm.id);
  const out = new Map<string, CheckStanding>();
  let tree: string | undefined | null = null; // null: not taken yet
  for (const s of doc.steps) {
    if (!stepCheck(s)) continue;
    const run = state.checks[s.id];
    // The record line, else (a step not yet worked on) the result kept beside the plan, for the same command.
    const text = s.record?.Check ?? (run?.command === stepCheck(s) ? run?.line : undefined);
    let same: boolean | undefined;
    if (text && run?.tree) {
      if (tree === null) tree = await treeNow();
      if (tree) {
        const paths = Object.keys(run.targets ?? {});
        if (paths.length) {
          const now = await pathHashes(root, tree, paths);
          same = paths.every((p) => (run.targets?.[p] ?? null) === now[p]);
        } else same = run.tree === tree;
      }
    }
    const standing = checkStanding(s, text, same);
    if (standing) out.set(s.id, standing);
  }
  return out;
}

/** The last output lines a step's check left, if any. */
export function checkTail(root: string, id: string, step: string): string[] | undefined {
  return readPlanState(root, id).checks[step]?.tail;
}

/**
 * What the files say of a plan now (its checks' standings and its drift), for pi_plan_get, the
 * mark result, `pi-plans show` and the plan editor. Looks at the working tree (git); the drift it
 * finds is kept for the cheap readers.
 */
export async function planWorkFacts(root: string, doc: PlanDocument, at = new Date().toISOString()): Promise<PlanWorkFacts> {
  // One snapshot of the working tree for both, taken only when one needs it.
  let tree: Promise<string | undefined> | undefined;
  const treeNow = () => (tree ??= workingTree(root));
  const checks = Object.fromEntries(await checkStandings(root, doc, treeNow));
  const { drifted } = await lookForDrift(root, doc, at, treeNow);
  return { checks, drifted };
}
