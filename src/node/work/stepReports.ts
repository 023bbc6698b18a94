/**
 * What a bound session did while a step of its plan was in progress, as its PostToolUse hooks
 * reported it (issue 30's attribution): an edit tool's files (relative to the workspace folder, "/")
 * or a command run. One JSON line per tool call, in the user's state folder (never the workspace:
 * an agent's edit tools cannot write there), one file per session under a folder per workspace:
 * `step-reports/<hash of the workspace's real path>/<hash of host and session>.steps.jsonl`. The
 * step's evidence reads them when the step ends. Plain Node (the hook's bundle appends them).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendPlainText, readPlainText } from '../ports/plainFile';
import { existingFolder, ownFolder } from '../ports/stateFiles';
import { realPathOf, userStateDir } from '../ports/userFolders';

export interface StepEvent {
  v: 1;
  plan: string;
  step: string;
  kind: 'edit' | 'command';
  paths?: string[];
  at: string;
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);
/** A session's report file's own name. */
export const STEP_EVENTS = /^[0-9a-f]{40}\.steps\.jsonl$/;
/** The most one session's report file is read of (a line per tool call): a larger one is left out. */
export const REPORT_BYTES = 16 * 1024 * 1024;

/** The folder of a workspace's reports (made when `create`), or undefined when there is none yet. */
function reportsDir(root: string, env: NodeJS.ProcessEnv, create: boolean): string | undefined {
  const state = userStateDir(env);
  const key = hash(realPathOf(root));
  if (create) return ownFolder(ownFolder(state, 'step-reports'), key);
  const top = existingFolder(state, 'step-reports');
  return top ? existingFolder(top, key) : undefined;
}

/** The folder of a workspace's reports when there is one (undefined: none yet); StateBroken when a link or a file stands there. */
export function stepReportsDir(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return reportsDir(root, env, false);
}

/** Appends one event to the session's report (never through a link or into a FIFO). */
export function recordStepEvent(root: string, host: string, session: string, e: Omit<StepEvent, 'v'>, env: NodeJS.ProcessEnv = process.env): void {
  const dir = reportsDir(root, env, true)!;
  appendPlainText(path.join(dir, `${hash(`${host}\0${session}`)}.steps.jsonl`), `${JSON.stringify({ v: 1, ...e })}\n`);
}

/** Every session's events for one step of a plan (lines that do not read are left out). */
export function readStepEvents(root: string, plan: string, step: string, env: NodeJS.ProcessEnv = process.env): StepEvent[] {
  let dir: string | undefined;
  let names: string[];
  try {
    dir = reportsDir(root, env, false);
    if (!dir) return [];
    names = fs.readdirSync(dir).filter((n) => STEP_EVENTS.test(n));
  } catch {
    return [];
  }
  const out: StepEvent[] = [];
  for (const n of names) {
    // Never through a link, never waiting on a FIFO: the end of a step reads these.
    const text = readPlainText(path.join(dir, n), REPORT_BYTES);
    if (text === undefined) continue;
    for (const line of text.split('\n')) {
      try {
        const e = JSON.parse(line) as StepEvent;
        if (e?.v === 1 && e.plan === plan && e.step === step && (e.kind === 'edit' || e.kind === 'command')) out.push(e);
      } catch {
        // a line cut by a crash, or not ours
      }
    }
  }
  return out;
}
