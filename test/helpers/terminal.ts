// The built CLI at a real terminal: a pseudo-terminal (util-linux `script`), answered at its
// prompt as a person types. What no agent's plain command (a pipe) can be.
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const CLI = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');

/** Runs `node dist/cli.js ...args` in a pseudo-terminal; types `answer` once a `[y/N]` prompt is on the screen. */
export function atTerminal(args: readonly string[], env: NodeJS.ProcessEnv, answer: string): Promise<{ code: number; screen: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let typed = false;
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      if (!typed && /\[y\/N\] /.test(screen)) {
        typed = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, screen }));
  });
}
