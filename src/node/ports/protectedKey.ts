/**
 * The approval key at rest, plain or protected by the person's passphrase. A protected key file
 * is an encrypted PKCS#8 PEM (Node's crypto reads it) whose passphrase is not the person's own but
 * scrypt of it: an agent that reads the file must run scrypt for every guess. Three header lines
 * before the PEM say so, and carry the public key, so approvals verify without the passphrase:
 *
 *     Pi-Plans-Key: protected
 *     Public-Key: ed25519:<base64url>
 *     KDF: scrypt N=131072 r=8 p=1 salt=<base64url>
 *     -----BEGIN ENCRYPTED PRIVATE KEY-----
 */
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, scryptSync } from 'node:crypto';
import { PlanError } from '../../core';
import { isProtectedKey, PROTECTED_KEY_MARK } from './keyFormat';

const MARK = PROTECTED_KEY_MARK;
/** scrypt's cost: 128 MiB and a few tenths of a second per try. */
const COST = { N: 131072, r: 8, p: 1 };
const MAX_MEM = 256 * 1024 * 1024;

/** The public key of a private key, as records write it: `ed25519:<base64url>`. */
export function publicKeyText(key: KeyObject): string {
  return `ed25519:${createPublicKey(key).export({ format: 'jwk' }).x}`;
}

export { isProtectedKey };

interface Header {
  publicKey: string;
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  pem: string;
}

function header(text: string, file: string): Header {
  const m = /^Pi-Plans-Key: protected\nPublic-Key: (ed25519:[A-Za-z0-9_-]{43})\nKDF: scrypt N=(\d+) r=(\d+) p=(\d+) salt=([A-Za-z0-9_-]{22,})\n(-----BEGIN ENCRYPTED PRIVATE KEY-----\n[\s\S]*)$/.exec(text);
  if (!m) throw new PlanError('APPROVAL_INVALID', `the approval key ${file} is marked protected but its header is not readable: restore it from a backup, or remove it to make a new key (approvals it signed then need a person's approval again)`);
  const [N, r, p] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (N > 1 << 20 || r > 32 || p > 16) throw new PlanError('APPROVAL_INVALID', `the approval key ${file} asks for a key derivation too costly to run (scrypt N=${N} r=${r} p=${p})`);
  return { publicKey: m[1], N, r, p, salt: Buffer.from(m[5], 'base64url'), pem: m[6] };
}

/** The public key a protected key file names (read without the passphrase). */
export function protectedPublicKey(text: string, file: string): string {
  return header(text, file).publicKey;
}

/** What the PKCS#8 encryption is keyed with: scrypt of the person's passphrase. */
function derived(passphrase: string, h: Pick<Header, 'N' | 'r' | 'p' | 'salt'>): string {
  return scryptSync(passphrase.normalize('NFC'), h.salt, 32, { N: h.N, r: h.r, p: h.p, maxmem: MAX_MEM }).toString('base64url');
}

/** The protected form of `key` under `passphrase`. */
export function protectKey(key: KeyObject, passphrase: string): string {
  const h = { ...COST, salt: randomBytes(16) };
  const pem = key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: derived(passphrase, h) }) as string;
  return `${MARK}\nPublic-Key: ${publicKeyText(key)}\nKDF: scrypt N=${h.N} r=${h.r} p=${h.p} salt=${h.salt.toString('base64url')}\n${pem}`;
}

/**
 * The private key of a protected key file, unlocked with `passphrase`. A wrong passphrase, or a
 * file whose key is not the public key it names, is refused (PlanError).
 */
export function unlockKey(text: string, passphrase: string, file: string): KeyObject {
  const h = header(text, file);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: h.pem, format: 'pem', passphrase: derived(passphrase, h) });
  } catch {
    throw new PlanError('HUMAN_ONLY', `that is not the passphrase of your approval key (${file}): nothing was signed. Try again; a forgotten passphrase cannot be recovered (remove the key to make a new one, and approve again what it signed)`);
  }
  if (publicKeyText(key) !== h.publicKey) throw new PlanError('APPROVAL_INVALID', `the approval key ${file} does not hold the key its header names: restore it from a backup, or remove it to make a new key`);
  return key;
}
