/**
 * The store's ports on Node, floor 3: the file system (nodeFileSystem: atomic writes, no link
 * followed), the cross-process lock (nodeLock), the watcher, the approval keys and the user's state
 * folder (approvalKeys), the outline cache on disk and the off-thread Markdown parser. openNodeStore
 * builds a PlanStore on them for the CLI and the MCP server; VS Code's workspace/ room builds its
 * stores on nodePorts with its own watcher. See docs/architecture.md.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { PlanStore, StorePorts, IndexCachePort } from '../store';
import { NodeFileSystem } from './nodeFileSystem';
import { NodeLock } from './nodeLock';
import { PersistedOutlines } from './persistedOutlines';
import { KeyUnlock, NodeApprovalKeys, userConfigDir, userPorts } from './approvalKeys';
import { cacheHome } from './userFolders';
import { NodeEvidence } from './stepEvidence';
import { ApprovalVerdicts } from './approvalVerdicts';

export { cacheHome } from './userFolders';

export { NodeFileSystem } from './nodeFileSystem';
export { clearPlanLock, lockPathOf, NodeLock, readPlanLock, type LockOwner, type LockReclaim, type PlanLockState } from './nodeLock';
export { NodeWatcher } from './nodeWatcher';
export { OffThreadParser } from './offThreadParser';
export { PersistedOutlines } from './persistedOutlines';
export { ApprovalVerdicts, verdictsFile } from './approvalVerdicts';
export { NodeEvidence, type SessionReports } from './stepEvidence';
export { GitEvidence, NotRecorded, pinRef, type TreeChange } from './gitEvidence';
export { folderInsideWorkspace, NodeApprovalKeys, readUserConfig, reviewCopiesDir, userConfigDir, userPorts, userStateDir, type KeyUnlock } from './approvalKeys';

/** The warm-start index of a workspace, kept in the user's cache folder (never in the repository). */
export function fileIndexCache(root: string, cacheDir = cacheHome()): IndexCachePort {
  const file = path.join(cacheDir, `${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16)}.json`);
  return {
    load: () => fs.promises.readFile(file, 'utf8').catch(() => undefined),
    save: async (data) => {
      await fs.promises.mkdir(cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, file);
    },
  };
}

/**
 * Node ports: real file system, proper-lockfile locks, the system clock, crypto randomness, and
 * the user's folders outside the workspace: the approval keys (`keys`, one shared by the stores
 * of a process when given), where review copies are kept, and the approval verdicts kept in the
 * user's cache (`verdicts: false`: none, each process checks an approval itself). `blocking: false` for a process
 * other code shares (the extension host): no synchronous I/O. Every write and delete stays inside
 * `root`, the review copies' folder or one of `extraRoots`, never through a linked folder.
 */
export function nodePorts(root: string, opts: { indexCache?: boolean; blocking?: boolean; extraRoots?: readonly string[]; keys?: NodeApprovalKeys; evidence?: boolean; verdicts?: boolean } = {}): StorePorts {
  const keys = opts.keys ?? new NodeApprovalKeys(userConfigDir(), () => [root], opts.blocking ?? true);
  const user = userPorts(root, keys);
  const files = new NodeFileSystem({ blocking: opts.blocking, roots: [path.resolve(root), ...(user.reviewCopies ? [user.reviewCopies] : []), ...(opts.extraRoots ?? [])] });
  return {
    fs: files,
    lock: new NodeLock({ blocking: opts.blocking, sweeper: files }),
    clock: { now: () => new Date() },
    random: { hex8: () => randomBytes(4).toString('hex') },
    indexCache: opts.indexCache === false ? undefined : fileIndexCache(root),
    evidence: opts.evidence === false ? undefined : new NodeEvidence(root),
    verdicts: opts.verdicts === false ? undefined : new ApprovalVerdicts(root, cacheHome(), path.join(keys.configDir, 'approval-key.pem')),
    ...user,
  };
}

/**
 * Opens the plan store of a workspace folder with Node ports, for a short-lived process (the CLI)
 * or one that starts cold (the MCP server): outlines of large plans are kept in the user's cache
 * (`PersistedOutlines`), so the next process that touches the plan needs no Markdown parse.
 */
export function openNodeStore(root: string, opts: { indexCache?: boolean; index?: boolean | 'lazy'; unlock?: KeyUnlock } = {}): Promise<PlanStore> {
  const abs = path.resolve(root).split(path.sep).join('/');
  const keys = opts.unlock ? new NodeApprovalKeys(userConfigDir(), () => [abs], true, opts.unlock) : undefined;
  const ports = (o: { indexCache?: boolean }) => ({ ...nodePorts(abs, { ...o, keys }), parser: new PersistedOutlines(path.join(cacheHome(), 'outlines')) });
  // Work on named plans needs no index (nor its cache); a lazy store builds it when asked.
  if (opts.index === false) return PlanStore.openForPlans(abs, ports({ ...opts, indexCache: false }));
  if (opts.index === 'lazy') return PlanStore.openLazily(abs, ports(opts));
  return PlanStore.open(abs, ports(opts));
}
export { checksDir, readPlanState, TAIL_LINES, type CheckRun, type DriftBase, type PlanState } from './planChecks';
export { acknowledgeDrift, lastDrift, lookForDrift, recordDriftBase, type DriftLook } from './planDrift';
export { checkStandings, checkTail, planWorkFacts, verifyPlan, type CheckResult, type VerifyOptions } from './planVerify';
