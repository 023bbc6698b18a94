/**
 * Where each host keeps its user-scope configuration (`~/.claude`, `CODEX_HOME`, `COPILOT_HOME`,
 * VS Code's User folder, `~/.cursor`), from the environment the hosts read themselves. Plain Node: setup and the
 * hook (which guards these files) both use it.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConfigBase } from '../setup/targets';

/** Where the user-scope files of each host are, and the user's home folder (for showing paths). */
export type UserFolders = Record<Exclude<ConfigBase, 'workspace'>, string> & { home: string };

/** The user's folders of each host, from the environment the hosts read themselves. */
export function userFolders(env: NodeJS.ProcessEnv = process.env, home = os.homedir(), platform: NodeJS.Platform = process.platform): UserFolders {
  const vscodeUser =
    platform === 'win32' ? path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'Code', 'User')
    : platform === 'darwin' ? path.join(home, 'Library', 'Application Support', 'Code', 'User')
    : path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Code', 'User');
  return {
    home,
    claudeState: env.CLAUDE_CONFIG_DIR || home,
    claudeHome: env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'),
    codexHome: env.CODEX_HOME || path.join(home, '.codex'),
    copilotHome: env.COPILOT_HOME || path.join(home, '.copilot'),
    vscodeUser,
    cursorHome: path.join(home, '.cursor'),
  };
}
