/**
 * How well each host's sessions in a workspace are kept to their plans, as `pi-plans hook status`
 * and the plan explorer say it: "sealed" (the host's own sandbox keeps the agent from the approval
 * key and from writing .pi/, and the hooks enforce the plan), "hooks only" (the hooks enforce the
 * plan, by reading each call: a tripwire an agent with a shell may find a way past), or
 * "unprotected" (no hook of ours in the host's files: a binding is kept, and nothing checks it).
 * Read from the files setup writes, as they are now; never written.
 */
import { HOSTS } from '../hosts';
import { AGENT_HOSTS, type AgentHost } from '../setup/targets';
import { sealRefusal } from '../setup/seal';
import { userConfigDir } from '../../node/ports/userFolders';
import { NodeApprovalKeys } from '../../node/ports/approvalKeys';
import { hooksSetUp, runAgentSetup } from './apply';
import { type UserFolders, userFolders } from './folders';
import { nodeSealSystem, type SealSystem } from './seal';
import type { Protection } from '../setup/protection';

export { PROTECTION_WORDS, type Protection } from '../setup/protection';

/**
 * Whether the host's seal is in place for the workspace: its sandbox can start here, and
 * `setup --seal` would change nothing in the file that holds it (every path it denies, as this
 * machine's folders are now). A dry run: nothing is written.
 */
export function sealInPlace(host: AgentHost, workspace: string, folders: UserFolders, system: SealSystem): boolean {
  const profile = HOSTS[host];
  if (!profile.sandbox || sealRefusal(profile, 'workspace', system.platform, system.onPath)) return false;
  try {
    const report = runAgentSetup({ agent: host, scope: 'workspace', hooks: false, mcp: false, command: ['pi-plans'], workspace, remove: false, dryRun: true, seal: true }, folders, system);
    const seal = report.files.filter((f) => f.kind === 'seal');
    return seal.length > 0 && seal.every((f) => f.status === 'unchanged');
  } catch {
    return false; // a file that does not parse, a link out of the workspace: not a seal to count on
  }
}

/** Each host's protection in a workspace (its sessions there: hooks at either scope, the seal at workspace scope). */
export function protectionByHost(workspace: string, folders: UserFolders = userFolders(), system: SealSystem = nodeSealSystem()): Record<AgentHost, Protection> {
  const hooked = new Set(hooksSetUp(workspace, folders).map((h) => h.host));
  const out = {} as Record<AgentHost, Protection>;
  for (const host of AGENT_HOSTS) out[host] = !hooked.has(host) ? 'unprotected' : sealInPlace(host, workspace, folders, system) ? 'sealed' : 'hooks only';
  return out;
}

/** Whether the person's approval key is protected with a passphrase (false: none yet, a plain one, or one that cannot be read). */
export function approvalKeyProtected(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return new NodeApprovalKeys(userConfigDir(env), () => [], true).identity(false).protected;
  } catch {
    return false;
  }
}
