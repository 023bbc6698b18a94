// One agent of the parallel-execution test (next.test.ts): its own process, with the SDK's client
// over stdio against its own `pi-plans mcp` server on the shared workspace. It calls
// pi_plan_execute op=next and marks each step it is given done (and the step each mark hands it), until the plan is complete, and
// prints one JSON line: the steps it was given, in order, and how often nothing was runnable.
// argv: CLI path, workspace root, plan id. The environment is the sandbox's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
// Another agent's mark rewrites the plan: a turn with nothing runnable waits until the plan's file
// differs from what it was before that turn's call (so no mark is missed), with a generous deadline.
const planFile = path.join(root, '.pi', 'plans', `${id}.md`);
const stamp = () => {
  const st = fs.statSync(planFile, { throwIfNoEntry: false });
  return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : '';
};
let woken = () => {};
const watcher = fs.watch(path.dirname(planFile), () => woken());
const planChangedFrom = (before) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    woken = () => {
      if (stamp() === before) return;
      clearTimeout(timer);
      resolve();
    };
    woken();
  });
const got = [];
let waited = 0;
for (let turn = 0; turn < 2000; turn++) {
  const seen = stamp();
  const first = (await call({ op: 'next' })).split('\n')[0];
  let step = /^(S\d{3,4}) is yours/.exec(first)?.[1];
  if (step) {
    // A mark hands this session its next step when one can start ("S005 is yours now"): it goes on with that one.
    while (step) {
      got.push(step);
      const marked = await call({ op: 'mark', step, status: 'done' });
      step = /^(S\d{3,4}) is yours now/m.exec(marked)?.[1];
    }
    continue;
  }
  if (first.startsWith('Complete:')) break;
  if (!first.startsWith('No step is runnable now')) throw new Error(`unexpected first line: ${first}`);
  waited++;
  await planChangedFrom(seen);
}
watcher.close();
process.stdout.write(`${JSON.stringify({ got, waited })}\n`);
await client.close();
