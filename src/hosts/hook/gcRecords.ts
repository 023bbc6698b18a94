// What `pi-plans hook` keeps, listed for `pi-plans gc` (src/store/gc.ts decides, src/node/gcRecords.ts
// removes): its approval verdicts (a finished plan's go), the call records and the sessions'
// bindings (once expired by the hook's own rules: gc removes earlier only what the next hook call
// would), and the highest version seen of each plan (never removed: it is what refuses old bytes
// written back under a bound session). Loaded by the CLI only, never by the hook's bundle.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GcKind } from '../../store/gc';
import { fileRecord, type NodeGcRecord } from '../../node/gcRecords';
import { readStateFile } from '../../node/ports/stateFiles';
import { cacheHome, realPathOf, userStateDir } from '../../node/ports/userFolders';
import { CALL_RECORD, CALL_TTL_MS } from './once';
import { BINDING_TTL_MS, bindingExpired } from './sessions';
import { HOOK_VERDICTS_KEPT, hookVerdictName } from './verdict';

/** The hook's kinds, with their policies and bounds. */
export function hookKinds(env: NodeJS.ProcessEnv = process.env): GcKind[] {
  const state = userStateDir(env);
  return [
    { kind: 'hook verdicts', where: path.join(cacheHome(env), 'hook-verdicts'), policy: 'finished', bound: `<= ${HOOK_VERDICTS_KEPT.toLocaleString('en')} files, all workspaces (~400 B each; past it, the oldest go down to 1,800); a finished plan's removed by gc` },
    { kind: 'hook call records', where: path.join(state, 'hook-calls'), policy: 'expired', bound: `the calls of the last ${CALL_TTL_MS / 1000} s, and about 16 calls' more (1 call in 16 prunes); expired ones removed by gc` },
    { kind: 'session bindings', where: path.join(state, 'sessions'), policy: 'expired', bound: `one per agent session, over after ${BINDING_TTL_MS / 3_600_000} h idle (removed when read, by hook status and by gc); one that is not a binding stays, for a person` },
    { kind: 'plan versions seen', where: path.join(state, 'plan-versions'), policy: 'kept', bound: 'one ~100-byte file per plan the hook has read; never removed: it refuses old bytes written back' },
  ];
}

/** The names in a plain folder (none when it is missing, a link or not a folder). */
function namesIn(dir: string): string[] {
  try {
    return fs.lstatSync(dir).isDirectory() ? fs.readdirSync(dir) : [];
  } catch {
    return [];
  }
}

/** The hook's records: this workspace's plans' verdicts by plan (others' by none), call records and bindings with whether they expired, the versions seen. */
export function listHookRecords(root: string, planIds: readonly string[], now: number, env: NodeJS.ProcessEnv = process.env): NodeGcRecord[] {
  const out: NodeGcRecord[] = [];
  const verdicts = path.join(cacheHome(env), 'hook-verdicts');
  const realRoot = realPathOf(root);
  const planOf = new Map(planIds.map((id) => [hookVerdictName(realRoot, id), id]));
  for (const n of namesIn(verdicts)) {
    const plan = planOf.get(n);
    const r = /^[0-9a-f]{40}\.json$/.test(n) ? fileRecord('hook verdicts', verdicts, n, plan ? { plan } : {}) : undefined;
    if (r) out.push(r);
  }
  const calls = path.join(userStateDir(env), 'hook-calls');
  for (const n of namesIn(calls)) {
    const r = CALL_RECORD.test(n) ? fileRecord('hook call records', calls, n) : undefined;
    const st = r && fs.lstatSync(r.file!, { throwIfNoEntry: false });
    if (r && st) out.push({ ...r, expired: now - st.mtimeMs > CALL_TTL_MS });
  }
  const sessions = path.join(userStateDir(env), 'sessions');
  for (const n of namesIn(sessions)) {
    const r = /^[0-9a-f]{40}\.json$/.test(n) ? fileRecord('session bindings', sessions, n) : undefined;
    if (!r) continue;
    const read = r.blocked ? undefined : readStateFile(r.file!, 64 * 1024);
    out.push({ ...r, expired: read?.kind === 'text' && bindingExpired(n, read.text, now) });
  }
  const versions = path.join(userStateDir(env), 'plan-versions');
  for (const n of namesIn(versions)) {
    const r = fileRecord('plan versions seen', versions, n);
    if (r) out.push(r);
  }
  return out;
}
