// Fresh fixture workspaces: a copy of examples/ in a temp folder, removed by the caller.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './codeServer.mjs';

/** Copies examples/ into a new temp folder and returns its path. */
export function freshWorkspace(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pi-plans-ws-${name}-`));
  fs.cpSync(path.join(ROOT, 'examples'), dir, { recursive: true });
  return dir;
}

/** A multi-root workspace: two folders (a copy of examples/ and an empty one) and its .code-workspace file. */
export function freshMultiRoot(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pi-plans-ws-${name}-`));
  fs.cpSync(path.join(ROOT, 'examples'), path.join(dir, 'api'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'web', '.pi', 'plans'), { recursive: true });
  const file = path.join(dir, 'multi.code-workspace');
  fs.writeFileSync(file, JSON.stringify({ folders: [{ path: 'api' }, { path: 'web' }] }, null, 2));
  return { dir, file };
}
