/**
 * Every id this extension shares with package.json, in one place: commands, settings, context
 * keys. No vscode import, so a unit test holds them equal to the manifest.
 */
export const COMMANDS = {
  showPlans: 'piPlans.showPlans',
  approve: 'piPlans.approve',
  reject: 'piPlans.reject',
  startWork: 'piPlans.startWork',
  endWork: 'piPlans.endWork',
  refresh: 'piPlans.refresh',
  showLog: 'piPlans.showLog',
} as const;

export const SETTINGS = {
  section: 'piPlans',
  agentApproval: 'agentApproval.enabled',
  gating: 'tools.gating',
  reviewWait: 'review.wait',
} as const;

export const CONTEXT_KEYS = {
  planWorkActive: 'piPlans.planWorkActive',
} as const;

export const EXTENSION_ID = 'pi-plans.pi-plans';
