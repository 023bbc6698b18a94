/**
 * Drift since approval (issue 30) on Node: at approval, HEAD and the object id of each target the
 * steps name are kept beside the plan (`.pi/plans/checks/<id>.json`, see planChecks.ts); while the
 * plan is approved or executing, a target whose content differs from that base, by anything other
 * than the plan's own execution, is listed as drifted, with the commits since the base that touch
 * it. The plan's own execution: a step that names the target and is in progress now, or whose
 * status moved since the last look (its changes become the new base of that target). A warning for
 * people and the agent, never a gate.
 */
import { changedMentions, driftedTargets, type DriftedTarget, type PlanDocument, targetPaths, type TargetHashes } from '../../core';
import { commitsTouching, headCommit, pathHashes, workingTree } from './checkTree';
import { type DriftBase, readPlanState, writePlanState } from './planChecks';

/** Statuses in which drift is watched. */
const WATCHED: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled']);

/** The target hashes of `paths` in the working tree now (empty outside git); `treeNow` takes the tree (a caller that needs it too shares it). */
async function hashesNow(root: string, paths: readonly string[], treeNow: () => Promise<string | undefined> = () => workingTree(root)): Promise<{ tree?: string; hashes: TargetHashes }> {
  if (!paths.length) return { hashes: {} };
  const tree = await treeNow();
  return tree ? { tree, hashes: await pathHashes(root, tree, paths) } : { hashes: {} };
}

const statusesOf = (doc: PlanDocument) => Object.fromEntries(doc.steps.map((s) => [s.id, s.status]));

/**
 * Records the drift base of a plan's approval: HEAD and its targets as they are now. Called by the
 * faces right after a person's approval; a plan approved where none was taken gets one at the
 * first look (`taken: 'first look'`). Outside git, or with no file targets, nothing is watched.
 */
export async function recordDriftBase(root: string, doc: PlanDocument, at: string, taken: DriftBase['taken'] = 'approval'): Promise<DriftBase | undefined> {
  const digest = doc.fm.approved_hash;
  if (!digest) return undefined;
  const paths = targetPaths(doc.steps);
  const commit = await headCommit(root);
  const { tree, hashes } = await hashesNow(root, paths);
  if (!tree && paths.length) return undefined; // outside git: nothing can be compared later
  const state = readPlanState(root, doc.fm.id);
  state.drift = { digest, ...(commit ? { commit } : {}), targets: hashes, at, taken, statuses: statusesOf(doc), drifted: [], lookedAt: at };
  writePlanState(root, state);
  return state.drift;
}

/** What a look at a plan's drift found. */
export interface DriftLook {
  drifted: DriftedTarget[];
  base?: DriftBase;
}

/**
 * Compares the plan's targets with its drift base now, and keeps what it found in the state (the
 * cheap readers show that). Changes the plan's own steps made are folded into the base.
 */
export async function lookForDrift(root: string, doc: PlanDocument, at: string, treeNow?: () => Promise<string | undefined>): Promise<DriftLook> {
  if (!WATCHED.has(doc.fm.status) || !doc.fm.approved_hash) return { drifted: [] };
  let base = readPlanState(root, doc.fm.id).drift;
  if (!base || base.digest !== doc.fm.approved_hash) {
    base = await recordDriftBase(root, doc, at, 'first look');
    return { drifted: [], ...(base ? { base } : {}) };
  }
  const paths = Object.keys(base.targets);
  const { tree, hashes } = await hashesNow(root, paths, treeNow);
  if (!tree) return { drifted: [], base };
  const before = base.statuses ?? {};
  const owners = new Map<string, string[]>();
  for (const s of doc.steps) {
    const t = targetPaths([s])[0];
    if (!t) continue;
    // In progress: its change is under way. Moved since the last look: its change, unless its
    // evidence line lists every file it changed and this target is not one of them.
    const moved = before[s.id] !== s.status && changedMentions(s.record?.Changed, t) !== false;
    if (s.status === 'in_progress' || moved) owners.set(t, [...(owners.get(t) ?? []), s.id]);
  }
  const drifted = driftedTargets(base.targets, hashes, (p) => owners.has(p));
  for (const p of owners.keys()) if (p in hashes) base.targets[p] = hashes[p];
  if (base.commit) for (const d of drifted) d.commits = await commitsTouching(root, base.commit, d.path);
  const state = readPlanState(root, doc.fm.id);
  state.drift = { ...base, statuses: statusesOf(doc), drifted, lookedAt: at };
  writePlanState(root, state);
  return { drifted, base: state.drift };
}

/** The drift the last look found, without running git (for the hook and the explorer); empty when the base is of another approval. */
export function lastDrift(root: string, doc: Pick<PlanDocument, 'fm'>): DriftedTarget[] {
  if (!WATCHED.has(doc.fm.status)) return [];
  const base = readPlanState(root, doc.fm.id).drift;
  return base && base.digest === doc.fm.approved_hash ? (base.drifted ?? []) : [];
}

/** A person acknowledges the drift: the targets as they are now, and HEAD, become the new base. */
export async function acknowledgeDrift(root: string, doc: PlanDocument, at: string): Promise<DriftBase | undefined> {
  return recordDriftBase(root, doc, at, 'acknowledged');
}
