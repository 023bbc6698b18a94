// Fresh fixture workspaces: a copy of examples/ in a temp folder, removed by the caller.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './codeServer.mjs';
import { atTerminalSync, digestIn } from '../helpers/person.mjs';

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

/**
 * Makes a workspace copy a git repository holding a small service (src/server.ts and its
 * package.json), committed, for the demo's sample agent to change step by step: each step's
 * `> Changed:` line and View changes then show real changes. Returns the folder.
 */
export function sampleRepo(dir) {
  const write = (file, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  write('package.json', JSON.stringify({ name: 'sample-service', version: '1.0.0', private: true, scripts: { test: 'node --test test/' } }, null, 2) + '\n');
  write('src/server.ts', ["import { createServer } from 'node:http';", "import { auth } from './auth';", '', 'export const routes = new Map<string, () => string>();', '', 'export const server = createServer((req, res) => {', '  if (!auth(req)) return void res.writeHead(401).end();', "  res.end(routes.get(req.url ?? '')?.() ?? 'not found');", '});', ''].join('\n'));
  write('src/auth.ts', ["import type { IncomingMessage } from 'node:http';", '', "export const auth = (req: IncomingMessage) => req.headers.authorization === 'Bearer demo';", ''].join('\n'));
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=demo@example.com', '-c', 'user.name=Pi Plans demo', 'commit', '-q', '-m', 'The sample service');
  return dir;
}

/**
 * The person (the workbench's own user: the server's configuration and key) approves plan `id` of
 * `ws` from a terminal, and the run begins: the status is execution state, outside what the
 * approval signs.
 */
export function approveAndStart(server, ws, id) {
  const cli = (...args) => execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), '--root', ws, ...args], { encoding: 'utf8', env: server.env });
  atTerminalSync(path.join(ROOT, 'dist', 'cli.js'), ['--root', ws, 'approve', id, '--digest', digestIn(cli('show', id))], { env: server.env });
  const file = path.join(ws, '.pi', 'plans', `${id}.md`);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^status: approved$/m, 'status: executing'));
}
