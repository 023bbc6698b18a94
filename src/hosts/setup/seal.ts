/**
 * `pi-plans setup --seal`: whether a host can be sealed here, and why not. Pure: the caller says
 * which programs are on the PATH (src/hosts/install/seal.ts). A sealed host runs the agent's
 * tools and commands in its own OS sandbox, set so they cannot read Pi Plans' folders (the
 * approval key) nor write .pi/ and the files setup wrote; the hook and the MCP server, which the
 * host runs outside that sandbox, stay the only writers of .pi/.
 */
import type { HostProfile } from '../host';
import { HOST_NAMES, type SetupScope } from './targets';

/** What an agent that cannot be sealed falls back on: a key it cannot sign with. */
export const PROTECT_KEY = 'pi-plans key --protect';

/**
 * Why `--seal` cannot be done for this host, scope and platform (undefined: it can). `onPath`
 * tells whether a program is on the PATH. Each message says what to do instead; for a host whose
 * own sandbox was measured and found unfit, why (HostProfile.unsealable).
 */
export function sealRefusal(host: HostProfile, scope: SetupScope, platform: string, onPath: (program: string) => boolean): string | undefined {
  const name = HOST_NAMES[host.id];
  if (!host.sandbox) {
    const why = host.unsealable ?? 'Pi Plans cannot set its sandbox to keep the agent away from the approval key and .pi/';
    return `${name} cannot be sealed yet: ${why}. Run setup without --seal, and protect the approval key with a passphrase: ${PROTECT_KEY} (an agent that reads the key file cannot sign with it). Nothing was written.`;
  }
  if (scope !== 'workspace') {
    return `--seal works at workspace scope only: the seal names this workspace's .pi/ and the files setup writes in it. Run setup --seal in each workspace, without --scope user. Nothing was written.`;
  }
  const here = host.sandbox.platforms[platform];
  if (!here) return `${name} cannot be sealed on ${platform}: ${host.sandbox.elsewhere}. Nothing was written.`;
  const missing = here.programs.filter((p) => !onPath(p));
  if (missing.length) {
    const list = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : xs[0]);
    return `${name}'s sandbox needs ${list(here.programs)} on the PATH, and ${list(missing)} ${missing.length > 1 ? 'are' : 'is'} not there: install ${here.install ? `them (${here.install})` : 'them'}, then run setup --seal again. Nothing was written: without them the host would refuse to start sealed, so it is not called sealed.`;
  }
  return undefined;
}
