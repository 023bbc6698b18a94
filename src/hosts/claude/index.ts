// Claude Code: its tools as its hooks name them, its answer format, and where setup writes its
// hooks (.claude/settings.json) and MCP server (.mcp.json). Its PreToolUse hooks block on failure
// (`onFailure: "block"`: a hook that cannot start, times out or exits oddly denies the call).
// Sealed (`setup --seal`): its sandbox and permission rules, in .claude/settings.local.json.
import type { EntryEdit, JsonPlace } from '../setup/configEdit';
import { field, HostProfile, ToolInput } from '../host';
import { answerIn, NOT_A_FAULT, noticeIn } from '../policy/answer';
import { HOST_NAMES, mcpServer, nestedHooks, SealPaths, stdioServer, targetList } from '../setup/targets';

const file = (input: ToolInput) => {
  const f = field(input, 'file_path', 'notebook_path', 'path');
  return f === undefined ? undefined : [f];
};

/** A path in a permission rule: `//` starts an absolute one (a single `/` is the project's root). */
const absolute = (p: string) => `/${p.replace(/\/+$/, '')}`;

/**
 * The seal, in Claude Code's settings (2.1.328): its sandbox on, with no way out of it (it refuses
 * to start without one, `failIfUnavailable`; `allowUnsandboxedCommands: false` ignores a command's
 * `dangerouslyDisableSandbox`), its commands kept from Pi Plans' folders and from writing .pi/ and
 * the host's files; and the same paths in `permissions.deny` for its own Read, Edit and Write
 * tools, which the sandbox does not cover (a Read deny is what stops the Read tool).
 */
export function claudeSeal(seal: SealPaths): EntryEdit {
  const { hiddenFolders: hidden, readOnlyFolders: folders, readOnlyFiles: files } = seal;
  const deny = [
    ...hidden.flatMap((d) => [`Read(${absolute(d)}/**)`, `Edit(${absolute(d)}/**)`]),
    ...folders.map((d) => `Edit(${absolute(d)}/**)`),
    ...files.map((f) => `Edit(${absolute(f)})`),
  ];
  const at = (...place: string[]) => place as JsonPlace;
  return {
    shape: 'settings',
    entries: [
      { place: at('sandbox', 'enabled'), value: true },
      { place: at('sandbox', 'failIfUnavailable'), value: true },
      { place: at('sandbox', 'allowUnsandboxedCommands'), value: false },
      { place: at('sandbox', 'filesystem', 'denyRead'), value: [...hidden] },
      { place: at('sandbox', 'filesystem', 'denyWrite'), value: [...hidden, ...folders, ...files] },
      { place: at('permissions', 'deny'), value: deny },
    ],
    what: 'sandbox settings',
  };
}

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
  // Claude Code shows a denial to the model as "PreToolUse:<Tool> hook error: <reason>": the reason says first that it is the plan, not a fault.
  answer: (p, d) => answerIn({ fields: 'nested', denyLead: NOT_A_FAULT }, p, d),
  notice: (m) => noticeIn(true, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { stdio } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', { base: user ? 'claudeHome' : 'workspace', path: user ? ['settings.json'] : ['.claude', 'settings.json'], format: 'json', edit: nestedHooks(req, 'claude', { extra: (event) => (event === 'PreToolUse' ? { onFailure: 'block' } : {}) }), note: 'Copilot CLI reads .claude/settings.json too, and VS Code does with chat.useClaudeHooks on' });
    t.add('mcp', { base: user ? 'claudeState' : 'workspace', path: user ? ['.claude.json'] : ['.mcp.json'], format: 'json', edit: mcpServer('mcpServers', stdio) });
    // The local settings: they outrank .claude/settings.json, and the paths they name are this machine's.
    if (req.sealPaths) {
      t.add('seal', {
        base: 'workspace',
        path: ['.claude', 'settings.local.json'],
        format: 'json',
        edit: claudeSeal(req.sealPaths),
        note: "Sealed: Claude Code runs the agent's commands in its sandbox, which must start (or Claude Code does not), and its commands and its Read, Edit and Write tools cannot read Pi Plans' folders (the approval key) nor write .pi/ or the files setup wrote; a command that needs the network asks first",
        removeNote: 'Claude Code is no longer sealed: its sandbox settings that --seal added are gone',
      });
    }
    return t.targets;
  },
  // Bubblewrap and socat on Linux (and WSL2); Seatbelt, built into macOS.
  sandbox: {
    platforms: { linux: { programs: ['bwrap', 'socat'], install: 'apt-get install bubblewrap socat, or dnf install bubblewrap socat' }, darwin: { programs: [] } },
    elsewhere: "Claude Code's sandbox runs on macOS, Linux and WSL2, not on Windows itself: run Claude Code inside WSL2 and set it up there",
  },
};
