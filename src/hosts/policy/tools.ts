// What a tool call is, for the plan's policy: one of our plan tools (and the plan it names), an edit
// (and the files it touches), a terminal command, or anything else (reads, searches, other MCP
// tools). Per host (research §0 table and §1.6, §2.3, §3.3, §4.4). Pure.
import type { HookPayload } from './payload';

export type ToolCall =
  | { kind: 'plan'; tool: string; plan?: string; creates: boolean }
  | { kind: 'edit'; tool: string; paths: string[] }
  | { kind: 'terminal'; tool: string; command: string }
  | { kind: 'other'; tool: string };

const PLAN_ID = /\bPLAN-[0-9a-f]{8}\b/;
const PLAN_ID_EXACT = /^PLAN-[0-9a-f]{8}$/;

/**
 * The pi-plans tool a host's tool name stands for (`pi_plan_submit`), or undefined: the bare name
 * (VS Code's own LM tools), and MCP names as each host prefixes them: `mcp__pi-plans__…` (Claude,
 * Codex), `mcp_pi-plans_…` (VS Code), `pi-plans-…` (Copilot CLI). The server's key may be spelled
 * with `_` or `-`, or be another name the user gave it: any prefix ending in a separator counts.
 */
export function planToolOf(name: string): string | undefined {
  const m = /(?:^|[_-])(pi_plan_[a-z_]+)$/.exec(name);
  return m ? m[1] : undefined;
}

/** Claude's and VS Code's editing tools, with where each names its file. */
const EDIT_PATH_KEYS: Record<string, readonly string[]> = {
  // Claude Code (and Copilot CLI's VS Code-compatible mode, which uses Claude's names with its own `path`)
  Edit: ['file_path', 'path'],
  Write: ['file_path', 'path'],
  MultiEdit: ['file_path', 'path'],
  NotebookEdit: ['notebook_path', 'file_path', 'path'],
  // Copilot in VS Code
  replace_string_in_file: ['filePath'],
  create_file: ['filePath'],
  insert_edit_into_file: ['filePath'],
  edit_notebook_file: ['filePath'],
  create_directory: ['dirPath'],
  // Copilot CLI
  edit: ['path'],
  create: ['path'],
  str_replace_editor: ['path'],
};
const TERMINAL_TOOLS = new Set(['Bash', 'PowerShell', 'run_in_terminal', 'bash', 'powershell']);

/** The files an apply_patch text touches: its `*** Add/Update/Delete File:` and `*** Move to:` lines. */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm)) paths.push(m[1]);
  return paths;
}

/** The paths an edit tool's input names. */
function editPaths(tool: string, input: Record<string, unknown>): string[] | undefined {
  if (tool === 'apply_patch') {
    const patch = typeof input.input === 'string' ? input.input : typeof input.command === 'string' ? input.command : typeof input.patch === 'string' ? input.patch : '';
    return patchPaths(patch);
  }
  if (tool === 'multi_replace_string_in_file') {
    const list = Array.isArray(input.replacements) ? input.replacements : [];
    return list.map((r) => (r && typeof r === 'object' ? (r as Record<string, unknown>).filePath : undefined)).filter((p): p is string => typeof p === 'string');
  }
  const keys = EDIT_PATH_KEYS[tool];
  if (!keys) return undefined;
  for (const k of keys) if (typeof input[k] === 'string') return [input[k] as string];
  return [];
}

/** The plan a plan tool's call names: its `id`, else (a create, after the fact) the id its result names. */
function namedPlan(input: Record<string, unknown>, response: string | undefined): string | undefined {
  const id = input.id ?? input.plan ?? input.planId;
  if (typeof id === 'string' && PLAN_ID_EXACT.test(id)) return id;
  return response ? PLAN_ID.exec(response)?.[0] : undefined;
}

/** What a payload's tool call is. */
export function classifyTool(p: HookPayload): ToolCall | undefined {
  const tool = p.tool;
  if (!tool) return undefined;
  const plan = planToolOf(tool);
  if (plan) {
    const creates = plan === 'pi_plan_create';
    // Only a create's result is read for an id: other results (a list) name many plans.
    return { kind: 'plan', tool: plan, plan: namedPlan(p.input, creates ? p.response : undefined), creates };
  }
  const paths = editPaths(tool, p.input);
  if (paths) return { kind: 'edit', tool, paths };
  if (TERMINAL_TOOLS.has(tool)) return { kind: 'terminal', tool, command: typeof p.input.command === 'string' ? p.input.command : '' };
  return { kind: 'other', tool };
}
