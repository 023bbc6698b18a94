// VS Code's plan work mode, as the hook sees it: the extension writes the active plan of a
// workspace folder to `.pi/plans/hooks/work-mode.json` while plan work mode is on (and removes it
// when it ends), and a VS Code agent session that no plan tool call has bound works on that plan.
// Binding only adds restrictions, so a file written by someone else can do no more than a plan
// tool call naming the plan could.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookPayload } from '../policy/payload';
import type { Binding } from './workspace';

/** The file's name in `.pi/plans/hooks/` (bindings are named by a hash: no clash). */
export const WORK_MODE_FILE = 'work-mode.json';
const PLAN_ID = /^PLAN-[0-9a-f]{8}$/;

/** The plan VS Code's plan work mode is on in this workspace folder, if any and if its file exists. */
export function workModePlan(root: string): string | undefined {
  const hooks = path.join(root, '.pi', 'plans', 'hooks');
  let plan: unknown;
  try {
    plan = (JSON.parse(fs.readFileSync(path.join(hooks, WORK_MODE_FILE), 'utf8')) as { plan?: unknown }).plan;
  } catch {
    return undefined;
  }
  return typeof plan === 'string' && PLAN_ID.test(plan) && fs.existsSync(path.join(root, '.pi', 'plans', `${plan}.md`)) ? plan : undefined;
}

/** A VS Code session no plan tool call has bound: bound to the plan of plan work mode, for this call (not written). */
export function workModeBinding(root: string, p: HookPayload & { session: string }, now: number): Binding | undefined {
  if (p.host !== 'copilot') return undefined;
  const plan = workModePlan(root);
  if (!plan) return undefined;
  const iso = new Date(now).toISOString();
  return { v: 1, session: p.session, host: p.host, plan, boundAt: iso, seenAt: iso };
}
