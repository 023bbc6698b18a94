// What the hook keeps and reads in a workspace, with plain Node calls (no store, no index): the
// sessions' bindings under .pi/plans/hooks/ (ignored by git; kept by src/node/hookBindings.ts, which
// the plan explorer reads too), the bound plan's frontmatter and steps, and the hook settings in
// .vscode/settings.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { splitFrontmatter } from '../../core/frontmatter';
import { quickRejectionComments } from '../../core/reviewNotes';
import { quickSteps } from '../../core/steps';
import { plansDir } from './sessions';
import { driftedPaths } from '../../node/planChecks';
import { Choice, DEFAULT_HOOK_SETTINGS, HookSettings, PlanFacts } from '../policy/decide';

export { BINDING_TTL_MS, bindingFile, hooksDir, listBindings, plansDir, readBinding, recordStepEvent, removeBinding, writeBinding, type Binding } from './sessions';

/** The statuses whose drift the summary tells (as src/node/planDrift.ts watches them). */
const DRIFT_WATCHED: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled']);

/** A plan file larger than this is not read by the hook (it fails open). */
const MAX_PLAN_BYTES = 4 * 1024 * 1024;

/** The workspace: the payload's folder, else the host's project variable, else the process's; the nearest one above with .pi/plans. */
export function workspaceOf(cwd: string | undefined, env: NodeJS.ProcessEnv, processCwd: string): string {
  const start = [cwd, env.CLAUDE_PROJECT_DIR, processCwd].find((d): d is string => !!d && path.isAbsolute(d)) ?? processCwd;
  for (let dir = start, i = 0; i < 64; i++) {
    if (fs.existsSync(plansDir(dir))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return start;
}

/** Why a plan could not be read: the hook says it and allows. */
export class PlanUnreadable extends Error {}

/** The plan's frontmatter and steps, read without the index or a Markdown parse. */
export function readPlanFacts(root: string, id: string): PlanFacts {
  return readPlanFile(root, id).facts;
}

/** The plan's facts and the bytes they were read from (whose SHA-256 keys the approval verdict). */
export function readPlanFile(root: string, id: string): { facts: PlanFacts; bytes: Buffer } {
  const file = path.join(plansDir(root), `${id}.md`);
  const rel = `.pi/plans/${id}.md`;
  let bytes: Buffer;
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) throw new PlanUnreadable(`${rel} is not a regular file`);
    if (st.size > MAX_PLAN_BYTES) throw new PlanUnreadable(`${rel} is ${st.size} bytes, over what the hook reads`);
    bytes = fs.readFileSync(file);
    text = bytes.toString('utf8');
  } catch (e) {
    if (e instanceof PlanUnreadable) throw e;
    throw new PlanUnreadable(`${rel} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); it may have been archived or deleted`);
  }
  let data: Record<string, unknown>;
  let body: string;
  try {
    const split = splitFrontmatter(text, true);
    data = split.data as Record<string, unknown>;
    body = text.slice(split.block.bodyStart);
  } catch (e) {
    throw new PlanUnreadable(`${rel} has no readable frontmatter (${(e as Error).message.split('\n')[0]}): run pi-plans validate`);
  }
  if (!data || typeof data.status !== 'string' || data.id !== id) throw new PlanUnreadable(`${rel} has no status or another id in its frontmatter: run pi-plans validate`);
  const steps = quickSteps(body).map((s) => ({ id: s.id, status: s.status, text: s.text, target: s.target }));
  const facts: PlanFacts = { id, title: typeof data.title === 'string' ? data.title : id, status: data.status, version: typeof data.version === 'number' ? data.version : 0, steps, openComments: quickRejectionComments(body, data.status) };
  // The drift the last look found (one small JSON read, no git): kept by pi-plans and VS Code.
  const drifted = DRIFT_WATCHED.has(data.status) ? driftedPaths(root, id, typeof data.approved_hash === 'string' ? data.approved_hash : undefined) : [];
  if (drifted.length) facts.drifted = drifted;
  return { facts, bytes };
}

const CHOICES: readonly string[] = ['ask', 'deny', 'allow'];

/** `piPlans.hooks.*` from the workspace's .vscode/settings.json (JSONC), else the defaults. */
export function readSettings(root: string): HookSettings {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, '.vscode', 'settings.json'), 'utf8');
  } catch {
    return DEFAULT_HOOK_SETTINGS;
  }
  const s = parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false }) as Record<string, unknown> | undefined;
  const pick = (key: string, def: Choice): Choice => {
    const v = s && typeof s === 'object' ? s[key] : undefined;
    return typeof v === 'string' && CHOICES.includes(v) ? (v as Choice) : def;
  };
  return { planningTerminal: pick('piPlans.hooks.planningTerminal', DEFAULT_HOOK_SETTINGS.planningTerminal), otherFiles: pick('piPlans.hooks.otherFiles', DEFAULT_HOOK_SETTINGS.otherFiles) };
}
