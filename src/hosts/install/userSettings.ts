/**
 * The hook settings a person sets in VS Code (`piPlans.hooks.*`, user settings), kept where the
 * hook reads them: `hooks` in Pi Plans' `config.json` in the user's configuration folder, outside
 * every workspace. Only that key is changed; a file that does not parse is left alone (the
 * caller says so).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type HookChoice = 'ask' | 'deny' | 'allow';
export interface UserHookSettings {
  planningTerminal?: HookChoice;
  otherFiles?: HookChoice;
}

/** Writes `hooks` into config.json (the given keys; one undefined is removed). Returns false when nothing changed. Throws when the file does not parse. */
export function writeUserHookSettings(configDir: string, s: UserHookSettings): boolean {
  const file = path.join(configDir, 'config.json');
  let config: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file} is not a JSON object`);
    config = parsed as Record<string, unknown>;
  }
  const hooks = { ...(config.hooks && typeof config.hooks === 'object' && !Array.isArray(config.hooks) ? (config.hooks as Record<string, unknown>) : {}) };
  for (const k of ['planningTerminal', 'otherFiles'] as const) {
    if (s[k] === undefined) delete hooks[k];
    else hooks[k] = s[k];
  }
  const next = { ...config, ...(Object.keys(hooks).length ? { hooks } : {}) };
  if (!Object.keys(hooks).length) delete next.hooks;
  if (JSON.stringify(next) === JSON.stringify(config)) return false;
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return true;
}
