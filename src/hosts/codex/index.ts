// Codex: its tools as its hooks name them (its exec_command reaches hooks as `Bash`; its patch tool
// as `apply_patch` with the patch in `command`), its answer format (no ask: an ask is a deny that
// says why), and where setup writes its hooks (.codex/hooks.json, each PreToolUse command ending
// `|| exit 2`, so a hook that fails blocks) and MCP server (.codex/config.toml).
// Sealed (`setup --seal`): a permission profile and an approval policy, in .codex/config.toml too.
import * as path from 'node:path';
import type { EntryEdit } from '../setup/configEdit';
import { field, HostProfile } from '../host';
import { answerIn, NOT_A_FAULT, noticeIn } from '../policy/answer';
import { patchPaths } from '../policy/patch';
import { PROTECT_KEY } from '../setup/seal';
import { HOST_NAMES, mcpServer, nestedHooks, SealPaths, shellWord, stdioServer, targetList } from '../setup/targets';

/** The permission profile the seal adds to Codex's project config and makes its default. */
export const CODEX_SEAL_PROFILE = 'pi-plans-sealed';

/**
 * The folders a sealed Codex agent may read but not write: .pi/, and the folders that hold the
 * files setup writes (.codex/, .vscode/ and Codex's home: its config, hooks and execpolicy rules).
 * Folders, not the files: Codex 0.169.0 does not start a session while a path its profile names is
 * missing, and a folder setup can make (SetupTarget.folders) where a file it cannot.
 */
export function codexReadOnly(seal: SealPaths): string[] {
  return [...new Set([...seal.readOnlyFolders, ...seal.readOnlyFiles.map((f) => path.dirname(f))])];
}

/**
 * The seal, in Codex's project config (measured with Codex 0.169.0 on Linux, where its sandbox is
 * bubblewrap: test/hosts/sealed.test.mjs): the permission profile `pi-plans-sealed` made the
 * default (`default_permissions`). It extends Codex's own `:workspace` (the workspace and the
 * temporary folders writable, the rest readable, no network) with Pi Plans' folders unreadable
 * ("none") and .pi/ and the folders of the files setup writes read-only ("read"); the agent's shell
 * commands, its apply_patch edits and its view_image reads all keep to it. With a path unreadable in
 * the profile, Codex keeps its sandbox for an execpolicy `allow` rule too. The approval policy
 * never asks the person to let a command out of the sandbox (`granular`: a command's
 * `require_escalated`, an execpolicy prompt, a skill's script and a permission request are
 * refused unasked); only an MCP server's questions still reach the person. Approved, an escalated
 * command would keep the profile's unreadable paths but not its read-only ones.
 */
export function codexSeal(seal: SealPaths): EntryEdit {
  const filesystem: Record<string, string> = {};
  for (const d of seal.hiddenFolders) filesystem[d] = 'none';
  for (const d of codexReadOnly(seal)) filesystem[d] ??= 'read';
  return {
    shape: 'settings',
    entries: [
      { place: ['default_permissions'], value: CODEX_SEAL_PROFILE },
      { place: ['approval_policy'], value: { granular: { sandbox_approval: false, rules: false, skill_approval: false, request_permissions: false, mcp_elicitations: true } } },
      { place: ['permissions', CODEX_SEAL_PROFILE], value: { extends: ':workspace', filesystem }, byPlace: true },
    ],
    what: 'permission profile',
  };
}

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
  // Codex shows a denial as "Command blocked by PreToolUse hook: <reason>. Command: …": its own full stop ends the reason.
  answer: (p, d) => answerIn({ fields: 'nested', denyLead: NOT_A_FAULT, hostEndsSentence: true, askAsDeny: "Codex hooks cannot ask the person, so it is not run: if it should run, ask the person to run it in their own terminal." }, p, d),
  notice: (m) => noticeIn(true, m),
  setupTargets(req) {
    const user = req.scope === 'user';
    const { command, args } = stdioServer(req);
    const t = targetList(req);
    t.add('hooks', { base: user ? 'codexHome' : 'workspace', path: user ? ['hooks.json'] : ['.codex', 'hooks.json'], format: 'json', edit: nestedHooks(req, 'codex', { command: (event, text) => (event === 'PreToolUse' ? `${text} || exit 2` : text) }), note: 'Codex runs new or changed hooks only once you trust them: open /hooks in Codex' });
    t.add('mcp', { base: user ? 'codexHome' : 'workspace', path: user ? ['config.toml'] : ['.codex', 'config.toml'], format: 'toml', edit: mcpServer('mcp_servers', { command, args }) });
    // The project config, beside the MCP server: Codex reads it in a project it trusts (as it does the hooks).
    if (req.sealPaths) {
      const seal = req.sealPaths;
      t.add('seal', {
        base: 'workspace',
        path: ['.codex', 'config.toml'],
        format: 'toml',
        edit: codexSeal(seal),
        folders: [...seal.hiddenFolders.map((p) => ({ path: p, private: true })), ...codexReadOnly(seal).map((p) => ({ path: p }))],
        note: `Sealed: Codex runs the agent's commands, its apply_patch edits and its view_image reads under the permission profile ${CODEX_SEAL_PROFILE} (its own :workspace, no network; Pi Plans' folders unreadable; .pi/, .codex/, .vscode/ and Codex's home read-only), and never asks to let a command out of its sandbox. It holds in a project Codex trusts, for a session started in the workspace folder without --sandbox, --ask-for-approval or --dangerously-bypass-approvals-and-sandbox: a .codex/config.toml the agent writes in a subfolder can set other permissions for a session started there`,
        removeNote: 'Codex is no longer sealed: the permission profile and the approval policy that --seal added are gone',
      });
    }
    return t.targets;
  },
  // Bubblewrap on Linux (WSL2 too): the bwrap on the PATH, else the one Codex ships with; where
  // neither can start, Codex's commands fail rather than run outside it. Nothing to install.
  sandbox: {
    platforms: { linux: { programs: [] } },
    elsewhere: `Pi Plans seals Codex on Linux (and WSL2) only, where its permission profile was measured (Codex 0.169.0): here, protect the approval key with a passphrase instead (${PROTECT_KEY})`,
  },
};
