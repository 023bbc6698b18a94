import * as z from 'zod/mini';
import { mcpSchemaOf } from './arguments';
import { ALL_TOOLS } from './index';
import type { PlanTool } from './toolkit';

/** The `when` clause of gated tools: shown always, or only in plan work mode (the user's choice). */
export const GATED_WHEN = "config.piPlans.tools.gating != 'activePlan' || piPlans.planWorkActive";

/** A zod schema as the manifests carry it: zod's JSON Schema without the `$schema` key. */
export function jsonSchemaOf(schema: z.ZodMiniType): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema) as Record<string, unknown>;
  return json;
}

/** A tool's input schema as the VS Code manifest carries it (strict; `id` optional: it defaults to the active plan). */
export function inputSchemaOf(tool: PlanTool): Record<string, unknown> {
  return jsonSchemaOf(tool.schema);
}

/** A tool's input schema as the MCP server lists it (strict; `id` required: no plan is active there). */
export function mcpInputSchemaOf(tool: PlanTool): Record<string, unknown> {
  return jsonSchemaOf(mcpSchemaOf(tool));
}

/** `contributes.languageModelTools`, generated from the tool definitions (see scripts/manifest.ts). */
export function languageModelToolsManifest(): Record<string, unknown>[] {
  return ALL_TOOLS.map((t) => ({
    name: t.name,
    displayName: t.displayName,
    toolReferenceName: t.toolReferenceName,
    canBeReferencedInPrompt: true,
    icon: t.icon,
    tags: ['plans', 'pi-plans'],
    userDescription: t.userDescription,
    modelDescription: modelDescriptionIn('vscode', t),
    ...(t.when ? { when: t.when } : t.gated ? { when: GATED_WHEN } : {}),
    inputSchema: inputSchemaOf(t),
  }));
}

/** A tool's description as a face gives it: VS Code's adds what it says of the active plan, which only VS Code has. */
export function modelDescriptionIn(face: 'vscode' | 'mcp', t: PlanTool): string {
  return face === 'vscode' ? t.modelDescription + (t.vscodeNote ?? '') : t.modelDescription;
}

/** What the model sees of the whole tool set (names, descriptions, schemas), as JSON: the budget. By default VS Code's; `mcp` for the MCP server's. */
export function advertisedSize(face: 'vscode' | 'mcp' = 'vscode'): number {
  const schemaOf = face === 'mcp' ? mcpInputSchemaOf : inputSchemaOf;
  return ALL_TOOLS.reduce((n, t) => n + JSON.stringify({ name: t.name, description: modelDescriptionIn(face, t), inputSchema: schemaOf(t) }).length, 0);
}

/** Activation: a workspace with plans, or any of our tools being invoked. */
export function activationEvents(): string[] {
  return ['workspaceContains:.pi/plans', ...ALL_TOOLS.map((t) => `onLanguageModelTool:${t.name}`)];
}
