import { Checkpoint, CheckpointSchema, frontmatterOfPlan, PlanError, reviewCopyPayload, submittedHere, textDigest } from '../core';
import type { PlanFolder } from './planFolder';
import { describeKind } from './ports';

const encoder = new TextEncoder();

/** How many decided versions of a plan are kept for comparison, and the largest kept. */
export const SNAPSHOTS_KEPT = 10;
export const SNAPSHOT_MAX_BYTES = 1024 * 1024;

/**
 * What a plan leaves behind besides its file: the review copies of the versions a person decided
 * on (outside the workspace, each with its signed record) and the checkpoint log of its events
 * (`sessions/<id>.jsonl`). Neither is a source of truth for the plan: a copy that does not verify
 * is not compared with, and a log line that does not parse is skipped.
 */
export class PlanHistory {
  /** Checkpoint logs we appended to, with their size after our append (to detect a torn last line). */
  private logSizes = new Map<string, number>();

  constructor(private readonly folder: PlanFolder) {}

  /** Where the versions a person decided on are kept, per plan: `<reviewCopies>/<id>/v<N>.md`, outside the workspace. Undefined: none are kept. */
  get reviewsDir(): string | undefined {
    return this.folder.ports.reviewCopies?.replace(/[\\/]+$/, '');
  }

  /** Why no review copies are kept here (the user's state folder is inside a workspace), if that is so. */
  get reviewCopiesProblem(): string | undefined {
    return this.folder.ports.reviewCopiesProblem;
  }

  /**
   * Keeps the text of a version a person decided on (approved or rejected), so the next round
   * can be compared with it. Not a plan and not a source of truth: a failure here never fails
   * the review (the caller says it), a plan over the size cap is not kept, and only the latest
   * `SNAPSHOTS_KEPT` versions per plan stay. Beside each copy, `v<N>.json` records the copy's
   * digest, signed with the person's key (see `copyRecord`): a copy rewritten later does not
   * pass for the text that was decided on.
   */
  async saveSnapshot(id: string, version: number, text: string): Promise<void> {
    this.folder.pathOf(id);
    if (this.folder.ports.reviewCopiesProblem) throw new PlanError('UNSAFE_PATH', this.folder.ports.reviewCopiesProblem);
    const bytes = new TextEncoder().encode(text);
    if (bytes.length > SNAPSHOT_MAX_BYTES || !this.reviewsDir) return;
    const dir = `${this.reviewsDir}/${id}`;
    // Signed first: a copy that cannot be vouched for is not kept.
    const record = await this.copyRecord(id, version, text);
    await this.folder.ports.writeGuard?.(dir);
    await this.folder.ports.fs.mkdirp(dir);
    await this.folder.ports.fs.writeFileAtomic(`${dir}/v${version}.md`, bytes);
    await this.folder.ports.fs.writeFileAtomic(`${dir}/v${version}.json`, encoder.encode(JSON.stringify(record) + '\n'));
    const kept = await this.snapshotVersions(id);
    for (const v of kept.slice(0, Math.max(0, kept.length - SNAPSHOTS_KEPT))) {
      await this.folder.ports.fs.removeFile(`${dir}/v${v}.md`).catch(() => undefined);
      await this.folder.ports.fs.removeFile(`${dir}/v${v}.json`).catch(() => undefined);
    }
  }

  /**
   * A review copy's record: its digest, and (with the approval keys port) the person's signature
   * of plan, version and digest. The copies live outside the workspace, but an agent runs as the
   * user and can write there too; a digest alone beside the copy would be rewritten with it.
   */
  private async copyRecord(id: string, version: number, text: string): Promise<CopyRecord> {
    const digest = textDigest(text);
    const port = this.folder.ports.approvals;
    if (!port) return { version, digest };
    const signer = port.recordSigner ? await port.recordSigner() : await port.signer();
    if (!signer) return { version, digest }; // a protected key no one unlocked: the digest alone
    return { version, digest, key: signer.key, sig: signer.sign(reviewCopyPayload({ id, version, digest })) };
  }

  /** Why a kept copy is not the text recorded for it when it was kept (undefined when it is). */
  private async copyChanged(id: string, version: number, text: string): Promise<string | undefined> {
    const raw = await this.folder.ports.fs.readFile(`${this.reviewsDir}/${id}/v${version}.json`).catch(() => undefined);
    let record: Partial<CopyRecord> | undefined;
    try {
      record = raw ? (JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as Partial<CopyRecord>) : undefined;
    } catch {
      record = undefined;
    }
    if (!record || typeof record !== 'object') return `v${version}'s copy has no record of its digest (kept by an older Pi Plans, or the record was removed), so it cannot be told from a rewritten one`;
    if (record.version !== version || record.digest !== textDigest(text)) return `v${version}'s copy is not the text kept when a person decided on it`;
    const port = this.folder.ports.approvals;
    if (!port) return undefined;
    const keyring = await port.keyring();
    if (record.key === undefined && record.sig === undefined && keyring.ownKeyProtected) return undefined; // kept while the key was locked
    const signed = typeof record.key === 'string' && typeof record.sig === 'string' && keyring.verify(reviewCopyPayload({ id, version, digest: record.digest }), record.sig, record.key) && keyring.trust(record.key)?.kind === 'own';
    return signed ? undefined : `v${version}'s copy and its record do not verify with your approval key`;
  }

  /** The versions of a plan that have a snapshot, oldest first. */
  async snapshotVersions(id: string): Promise<number[]> {
    this.folder.pathOf(id);
    if (!this.reviewsDir) return [];
    const names = await this.folder.ports.fs.readDir(`${this.reviewsDir}/${id}`).catch(() => [] as string[]);
    return names
      .map((n) => /^v(\d{1,9})\.md$/.exec(n)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /**
   * The snapshot of `version`, or of the latest decided version before `before` (by default the
   * latest one). Undefined when there is none, it cannot be read or it was changed: no
   * comparison, never an error.
   */
  async readSnapshot(id: string, opts: { version?: number; before?: number } = {}): Promise<{ version: number; text: string } | undefined> {
    const found = await this.findSnapshot(id, opts);
    return found && 'text' in found ? found : undefined;
  }

  /**
   * Like `readSnapshot`, but a kept version whose file does not read (unreadable, or not UTF-8:
   * corrupted) comes back as that version with the reason, and one that is not the text recorded
   * when it was kept (rewritten, its record missing or not verifying) with `changed` and why, so
   * a message can name it instead of saying that none is kept, or comparing with a copy that lies.
   * Never throws for a snapshot.
   */
  async findSnapshot(id: string, opts: { version?: number; before?: number } = {}): Promise<{ version: number; text: string } | { version: number; unreadable: string; changed?: boolean } | undefined> {
    const versions = await this.snapshotVersions(id);
    const v = opts.version ?? versions.filter((x) => opts.before === undefined || x < opts.before).at(-1);
    if (v === undefined || !versions.includes(v)) return undefined;
    const bytes = await this.folder.ports.fs.readFile(`${this.reviewsDir}/${id}/v${v}.md`).catch(() => undefined);
    if (!bytes) return { version: v, unreadable: 'its file could not be opened' };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return { version: v, unreadable: 'corrupted: its file is not valid UTF-8' };
    }
    // A copy that is not the plan's text of that version, or not the text recorded when it was
    // kept, was changed after it was kept: a comparison with it would lie ("no change"), so there is none.
    let fm: { id: string; version: number } | undefined;
    try {
      fm = frontmatterOfPlan(text);
    } catch {
      fm = undefined;
    }
    if (!fm || fm.id !== id || fm.version !== v) return { version: v, unreadable: `it is not ${id}'s text of v${v}`, changed: true };
    const changed = await this.copyChanged(id, v, text).catch((e: unknown) => `its record could not be checked (${e instanceof Error ? e.message : String(e)})`);
    if (changed) return { version: v, unreadable: changed, changed: true };
    return { version: v, text };
  }

  /**
   * Whether this project's submit put the plan up for review (core `submittedHere`: its log has a
   * `submitted` line). False when the log is missing or cannot be read: nothing says it was.
   */
  async submitted(id: string): Promise<boolean> {
    try {
      return submittedHere(await this.readCheckpoints(id));
    } catch {
      return false;
    }
  }

  /** The checkpoint log of a plan, oldest first. Lines that are not ours (pi-planner's) or are broken are skipped. */
  async readCheckpoints(id: string): Promise<Checkpoint[]> {
    this.folder.pathOf(id);
    const bytes = await this.folder.ports.fs.readFile(`${this.folder.sessionsDir}/${id}.jsonl`);
    if (!bytes) return [];
    const out: Checkpoint[] = [];
    for (const line of new TextDecoder().decode(bytes).split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = CheckpointSchema.safeParse(JSON.parse(line));
        if (r.success) out.push(r.data);
      } catch {
        /* a torn or foreign line: skip it */
      }
    }
    // In time order: a log merged by git's union driver holds one branch's lines, then the other's.
    return out.every((c, i) => !i || out[i - 1].at <= c.at) ? out : out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  /** Appends one event to `sessions/<id>.jsonl` (fsynced). */
  async checkpoint(id: string, cp: Omit<Checkpoint, 'plan' | 'at'>): Promise<void> {
    await this.folder.ports.fs.mkdirp(this.folder.sessionsDir);
    const path = `${this.folder.sessionsDir}/${id}.jsonl`;
    const line: Checkpoint = { type: cp.type, plan: id, at: this.folder.ports.clock.now().toISOString() };
    for (const k of ['version', 'step', 'status', 'note', 'actor', 'session'] as const) if (cp[k] !== undefined) (line as Record<string, unknown>)[k] = cp[k];
    let text = JSON.stringify(line) + '\n';
    // A writer that crashed mid-line left no line break: start on a fresh line so both survive.
    // Checked by reading the log only when it is not as our last append left it.
    const st = await this.folder.ports.fs.stat(path);
    if (st && st.size > 0 && this.logSizes.get(path) !== st.size) {
      const old = await this.folder.ports.fs.readFile(path);
      if (old && old.byteLength && old[old.byteLength - 1] !== 0x0a) text = '\n' + text;
    }
    const data = encoder.encode(text);
    await this.folder.ports.fs.appendFile(path, data);
    this.logSizes.set(path, (st?.size ?? 0) + data.byteLength);
  }


  /** A plan's checkpoint log, if it exists, must be a regular file (never a link or anything else). */
  async checkLog(id: string): Promise<void> {
    const path = `${this.folder.sessionsDir}/${id}.jsonl`;
    const st = await this.folder.ports.fs.stat(path);
    if (st && (st.isSymbolicLink || !st.isFile)) {
      throw new PlanError(st.isSymbolicLink ? 'UNSAFE_PATH' : 'NOT_A_FILE', `${this.folder.rel(path)} is ${describeKind(st.kind ?? (st.isSymbolicLink ? 'symlink' : 'other'))}, not the plan's checkpoint log: nothing was changed; remove it (a new log is started) and try again`, { file: this.folder.rel(path) });
    }
  }
}

/** A review copy's record (`v<N>.json` beside `v<N>.md`): its digest, signed with the person's key where there are keys. */
interface CopyRecord {
  version: number;
  digest: string;
  key?: string;
  sig?: string;
}
