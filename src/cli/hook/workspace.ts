// What the hook keeps and reads in a workspace, with plain Node calls (no store, no index): the
// sessions' bindings under .pi/plans/hooks/ (ignored by git), the bound plan's frontmatter and steps,
// and the hook settings in .vscode/settings.json.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { splitFrontmatter } from '../../core/frontmatter';
import { quickSteps } from '../../core/steps';
import type { HookHost } from './payload';
import { Choice, DEFAULT_HOOK_SETTINGS, HookSettings, PlanFacts } from './policy';

/** A session bound to a plan. */
export interface Binding {
  v: 1;
  /** The host's session id, shortened (the file's name is its hash). */
  session: string;
  host: HookHost;
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
/** A plan file larger than this is not read by the hook (it fails open). */
const MAX_PLAN_BYTES = 4 * 1024 * 1024;

export const plansDir = (root: string) => path.join(root, '.pi', 'plans');
export const hooksDir = (root: string) => path.join(plansDir(root), 'hooks');

/** A session id (hostile input: any length, any characters) as a file name: its SHA-256, hex. */
export function bindingFile(root: string, session: string): string {
  return path.join(hooksDir(root), `${createHash('sha256').update(session).digest('hex').slice(0, 40)}.json`);
}

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

/** Writes beside and renames: a reader never sees half a file. */
function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

/** A session's binding; undefined when there is none, it is broken, or it was idle over a day (then it is removed). */
export function readBinding(root: string, session: string, now: number): Binding | undefined {
  const file = bindingFile(root, session);
  let b: Binding;
  try {
    b = JSON.parse(fs.readFileSync(file, 'utf8')) as Binding;
  } catch {
    return undefined;
  }
  if (!b || b.v !== 1 || typeof b.plan !== 'string' || !PLAN_ID.test(b.plan)) return undefined;
  if (!(now - Date.parse(b.seenAt) < BINDING_TTL_MS)) {
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

/** Every live binding of the workspace (expired ones are removed on the way). */
export function listBindings(root: string, now: number): Binding[] {
  let names: string[];
  try {
    names = fs.readdirSync(hooksDir(root)).filter((n) => /^[0-9a-f]{40}\.json$/.test(n));
  } catch {
    return [];
  }
  const out: Binding[] = [];
  for (const n of names) {
    try {
      const b = JSON.parse(fs.readFileSync(path.join(hooksDir(root), n), 'utf8')) as Binding;
      const b2 = readBinding(root, b.session, now);
      if (b2) out.push(b2);
    } catch {
      // a broken file is nobody's binding
    }
  }
  return out;
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
  return { facts: { id, title: typeof data.title === 'string' ? data.title : id, status: data.status, version: typeof data.version === 'number' ? data.version : 0, steps, openComments: 0 }, bytes };
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
