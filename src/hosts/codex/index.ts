// Codex: its tools as its hooks name them (its exec_command reaches hooks as `Bash`; its patch tool
// as `apply_patch` with the patch in `command`), its answer format (no ask: an ask is a deny that
// says why), and where setup writes its hooks (.codex/hooks.json, each PreToolUse command ending
// `|| exit 2`, so a hook that fails blocks) and MCP server (.codex/config.toml).
import { field, HostProfile } from '../host';
import { answerIn, noticeIn } from '../policy/answer';
import { patchPaths } from '../policy/patch';
import { HOST_NAMES, mcpServer, nestedHooks, shellWord, stdioServer, targetList } from '../setup/targets';

export const codex: HostProfile = {
  id: 'codex',
  name: HOST_NAMES.codex,
  canAsk: false,
  tools: {
    reads: new Set(['update_plan', 'view_image', 'web_search', 'read_file', 'list_dir', 'grep_files', 'request_user_input']),
    edits: {
      apply_patch: (input) => {
        const patch = field(input, 'command', 'input', 'patch');
        return patch === undefined ? undefined : patchPaths(patch);
      },
    },
    shells: {
      Bash: (input) => {
        // An argv (a list of words, as Codex's local shell gives them) is quoted word by word, so the shell reading sees the same words.
        const command = Array.isArray(input.command) && input.command.every((w) => typeof w === 'string') ? (input.command as string[]).map(shellWord).join(' ') : field(input, 'command', 'cmd');
        if (command === undefined) return undefined;
        return { command, cwd: field(input, 'workdir', 'cwd'), interactive: input.tty === true };
      },
    },
    shellInput: new Set(['write_stdin']),
  },
  answer: (p, d) => answerIn({ fields: 'nested', askAsDeny: '(Codex hooks cannot ask the person, so pi-plans denies it: run it yourself in your terminal if it should run.)' }, p, d),
  notice: (m) => noticeIn(true, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { command, args } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', { base: user ? 'codexHome' : 'workspace', path: user ? ['hooks.json'] : ['.codex', 'hooks.json'], format: 'json', edit: nestedHooks(req, 'codex', { command: (event, text) => (event === 'PreToolUse' ? `${text} || exit 2` : text) }), note: 'Codex runs new or changed hooks only once you trust them: open /hooks in Codex' });
    t.add('mcp', { base: user ? 'codexHome' : 'workspace', path: user ? ['config.toml'] : ['.codex', 'config.toml'], format: 'toml', edit: mcpServer('mcp_servers', { command, args }) });
    return t.targets;
  },
};
