/**
 * The agent tool set, floor 4: one zod schema and handler per tool (`<name>.tool.ts`, defined with
 * toolkit's defineTool), shared by every face: VS Code's language-model tools, the MCP server and
 * the manifest that writes package.json's contributes.languageModelTools. No vscode. A new tool is
 * a file here, listed below. See docs/architecture.md.
 */
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
