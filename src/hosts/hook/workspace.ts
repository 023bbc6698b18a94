// What the hook reads of a workspace and of the user's folders, with plain Node calls (no store, no
// index): which workspace a session works in, a bound plan's frontmatter and steps, paths resolved
// through links as the kernel would, the places the policy guards, and the hook settings (the
// user's own, made only stricter by the workspace's).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseJsonc, ParseError } from 'jsonc-parser';
import { splitFrontmatter } from '../../core/format/frontmatter';
import { quickRejectionComments } from '../../core/rules/reviewNotes';
import { quickSteps } from '../../core/format/steps';
import { parseClaim } from '../../core/format/claimText';
import { driftedPaths } from '../../node/work/planChecks';
import { readStateBytes, readStateFile } from '../../node/ports/stateFiles';
import { cacheHome, realPathOf, userConfigDir, userStateDir } from '../../node/ports/userFolders';
import { HOOK_HOSTS } from '../host';
import { HOSTS } from '../hosts';
import type { Protected } from '../policy/paths';
import { Choice, DEFAULT_HOOK_SETTINGS, HookSettings, PlanFacts } from '../policy/decide';
import { userFolders } from '../install/folders';

/** The statuses whose drift the summary tells (as src/node/work/planDrift.ts watches them). */
const DRIFT_WATCHED: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled']);
/** A plan file larger than this is not read by the hook (the session bound to it is held to reads). */
const MAX_PLAN_BYTES = 4 * 1024 * 1024;
/** A settings file larger than this is not read (the hook fails closed for bound sessions). */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export const plansDir = (root: string) => path.join(root, '.pi', 'plans');

/** The nearest folder at or above `start` with `.pi/plans`, as a real path; undefined when none. */
function nearestRoot(start: string): string | undefined {
  for (let dir = realPathOf(start), i = 0; i < 64; i++) {
    if (fs.existsSync(plansDir(dir))) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/**
 * The workspaces a session not bound yet may work in, most trusted first: the host's project folder
 * (`CLAUDE_PROJECT_DIR`), the folder the host runs the hook in (the host's own, which a `cd` in the
 * agent's shell does not move), then the payload's `cwd`; each the nearest folder above with
 * `.pi/plans`. A bound session keeps the workspace it was bound in.
 */
export function workspaceCandidates(cwd: string | undefined, env: NodeJS.ProcessEnv, processCwd: string): string[] {
  const starts = [env.CLAUDE_PROJECT_DIR, processCwd, cwd].filter((d): d is string => !!d && path.isAbsolute(d));
  const out: string[] = [];
  for (const s of starts) {
    const r = nearestRoot(s);
    if (r && !out.includes(r)) out.push(r);
  }
  if (!out.length && starts[0]) out.push(realPathOf(starts[0]));
  return out;
}

/** Whether the workspace holds this plan's file. */
export const hasPlan = (root: string, id: string) => fs.existsSync(path.join(plansDir(root), `${id}.md`));

/**
 * `rel` resolved against `base` as the kernel resolves it: from the root, each component's link
 * followed (a dangling one too: a write through it creates its target) before the next `..`
 * applies; what does not exist yet is kept as written. Links nested deeper than 40 stop it where
 * they are.
 */
export function physical(base: string, rel: string): string {
  const abs = path.isAbsolute(rel) ? rel : path.join(base, rel);
  const queue = abs.split(/[\\/]+/).filter((seg) => seg && seg !== '.');
  let cur = path.parse(abs).root || '/';
  let hops = 0;
  while (queue.length) {
    const seg = queue.shift()!;
    if (seg === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, seg);
    const st = fs.lstatSync(next, { throwIfNoEntry: false });
    if (!st) return path.resolve(next, ...queue);
    if (st.isSymbolicLink() && ++hops <= 40) {
      let target: string;
      try {
        target = fs.readlinkSync(next);
      } catch {
        return path.resolve(next, ...queue);
      }
      queue.unshift(...target.split(/[\\/]+/).filter((x) => x && x !== '.'));
      if (path.isAbsolute(target)) cur = path.parse(target).root || '/';
      continue;
    }
    cur = next;
  }
  return cur;
}

/** Why a bound plan could not be read: the hook holds its session to reads and plan tools, and says why. */
export class PlanUnreadable extends Error {}

/** The plan's facts and the bytes they were read from (whose SHA-256 keys the approval verdict). */
export function readPlanFile(root: string, id: string): { facts: PlanFacts; bytes: Buffer } {
  const file = path.join(plansDir(root), `${id}.md`);
  const rel = `.pi/plans/${id}.md`;
  const r = readStateBytes(file, MAX_PLAN_BYTES);
  if (r.kind === 'none') throw new PlanUnreadable(`${rel} is not there; it may have been archived or deleted`);
  if (r.kind === 'bad') throw new PlanUnreadable(r.why.replace(file, rel));
  const bytes = r.bytes;
  const text = bytes.toString('utf8');
  let data: Record<string, unknown>;
  let body: string;
  try {
    const split = splitFrontmatter(text, true);
    data = split.data as Record<string, unknown>;
    body = text.slice(split.block.bodyStart);
  } catch (e) {
    throw new PlanUnreadable(`${rel} has no readable frontmatter (${(e as Error).message.split('\n')[0]})`);
  }
  if (!data || typeof data.status !== 'string' || data.id !== id) throw new PlanUnreadable(`${rel} has no status or another id in its frontmatter`);
  const steps = quickSteps(body).map((s) => ({ id: s.id, status: s.status, text: s.text, target: s.target, ...(s.status === 'in_progress' && s.record?.Claimed ? { claimedBy: parseClaim(s.record.Claimed)?.session } : {}) }));
  const facts: PlanFacts = { id, title: typeof data.title === 'string' ? data.title : id, status: data.status, version: typeof data.version === 'number' ? data.version : 0, steps, openComments: quickRejectionComments(body, data.status) };
  // The drift the last look found (one small JSON read, no git): kept by pi-plans and VS Code.
  const drifted = DRIFT_WATCHED.has(data.status) ? driftedPaths(root, id, typeof data.approved_hash === 'string' ? data.approved_hash : undefined) : [];
  if (drifted.length) facts.drifted = drifted;
  return { facts, bytes };
}

/** The plan's facts only. */
export function readPlanFacts(root: string, id: string): PlanFacts {
  return readPlanFile(root, id).facts;
}

/** The hook settings cannot be read: the hook fails closed for bound sessions, naming the file to fix. */
export class SettingsBroken extends Error {}

const CHOICES: readonly string[] = ['ask', 'deny', 'allow'];
const STRICTNESS: Record<Choice, number> = { allow: 0, ask: 1, deny: 2 };

/** A settings file's object (JSON or JSONC), undefined when absent; SettingsBroken when it is there and cannot be read. */
function settingsObject(file: string, jsonc: boolean): Record<string, unknown> | undefined {
  const r = readStateFile(file, MAX_SETTINGS_BYTES);
  if (r.kind === 'none') return undefined;
  if (r.kind === 'bad') throw new SettingsBroken(`${r.why}: fix or remove it`);
  const errors: ParseError[] = [];
  let v: unknown;
  try {
    v = jsonc ? parseJsonc(r.text, errors, { allowTrailingComma: true, disallowComments: false }) : JSON.parse(r.text);
  } catch (e) {
    throw new SettingsBroken(`${file} does not parse (${(e as Error).message}): fix it`);
  }
  if (errors.length) throw new SettingsBroken(`${file} does not parse (at offset ${errors[0].offset}): fix it`);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new SettingsBroken(`${file} is not a JSON object: fix it`);
  return v as Record<string, unknown>;
}

function pick(v: unknown, file: string, key: string): Choice | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string' && CHOICES.includes(v)) return v as Choice;
  throw new SettingsBroken(`${file}: ${key} is ${JSON.stringify(v)}, not "ask", "deny" or "allow": fix it`);
}

/**
 * The hook settings: `hooks.planningTerminal` and `hooks.otherFiles` from the user's Pi Plans
 * configuration (`config.json` in their configuration folder, outside every workspace: VS Code
 * writes it from its user settings), each made stricter, never looser, by
 * `piPlans.hooks.*` in the workspace's `.vscode/settings.json`. SettingsBroken when either file is
 * there and cannot be read.
 */
export function readSettings(root: string, env: NodeJS.ProcessEnv): HookSettings {
  const userFile = path.join(userConfigDir(env), 'config.json');
  const user = settingsObject(userFile, false);
  const hooks = user?.hooks;
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) throw new SettingsBroken(`${userFile}: "hooks" is not an object: fix it`);
  const h = (hooks ?? {}) as Record<string, unknown>;
  const wsFile = path.join(root, '.vscode', 'settings.json');
  const ws = settingsObject(wsFile, true) ?? {};
  const one = (key: 'planningTerminal' | 'otherFiles'): Choice => {
    const mine = pick(h[key], userFile, `hooks.${key}`) ?? DEFAULT_HOOK_SETTINGS[key];
    const theirs = pick(ws[`piPlans.hooks.${key}`], wsFile, `piPlans.hooks.${key}`);
    return theirs !== undefined && STRICTNESS[theirs] > STRICTNESS[mine] ? theirs : mine;
  };
  return { planningTerminal: one('planningTerminal'), otherFiles: one('otherFiles') };
}

/**
 * The places a bound session's tools and commands do not change by themselves: Pi Plans' own
 * folders in the home (its keys and configuration, the sessions' bindings, its caches: never), the
 * workspace's plan folder and every host's configuration files that hold Pi Plans' hooks or MCP
 * server, at workspace and user scope (the person decides).
 */
export function protectedPlaces(root: string, env: NodeJS.ProcessEnv, home = os.homedir()): Protected[] {
  const places: Protected[] = [
    { path: physical('/', userConfigDir(env)), level: 'deny', what: `Pi Plans' configuration folder (${userConfigDir(env)}: the approval keys)` },
    { path: physical('/', userStateDir(env)), level: 'deny', what: `Pi Plans' state folder (${userStateDir(env)}: the sessions' bindings and the review copies)` },
    { path: physical('/', cacheHome(env)), level: 'deny', what: `Pi Plans' cache folder (${cacheHome(env)})` },
    { path: physical('/', path.join(root, '.pi')), level: 'ask', what: 'the plan folder (.pi/)' },
  ];
  const folders = userFolders(env, home);
  const files = new Set<string>();
  for (const agent of HOOK_HOSTS) {
    for (const scope of ['workspace', 'user'] as const) {
      for (const t of HOSTS[agent].setupTargets({ agent, scope, hooks: true, mcp: true, command: ['pi-plans'], workspace: root })) {
        files.add(path.join(t.base === 'workspace' ? root : folders[t.base], ...t.path));
      }
    }
  }
  // Claude Code reads these beside its settings: `disableAllHooks` there turns every hook off.
  files.add(path.join(root, '.claude', 'settings.local.json'));
  files.add(path.join(folders.claudeHome, 'settings.local.json'));
  // Each resolved as an edit's path is (physical): through every link, a dangling one too.
  const real = (f: string) => physical('/', f);
  for (const f of files) places.push({ path: real(f), level: 'ask', what: `an agent host's configuration (${f.startsWith(root + path.sep) ? path.relative(root, f) : f}), where Pi Plans' hooks are set` });
  return places;
}
