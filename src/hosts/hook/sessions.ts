/**
 * The sessions bound to plans by `pi-plans hook`: one file per session under
 * `.pi/plans/hooks/<sha256 of the session id>.json` (ignored by git), ended after a day idle. The
 * hook writes and reads them (src/cli/hook/workspace.ts re-exports this), the plan explorer reads
 * them. Plain Node (crypto, fs, path) and no other module of the project: the hook's small bundle
 * (dist/hook.js) loads it on every tool call.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendPlainText, readPlainText } from '../../node/plainFile';

/** The hosts a session can come from (the hook's HookHost, the setup's AgentHost). */
export type BindingHost = 'copilot' | 'claude' | 'codex' | 'copilot-cli';

/** A session bound to a plan. */
export interface Binding {
  v: 1;
  /** The host's session id, shortened (the file's name is its hash). */
  session: string;
  host: BindingHost;
  plan: string;
  boundAt: string;
  seenAt: string;
  /** This session's last Stop was blocked: the next one is let go (the loop guard). */
  stopBlocked?: boolean;
  /** Collect mode: denied calls are recorded as steps of the draft. */
  collecting?: boolean;
}

/** A binding idle this long is over. */
export const BINDING_TTL_MS = 24 * 60 * 60 * 1000;
const PLAN_ID = /^PLAN-[0-9a-f]{8}$/;
const BINDING_NAME = /^[0-9a-f]{40}\.json$/;

export const plansDir = (root: string) => path.join(root, '.pi', 'plans');
export const hooksDir = (root: string) => path.join(plansDir(root), 'hooks');

/** A session id (hostile input: any length, any characters) as a file name: its SHA-256, hex. */
export function bindingFile(root: string, session: string): string {
  return path.join(hooksDir(root), `${createHash('sha256').update(session).digest('hex').slice(0, 40)}.json`);
}

/** Writes beside and renames: a reader never sees half a file. */
function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** A binding file's content when it is one (the right version, a plan id); undefined otherwise. */
function parseBinding(text: string): Binding | undefined {
  let b: Binding;
  try {
    b = JSON.parse(text) as Binding;
  } catch {
    return undefined;
  }
  return b && typeof b === 'object' && b.v === 1 && typeof b.session === 'string' && typeof b.plan === 'string' && PLAN_ID.test(b.plan) ? b : undefined;
}

const live = (b: Binding, now: number) => now - Date.parse(b.seenAt) < BINDING_TTL_MS;

/** A session's binding; undefined when there is none, it is broken, or it was idle over a day (then it is removed). */
export function readBinding(root: string, session: string, now: number): Binding | undefined {
  const file = bindingFile(root, session);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const b = parseBinding(text);
  if (!b) return undefined;
  if (!live(b, now)) {
    fs.rmSync(file, { force: true });
    return undefined;
  }
  return b;
}

export function writeBinding(root: string, b: Binding): void {
  writeAtomic(bindingFile(root, b.session), `${JSON.stringify(b)}\n`);
}

export function removeBinding(root: string, session: string): void {
  fs.rmSync(bindingFile(root, session), { force: true });
}

/**
 * Every live binding of the workspace. With `prune` (the hook), expired ones are removed on the
 * way; without (the plan explorer, which may be in Restricted Mode), they are only left out.
 */
export function listBindings(root: string, now: number, opts: { prune?: boolean } = { prune: true }): Binding[] {
  let names: string[];
  try {
    names = fs.readdirSync(hooksDir(root)).filter((n) => BINDING_NAME.test(n));
  } catch {
    return [];
  }
  const out: Binding[] = [];
  for (const n of names) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(hooksDir(root), n), 'utf8');
    } catch {
      continue; // removed meanwhile
    }
    const b = parseBinding(text);
    // A file is a session's binding only under the name its session id hashes to.
    if (!b || path.basename(bindingFile(root, b.session)) !== n) continue;
    if (live(b, now)) out.push(b);
    else if (opts.prune) fs.rmSync(path.join(hooksDir(root), n), { force: true });
  }
  return out;
}

/**
 * What a bound session did while a step of its plan was in progress, as its PostToolUse hooks
 * reported it (issue 30's attribution): an edit tool's files (relative to the workspace folder, "/")
 * or a command run. Appended one JSON line per tool call to `.pi/plans/hooks/<hash>.steps.jsonl`
 * (the session's file, ignored by git like its binding); the step's evidence reads them when the
 * step ends.
 */
export interface StepEvent {
  v: 1;
  plan: string;
  step: string;
  kind: 'edit' | 'command';
  paths?: string[];
  at: string;
}

const STEP_EVENTS = /^[0-9a-f]{40}\.steps\.jsonl$/;
/** The most one session's report file is read of (a line per tool call): a larger one is left out. */
const REPORT_BYTES = 16 * 1024 * 1024;

export function recordStepEvent(root: string, session: string, e: Omit<StepEvent, 'v'>): void {
  const file = bindingFile(root, session).replace(/\.json$/, '.steps.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  appendPlainText(file, `${JSON.stringify({ v: 1, ...e })}\n`);
}

/** Every session's events for one step of a plan (lines that do not read are left out). */
export function readStepEvents(root: string, plan: string, step: string): StepEvent[] {
  let names: string[];
  try {
    names = fs.readdirSync(hooksDir(root)).filter((n) => STEP_EVENTS.test(n));
  } catch {
    return [];
  }
  const out: StepEvent[] = [];
  for (const n of names) {
    // Never through a link, never waiting on a FIFO: the end of a step reads these.
    const text = readPlainText(path.join(hooksDir(root), n), REPORT_BYTES);
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
