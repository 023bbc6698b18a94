/**
 * The store's approval verdicts kept between processes (the `verdicts` port): where a plan's
 * approval stands, for exactly one plan file's bytes (their SHA-256) under one keyring (its
 * `state`: the keys, trust, confirmations and decisions it answers from), so that a list of
 * approved and executing plans parses each plan once per file version and machine, not once per
 * process. One file per workspace, `approval-verdicts/<hash of its real path>.json` in the user's
 * cache folder (never in a workspace: a cache folder that resolves inside this one keeps nothing).
 *
 * The verdict is a security decision, and an agent runs as the user: it can write this folder,
 * read what the user can read, and run this code. So an entry counts only when it names this
 * workspace, this plan, these exact bytes and this keyring's state, and its MAC verifies; and a
 * `valid` verdict counts only when the MAC's secret is the person's **plain** approval key (its
 * file's digest). Whoever reads a plain key can sign an approval of any text outright, so an
 * entry they forge gives them no power they had not got already. A key protected by a passphrase
 * (or no key) leaves no secret an agent cannot read: then a kept `valid` is never read back, and
 * the cache only ever makes an answer more restrictive (a kept `changed`, `foreign` or `invalid`
 * is a warning the agent could raise anyway, by editing the plan). A file that is a link, not a
 * plain file, too large, not JSON, or of another shape is not read; a link in place of the folder
 * keeps nothing.
 */
import { createHash, createHmac, createPrivateKey, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApprovalStanding } from '../../core';
import type { ApprovalVerdictsPort } from '../../store';
import { isProtectedKey } from './protectedKey';
import { realPathOf } from './userFolders';
import { flushAtExit, flushedBeforeExit } from './exitFlush';

type Verdict = ApprovalStanding['state'];

/** The verdicts kept (`none` is never a governed plan's, so never kept). */
const KEPT_STATES: ReadonlySet<string> = new Set(['valid', 'foreign', 'changed', 'invalid']);
/** Entries kept per workspace (the ones written longest ago go first): about 250 bytes each. */
export const VERDICTS_KEPT = 20_000;
/** A larger file is not read (VERDICTS_KEPT entries take about 5 MB). */
const MAX_BYTES = 8 * 1024 * 1024;
/** A key file is a few hundred bytes; a larger one is not the person's key. */
const MAX_KEY_BYTES = 64 * 1024;
/** Verdicts are written once the store has been quiet this long, or when the process is about to exit. */
const QUIET_MS = 200;

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** One kept verdict: the SHA-256 of the file's bytes, the keyring's state, the verdict and its MAC (hex). */
type Entry = [sha: string, state: string, verdict: Verdict, mac: string];

/** The MAC's secret, and whether it is private to the person (their plain key) or something any process of the user can read. */
interface Secret {
  key: Buffer;
  private: boolean;
}

/**
 * The secret verdicts are signed with, from the approval key file's text (undefined: no key):
 * private only for a plain key, the one case where whoever can read it can sign approvals anyway.
 */
export function verdictSecret(keyText: string | undefined): Secret {
  const key = createHash('sha256').update('pi-plans approval verdicts v1\0').update(keyText ?? '').digest();
  if (keyText === undefined || isProtectedKey(keyText)) return { key, private: false };
  try {
    createPrivateKey(keyText);
    return { key, private: true };
  } catch {
    // Not a key this machine can sign with (an encrypted PEM, garbage): nothing private about it.
    return { key, private: false };
  }
}

/** The MAC of one verdict: what it is about (workspace, plan, bytes, keyring) and what it says. */
export function verdictMac(secret: Buffer, realRoot: string, id: string, sha: string, state: string, verdict: string): string {
  return createHmac('sha256', secret).update(JSON.stringify(['pi-plans approval verdict v1', realRoot, id, sha, state, verdict])).digest('hex');
}

/** The verdicts file of the workspace at `root` (by its real path) in the cache folder. */
export function verdictsFile(root: string, cacheDir: string): string {
  return path.join(cacheDir, 'approval-verdicts', `${createHash('sha256').update(realPathOf(root)).digest('hex').slice(0, 16)}.json`);
}

/**
 * The Node adapter of the verdicts port for one workspace. Never throws: a verdict it cannot read
 * or keep is checked again by the store, as without it.
 */
export class ApprovalVerdicts implements ApprovalVerdictsPort {
  private readonly realRoot: string;
  private readonly file: string;
  /** Why nothing is kept (the cache folder is inside the workspace); undefined when verdicts are kept. */
  readonly problem: string | undefined;
  private loaded: Promise<Map<string, Entry>> | undefined;
  /** Entries this process made, written at the next flush. */
  private readonly fresh = new Map<string, Entry>();
  private readonly secrets = new Map<string, Promise<Secret>>();
  private readonly shas = new WeakMap<Uint8Array, string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Verdicts being kept (their secret being read). */
  private readonly putting = new Set<Promise<void>>();

  constructor(
    root: string,
    cacheDir: string,
    /** The person's approval key file (NodeApprovalKeys' own `approval-key.pem`). */
    private readonly keyFile: string,
  ) {
    this.realRoot = realPathOf(root);
    this.file = verdictsFile(root, cacheDir);
    const dir = realPathOf(path.dirname(this.file));
    const inside = dir === this.realRoot || dir.startsWith(this.realRoot.endsWith(path.sep) ? this.realRoot : this.realRoot + path.sep);
    this.problem = inside ? `no approval verdicts are kept: the cache folder (${cacheDir}) is inside the workspace, where an agent could write them` : undefined;
  }

  async get(id: string, bytes: Uint8Array, state: string): Promise<Verdict | undefined> {
    if (this.problem) return undefined;
    try {
      const e = this.fresh.get(id) ?? (await this.load()).get(id);
      if (!e || e[0] !== this.sha(bytes) || e[1] !== state || !KEPT_STATES.has(e[2])) return undefined;
      const secret = await this.secret(state);
      // No secret an agent cannot read: a kept verdict may only make the answer more restrictive.
      if (e[2] === 'valid' && !secret.private) return undefined;
      const want = Buffer.from(verdictMac(secret.key, this.realRoot, id, e[0], state, e[2]), 'hex');
      const got = Buffer.from(e[3], 'hex');
      return got.length === want.length && timingSafeEqual(got, want) ? e[2] : undefined;
    } catch {
      return undefined;
    }
  }

  put(id: string, bytes: Uint8Array, state: string, verdict: Verdict): void {
    if (this.problem || !KEPT_STATES.has(verdict)) return;
    const sha = this.sha(bytes);
    const kept = this.secret(state)
      .then((secret) => {
        if (verdict === 'valid' && !secret.private) return; // never read back: not worth a line
        this.fresh.set(id, [sha, state, verdict, verdictMac(secret.key, this.realRoot, id, sha, state, verdict)]);
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.flush(), QUIET_MS);
        this.timer.unref();
      })
      .catch(() => undefined)
      .finally(() => this.putting.delete(kept));
    this.putting.add(kept);
    flushAtExit(this);
  }

  /** Writes the verdicts this process made, merged into what the file holds now (another process may have written since). */
  async flush(): Promise<void> {
    await Promise.all(this.putting);
    clearTimeout(this.timer);
    flushedBeforeExit(this);
    if (!this.fresh.size) return;
    const mine = [...this.fresh];
    this.fresh.clear();
    try {
      const dir = path.dirname(this.file);
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      const st = await fs.promises.lstat(dir);
      if (st.isSymbolicLink() || !st.isDirectory()) return;
      const entries = await this.readFile();
      for (const [id, e] of mine) {
        entries.delete(id); // re-inserted last: the newest go last, the oldest first out
        entries.set(id, e);
      }
      const kept = [...entries].slice(-VERDICTS_KEPT);
      this.loaded = Promise.resolve(new Map(kept));
      const tmp = path.join(dir, `.${path.basename(this.file)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
      const fh = await fs.promises.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        await fh.writeFile(JSON.stringify({ v: 1, root: this.realRoot, entries: Object.fromEntries(kept) }));
      } finally {
        await fh.close();
      }
      await fs.promises.rename(tmp, this.file);
    } catch {
      // A cache: a verdict not kept is checked again by the next process, nothing else.
    }
  }

  private sha(bytes: Uint8Array): string {
    let s = this.shas.get(bytes);
    if (s === undefined) {
      s = createHash('sha256').update(bytes).digest('hex');
      this.shas.set(bytes, s);
    }
    return s;
  }

  /** The secret for a keyring state, read once per state (a new key, or the key protected, is a new state). */
  private secret(state: string): Promise<Secret> {
    let s = this.secrets.get(state);
    if (!s) {
      s = readPlain(this.keyFile, MAX_KEY_BYTES).then(verdictSecret);
      this.secrets.set(state, s);
      if (this.secrets.size > 8) this.secrets.delete(this.secrets.keys().next().value as string);
    }
    return s;
  }

  private load(): Promise<Map<string, Entry>> {
    this.loaded ??= this.readFile();
    return this.loaded;
  }

  /** The entries the file holds, when it is a plain file of this workspace's of the right shape; none otherwise. */
  private async readFile(): Promise<Map<string, Entry>> {
    const out = new Map<string, Entry>();
    const dir = await fs.promises.lstat(path.dirname(this.file)).catch(() => undefined);
    if (!dir || dir.isSymbolicLink() || !dir.isDirectory()) return out;
    const text = await readPlain(this.file, MAX_BYTES);
    if (text === undefined) return out;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return out;
    }
    const d = data as { v?: unknown; root?: unknown; entries?: unknown };
    if (!d || typeof d !== 'object' || d.v !== 1 || d.root !== this.realRoot || !d.entries || typeof d.entries !== 'object' || Array.isArray(d.entries)) return out;
    for (const [id, e] of Object.entries(d.entries as Record<string, unknown>)) {
      if (Array.isArray(e) && e.length === 4 && e.every((x) => typeof x === 'string') && KEPT_STATES.has(e[2] as string)) out.set(id, e as Entry);
    }
    return out;
  }
}

/** A regular file's text, without following a link or waiting on a FIFO; undefined for none, a link, a special file or one over `maxBytes`. */
async function readPlain(file: string, maxBytes: number): Promise<string | undefined> {
  let fh: fs.promises.FileHandle | undefined;
  try {
    fh = await fs.promises.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const st = await fh.stat();
    if (!st.isFile() || st.size > maxBytes) return undefined;
    return await fh.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}
