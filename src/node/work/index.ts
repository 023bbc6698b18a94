/**
 * What the work did, as facts every face shows: each step's change from git snapshots of the
 * working tree (with the hooks' step reports), the steps' checks and their records, drift since
 * approval, and `pi-plans verify`. Stands on ports/ (the user's folders, plain files).
 */
export { NodeEvidence, type SessionReports } from './stepEvidence';
export { GitEvidence, NotRecorded, pinRef, type TreeChange } from './gitEvidence';
export { checksDir, readPlanState, TAIL_LINES, type CheckRun, type DriftBase, type PlanState } from './planChecks';
export { acknowledgeDrift, lastDrift, lookForDrift, recordDriftBase, type DriftLook } from './planDrift';
export { checkStandings, checkTail, planWorkFacts, verifyPlan, type CheckResult, type VerifyOptions } from './planVerify';
