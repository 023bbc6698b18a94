// One tool call can reach `pi-plans hook` through two hook files: VS Code with `chat.useClaudeHooks`
// runs `.claude/settings.json` beside `.github/hooks/*.json`, and Copilot CLI reads both too. Each
// call of a bound session is handled once: the first process to claim the call (an exclusive
// create, `wx`, of a file named by the call's key under `.pi/plans/hooks/calls/`) decides and
// writes its answer beside the claim; a second process with the same call finds the claim, waits
// for that answer and gives it again. So collect mode records one step, and the Stop loop guard
// counts one attempt. The claim is never released (no lock is held): records go after a minute.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HookAnswer } from '../policy/answer';
import type { HookPayload } from '../policy/payload';
import { hooksDir } from './workspace';

/** A call's records are kept this long (every host's hook timeout is 30 s or more apart from Codex's 600 s: a duplicate runs within seconds). */
export const CALL_TTL_MS = 60_000;
/** How long a duplicate waits for the first process's answer. */
const WAIT_MS = 10_000;
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
 * The call's key: its session, event and the host's tool call id; without one (Stop, the context
 * events, Copilot CLI), its time and arguments (Copilot CLI's two payload formats of one call carry
 * the same instant); without a time either, the payload's bytes.
 */
export function callKey(p: HookPayload & { session: string }, raw: string): string {
  const basis = p.callId ? `id\0${p.callId}` : p.at !== undefined ? `at\0${p.at}\0${canonical(p.input)}\0${p.stopHookActive}` : `raw\0${createHash('sha256').update(raw).digest('hex')}`;
  return createHash('sha256').update(`${p.session}\0${p.event}\0${basis}`).digest('hex').slice(0, 40);
}

const callsDir = (root: string) => path.join(hooksDir(root), 'calls');

/** Removes the records older than CALL_TTL_MS (a claim whose process died included). */
function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const f = path.join(dir, n);
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (st && now - st.mtimeMs > CALL_TTL_MS) fs.rmSync(f, { force: true });
  }
}

/** Claims the call: true for the first process, false when another has claimed it already. */
function claim(file: string): boolean {
  try {
    fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The first process's answer, once written; undefined when its claim went (it failed: this process decides) or the wait ran out. */
async function answerOf(claimFile: string, answerFile: string): Promise<HookAnswer | 'claim gone' | undefined> {
  for (const end = Date.now() + WAIT_MS; Date.now() < end; await sleep(POLL_MS)) {
    try {
      const a = JSON.parse(fs.readFileSync(answerFile, 'utf8')) as { stdout?: unknown; stderr?: unknown };
      return { stdout: typeof a.stdout === 'string' ? a.stdout : '', stderr: typeof a.stderr === 'string' ? a.stderr : '', code: 0 };
    } catch {
      if (!fs.existsSync(claimFile) && !fs.existsSync(answerFile)) return 'claim gone';
    }
  }
  return undefined;
}

/** Runs `decide` once per call key in this workspace; a duplicate gives the first process's answer again. */
export async function once(root: string, key: string, now: number, decide: () => Promise<HookAnswer>): Promise<HookAnswer> {
  const dir = callsDir(root);
  fs.mkdirSync(dir, { recursive: true });
  const claimFile = path.join(dir, `${key}.claim`);
  const answerFile = path.join(dir, `${key}.json`);
  for (let tries = 0; tries < 3; tries++) {
    if (claim(claimFile)) {
      // Pruning stats every record: about one call in PRUNE_EVERY does it (the hook is latency-bound).
      if (Math.random() * PRUNE_EVERY < 1) prune(dir, now);
      let a: HookAnswer;
      try {
        a = await decide();
      } catch (e) {
        fs.rmSync(claimFile, { force: true }); // a duplicate waiting decides for itself
        throw e;
      }
      const tmp = path.join(dir, `.${key}.${process.pid}.tmp`);
      fs.writeFileSync(tmp, JSON.stringify({ stdout: a.stdout, stderr: a.stderr }));
      fs.renameSync(tmp, answerFile);
      return a;
    }
    const first = await answerOf(claimFile, answerFile);
    if (first === undefined) return { stdout: '', stderr: 'pi-plans hook: the same call is being answered by another pi-plans hook process (a second hook file), which did not answer in time: this one allows it\n', code: 0 };
    if (first !== 'claim gone') return first;
  }
  return decide();
}
