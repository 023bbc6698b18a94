// The `pi-plans hook` command line, shared by the small bundle (dist/hook.js, what the bin runs for
// `hook`, without commander or the store) and the full CLI: `hook [--agent A] [--event E]` answers
// a payload on stdin; `hook status` lists the bound sessions; `hook collect PLAN-…` starts collect mode.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { eventOf, HOOK_HOSTS, hostOf } from './payload';
import { HookSettings, PLANNING, PlanFacts } from './policy';
import { HeavyActs, runHook } from './run';
import { workModePlan } from './workMode';
import { Binding, listBindings, PlanUnreadable, readBinding, readPlanFacts, readSettings, workspaceOf, writeBinding } from './workspace';

export interface HookIo {
  out(s: string): void;
  err(s: string): void;
  stdin(): Promise<string>;
}

/** All of stdin (empty at a terminal: nothing was piped). */
export function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** What a session bound to this plan may do now, in a few words. */
export function mayDo(f: PlanFacts, s: HookSettings): string {
  if (PLANNING.has(f.status)) return `read and use the plan tools; file edits denied; terminal commands: ${s.planningTerminal}`;
  if (f.status === 'approved') return 'read; file edits denied until pi_plan_execute start';
  if (f.status === 'executing') return `edit the steps' targets; other files: ${s.otherFiles}; ending the turn with open steps is blocked once`;
  return 'anything (the plan no longer restricts it)';
}

function status(root: string, now: number, json: boolean, io: HookIo): number {
  const settings = readSettings(root);
  const rows = listBindings(root, now).map((b: Binding) => {
    let facts: PlanFacts | undefined;
    let problem: string | undefined;
    try {
      facts = readPlanFacts(root, b.plan);
    } catch (e) {
      problem = e instanceof PlanUnreadable ? e.message : String(e);
    }
    return { session: b.session, host: b.host, plan: b.plan, status: facts?.status, collecting: !!b.collecting, idleMinutes: Math.floor((now - Date.parse(b.seenAt)) / 60_000), may: facts ? mayDo(facts, settings) : `anything: ${problem} (the hook fails open)` };
  });
  const workMode = workModePlan(root);
  if (json) {
    io.out(`${JSON.stringify({ root, sessions: rows, ...(workMode ? { workMode } : {}) }, null, 2)}\n`);
    return 0;
  }
  if (workMode) io.out(`VS Code's plan work mode is on ${workMode}: it binds every VS Code agent session no plan tool call has bound.\n`);
  if (!rows.length) {
    io.out(`No agent session is bound to a plan in ${root}${workMode ? ' by a plan tool call' : ': every session is unrestricted'}. A session binds when it creates a plan or names one with a pi_plan_* tool.\n`);
    return 0;
  }
  for (const r of rows) {
    const session = r.session.length > 40 ? `${r.session.slice(0, 39)}…` : r.session;
    io.out(`${r.plan} (${r.status ?? 'unreadable'}${r.collecting ? ', collecting' : ''})  ${r.host} session ${session}, idle ${r.idleMinutes} min\n  may: ${r.may}\n`);
  }
  return 0;
}

function collect(root: string, id: string | undefined, session: string | undefined, now: number, io: HookIo): number {
  if (!id || !/^PLAN-[0-9a-f]{8}$/.test(id)) {
    io.err('pi-plans hook collect: name the draft, e.g. pi-plans hook collect PLAN-1a2b3c4d\n');
    return 2;
  }
  let facts: PlanFacts;
  try {
    facts = readPlanFacts(root, id);
  } catch (e) {
    io.err(`pi-plans hook collect: ${(e as Error).message}\n`);
    return 1;
  }
  if (facts.status !== 'draft') {
    io.err(`pi-plans hook collect: ${id} is ${facts.status}: collect mode records steps into a draft only; create one with pi_plan_create\n`);
    return 1;
  }
  if (session) {
    const iso = new Date(now).toISOString();
    const had = readBinding(root, session, now);
    writeBinding(root, { v: 1, session, host: had?.host ?? 'claude', plan: id, boundAt: had?.plan === id ? had.boundAt : iso, seenAt: iso, collecting: true });
  }
  io.out(`${id} collects: each file edit or terminal command the agent's session tries is recorded as a step of the draft instead of run${session ? '' : ' (the session whose agent ran this command; a person names one with --session)'}; pi_plan_submit ends it.\n`);
  return 0;
}

/** Runs `pi-plans hook …` (argv after `hook`); resolves to the exit code (always 0 for a payload). */
export async function runHookCommand(argv: readonly string[], root: string | undefined, io: HookIo, heavy: () => Promise<HeavyActs>): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { agent: { type: 'string' }, event: { type: 'string' }, root: { type: 'string' }, session: { type: 'string' }, json: { type: 'boolean' } } });
  } catch (e) {
    io.err(`pi-plans hook: ${(e as Error).message}\n`);
    return 2;
  }
  const v = parsed.values as { agent?: string; event?: string; root?: string; session?: string; json?: boolean };
  const now = Date.now();
  const dir = () => workspaceOf(path.resolve(v.root ?? root ?? process.cwd()), {}, process.cwd());
  const [sub, arg] = parsed.positionals;
  if (sub === 'status') return status(dir(), now, !!v.json, io);
  if (sub === 'collect') return collect(dir(), arg, v.session, now, io);
  if (sub !== undefined) {
    io.err(`pi-plans hook: unknown "${sub}": run pi-plans hook (a payload on stdin), pi-plans hook status or pi-plans hook collect PLAN-…\n`);
    return 2;
  }
  const agent = hostOf(v.agent);
  const event = eventOf(v.event);
  // A wrong flag in a hook's configuration must not block the agent either: it is reported, and ignored.
  const flagProblem = v.agent && !agent ? `--agent ${v.agent} is not one of ${HOOK_HOSTS.join(', ')}` : v.event && !event ? `--event ${v.event} is not an event it knows` : undefined;
  if (flagProblem) io.err(`pi-plans hook: ${flagProblem}; detected from the payload instead\n`);
  const trace = process.env.PI_PLANS_HOOK_TRACE ? (line: string) => io.err(`pi-plans hook trace: ${line}\n`) : undefined;
  const a = await runHook(await io.stdin(), { agent, event, env: process.env, cwd: v.root ?? root ?? process.cwd(), now, heavy, trace });
  io.out(a.stdout);
  if (a.stderr) io.err(a.stderr);
  return a.code;
}
