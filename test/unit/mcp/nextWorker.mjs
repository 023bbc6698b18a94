// One agent of the parallel-execution test (next.test.ts): its own process, with the SDK's client
// over stdio against its own `pi-plans mcp` server on the shared workspace. It calls
// pi_plan_execute op=next and marks each step it is given done, until the plan is complete, and
// prints one JSON line: the steps it was given, in order, and how often nothing was runnable.
// argv: CLI path, workspace root, plan id. The environment is the sandbox's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [cli, root, id] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: process.execPath, args: [cli, '--root', root, 'mcp', '--review-wait', '0'], env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'agent', version: '1.0.0' });
await client.connect(transport);
const call = async (args) => {
  const r = await client.callTool({ name: 'pi_plan_execute', arguments: { id, ...args } });
  const text = r.content.map((c) => c.text ?? '').join('\n');
  if (r.isError) throw new Error(text);
  return text;
};
const got = [];
let waited = 0;
for (let turn = 0; turn < 2000; turn++) {
  const first = (await call({ op: 'next' })).split('\n')[0];
  const step = /^(S\d{3,4}) is yours/.exec(first)?.[1];
  if (step) {
    got.push(step);
    await call({ op: 'mark', step, status: 'done' });
    continue;
  }
  if (first.startsWith('Complete:')) break;
  if (!first.startsWith('No step is runnable now')) throw new Error(`unexpected first line: ${first}`);
  waited++;
  await new Promise((resolve) => setTimeout(resolve, 25));
}
process.stdout.write(`${JSON.stringify({ got, waited })}\n`);
await client.close();
