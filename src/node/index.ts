/**
 * Node under the store, floor 3, in two rooms: ports/ (files, lock, watcher, keys, caches, the
 * parser thread) and work/ (evidence, checks, drift, verify), which stands on ports/; gcRecords
 * (what `pi-plans gc` lists and removes) stands on both. openNodeStore builds a PlanStore on the
 * ports for the CLI and the MCP server; VS Code's workspace/ room builds its stores on nodePorts
 * with its own watcher. See docs/architecture.md.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { useSha256 } from '../core';
import { PlanStore, StorePorts, IndexCachePort } from '../store';
import { NodeFileSystem } from './ports/nodeFileSystem';
import { NodeLock } from './ports/nodeLock';
import { PersistedOutlines } from './ports/persistedOutlines';
import { KeyUnlock, NodeApprovalKeys, userConfigDir, userPorts } from './ports/approvalKeys';
import { cacheHome } from './ports/userFolders';
import { NodeEvidence } from './work/stepEvidence';
import { ApprovalVerdicts } from './ports/approvalVerdicts';

export * from './ports';
export * from './work';

// The core's digests on Node: its own SHA-256 (the same bytes as the core's pure one, 20x faster).
useSha256((bytes) => createHash('sha256').update(bytes).digest());

/** The warm-start index of a workspace, kept in the user's cache folder (never in the repository). */
export function fileIndexCache(root: string, cacheDir = cacheHome()): IndexCachePort {
  const file = path.join(cacheDir, `${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16)}.json`);
  return {
    // Read whole, then decoded once: read as text, the file came in pieces joined again (two copies of it).
    load: () => fs.promises.readFile(file).then((bytes) => bytes.toString('utf8'), () => undefined),
    save: async (parts) => {
      await fs.promises.mkdir(cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      // Each part written as it comes (writeFile takes them from the iterable one at a time).
      await fs.promises.writeFile(tmp, parts);
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
