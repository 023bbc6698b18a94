// GitHub Copilot CLI: its tools as its hooks name them, its answer format (the decision at the top
// level, and nested too for its VS Code-compatible payloads), and where setup writes its hooks (the
// shared .github/hooks/pi-plans.json) and MCP server (.mcp.json, or ~/.copilot/mcp-config.json).
// It has no system message: a notice goes to stderr.
import { field, HostProfile, ToolInput } from '../host';
import { answerIn, noticeIn } from '../policy/answer';
import { HOST_NAMES, mcpServer, sharedCopilotHooks, stdioServer, targetList } from '../setup/targets';

const file = (input: ToolInput) => {
  const f = field(input, 'path', 'file_path');
  return f === undefined ? undefined : [f];
};

export const copilotCli: HostProfile = {
  id: 'copilot-cli',
  name: HOST_NAMES['copilot-cli'],
  canAsk: true,
  tools: {
    reads: new Set(['view', 'glob', 'grep', 'read_bash', 'stop_bash', 'list_bash', 'web_fetch', 'report_intent', 'update_todo', 'task', 'fetch_copilot_cli_documentation', 'skill', 'think', 'ask_user', 'Read', 'Glob', 'Grep']),
    edits: { edit: file, create: file, str_replace_editor: file, Edit: file, Write: file, MultiEdit: file },
    shells: {
      bash: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
      powershell: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
      Bash: (input) => (typeof input.command === 'string' ? { command: input.command } : undefined),
    },
    shellInput: new Set(['write_bash']),
  },
  answer: (p, d) => answerIn({ fields: 'top' }, p, d),
  notice: (m) => noticeIn(false, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { command, args, stdio } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', sharedCopilotHooks(req));
    if (user) t.add('mcp', { base: 'copilotHome', path: ['mcp-config.json'], format: 'json', edit: mcpServer('mcpServers', { type: 'local', command, args, tools: ['*'] }) });
    else t.add('mcp', { base: 'workspace', path: ['.mcp.json'], format: 'json', edit: mcpServer('mcpServers', stdio), note: 'Claude Code reads .mcp.json too' });
    return t.targets;
  },
};
