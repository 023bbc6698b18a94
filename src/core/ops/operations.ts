/**
 * The plan operations: pure functions from a document (and who acts, when) to the text to write.
 * Each returns an `OpResult`; the store writes it under the plan's lock. By job: what every
 * operation shares (`opsShared`), content edits (`contentOps`), review (`reviewOps`), execution
 * and detection (`executionOps`).
 */
export * from './opsShared';
export * from './contentOps';
export * from './reviewOps';
export * from './executionOps';
export * from './checkOps';
