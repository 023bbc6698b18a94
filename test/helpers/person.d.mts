// Types of person.mjs (a plain module, shared with the .mjs harnesses).
import type { SpawnSyncReturns } from 'node:child_process';

export interface AtTerminalOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  check?: boolean;
}
export function atTerminalSync(cli: string, args: readonly string[], opts?: AtTerminalOptions): SpawnSyncReturns<string>;
export function personSync(cli: string, args: readonly string[], opts?: Omit<AtTerminalOptions, 'check'>): { status: number | null; stdout: string; stderr: string };
export function digestIn(shown: string): string;
export function terminalCommand(cli: string, args: readonly string[]): string;
