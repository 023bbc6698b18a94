// VS Code's plan work mode, as the hook sees it: the extension writes the active plan of a
// workspace folder to `.pi/plans/hooks/work-mode.json` while plan work mode is on (and removes it
// when it ends), and a VS Code agent session that no plan tool call has bound works on that plan.
// Binding only adds restrictions, so a file written by someone else can do no more than a plan
// tool call naming the plan could. The session's first call while the mode is on binds it for good
// (run.ts): removing the file later frees no session.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readStateFile } from '../../node/ports/stateFiles';

/** The file's name in `.pi/plans/hooks/`. */
export const WORK_MODE_FILE = 'work-mode.json';
const PLAN_ID = /^PLAN-[0-9a-f]{8}$/;

/** The plan VS Code's plan work mode is on in this workspace folder, if any and if its file exists. */
export function workModePlan(root: string): string | undefined {
  const r = readStateFile(path.join(root, '.pi', 'plans', 'hooks', WORK_MODE_FILE), 4096);
  if (r.kind !== 'text') return undefined;
  let plan: unknown;
  try {
    plan = (JSON.parse(r.text) as { plan?: unknown }).plan;
  } catch {
    return undefined;
  }
  return typeof plan === 'string' && PLAN_ID.test(plan) && fs.existsSync(path.join(root, '.pi', 'plans', `${plan}.md`)) ? plan : undefined;
}
