// One tool call can reach `pi-plans hook` through two hook files: VS Code with `chat.useClaudeHooks`
// runs `.claude/settings.json` beside `.github/hooks/*.json`, and Copilot CLI reads both too. A
// bound session's call acts once: the first process to claim the call (an exclusive create of a
// file named by the call's key under `hook-calls/` in the user's state folder) decides with its
// acts (collect mode records one step, the Stop loop guard counts one attempt) and writes its
// decision beside the claim. A second process for the same call decides too, without those acts,
// and answers the stricter of its own decision and the first one's: a record planted there (by an
// agent that guessed a key) can make an answer stricter, never looser.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownFolder, readStateFile, removeOwnFile, StateBroken } from '../../node/ports/stateFiles';
import { userStateDir } from '../../node/ports/userFolders';
import { Decision, stricter } from '../policy/decide';
import type { HookPayload } from '../policy/payload';

/** A call's records are kept this long (every host's hook timeout is 30 s or more apart from Codex's 600 s: a duplicate runs within seconds). */
export const CALL_TTL_MS = 60_000;
/** How long a duplicate waits for the first process's decision. */
const WAIT_MS = 5_000;
const POLL_MS = 15;
const PRUNE_EVERY = 16;

/** JSON with sorted keys: the same arguments, whatever order a host wrote them in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The call's key: its host, session, event and the host's tool call id; without one (Stop, the
 * context events, Copilot CLI), its time and arguments (Copilot CLI's two payload formats of one
 * call carry the same instant); without a time either, the payload's bytes.
 */
export function callKey(p: HookPayload & { session: string }, raw: string): string {
  const basis = p.callId ? `id\0${p.callId}` : p.at !== undefined ? `at\0${p.at}\0${canonical(p.input)}\0${p.stopHookActive}` : `raw\0${createHash('sha256').update(raw).digest('hex')}`;
  return createHash('sha256').update(`${p.host}\0${p.session}\0${p.event}\0${basis}`).digest('hex').slice(0, 40);
}

/** The records' own names (pruning removes nothing else). */
export const CALL_RECORD = /^(?:[0-9a-f]{40}\.(?:claim|json)|\.[0-9a-f]{40}\.\d+\.tmp)$/;

/** The folder of call records; something else planted there (a link, a file) is removed first: these are only records. */
function callsDir(env: NodeJS.ProcessEnv): string {
  const state = userStateDir(env);
  try {
    return ownFolder(state, 'hook-calls');
  } catch (e) {
    if (!(e instanceof StateBroken)) throw e;
    fs.rmSync(path.join(state, 'hook-calls'), { force: true }); // a link or a file: removed itself, never what it points to
    return ownFolder(state, 'hook-calls');
  }
}

/** Removes the records older than CALL_TTL_MS (a claim whose process died included): only its own names, in its own folder. */
function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const st = fs.lstatSync(path.join(dir, n), { throwIfNoEntry: false });
    if (st && now - st.mtimeMs > CALL_TTL_MS) removeOwnFile(dir, n, CALL_RECORD);
  }
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** Claims the call: true for the first process, false when a claim (or anything) is there already. */
function claim(file: string): boolean {
  try {
    const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    fs.writeSync(fd, `${process.pid}\n`);
    fs.closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const KINDS = new Set(['allow', 'deny', 'ask', 'block', 'context']);

/** A recorded decision, read as untrusted data. */
function recorded(text: string): Decision | undefined {
  try {
    const d = JSON.parse(text) as Record<string, unknown>;
    if (!d || typeof d.kind !== 'string' || !KINDS.has(d.kind)) return undefined;
    const reason = typeof d.reason === 'string' ? d.reason.slice(0, 4000) : typeof d.context === 'string' ? d.context.slice(0, 4000) : undefined;
    if (d.kind === 'allow') return { kind: 'allow', ...(reason ? { context: reason } : {}) };
    if (d.kind === 'context') return reason ? { kind: 'context', context: reason } : undefined;
    return reason ? ({ kind: d.kind, reason } as Decision) : undefined;
  } catch {
    return undefined;
  }
}

/** The first process's decision, once written; undefined when the wait ran out or it never came. */
async function decisionOf(answerFile: string): Promise<Decision | undefined> {
  for (const end = Date.now() + WAIT_MS; Date.now() < end; await sleep(POLL_MS)) {
    const r = readStateFile(answerFile, 64 * 1024);
    if (r.kind === 'text') return recorded(r.text);
    if (r.kind === 'bad') return undefined;
  }
  return undefined;
}

/**
 * Decides a call once: the first process runs `decide` (with its acts) and records the decision; a
 * duplicate runs `quiet` (the same decision without the acts) and answers the stricter of it and
 * the record.
 */
export async function once(env: NodeJS.ProcessEnv, key: string, now: number, decide: () => Promise<Decision>, quiet: () => Promise<Decision>): Promise<Decision> {
  const dir = callsDir(env);
  const claimFile = path.join(dir, `${key}.claim`);
  const answerFile = path.join(dir, `${key}.json`);
  if (claim(claimFile)) {
    // Pruning stats every record: about one call in PRUNE_EVERY does it (the hook is latency-bound).
    if (Math.random() * PRUNE_EVERY < 1) prune(dir, now);
    const d = await decide();
    const tmp = path.join(dir, `.${key}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(d), { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, answerFile);
    return d;
  }
  const own = await quiet();
  const first = await decisionOf(answerFile);
  // The record when as strict (it names the step collect mode recorded), this process's own when stricter.
  return first ? stricter(first, own) : own;
}
