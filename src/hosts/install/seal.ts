/**
 * `pi-plans setup --seal` on this machine: the paths a sealed host keeps its agent from, from the
 * environment (src/node/ports/userFolders.ts computes Pi Plans' folders; the host's files are those
 * setup writes for it), and whether the programs its sandbox needs are on the PATH.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setupTargets } from '../hosts';
import { SETUP_SCOPES, type SealPaths, type SetupRequest } from '../setup/targets';
import { cacheHome, realPathOf, userConfigDir, userStateDir } from '../../node/ports/userFolders';
import type { UserFolders } from './folders';

/** What the seal is checked against: the environment, the platform, and which programs are on the PATH. */
export interface SealSystem {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  onPath(program: string): boolean;
}

/** Whether `program` is an executable file in one of PATH's folders. */
export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      const file = path.join(dir, program);
      if (fs.statSync(file).isFile()) {
        fs.accessSync(file, fs.constants.X_OK);
        return true;
      }
    } catch {
      // not here
    }
  }
  return false;
}

/** This process's environment, platform and PATH. */
export function nodeSealSystem(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): SealSystem {
  return { env, platform, onPath: (program) => onPath(program, env) };
}

/** Each path, then its real path where a link leads elsewhere (the sandbox and the rules see either). */
function withReal(paths: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(path.resolve(p));
    out.add(realPathOf(p));
  }
  return [...out];
}

/**
 * What the sealed host's agent may not touch: Pi Plans' configuration, state and cache folders
 * (neither read nor written); the workspace's .pi/, its .vscode/settings.json and every file
 * setup writes for the host at either scope, its seal included (read, never written).
 */
export function sealPaths(req: SetupRequest, folders: UserFolders, env: NodeJS.ProcessEnv): SealPaths {
  const stub: SealPaths = { hiddenFolders: [], readOnlyFolders: [], readOnlyFiles: [] };
  const files = new Set<string>();
  for (const scope of SETUP_SCOPES) {
    for (const t of setupTargets({ ...req, scope, hooks: true, mcp: true, sealPaths: stub })) files.add(path.join(t.base === 'workspace' ? req.workspace : folders[t.base], ...t.path));
  }
  files.add(path.join(req.workspace, '.vscode', 'settings.json'));
  return {
    hiddenFolders: withReal([userConfigDir(env), userStateDir(env), cacheHome(env)]),
    readOnlyFolders: withReal([path.join(req.workspace, '.pi')]),
    readOnlyFiles: withReal(files),
  };
}
