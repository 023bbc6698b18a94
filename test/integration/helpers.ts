import { execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { PiPlansApi } from '../../src/vscode/extension';

export const EXTENSION_ID = 'pi-plans.pi-plans';

/** Marks the lines the test runner prints (see test/harness/vscode-shim.mjs). */
export const MARK = '\u200b[pi-plans-test] ';

/** Prints a line of test output (a measured figure, say). */
export function say(...args: unknown[]): void {
  console.log(MARK + args.map(String).join(' '));
}

/** The activated extension's API (activates it if needed). */
export async function api(): Promise<PiPlansApi> {
  const ext = vscode.extensions.getExtension<PiPlansApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  const a = ext.isActive ? ext.exports : await ext.activate();
  await a.ready;
  return a;
}

export function folder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('the test workspace has no folder');
  return f;
}

const tick = () => new Promise((r) => setTimeout(r, 25));

/**
 * Polls until `check` returns a value (not undefined/false). The deadline is generous (20 s) on
 * purpose: it only decides when a test gives up, never how long a passing test waits; latencies
 * the README promises are printed by the tests and checked in the bench.
 */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await tick();
  }
}

/** The real `pi-plans` CLI in another process, with this window's environment (the same user configuration, so the same approval key). */
export async function runCli(...args: string[]): Promise<string> {
  const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  const { stdout } = await promisify(execFile)(process.execPath, [cli, '--root', folder().uri.fsPath, ...args], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return stdout;
}

/** A person runs the real CLI at their terminal: a pseudo-terminal (util-linux `script`) where they answer "y". What the terminal showed is returned. */
export async function personAtTerminal(...args: string[]): Promise<string> {
  const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  const command = [process.execPath, cli, '--root', folder().uri.fsPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  let screen = '';
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  child.stdin.end('y\n');
  const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('exit', resolve));
  if (code !== 0) throw new Error(`pi-plans ${args.join(' ')} at a terminal exited ${code}:\n${screen}`);
  return screen;
}

/**
 * A person approves in a terminal: the real `pi-plans approve` at their terminal, on the text
 * `pi-plans show` printed (its digest) at the version they saw.
 */
export async function approveInTerminal(id: string, seenVersion: number): Promise<string> {
  const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(await runCli('show', id))![1];
  return personAtTerminal('approve', id, '--digest', digest, '--seen-version', String(seenVersion));
}
