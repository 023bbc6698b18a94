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
