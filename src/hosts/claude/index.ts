// Claude Code: its tools as its hooks name them, its answer format, and where setup writes its
// hooks (.claude/settings.json) and MCP server (.mcp.json). Its PreToolUse hooks block on failure
// (`onFailure: "block"`: a hook that cannot start, times out or exits oddly denies the call).
import { field, HostProfile, ToolInput } from '../host';
import { answerIn, noticeIn } from '../policy/answer';
import { HOST_NAMES, mcpServer, nestedHooks, stdioServer, targetList } from '../setup/targets';

const file = (input: ToolInput) => {
  const f = field(input, 'file_path', 'notebook_path', 'path');
  return f === undefined ? undefined : [f];
};

export const claude: HostProfile = {
  id: 'claude',
  name: HOST_NAMES.claude,
  canAsk: true,
  tools: {
    reads: new Set([
      'Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'WebFetch', 'WebSearch', 'TodoWrite', 'TodoRead', 'Task', 'Agent', 'ToolSearch', 'ExitPlanMode', 'EnterPlanMode',
      'BashOutput', 'KillShell', 'KillBash', 'AskUserQuestion', 'ListMcpResourcesTool', 'ReadMcpResourceTool', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'TaskOutput', 'TaskStop', 'LSP', 'Skill', 'SlashCommand',
    ]),
    edits: { Edit: file, Write: file, MultiEdit: file, NotebookEdit: file },
    shells: {
      Bash: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
      PowerShell: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
    },
  },
  answer: (p, d) => answerIn({ fields: 'nested' }, p, d),
  notice: (m) => noticeIn(true, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { stdio } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', { base: user ? 'claudeHome' : 'workspace', path: user ? ['settings.json'] : ['.claude', 'settings.json'], format: 'json', edit: nestedHooks(req, 'claude', { extra: (event) => (event === 'PreToolUse' ? { onFailure: 'block' } : {}) }), note: 'Copilot CLI reads .claude/settings.json too, and VS Code does with chat.useClaudeHooks on' });
    t.add('mcp', { base: user ? 'claudeState' : 'workspace', path: user ? ['.claude.json'] : ['.mcp.json'], format: 'json', edit: mcpServer('mcpServers', stdio) });
    return t.targets;
  },
};
