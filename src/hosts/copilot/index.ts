// GitHub Copilot in VS Code (its agent mode): its tools as its hooks name them (the names in
// Copilot Chat's ToolName list), its answer format, and where setup writes its hooks (the shared
// .github/hooks/pi-plans.json) and MCP server (.vscode/mcp.json).
import { field, HostProfile, ToolInput } from '../host';
import { answerIn, noticeIn } from '../policy/answer';
import { patchPaths } from '../policy/patch';
import { HOST_NAMES, mcpArgs, mcpServer, sharedCopilotHooks, stdioServer, targetList } from '../setup/targets';

const one = (...keys: string[]) => (input: ToolInput) => {
  const f = field(input, ...keys);
  return f === undefined ? undefined : [f];
};

export const copilot: HostProfile = {
  id: 'copilot',
  name: HOST_NAMES.copilot,
  canAsk: true,
  tools: {
    reads: new Set([
      'semantic_search', 'get_vscode_api', 'file_search', 'grep_search', 'read_file', 'view_image', 'list_dir', 'get_errors', 'get_changed_files', 'read_project_structure', 'search_workspace_symbols',
      'copilot_getNotebookSummary', 'read_notebook_cell_output', 'fetch_webpage', 'test_search', 'github_repo', 'github_text_search', 'manage_todo_list', 'get_terminal_output', 'terminal_selection',
      'terminal_last_command', 'get_task_output', 'testFailure', 'kill_terminal', 'vscode_get_confirmation', 'vscode_get_confirmation_with_options', 'vscode_reviewPlan', 'vscode_get_terminal_confirmation',
      'vscode_askQuestions', 'search_subagent', 'explore_subagent', 'runSubagent', 'tool_search', 'resolve_memory_file_uri', 'memory', 'skill', 'read_page', 'screenshot_page', 'think',
    ]),
    edits: {
      replace_string_in_file: one('filePath'),
      create_file: one('filePath'),
      insert_edit_into_file: one('filePath'),
      edit_notebook_file: one('filePath'),
      create_directory: one('dirPath'),
      multi_replace_string_in_file: (input) => {
        const list = Array.isArray(input.replacements) ? input.replacements : [];
        const paths = list.map((r) => (r && typeof r === 'object' ? (r as ToolInput).filePath : undefined));
        return paths.every((p): p is string => typeof p === 'string') ? paths : undefined;
      },
      apply_patch: (input) => {
        const patch = field(input, 'input', 'patch', 'command');
        return patch === undefined ? undefined : patchPaths(patch);
      },
    },
    shells: {
      run_in_terminal: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
    },
    shellInput: new Set(['send_to_terminal']),
  },
  answer: (p, d) => answerIn({ fields: 'nested', stopNested: true }, p, d),
  notice: (m) => noticeIn(true, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { stdio, args } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', sharedCopilotHooks(req));
    // VS Code resolves ${workspaceFolder}: the file stays right when the folder moves.
    const vsArgs = user ? args : mcpArgs(req, '${workspaceFolder}').args;
    t.add('mcp', { base: user ? 'vscodeUser' : 'workspace', path: user ? ['mcp.json'] : ['.vscode', 'mcp.json'], format: 'json', edit: mcpServer('servers', { ...stdio, args: vsArgs }) });
    return t.targets;
  },
};
