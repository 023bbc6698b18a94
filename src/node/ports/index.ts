/**
 * The store's ports on Node: the file system (atomic writes, no link followed), the cross-process
 * lock, the watcher, the approval keys and the person's decisions, the caches kept in the user's
 * folders (index, outlines, approval verdicts) and the off-thread Markdown parser.
 */
export { cacheHome } from './userFolders';
export { NodeFileSystem } from './nodeFileSystem';
export { clearPlanLock, lockPathOf, NodeLock, readPlanLock, type LockOwner, type LockReclaim, type PlanLockState } from './nodeLock';
export { NodeWatcher } from './nodeWatcher';
export { OffThreadParser } from './offThreadParser';
export { PersistedOutlines } from './persistedOutlines';
export { ApprovalVerdicts, verdictsFile } from './approvalVerdicts';
export { folderInsideWorkspace, NodeApprovalKeys, readUserConfig, reviewCopiesDir, userConfigDir, userPorts, userStateDir, type KeyUnlock } from './approvalKeys';
