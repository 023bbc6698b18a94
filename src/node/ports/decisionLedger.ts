/**
 * This machine's record of a person's decisions on plans (approve, reject, withdraw, confirm), in
 * the user's state folder (`decisions.jsonl`, one JSON line per decision, appended; never in a
 * workspace), so that a decision cannot be undone by writing an old file back:
 *
 * - an approval followed by a later decision on the same plan (withdrawn, rejected, approved
 *   again) no longer holds, wherever its file came from;
 * - a plan file whose version is below the version the last decision left is older than that
 *   decision (a copy written back over the plan): its approval does not hold.
 *
 * An approval made on another machine (a teammate's, pulled by git) is judged by its time against
 * the decisions this machine has seen. What this machine never saw, it cannot weigh.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DecisionRecord } from '../../core';
import { realPathOf } from './userFolders';

/** How many lines are kept when the file is rewritten (the oldest go first). */
const KEPT = 20_000;
/** A larger file is read from its last bytes only. */
const MAX_BYTES = 8 * 1024 * 1024;

const DECISIONS: ReadonlySet<string> = new Set(['approve', 'reject', 'withdraw', 'confirm']);

function isRecord(v: unknown): v is DecisionRecord {
  const r = v as Partial<DecisionRecord> | null;
  return (
    !!r &&
    typeof r === 'object' &&
    typeof r.plan === 'string' &&
    typeof r.decision === 'string' &&
    DECISIONS.has(r.decision) &&
    Number.isInteger(r.version) &&
    typeof r.digest === 'string' &&
    typeof r.at === 'string' &&
    (r.signature === undefined || typeof r.signature === 'string')
  );
}

const verb = (d: DecisionRecord) => ({ approve: 'approved it again', reject: 'rejected it', withdraw: 'withdrew its approval', confirm: 'confirmed it' })[d.decision];

/** The decisions recorded in `file`, by plan, in the order they were made. */
export class DecisionLedger {
  private constructor(
    private readonly byPlan: ReadonlyMap<string, readonly DecisionRecord[]>,
    /** The SHA-256 (hex) of the text this ledger was read from: equal digests, equal answers (a keyring's `state` names it). */
    readonly digest: string,
  ) {}

  /** Reads the ledger without following a link or waiting on a FIFO; a missing or unreadable one is empty, a bad line is skipped. */
  static async read(file: string): Promise<DecisionLedger> {
    const byPlan = new Map<string, DecisionRecord[]>();
    let text = '';
    try {
      const fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        const st = await fh.stat();
        if (st.isFile()) {
          const size = Math.min(st.size, MAX_BYTES);
          const { buffer } = await fh.read(Buffer.alloc(size), 0, size, st.size - size);
          text = buffer.toString('utf8');
        }
      } finally {
        await fh.close();
      }
    } catch {
      /* none yet, or not a plain file: no decisions */
    }
    for (const line of text.split('\n')) {
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isRecord(r)) continue;
      const list = byPlan.get(r.plan) ?? [];
      list.push(r);
      byPlan.set(r.plan, list);
    }
    return new DecisionLedger(byPlan, createHash('sha256').update(text).digest('hex'));
  }

  /** Why an approval of `plan` (its signature and time, and the file's version now) no longer holds; undefined when it does. */
  superseded(plan: string, approval: { signature: string; at: string; fileVersion: number }): string | undefined {
    const list = this.byPlan.get(plan);
    if (!list?.length) return undefined;
    const last = list[list.length - 1];
    if (approval.fileVersion < last.version) {
      return `this file (v${approval.fileVersion}) is older than your last decision on ${plan}: you ${verb(last).replace(' again', '')} at v${last.version} (${last.at}), so it is a copy written back over the plan, and its approval does not hold. Restore the current file (from git), or approve the text again`;
    }
    const own = list.findIndex((d) => d.decision === 'approve' && d.signature === approval.signature);
    const after = own >= 0 ? list.slice(own + 1) : list.filter((d) => d.at > approval.at);
    const undo = after.find((d) => d.decision !== 'confirm' && d.signature !== approval.signature);
    if (!undo) return undefined;
    return `a person ${verb(undo)} at v${undo.version} (${undo.at}), after this approval was made: it no longer holds, and a person approves the text again`;
  }
}

/** The ledger of the workspace at `root` (by its real path, as its review copies are kept) in the state folder. */
export function decisionLedgerFile(root: string, stateDir: string): string {
  return path.join(stateDir, 'decisions', `${createHash('sha256').update(realPathOf(root)).digest('hex').slice(0, 16)}.jsonl`);
}

/** Appends a decision to the ledger (a private file in a private folder, never through a link); rewrites it to its last lines when it grew past them. */
export async function recordDecision(file: string, d: DecisionRecord): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const fh = await fs.promises.open(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
  let size: number;
  try {
    await fh.write(`${JSON.stringify(d)}\n`);
    size = (await fh.stat()).size;
  } finally {
    await fh.close();
  }
  if (size < MAX_BYTES) return;
  const lines = (await fs.promises.readFile(file, 'utf8')).split('\n').filter(Boolean).slice(-KEPT);
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, `${lines.join('\n')}\n`, { mode: 0o600 });
  await fs.promises.rename(tmp, file);
}
