// Whether the bound plan's approval stands, as cheaply as the hook must run: the frontmatter's
// `status` is a line any file write can change, so before a status that relaxes the planning
// policy (approved, executing, stalled, failed) counts, the store checks the person's signed
// approval of exactly this text with the user's keys (heavy.ts `approvalVerdict`, loaded from
// dist/cli.js). Its verdict is cached by the SHA-256 of the plan file's bytes, so the check runs
// again only when the file changed.
//
// The cache lives in the user's cache folder (outside every workspace: a verdict in the workspace
// would be one more file an agent writes). An agent runs as the user and could write that folder
// too, so each entry carries an HMAC keyed by a digest of the user's private approval key file:
// an entry that does not verify is not read. Whoever can read a plain key can sign approvals
// outright, so a forged entry gives them nothing more. A key protected by a passphrase is a file
// an agent can read (its bytes are no secret), so then a kept "valid" is never read back: the
// cache only makes an answer more restrictive, and the store checks an approval each time the
// hook needs one. No private key yet, or either folder inside the workspace: no cache. The cache
// keeps HOOK_VERDICTS_KEPT files at most (all workspaces), the oldest going when a new one comes;
// `pi-plans gc` removes a finished plan's.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decisionLedgerFile } from '../../node/ports/decisionLedger';
import { isProtectedKey } from '../../node/ports/keyFormat';
import { removeOwnFile } from '../../node/ports/stateFiles';
import { cacheHome, realPathOf, userConfigDir, userStateDir } from '../../node/ports/userFolders';

/** Statuses whose policy is looser than planning's and that only a person's approval reaches (core's APPROVAL_GOVERNS). */
export const GOVERNED: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled', 'failed']);

/** The store's verdict (heavy.ts `ApprovalVerdict`, repeated here: the hook's bundle does not import the store's side). */
export interface Verdict {
  state: 'none' | 'valid' | 'foreign' | 'changed' | 'invalid';
  detail?: string;
  /** valid: the approval's open suggestions (the summary says how many). */
  openComments?: number;
}

const STATES: readonly string[] = ['none', 'valid', 'foreign', 'changed', 'invalid'];

/** The verdict cache of one workspace, or why there is none. */
export interface VerdictCache {
  get(id: string, sha: string): Verdict | undefined;
  put(id: string, sha: string, v: Verdict): void;
}

/** Verdict files kept in the cache folder at most, all workspaces together (a few hundred bytes each). */
export const HOOK_VERDICTS_KEPT = 2000;
/** Past the bound, the ones written longest ago go down to this many (one sweep per 200 new verdicts, not one per verdict). */
const KEPT_AFTER_PRUNE = 1800;
/** A verdict file's own name. */
const NAME = /^[0-9a-f]{40}\.json$/;

/** The file name of a plan's verdict: a hash of the workspace's real path and the plan's id. */
export function hookVerdictName(realRoot: string, id: string): string {
  return `${createHash('sha256').update(`${realRoot}\0${id}`).digest('hex').slice(0, 40)}.json`;
}

/** Past HOOK_VERDICTS_KEPT verdicts, keeps the newest KEPT_AFTER_PRUNE (a cache: a verdict gone is checked again); only its own names, never through a link. */
function prune(dir: string): void {
  let names: string[];
  try {
    if (!fs.lstatSync(dir).isDirectory()) return;
    names = fs.readdirSync(dir).filter((n) => NAME.test(n));
  } catch {
    return;
  }
  if (names.length <= HOOK_VERDICTS_KEPT) return;
  const aged = names.map((n) => ({ n, t: fs.lstatSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => a.t - b.t);
  for (const a of aged.slice(0, aged.length - KEPT_AFTER_PRUNE)) removeOwnFile(dir, a.n, NAME);
}

/** Size, time and inode of a file, or `-`: a change to the keys, the trust list, the confirmations or the decisions makes every cached verdict stale. */
function stamp(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-';
}

/** The cache for `root`, or a string saying why verdicts are not cached there. */
export function verdictCache(root: string, env: NodeJS.ProcessEnv): VerdictCache | string {
  const configDir = userConfigDir(env);
  const dir = path.join(cacheHome(env), 'hook-verdicts');
  const realRoot = realPathOf(root);
  const within = (d: string) => {
    const real = realPathOf(d);
    return real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
  };
  if (within(dir)) return `no verdict cache: the cache folder (${dir}) is inside the workspace, where an agent could write verdicts`;
  if (within(configDir)) return `no verdict cache: the configuration folder (${configDir}) is inside the workspace`;
  const keyFile = path.join(configDir, 'approval-key.pem'); // NodeApprovalKeys' own key file
  let secret: Buffer;
  let keyIsSecret: boolean;
  try {
    const key = fs.readFileSync(keyFile);
    secret = createHash('sha256').update('pi-plans hook verdict v1\0').update(key).digest();
    keyIsSecret = !isProtectedKey(key.toString('utf8'));
  } catch {
    return 'no verdict cache: no approval key in the configuration folder yet';
  }
  // The keys, the trust list, the confirmations, and the workspace's record of the person's decisions (a later one voids an approval).
  const keys = [...['approval-key.pem', 'config.json', 'confirmed-approvals.json'].map((f) => path.join(configDir, f)), decisionLedgerFile(root, userStateDir(env))].map(stamp).join('|');
  const fileOf = (id: string) => path.join(dir, hookVerdictName(realRoot, id));
  const mac = (id: string, sha: string, v: Verdict) => createHmac('sha256', secret).update(JSON.stringify([realRoot, id, sha, keys, v.state, v.detail ?? null, v.openComments ?? null])).digest();
  return {
    get(id, sha) {
      try {
        const e = JSON.parse(fs.readFileSync(fileOf(id), 'utf8')) as { sha?: unknown; state?: unknown; detail?: unknown; openComments?: unknown; mac?: unknown };
        if (e.sha !== sha || typeof e.state !== 'string' || !STATES.includes(e.state) || typeof e.mac !== 'string') return undefined;
        // A protected key's file is no secret: a kept "valid" could be forged from it, so it is checked again.
        if (e.state === 'valid' && !keyIsSecret) return undefined;
        const v: Verdict = { state: e.state as Verdict['state'], ...(typeof e.detail === 'string' ? { detail: e.detail } : {}), ...(typeof e.openComments === 'number' ? { openComments: e.openComments } : {}) };
        const want = mac(id, sha, v);
        const got = Buffer.from(e.mac, 'hex');
        return got.length === want.length && timingSafeEqual(got, want) ? v : undefined;
      } catch {
        return undefined;
      }
    },
    put(id, sha, v) {
      if (v.state === 'valid' && !keyIsSecret) return;
      const file = fileOf(id);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const added = !fs.existsSync(file);
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, `${JSON.stringify({ v: 1, id, sha, state: v.state, ...(v.detail ? { detail: v.detail } : {}), ...(v.openComments !== undefined ? { openComments: v.openComments } : {}), mac: mac(id, sha, v).toString('hex') })}\n`, { mode: 0o600 });
      fs.renameSync(tmp, file);
      // A new plan's verdict: one more file, so the oldest may go (a verdict rewritten adds none).
      if (added) prune(dir);
    },
  };
}
