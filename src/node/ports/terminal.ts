/**
 * A passphrase asked of the person at the terminal, not echoed (npm's `read`, loaded when asked).
 * Offered only when stdin and stdout are both a terminal.
 */
export function terminalSecret(): ((prompt: string) => Promise<string>) | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return async (prompt) => {
    const { read } = await import('read');
    return read({ prompt, silent: true, replace: '', input: process.stdin, output: process.stdout });
  };
}

/**
 * A question to the person at the terminal, for the CLI's person verbs (approve, confirm, trust,
 * hook release). Offered only when stdin and stdout are both a terminal. Node's readline is loaded
 * when a question is asked, never at start-up (the hook's bundle imports this too).
 */
export function terminalAsk(): ((question: string) => Promise<string>) | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return async (question) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's own, loaded when asked
    const readline = require('node:readline/promises') as typeof import('node:readline/promises');
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  };
}
