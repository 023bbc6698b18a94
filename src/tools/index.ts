/** The agent tool set: one zod schema and handler per tool, shared by every face. No vscode. */
import { approvePlanTool } from './approvePlan.tool';
import { cancelPlanTool } from './cancelPlan.tool';
import { createPlanTool } from './createPlan.tool';
import { editStepTool } from './editStep.tool';
import { executePlanTool } from './executePlan.tool';
import { getPlanTool } from './getPlan.tool';
import { listPlansTool } from './listPlans.tool';
import { setContentTool } from './setContent.tool';
import { submitPlanTool } from './submitPlan.tool';
import { updatePlanTool } from './updatePlan.tool';
import type { PlanTool } from './toolkit';

export * from './arguments';
export * from './context';
export * from './toolkit';
export { waitForDecision } from '../service';

/** Every tool, in the order the manifest lists them. */
export const ALL_TOOLS: readonly PlanTool[] = [
  createPlanTool,
  getPlanTool,
  listPlansTool,
  editStepTool,
  updatePlanTool,
  setContentTool,
  submitPlanTool,
  executePlanTool,
  cancelPlanTool,
  approvePlanTool,
] as unknown as PlanTool[];
