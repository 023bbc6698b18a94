/**
 * Pi Plans' folders in the user's home, outside every workspace: configuration (the approval keys,
 * trust), state (review copies) and cache (the index, outlines, the hook's approval verdicts), and
 * the check that one of them does not resolve inside a workspace. Plain Node (fs, os, path): the
 * hook's small bundle (dist/hook.js) uses it too.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The user's configuration folder for Pi Plans: `$XDG_CONFIG_HOME/pi-plans`, else `~/.config/pi-plans`. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'pi-plans');
}

/** The user's state folder for Pi Plans (review copies): `PI_PLANS_STATE_DIR`, else `$XDG_STATE_HOME/pi-plans`, else `~/.local/state/pi-plans`. */
export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PI_PLANS_STATE_DIR || path.join(env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state'), 'pi-plans');
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended (a folder not made yet resolves where it will be). */
export function realPathOf(p: string): string {
  const abs = path.resolve(p);
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest);
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return abs;
      rest.unshift(path.basename(head));
      head = parent;
    }
  }
}

/** The user folders Pi Plans keeps out of every workspace, as messages name them and the variables that move them. */
const USER_FOLDERS = {
  configuration: { name: "the user's configuration folder for Pi Plans", fix: 'set XDG_CONFIG_HOME to a folder outside every workspace' },
  state: { name: "the user's state folder for Pi Plans", fix: 'set XDG_STATE_HOME (or PI_PLANS_STATE_DIR) to a folder outside every workspace' },
} as const;

/**
 * Why a user folder cannot be trusted with Pi Plans' keys, settings or review copies: it resolves
 * inside a workspace, where an agent that edits files could read the key, turn agent approval on,
 * or rewrite the copy a reviewer compares with. Undefined when it lies outside every workspace given.
 */
export function folderInsideWorkspace(dir: string, workspaces: readonly string[], what: string, kind: keyof typeof USER_FOLDERS = 'configuration'): string | undefined {
  const real = realPathOf(dir);
  for (const w of workspaces) {
    const root = realPathOf(w);
    if (real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) {
      return `${USER_FOLDERS[kind].name} (${dir}) is inside the workspace ${w}, where an agent could ${what}: ${USER_FOLDERS[kind].fix}`;
    }
  }
  return undefined;
}

/** Pi Plans' folder in the user's cache (never in a repository): PI_PLANS_CACHE_DIR, or pi-plans in XDG_CACHE_HOME or ~/.cache. */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.PI_PLANS_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pi-plans');
}
