// The built CLI at a real terminal: a pseudo-terminal (util-linux `script`), answered at its
// prompt as a person types. What no agent's plain command (a pipe) can be.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { terminalCommand } from './person.mjs';

export const CLI = path.resolve(__dirname, '..', '..', 'dist', 'cli.js');

/** Runs `node dist/cli.js ...args` in a pseudo-terminal; types `answer` once a `[y/N]` prompt is on the screen. */
export function atTerminal(args: readonly string[], env: NodeJS.ProcessEnv, answer: string): Promise<{ code: number; screen: string }> {
  return atTerminalAnswering(args, env, [[/\[y\/N\] /, answer]]);
}

/**
 * Runs `node dist/cli.js ...args` in a pseudo-terminal and answers its prompts in order: each
 * answer is typed once its prompt's pattern shows on the screen after the last answer.
 */
export function atTerminalAnswering(args: readonly string[], env: NodeJS.ProcessEnv, answers: readonly (readonly [RegExp, string])[]): Promise<{ code: number; screen: string }> {
  const child = spawn('script', ['-qec', terminalCommand(CLI, args), '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let from = 0;
  let next = 0;
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      while (next < answers.length) {
        const m = answers[next][0].exec(screen.slice(from));
        if (!m) break;
        from += m.index + m[0].length;
        child.stdin.write(`${answers[next][1]}\n`);
        next++;
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, screen }));
  });
}
