// GitHub Copilot CLI: its tools as its hooks name them, its answer format (the decision at the top
// level, and nested too for its VS Code-compatible payloads), and where setup writes its hooks (the
// shared .github/hooks/pi-plans.json) and MCP server (.mcp.json, or ~/.copilot/mcp-config.json).
// It has no system message: a notice goes to stderr.
// Not sealed (`setup --seal` refuses it: `unsealable`). Measured with Copilot CLI 1.0.102 on Linux
// (bubblewrap, slirp4netns and iptables installed): its sandbox (`sandbox.enabled`, `allowBypass`,
// `userPolicy.filesystem.deniedPaths`/`readonlyPaths`, in the person's ~/.copilot/settings.json
// only; no --experimental needed) does keep the agent's shell and its view, create and edit tools
// from a denied folder and from writing a read-only one, and allowBypass false keeps a command's
// requestSandboxBypass inside. But it runs every hook (the repository's and the person's) inside
// the same sandbox, under the same policy; only MCP and LSP servers can be let out
// (sandboxMcpServers, sandboxLspServers). Pi Plans' hook then cannot read its state folder: it sees
// no plan binding the session and lets through the edits a planning session must not make.
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
  unsealable:
    "Copilot CLI 1.0.102's sandbox runs the hooks inside it too, under the agent's own policy (only MCP and LSP servers can run outside it), so a policy that keeps the agent's commands from Pi Plans' folders and from writing .pi/ keeps Pi Plans' hook from them as well: measured, the hook then no longer sees which plan binds the session, and lets through the edits and commands it stops in an unsealed session. (Its sandbox is also the person's setting for every folder, in ~/.copilot/settings.json: a repository's .github/copilot/settings.json may not set it)",
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
