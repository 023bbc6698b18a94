/**
 * The user's approval keys on this machine, kept in the user's configuration folder (never in a
 * workspace): an Ed25519 key pair that signs the person's approvals, the public keys of other
 * people whose approvals this user trusts, and the approvals made elsewhere that a person here
 * confirmed. Every face (the CLI, the MCP server, the VS Code extension) reads the same folder, so
 * an approval made in one is valid in the others.
 *
 * Files in the folder (`$XDG_CONFIG_HOME/pi-plans` or `~/.config/pi-plans`):
 * - `approval-key.pem`: the private key (PKCS#8, mode 0600), made on the first approval; after
 *   `pi-plans key --protect`, encrypted under the person's passphrase (src/node/ports/protectedKey.ts);
 * - `config.json`: `{ "name": "Ana", "trustedApprovers": [{ "name": "Bo", "key": "ed25519:…", "seal": "…" }], "agentMayApprove": false }`;
 * - `confirmed-approvals.json`: the signatures of approvals confirmed here, each with its seal.
 *
 * A seal is the own key's signature of a trust or a confirmation. While the key is protected only
 * sealed ones count: an agent that writes its own key into `config.json` gains nothing, as it
 * cannot sign a seal without the passphrase. (A plain key is readable by any process of the user,
 * so there a seal proves nothing, and entries count as they are.)
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, sign as signData, verify as verifyData } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DecisionLedger, decisionLedgerFile, recordDecision } from './decisionLedger';
import { isProtectedKey, protectedPublicKey, protectKey, publicKeyText, unlockKey } from './protectedKey';
import { folderInsideWorkspace, userConfigDir, userStateDir } from './userFolders';
import { ApprovalKeyring, ApprovalSigner, KEY_PATTERN, PlanError, shortKey, SIGNATURE_PATTERN } from '../../core';
import type { ApprovalKeysPort } from '../../store';

export { folderInsideWorkspace, userConfigDir, userStateDir } from './userFolders';

/** The user's configuration file, as far as Pi Plans reads it. */
export interface UserConfig {
  name?: string;
  agentMayApprove?: boolean;
  trustedApprovers?: { name?: string; key: string; seal?: string }[];
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** `config.json` of the folder, keeping only well-formed fields (a broken file is an empty one). */
export function readUserConfig(configDir: string): UserConfig {
  const raw = readJson(path.join(configDir, 'config.json'));
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const out: UserConfig = {};
  if (typeof r.name === 'string' && r.name.trim()) out.name = r.name.trim().slice(0, 100);
  if (r.agentMayApprove === true) out.agentMayApprove = true;
  if (Array.isArray(r.trustedApprovers)) {
    out.trustedApprovers = r.trustedApprovers
      .filter((t): t is { key: string; name?: unknown; seal?: unknown } => !!t && typeof t === 'object' && typeof (t as { key?: unknown }).key === 'string' && KEY_PATTERN.test((t as { key: string }).key))
      .map((t) => ({ key: t.key, ...(typeof t.name === 'string' ? { name: t.name.slice(0, 100) } : {}), ...(typeof t.seal === 'string' ? { seal: t.seal } : {}) }));
  }
  return out;
}

/** Writes a JSON file of the folder atomically (a temp file beside it, renamed), private to the user. */
function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** What a seal signs: a trust of `key` as `name`'s, or a confirmation of the approval signed `signature`. */
const trustSealed = (key: string, name: string | undefined) => `pi-plans trust v1\n${key}\n${name ?? ''}`;
const confirmSealed = (signature: string) => `pi-plans confirm v1\n${signature}`;

/** How a face asks the person for the key's passphrase (undefined: they gave none). Absent: no person can be asked. */
export interface KeyUnlock {
  passphrase(why: string): Promise<string | undefined>;
  /** Keep the unlocked key in this process's memory (VS Code: for the window's life). */
  keep?: boolean;
}

/** What a file's stat says of its contents (size, time, inode), or `-` when it is absent. */
function statStamp(st: fs.Stats | undefined): string {
  return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-';
}

/**
 * The sizes and modification times of the files a keyring is read from: a change of any makes a
 * new keyring. `blocking`: synchronous stats (a few microseconds each, for a process of its own:
 * the CLI, the MCP server); otherwise the pool's, so the extension host's thread never waits.
 */
async function stamp(files: readonly string[], blocking: boolean): Promise<string> {
  if (blocking) return files.map((f) => statStamp(fs.statSync(f, { throwIfNoEntry: false }))).join('|');
  const stats = await Promise.all(files.map((f) => fs.promises.stat(f).then(statStamp, () => '-')));
  return stats.join('|');
}

/** A keyring's `state`: the SHA-256 of everything its answers come from. */
function keyringState(items: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(['pi-plans keyring v1', ...items])).digest('hex');
}

/** How many confirmations are kept (the oldest go first). */
const CONFIRMATIONS_KEPT = 1000;

/**
 * The Node adapter of the approval keys port. `workspaces`: the folders this face works in; a
 * configuration folder inside one of them is refused (no approval is valid, none can be signed).
 */
export class NodeApprovalKeys implements ApprovalKeysPort {
  private readonly keyFile: string;
  private readonly configFile: string;
  private readonly confirmedFile: string;
  private cached: { stamp: string; keyring: ApprovalKeyring } | undefined;
  private readonly publicKeys = new Map<string, KeyObject | null>();
  private readonly verified = new Map<string, boolean>();
  private unlocked: { text: string; key: KeyObject } | undefined;

  constructor(
    readonly configDir: string,
    /** The folders this face works in (no user folder of Pi Plans may lie inside one). */
    readonly workspaces: () => readonly string[],
    /** Synchronous checks of the key files (a process of its own); the extension host passes false. */
    private readonly blocking = false,
    /** How the person unlocks a protected key here (a terminal, a modal); none where no person is (MCP, hooks). */
    private readonly unlock?: KeyUnlock,
  ) {
    this.keyFile = path.join(configDir, 'approval-key.pem');
    this.configFile = path.join(configDir, 'config.json');
    this.confirmedFile = path.join(configDir, 'confirmed-approvals.json');
  }

  /** Why this folder is not used, if it is not (it lies inside a workspace). */
  problem(): string | undefined {
    return folderInsideWorkspace(this.configDir, this.workspaces(), 'edit the approval key and the trusted approvers');
  }

  async keyring(): Promise<ApprovalKeyring> {
    const now = `${this.workspaces().join('\n')}#${await stamp([this.keyFile, this.configFile, this.confirmedFile], this.blocking)}`;
    if (this.cached?.stamp === now) return this.cached.keyring;
    const problem = this.problem();
    const own = problem ? undefined : this.ownPublic();
    const ownKey = own?.key;
    // While the key is protected, only what it sealed counts (see the top of this file).
    const sealed = (seal: string | undefined, payload: string) => !own?.protected || (!!seal && !!ownKey && this.verify(payload, seal, ownKey));
    const config = problem ? {} : readUserConfig(this.configDir);
    const trusted = new Map((config.trustedApprovers ?? []).filter((t) => sealed(t.seal, trustSealed(t.key, t.name))).map((t) => [t.key, t.name]));
    const confirmed = new Set(problem ? [] : this.confirmations().filter((c) => sealed(c.seal, confirmSealed(c.signature))).map((c) => c.signature));
    const keyring: ApprovalKeyring = {
      problem,
      state: keyringState([problem ?? '', ownKey ?? '', own?.protected ? 'protected' : 'plain', ...[...trusted].map(([k, n]) => `trusted ${k} ${n ?? ''}`).sort(), ...[...confirmed].map((c) => `confirmed ${c}`).sort()]),
      ownKeyProtected: own?.protected === true,
      verify: (payload, signature, key) => this.verify(payload, signature, key),
      trust: (key) => (key === ownKey ? { kind: 'own' } : trusted.has(key) ? { kind: 'trusted', name: trusted.get(key) } : undefined),
      confirmed: (signature) => confirmed.has(signature),
    };
    this.cached = { stamp: now, keyring };
    return keyring;
  }

  async signer(opts: { forAgent?: boolean } = {}): Promise<ApprovalSigner> {
    const problem = this.problem();
    if (problem) throw new PlanError('APPROVAL_INVALID', `approvals cannot be signed: ${problem}`);
    if (opts.forAgent && this.ownPublic()?.protected) {
      throw new PlanError('HUMAN_ONLY', "agents cannot approve while the person's approval key is protected by a passphrase (agentMayApprove has no effect then): a person approves the plan in VS Code or with `pi-plans approve` at their terminal. An agent reading this: ask the user to review the plan.");
    }
    const key = await this.privateKey('sign an approval');
    return this.signerOf(key);
  }

  /** A signer for records kept beside the plans (review copies): the key when it needs no one to unlock it, else none. */
  async recordSigner(): Promise<ApprovalSigner | undefined> {
    if (this.problem()) return undefined;
    const text = this.keyText();
    if (text !== undefined && isProtectedKey(text) && this.unlocked?.text !== text) return undefined;
    return this.signerOf(await this.privateKey('sign a record'));
  }

  private signerOf(key: KeyObject): ApprovalSigner {
    const name = readUserConfig(this.configDir).name ?? safeUserName();
    return { key: publicKeyText(key), approver: name, sign: (payload) => signData(null, Buffer.from(payload, 'utf8'), key).toString('base64url') };
  }

  async confirm(signature: string, about: { plan: string; approver: string; key: string }): Promise<void> {
    const problem = this.problem();
    if (problem) throw new PlanError('APPROVAL_INVALID', `the confirmation cannot be kept: ${problem}`);
    const seal = (await this.signer()).sign(confirmSealed(signature));
    const list = this.confirmations().filter((c) => c.signature !== signature);
    list.push({ signature, plan: about.plan, approver: about.approver, key: about.key, at: new Date().toISOString(), seal });
    writeJson(this.confirmedFile, { confirmed: list.slice(-CONFIRMATIONS_KEPT) });
    this.cached = undefined;
  }

  /** Trusts another person's key: their approvals are valid here without a confirmation. Sealed by the own key (unlocked by the person where it is protected). */
  async trust(key: string, name: string): Promise<void> {
    if (!KEY_PATTERN.test(key)) throw new PlanError('INVALID_INPUT', `"${key.slice(0, 60)}" is not an approval key: it is ed25519: and 43 characters, as \`pi-plans key\` prints it`);
    const problem = this.problem();
    if (problem) throw new PlanError('APPROVAL_INVALID', `the key cannot be trusted: ${problem}`);
    const seal = (await this.signer()).sign(trustSealed(key, name));
    const raw = readJson(this.configFile);
    const config = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const list = readUserConfig(this.configDir).trustedApprovers?.filter((t) => t.key !== key) ?? [];
    writeJson(this.configFile, { ...config, trustedApprovers: [...list, { name, key, seal }] });
    this.cached = undefined;
  }

  /** This user's public key and name (the key pair is made when `create`), and whether the key is protected. */
  identity(create: boolean): { key?: string; name: string; protected: boolean } {
    if (create && this.keyText() === undefined) this.makeKey();
    const own = this.ownPublic();
    return { key: own?.key, name: readUserConfig(this.configDir).name ?? safeUserName(), protected: own?.protected === true };
  }

  /**
   * Protects the key with `passphrase` (made first if there is none). Everything the plain key
   * counted (trusted keys, confirmations) is sealed with it, so it still counts: the person, who
   * protects the key, vouches for what it held. Returns how many entries were sealed.
   */
  protect(passphrase: string): { sealed: number } {
    const problem = this.problem();
    if (problem) throw new PlanError('APPROVAL_INVALID', `the key cannot be protected: ${problem}`);
    if (this.keyText() === undefined) this.makeKey();
    const text = this.keyText()!;
    if (isProtectedKey(text)) throw new PlanError('INVALID_INPUT', `your approval key is already protected (${this.keyFile}); to change the passphrase, run \`pi-plans key --unprotect\`, then \`pi-plans key --protect\``);
    if (passphrase.length < 8) throw new PlanError('INVALID_INPUT', 'choose a passphrase of at least 8 characters');
    const key = createPrivateKey(text);
    const sign = (payload: string) => signData(null, Buffer.from(payload, 'utf8'), key).toString('base64url');
    const config = readJson(this.configFile);
    const trusted = readUserConfig(this.configDir).trustedApprovers ?? [];
    if (trusted.length) writeJson(this.configFile, { ...(config as object), trustedApprovers: trusted.map((t) => ({ ...t, seal: sign(trustSealed(t.key, t.name)) })) });
    const confirmed = this.confirmations();
    if (confirmed.length) writeJson(this.confirmedFile, { confirmed: confirmed.map((c) => ({ ...c, seal: sign(confirmSealed(c.signature)) })) });
    writeKeyFile(this.keyFile, protectKey(key, passphrase));
    this.cached = undefined;
    return { sealed: trusted.length + confirmed.length };
  }

  /** Removes the passphrase (asked of the person first): the key is plain again. */
  async unprotect(): Promise<void> {
    const text = this.keyText();
    if (text === undefined || !isProtectedKey(text)) throw new PlanError('INVALID_INPUT', 'your approval key is not protected: nothing to do');
    const key = await this.privateKey('remove the passphrase of your approval key');
    writeKeyFile(this.keyFile, key.export({ format: 'pem', type: 'pkcs8' }) as string);
    this.unlocked = undefined;
    this.cached = undefined;
  }

  private confirmations(): { signature: string; plan?: string; approver?: string; key?: string; at?: string; seal?: string }[] {
    const raw = readJson(this.confirmedFile) as { confirmed?: unknown } | undefined;
    if (!raw || !Array.isArray(raw.confirmed)) return [];
    return raw.confirmed.filter((c): c is { signature: string } => !!c && typeof c === 'object' && typeof (c as { signature?: unknown }).signature === 'string' && SIGNATURE_PATTERN.test((c as { signature: string }).signature));
  }

  /** The key file's text (read without following a link: a planted link is not the user's key), or undefined when there is none. */
  private keyText(): string | undefined {
    try {
      return readKeyFile(this.keyFile);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new PlanError('APPROVAL_INVALID', `the approval key ${this.keyFile} cannot be read (${(e as Error).message}): remove it to make a new one (approvals it signed then need a person's approval again)`);
    }
  }

  /** The own public key, read without the passphrase, and whether the key is protected; undefined while there is no key. */
  private ownPublic(): { key: string; protected: boolean } | undefined {
    const text = this.keyText();
    if (text === undefined) return undefined;
    if (isProtectedKey(text)) return { key: protectedPublicKey(text, this.keyFile), protected: true };
    try {
      return { key: publicKeyText(createPrivateKey(text)), protected: false };
    } catch (e) {
      throw new PlanError('APPROVAL_INVALID', `the approval key ${this.keyFile} cannot be read (${(e as Error).message}): remove it to make a new one (approvals it signed then need a person's approval again)`);
    }
  }

  /** The private key: made on first use; a protected one unlocked by the person (`why` says for what), or refused where no person can be asked. */
  private async privateKey(why: string): Promise<KeyObject> {
    if (this.keyText() === undefined) this.makeKey();
    const text = this.keyText()!;
    if (!isProtectedKey(text)) return createPrivateKey(text);
    if (this.unlocked?.text === text) return this.unlocked.key;
    if (!this.unlock) {
      throw new PlanError('HUMAN_ONLY', `your approval key is protected by a passphrase, and no person is here to enter it, so nothing was signed. The person does this in VS Code, or with pi-plans at their own terminal. An agent reading this: ask the user; do not try to unlock the key.`);
    }
    const passphrase = await this.unlock.passphrase(why);
    if (!passphrase) throw new PlanError('HUMAN_ONLY', 'no passphrase was entered: nothing was signed');
    const key = unlockKey(text, passphrase, this.keyFile);
    if (this.unlock.keep) this.unlocked = { text, key };
    return key;
  }

  /** Makes the key pair (0600, never overwritten: a racing process's key is kept instead). */
  private makeKey(): void {
    fs.mkdirSync(this.configDir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    try {
      const fd = fs.openSync(this.keyFile, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
      try {
        fs.writeSync(fd, pem);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    this.cached = undefined;
  }

  private verify(payload: string, signature: string, key: string): boolean {
    if (!KEY_PATTERN.test(key) || !SIGNATURE_PATTERN.test(signature)) return false;
    const memo = `${key}\n${signature}\n${payload}`;
    const hit = this.verified.get(memo);
    if (hit !== undefined) return hit;
    let pub = this.publicKeys.get(key);
    if (pub === undefined) {
      try {
        pub = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.slice('ed25519:'.length) }, format: 'jwk' });
      } catch {
        pub = null;
      }
      this.publicKeys.set(key, pub);
    }
    let ok: boolean;
    try {
      ok = !!pub && verifyData(null, Buffer.from(payload, 'utf8'), pub, Buffer.from(signature, 'base64url'));
    } catch {
      ok = false;
    }
    if (this.verified.size > 2000) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(memo, ok);
    return ok;
  }
}

/** Reads the key file without following a link (a planted link is not the user's key). */
function readKeyFile(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces the key file atomically (a private temp file beside it, renamed over it). */
function writeKeyFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** The login name, or "someone" where the system has none. */
function safeUserName(): string {
  try {
    return os.userInfo().username || 'someone';
  } catch {
    return 'someone';
  }
}

/** A key for messages: `ed25519:AbCd…` (re-exported for the faces). */
export { shortKey };

/** The folder, in the user's state folder, where a workspace's review copies are kept (by the workspace's real path). */
export function reviewCopiesDir(root: string, stateDir = userStateDir()): string {
  let real = path.resolve(root);
  try {
    real = fs.realpathSync(real);
  } catch {
    /* a workspace not made yet: its path as given */
  }
  return path.join(stateDir, 'reviews', createHash('sha256').update(real).digest('hex').slice(0, 16)).split(path.sep).join('/');
}

/**
 * The ports a store needs from the user's folders (outside the workspace): the approval keys, and
 * where review copies go. A state folder that resolves inside the workspace (or another one this
 * face works in) is refused like the configuration folder: no copy is kept or read there, and
 * `reviewCopiesProblem` says why.
 */
export function userPorts(root: string, keys: NodeApprovalKeys = new NodeApprovalKeys(userConfigDir(), () => [root], true), stateDir = userStateDir()): { approvals: ApprovalKeysPort; reviewCopies?: string; reviewCopiesProblem?: string } {
  const problem = folderInsideWorkspace(stateDir, [root, ...keys.workspaces()], 'rewrite the review copies a reviewer compares with', 'state');
  return problem ? { approvals: keys, reviewCopiesProblem: problem } : { approvals: withDecisions(keys, decisionLedgerFile(root, stateDir)), reviewCopies: reviewCopiesDir(root, stateDir) };
}

/**
 * The keys, for the store of one workspace, with that workspace's record of the person's
 * decisions (src/node/ports/decisionLedger.ts): its keyring voids approvals a later decision undid, and
 * the store records each decision there. The keyring is the same object while neither the keys
 * nor the record changed (the store's caches key on it).
 */
function withDecisions(keys: NodeApprovalKeys, file: string): ApprovalKeysPort {
  let cached: { base: ApprovalKeyring; stamp: string; keyring: ApprovalKeyring } | undefined;
  return {
    async keyring() {
      const base = await keys.keyring();
      const now = await stamp([file], false);
      if (cached?.base === base && cached.stamp === now) return cached.keyring;
      const ledger = await DecisionLedger.read(file);
      const keyring: ApprovalKeyring = { ...base, superseded: (plan, approval) => ledger.superseded(plan, approval), ...(base.state !== undefined ? { state: keyringState([base.state, `decisions ${ledger.digest}`]) } : {}) };
      cached = { base, stamp: now, keyring };
      return keyring;
    },
    signer: (opts) => keys.signer(opts),
    recordSigner: () => keys.recordSigner(),
    confirm: (signature, about) => keys.confirm(signature, about),
    async recordDecision(d) {
      await recordDecision(file, d);
      cached = undefined;
    },
  };
}
