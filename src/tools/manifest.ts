import * as z from 'zod/mini';
import { ALL_TOOLS } from './index';
import type { PlanTool } from './toolkit';

/** The `when` clause of gated tools: shown always, or only in plan work mode (the user's choice). */
export const GATED_WHEN = "config.piPlans.tools.gating != 'activePlan' || piPlans.planWorkActive";

/** A tool's input schema as the manifest carries it: zod's JSON Schema without the `$schema` key. */
export function inputSchemaOf(tool: PlanTool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
  return schema;
}

/** `contributes.languageModelTools`, generated from the tool definitions (see scripts/manifest.mjs). */
export function languageModelToolsManifest(): Record<string, unknown>[] {
  return ALL_TOOLS.map((t) => ({
    name: t.name,
    displayName: t.displayName,
    toolReferenceName: t.toolReferenceName,
    canBeReferencedInPrompt: true,
    icon: t.icon,
    tags: ['plans', 'pi-plans'],
    userDescription: t.userDescription,
    modelDescription: t.modelDescription,
    ...(t.when ? { when: t.when } : t.gated ? { when: GATED_WHEN } : {}),
    inputSchema: inputSchemaOf(t),
  }));
}

/** What the model sees of the whole tool set (names, descriptions, schemas), as JSON: the budget. */
export function advertisedSize(): number {
  return ALL_TOOLS.reduce((n, t) => n + JSON.stringify({ name: t.name, description: t.modelDescription, inputSchema: inputSchemaOf(t) }).length, 0);
}

/** Activation: a workspace with plans, or any of our tools being invoked. */
export function activationEvents(): string[] {
  return ['workspaceContains:.pi/plans', ...ALL_TOOLS.map((t) => `onLanguageModelTool:${t.name}`)];
}
