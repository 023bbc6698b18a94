// What the hooks cost each real host per tool call: the same scripted session (create a plan, the
// person approves, start, then COMMANDS shell commands) run by Claude Code, Codex and Copilot CLI
// with Pi Plans' hooks set up and without (the MCP server only), interleaved, RUNS times each.
// The added latency per tool call is the difference of the medians over the session's tool calls
// (the session's own hook events, start and end, are counted in it too). Needs the hosts
// installed (scripts/setup-hosts.sh, which `npm run test:hosts` runs).
import { agentTools, approve, HOSTS, makeWorkspace, removeWorkspace, runHost } from '../test/hosts/hosts.mjs';
import { say, startModelServer } from '../test/hosts/modelServer.mjs';

const COMMANDS = 8;
const RUNS = Number(process.env.PI_PLANS_BENCH_HOST_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One session's wall time, with or without the hooks. */
async function session(host, hooks) {
  const ws = makeWorkspace(host, { hooks });
  const model = await startModelServer();
  try {
    const t = agentTools(ws);
    const plan = () => model.created();
    model.play([
      t.load?.(),
      t.mcp('pi_plan_create', { title: 'Bench', goal: 'Time the hooks', steps: [{ text: 'Run the commands' }], propose: true }),
      () => {
        approve(ws, plan());
        return t.mcp('pi_plan_execute', { id: plan(), op: 'start' });
      },
      ...Array.from({ length: COMMANDS }, (_, i) => t.shell(`echo ${i}`)),
      say('done'),
      say('done'),
    ]);
    const run = await runHost(ws, model, 'Run the commands');
    if (run.code !== 0) throw new Error(`${host} exited ${run.code}: ${run.stderr.slice(-400)}`);
    const calls = 2 + COMMANDS + (t.load ? 1 : 0);
    return { ms: run.ms, calls };
  } finally {
    await model.close();
    removeWorkspace(ws);
  }
}

/** The figures per host. */
export async function hostFigures(hosts = Object.keys(HOSTS)) {
  const out = {};
  for (const host of hosts) {
    const withHooks = [];
    const without = [];
    let calls = 0;
    for (let i = 0; i < RUNS; i++) {
      const a = await session(host, false);
      const b = await session(host, true);
      without.push(a.ms);
      withHooks.push(b.ms);
      calls = b.calls;
    }
    const w = median(withHooks);
    const n = median(without);
    out[host] = { runs: RUNS, calls, withHooksMs: w, withoutMs: n, addedPerCallMs: (w - n) / calls };
  }
  return out;
}

export function printHosts(f) {
  console.log('');
  console.log(`The hooks as each real host sees them: one scripted session (${COMMANDS} shell commands on an executing plan), with and without Pi Plans' hooks, medians of ${Object.values(f)[0]?.runs ?? RUNS} runs each, interleaved:`);
  for (const [host, r] of Object.entries(f)) {
    console.log(`  ${HOSTS[host].title.padEnd(12)} with ${String(r.withHooksMs).padStart(5)} ms, without ${String(r.withoutMs).padStart(5)} ms: ${r.addedPerCallMs.toFixed(0)} ms added per tool call (${r.calls} calls)`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printHosts(await hostFigures());
