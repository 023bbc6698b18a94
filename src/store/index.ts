/**
 * The workspace plan store, floor 2: no vscode, no fs (the faces hand it ports). PlanStore is the
 * one entry point, a facade over its rooms: planFolder (the folder and its checked reads),
 * folderIndex + folderScan + following (the index, scanning and following the folder, the index
 * cache), writePath (create and update under the lock, atomic writes, clone), history (review
 * copies and their signed records, the checkpoint log, archive) and attention (stalls, approval
 * standing, confirmations). ports names what the store needs; planIndex and indexEntry are the
 * index's data. See docs/architecture.md.
 */
export * from './ports';
export * from './planIndex';
export * from './planStore';
