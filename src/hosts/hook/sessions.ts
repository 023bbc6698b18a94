/**
 * The agent sessions bound to plans by `pi-plans hook`, kept in the user's state folder (never in a
 * workspace: an agent's edit tools write there), one file per session named by a hash of its host
 * and id: `sessions/<hash>.json`. A binding is sticky: naming another plan adds it, SessionEnd does
 * not end it, a resumed session is the same session; it ends after a day idle, or when a person
 * frees the session (`pi-plans hook release`). A binding file that is not a plain file of ours is
 * never trusted as "no binding": the session is then treated as bound and broken (the hook fails
 * closed for it). Plain Node (the hook's small bundle loads this on every tool call).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookHost } from '../host';
import { existingFolder, ownFolder, readStateFile, removeOwnFile, StateBroken, writeStateFile } from '../../node/ports/stateFiles';
import { userStateDir } from '../../node/ports/userFolders';

/** A session bound to plans. */
export interface Binding {
  v: 2;
  host: HookHost;
  /** The host's session id (at most 512 characters; the file's name is a hash of it). */
  session: string;
  /** The workspace the session was bound in (its real path): later calls are judged there, wherever their `cwd` points. */
  root: string;
  /** Every plan the session named, the last named last. */
  plans: string[];
  /** Plans among them that were finished (cancelled, completed, superseded) when the session named them: a read of an old plan, which binds nothing. */
  finished?: string[];
  boundAt: string;
  seenAt: string;
  /** This session's last Stop was blocked: the next one is let go (the loop guard). */
  stopBlocked?: boolean;
  /** Collect mode: denied calls are recorded as steps of this draft. */
  collecting?: string;
  /** A pi_plan_create whose plan's id is not known yet (its time): the session counts as planning until it is. */
  creating?: string;
}

/** A binding idle this long is over. */
export const BINDING_TTL_MS = 24 * 60 * 60 * 1000;
/** The most plans one session may be bound to: a call naming one more is refused, never one dropped. */
export const MAX_PLANS = 64;
const PLAN_ID = /^PLAN-[0-9a-f]{8}$/;
const NAME = /^[0-9a-f]{40}\.json$/;
const MAX_BYTES = 64 * 1024;

/** The folder of bindings (made when `create`). */
function sessionsDir(env: NodeJS.ProcessEnv, create: boolean): string | undefined {
  const state = userStateDir(env);
  return create ? ownFolder(state, 'sessions') : existingFolder(state, 'sessions');
}

/** The file name of a session's binding: a hash of its host and id (hostile input: any length, any characters). */
export function bindingName(host: string, session: string): string {
  return `${createHash('sha256').update(`${host}\0${session}`).digest('hex').slice(0, 40)}.json`;
}

/** A binding file's content when it is one; undefined otherwise. */
function parseBinding(text: string): Binding | undefined {
  let b: Binding;
  try {
    b = JSON.parse(text) as Binding;
  } catch {
    return undefined;
  }
  const ok =
    b && typeof b === 'object' && b.v === 2 && typeof b.session === 'string' && typeof b.host === 'string' && typeof b.root === 'string' && Array.isArray(b.plans) && b.plans.every((p) => typeof p === 'string' && PLAN_ID.test(p)) && typeof b.seenAt === 'string' && !Number.isNaN(Date.parse(b.seenAt));
  return ok ? b : undefined;
}

const live = (b: Binding, now: number) => now - Date.parse(b.seenAt) < BINDING_TTL_MS;

/**
 * Whether the file `name` holding `text` is a binding Pi Plans wrote that has expired (idle over
 * BINDING_TTL_MS): the one case where a binding may go without a person (reading it removes it).
 * A file that is not a binding, or not under its own name, is not expired: it holds its session
 * as bound and broken until a person looks at it.
 */
export function bindingExpired(name: string, text: string, now: number): boolean {
  const b = parseBinding(text);
  return !!b && NAME.test(name) && bindingName(b.host, b.session) === name && !live(b, now);
}

/** A session's binding as read: none, the binding, or why it cannot be trusted (the session is then bound and broken). */
export type BindingRead = { kind: 'none' } | { kind: 'bound'; binding: Binding } | { kind: 'broken'; why: string };

/** Reads a session's binding; one idle over a day is removed and reads as none. */
export function readBinding(host: string, session: string, now: number, env: NodeJS.ProcessEnv = process.env): BindingRead {
  let dir: string | undefined;
  try {
    dir = sessionsDir(env, false);
  } catch (e) {
    // A state folder that cannot be looked at (a link loop, no permission) is no proof of no binding.
    return { kind: 'broken', why: e instanceof StateBroken ? e.message : `the bindings' folder cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): a person fixes ${userStateDir(env)}` };
  }
  if (!dir) return { kind: 'none' };
  const name = bindingName(host, session);
  const r = readStateFile(path.join(dir, name), MAX_BYTES);
  if (r.kind === 'none') return r;
  if (r.kind === 'bad') return { kind: 'broken', why: `${r.why}: a person removes it, or frees the session with pi-plans hook release` };
  const b = parseBinding(r.text);
  if (!b || b.host !== host || b.session !== session) return { kind: 'broken', why: `${path.join(dir, name)} is not a binding Pi Plans wrote: a person removes it, or frees the session with pi-plans hook release` };
  if (!live(b, now)) {
    removeOwnFile(dir, name, NAME);
    return { kind: 'none' };
  }
  return { kind: 'bound', binding: b };
}

/** Writes a session's binding (its folder made if missing; never through a link). */
export function writeBinding(b: Binding, env: NodeJS.ProcessEnv = process.env): void {
  const dir = sessionsDir(env, true)!;
  writeStateFile(path.join(dir, bindingName(b.host, b.session)), `${JSON.stringify(b)}\n`);
}

/** Ends a session's binding: a person's act (`pi-plans hook release`, VS Code's Release). */
export function removeBinding(host: string, session: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = sessionsDir(env, false);
  if (!dir) return false;
  const name = bindingName(host, session);
  const existed = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false }) !== undefined;
  removeOwnFile(dir, name, NAME);
  return existed;
}

/**
 * Every live binding, of one workspace when `root` is given (its real path). With `prune` (the
 * hook), expired ones are removed on the way; without (the plan explorer), they are only left out.
 */
export function listBindings(now: number, opts: { root?: string; prune?: boolean; env?: NodeJS.ProcessEnv } = {}): Binding[] {
  const env = opts.env ?? process.env;
  let dir: string | undefined;
  let names: string[];
  try {
    dir = sessionsDir(env, false);
    if (!dir) return [];
    names = fs.readdirSync(dir).filter((n) => NAME.test(n));
  } catch {
    return [];
  }
  const out: Binding[] = [];
  for (const n of names) {
    const r = readStateFile(path.join(dir, n), MAX_BYTES);
    if (r.kind !== 'text') continue;
    const b = parseBinding(r.text);
    // A file is a session's binding only under the name its host and session hash to.
    if (!b || bindingName(b.host, b.session) !== n) continue;
    if (!live(b, now)) {
      if (opts.prune) removeOwnFile(dir, n, NAME);
      continue;
    }
    if (opts.root === undefined || b.root === opts.root) out.push(b);
  }
  return out;
}

/** Sessions whose id starts with `prefix` (what a person types to release one), of a workspace when given. */
export function findBindings(prefix: string, now: number, opts: { root?: string; env?: NodeJS.ProcessEnv } = {}): Binding[] {
  return listBindings(now, opts).filter((b) => b.session === prefix || b.session.startsWith(prefix));
}

/** The highest version the hook has seen of a workspace's plan (`plan-versions/` in the state folder), if any. */
export function readSeenVersion(root: string, id: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const dir = existingFolder(userStateDir(env), 'plan-versions');
  if (!dir) return undefined;
  const r = readStateFile(path.join(dir, versionName(root, id)), 1024);
  if (r.kind === 'none') return undefined;
  if (r.kind === 'bad') throw new StateBroken(`${r.why}: a person removes it`);
  const v = (JSON.parse(r.text) as { version?: unknown }).version;
  if (typeof v !== 'number') throw new StateBroken(`${path.join(dir, versionName(root, id))} is not a record Pi Plans wrote: a person removes it`);
  return v;
}

export function writeSeenVersion(root: string, id: string, version: number, env: NodeJS.ProcessEnv = process.env): void {
  const dir = ownFolder(userStateDir(env), 'plan-versions');
  writeStateFile(path.join(dir, versionName(root, id)), `${JSON.stringify({ v: 1, root, id, version })}\n`);
}

const versionName = (root: string, id: string) => `${createHash('sha256').update(`${root}\0${id}`).digest('hex').slice(0, 40)}.json`;
