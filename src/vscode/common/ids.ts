/**
 * Every id this extension shares with package.json, in one place: commands, settings, context
 * keys. No vscode import, so a unit test holds them equal to the manifest.
 */
/** The plan editor's view type (the custom editor in package.json). */
export const PLAN_EDITOR_VIEW_TYPE = 'piPlans.planEditor';

export const COMMANDS = {
  showPlans: 'piPlans.showPlans',
  approve: 'piPlans.approve',
  reject: 'piPlans.reject',
  confirmApproval: 'piPlans.confirmApproval',
  clearLock: 'piPlans.clearLock',
  startWork: 'piPlans.startWork',
  endWork: 'piPlans.endWork',
  refresh: 'piPlans.refresh',
  showLog: 'piPlans.showLog',
  open: 'piPlans.open',
  executeInCopilot: 'piPlans.executeInCopilot',
  planWithCopilot: 'piPlans.planWithCopilot',
  withdraw: 'piPlans.withdrawApproval',
  retry: 'piPlans.retry',
  resume: 'piPlans.resume',
  reopen: 'piPlans.reopen',
  clone: 'piPlans.clone',
  cancel: 'piPlans.cancel',
  archive: 'piPlans.archive',
  revealFile: 'piPlans.revealFile',
  copyId: 'piPlans.copyId',
  markInProgress: 'piPlans.markStepInProgress',
  markDone: 'piPlans.markStepDone',
  markBlocked: 'piPlans.markStepBlocked',
  markSkipped: 'piPlans.markStepSkipped',
  releaseClaim: 'piPlans.releaseClaim',
  newPlan: 'piPlans.newPlan',
  filter: 'piPlans.filter',
  clearFilter: 'piPlans.clearFilter',
  showMore: 'piPlans.showMore',
  revealInExplorer: 'piPlans.revealInExplorer',
  openPreview: 'piPlans.openPreview',
  openAsText: 'piPlans.openAsText',
  addComment: 'piPlans.addComment',
  editComment: 'piPlans.editComment',
  deleteComment: 'piPlans.deleteComment',
  saveComment: 'piPlans.saveComment',
  cancelEditComment: 'piPlans.cancelEditComment',
  resolveThread: 'piPlans.resolveThread',
  unresolveThread: 'piPlans.unresolveThread',
  deleteThread: 'piPlans.deleteThread',
  compareWithReviewed: 'piPlans.compareWithReviewed',
  copyMcpConfig: 'piPlans.copyMcpConfig',
  setUpAgent: 'piPlans.setUpAgent',
  runChecks: 'piPlans.runChecks',
  acknowledgeDrift: 'piPlans.acknowledgeDrift',
  releaseSession: 'piPlans.releaseSession',
} as const;

/** The command each of the core's plan commands runs (`PlanCommand` in src/core/views/planActions.ts). */
export const PLAN_COMMAND_IDS = {
  approve: COMMANDS.approve,
  reject: COMMANDS.reject,
  confirm: COMMANDS.confirmApproval,
  withdraw: COMMANDS.withdraw,
  startWork: COMMANDS.startWork,
  endWork: COMMANDS.endWork,
  execute: COMMANDS.executeInCopilot,
  retry: COMMANDS.retry,
  resume: COMMANDS.resume,
  reopen: COMMANDS.reopen,
  clone: COMMANDS.clone,
  cancel: COMMANDS.cancel,
  archive: COMMANDS.archive,
  runChecks: COMMANDS.runChecks,
  acknowledgeDrift: COMMANDS.acknowledgeDrift,
} as const;

/** The command that marks a step with each status. */
export const MARK_COMMAND_IDS = { in_progress: COMMANDS.markInProgress, done: COMMANDS.markDone, blocked: COMMANDS.markBlocked, skipped: COMMANDS.markSkipped } as const;

/** The review comment controller's id and its threads' and comments' context values (menus' `when` clauses). */
export const COMMENT_IDS = {
  controller: 'piPlans.review',
  thread: 'piPlans.draftThread',
  resolvedThread: 'piPlans.draftThread.resolved',
  comment: 'piPlans.draftComment',
} as const;

/** The views this extension contributes. */
export const VIEWS = {
  container: 'piPlans',
  explorer: 'piPlans.explorer',
} as const;

export const SETTINGS = {
  section: 'piPlans',
  agentApproval: 'agentApproval.enabled',
  gating: 'tools.gating',
  reviewWait: 'review.wait',
  codeLens: 'codeLens.enabled',
  notifyProposed: 'notifications.proposed',
  notifyExecution: 'notifications.execution',
  notifyStalled: 'notifications.stalled',
  openPlansIn: 'editor.openPlansIn',
  strategy: 'planning.strategy',
  /** User settings the extension writes into Pi Plans' config.json, where `pi-plans hook` reads them (a workspace's may only be stricter). */
  hooksPlanningTerminal: 'hooks.planningTerminal',
  hooksOtherFiles: 'hooks.otherFiles',
  /** With a passphrase-protected approval key: keep it unlocked for the window's life once the person typed the passphrase. */
  keepKeyUnlocked: 'approval.keepKeyUnlocked',
} as const;

/** The `@plans` chat participant (package.json `chatParticipants`). */
export const CHAT = {
  participant: 'piPlans.plans',
} as const;

export const CONTEXT_KEYS = {
  planWorkActive: 'piPlans.planWorkActive',
  /** The commands valid for the plan in the active editor (its context value: `piPlans.plan:approve:reject:…:`), or ''. */
  editorPlan: 'piPlans.editorPlan',
  /** The explorer shows only some statuses. */
  filtered: 'piPlans.filtered',
  /** The first index has loaded (the explorer's welcome waits for it). */
  loaded: 'piPlans.loaded',
} as const;

export const EXTENSION_ID = 'pi-plans.pi-plans';
