/**
 * How the person's approval key file says it is protected by a passphrase: its first line. A leaf
 * the agent hook reads keys with (no crypto, no core): a cache keyed by a protected key's file is
 * keyed by bytes an agent can read, so it may only ever make an answer more restrictive.
 */

/** The first line of a protected key file. */
export const PROTECTED_KEY_MARK = 'Pi-Plans-Key: protected';

/** True when the key file's text is a protected key. */
export function isProtectedKey(text: string): boolean {
  return text.startsWith(`${PROTECTED_KEY_MARK}\n`);
}
