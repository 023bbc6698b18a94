import * as vscode from 'vscode';
import { planWorkFacts } from '../../node';
import { ALL_TOOLS, parseArguments, PlanTool, ToolContext } from '../../tools';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import type { VsCodeReviewGate } from './reviewGate';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { SETTINGS } from '../common/ids';

/** Settings the tools obey, read fresh on every call. */
export function toolSettings(): ToolContext['settings'] {
  const c = vscode.workspace.getConfiguration(SETTINGS.section);
  // Application scope only: a workspace or folder value (an agent can edit those files) is ignored.
  const approval = c.inspect<boolean>(SETTINGS.agentApproval);
  return {
    agentMayApprove: approval?.globalValue === true,
    gating: c.get<'always' | 'activePlan'>(SETTINGS.gating, 'always') === 'activePlan' ? 'activePlan' : 'always',
    waitForReview: c.get<boolean>(SETTINGS.reviewWait, true),
  };
}

/**
 * Registers every tool of src/tools with `vscode.lm.registerTool`: input validated with the
 * tool's zod schema, invocation messages and confirmations from the tool, results as text.
 */
export function registerLmTools(plans: WorkspacePlans, active: WorkspaceActivePlans, review: VsCodeReviewGate): vscode.Disposable[] {
  const ctxFor = (token: vscode.CancellationToken): ToolContext => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    // Steps claimed through these tools are this window's (`vscode-` and its session id): its agent and subagents share it.
    return { stores: plans, active, settings: toolSettings(), review, facts: { of: (s, doc) => planWorkFacts(s.root, doc) }, signal: abort.signal, session: `vscode-${vscode.env.sessionId.slice(0, 8)}` };
  };
  return ALL_TOOLS.map((tool) =>
    vscode.lm.registerTool<Record<string, unknown>>(tool.name, {
      prepareInvocation(options) {
        const parsed = tool.schema.safeParse(options.input);
        if (!parsed.success) return { invocationMessage: tool.displayName };
        const confirmation = tool.confirmation?.(parsed.data as never);
        return {
          invocationMessage: tool.invocationMessage(parsed.data as never),
          ...(confirmation ? { confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) } } : {}),
        };
      },
      async invoke(options, token) {
        const text = await run(tool, options.input, ctxFor(token), plans);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      },
    }),
  );
}

async function run(tool: PlanTool, input: unknown, ctx: ToolContext, plans: WorkspacePlans): Promise<string> {
  if (!vscode.workspace.isTrusted && !tool.readOnly) {
    throw new Error('This workspace is in Restricted Mode: plans are read-only. Ask the user to trust the workspace, then call again.');
  }
  // A call refused whatever its arguments is refused first; then the same refusal of arguments, in the same words, as over MCP (an unknown key names the closest known one).
  const off = tool.refusedNow?.(ctx.settings);
  if (off) throw new Error(off);
  const args = parseArguments(tool.schema, input);
  await plans.ready;
  try {
    return await tool.run(args as never, ctx);
  } catch (e) {
    plans.logError(tool.name, e);
    throw e;
  }
}
