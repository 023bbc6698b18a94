// The `pi-plans hook` command line, shared by the small bundle (dist/hook.js, what the bin runs for
// `hook`, without commander or the store) and the full CLI: `hook [--agent A] [--event E]` answers
// a payload on stdin; `hook status` lists the bound sessions; `hook collect PLAN-…` starts collect mode.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { eventOf, HOOK_HOSTS, hostOf } from '../policy/payload';
import { HookSettings, PLANNING, PlanFacts, unapproved } from '../policy/decide';
import { HeavyActs, runHook, withApproval } from './run';
import { GOVERNED } from './verdict';
import { workModePlan } from './workMode';
import { listBindings, PlanUnreadable, readBinding, readPlanFacts, readPlanFile, readSettings, workspaceOf, writeBinding } from './workspace';

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
  if (f.approval) return `read and use the plan tools; file edits denied, because ${unapproved(f, f.approval)}; terminal commands: ${s.planningTerminal}`;
  if (PLANNING.has(f.status)) return `read and use the plan tools; file edits denied; terminal commands: ${s.planningTerminal}`;
  if (f.status === 'approved') return 'read; file edits denied until pi_plan_execute start';
  if (f.status === 'executing') return `edit the steps' targets; other files: ${s.otherFiles}; ending the turn with open steps is blocked once`;
  return 'anything (the plan no longer restricts it)';
}

/** The status as `hook status` shows it: with why a status an approval governs does not count. */
const APPROVAL_WORDS: Record<NonNullable<PlanFacts['approval']>['state'], string> = { invalid: 'approval not valid', changed: 'changed since approval', foreign: 'approved elsewhere, not confirmed here' };

/** A bound plan's facts as the policy sees them: read, and a status an approval governs checked by the store (as a tool call would be). */
async function checkedFacts(root: string, id: string, heavy: () => Promise<HeavyActs>): Promise<PlanFacts> {
  const read = readPlanFile(root, id);
  return GOVERNED.has(read.facts.status) ? withApproval(read.facts, read.bytes, root, { env: process.env, heavy }) : read.facts;
}

async function status(root: string, now: number, json: boolean, io: HookIo, heavy: () => Promise<HeavyActs>): Promise<number> {
  const settings = readSettings(root);
  const rows = [];
  for (const b of listBindings(root, now)) {
    let facts: PlanFacts | undefined;
    let problem: string | undefined;
    try {
      facts = await checkedFacts(root, b.plan, heavy);
    } catch (e) {
      problem = e instanceof PlanUnreadable ? e.message : String(e);
    }
    const approval = facts?.approval ? { approval: { ...facts.approval } } : {};
    rows.push({ session: b.session, host: b.host, plan: b.plan, status: facts?.status, ...approval, collecting: !!b.collecting, idleMinutes: Math.floor((now - Date.parse(b.seenAt)) / 60_000), may: facts ? mayDo(facts, settings) : `anything: ${problem} (the hook fails open)` });
  }
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
    const state = `${r.status ?? 'unreadable'}${'approval' in r && r.approval ? `, ${APPROVAL_WORDS[r.approval.state]}` : ''}${r.collecting ? ', collecting' : ''}`;
    io.out(`${r.plan} (${state})  ${r.host} session ${session}, idle ${r.idleMinutes} min\n  may: ${r.may}\n`);
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
  if (sub === 'status') return status(dir(), now, !!v.json, io, heavy);
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
