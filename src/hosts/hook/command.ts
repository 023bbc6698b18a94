// The `pi-plans hook` command line, shared by the small bundle (dist/hook.js, what the bin runs for
// `hook`, without commander or the store) and the full CLI: `hook [--agent A] [--event E]` answers
// a payload on stdin; `hook status` lists the sessions bound in the workspace; `hook collect PLAN-…`
// starts collect mode; `hook release SESSION` frees a session (a person's act: at a terminal only).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { realPathOf } from '../../node/ports/userFolders';
import { HOOK_HOSTS, type HookHost } from '../host';
import { HOSTS } from '../hosts';
import { BoundPlan, deciding, HookSettings, levelOf, PlanFacts, unapproved } from '../policy/decide';
import { eventOf, hostOf } from '../policy/payload';
import { HeavyActs, HookOptions, runHook, withApproval } from './run';
import { Binding, findBindings, listBindings, readBinding, removeBinding, writeBinding } from './sessions';
import { GOVERNED } from './verdict';
import { PROTECTION_WORDS } from '../setup/protection';
import { workModePlan } from './workMode';
import { hasPlan, PlanUnreadable, readPlanFacts, readPlanFile, readSettings, SettingsBroken } from './workspace';

export interface HookIo {
  out(s: string): void;
  err(s: string): void;
  stdin(): Promise<string>;
  /** Asks the person at a terminal (absent when stdin or stdout is not a terminal: no person to ask). */
  ask?(question: string): Promise<string>;
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

/** What a session bound to these plans may do now, in a few words. */
export function mayDo(plans: readonly BoundPlan[], s: HookSettings): string {
  const top = deciding(plans)[0];
  if (!top) return 'read and use the plan tools; a plan is being created';
  if (!('facts' in top)) return `read and use the plan tools only: ${top.id} cannot be read (${top.problem})`;
  const f = top.facts;
  switch (levelOf(top)) {
    case 'planning':
      return `read and use the plan tools; file edits denied${f.approval ? `, because ${unapproved(f, f.approval)}` : ''}; terminal commands: ${s.planningTerminal}`;
    case 'finished':
      return `read and use the plan tools; file edits denied (${f.id} is ${f.status}: a new plan, approved by the person, or a release frees it); terminal commands: ${s.planningTerminal}`;
    case 'approved':
      return 'read; file edits denied until pi_plan_execute start';
    case 'paused':
      return `read; file edits denied until the person resumes ${f.id}`;
    default:
      return `edit the steps' targets; other files: ${s.otherFiles}; ending the turn with open steps is blocked once`;
  }
}

/** The status as `hook status` shows it: with why a status an approval governs does not count. */
const APPROVAL_WORDS: Record<NonNullable<PlanFacts['approval']>['state'], string> = { invalid: 'approval not valid', changed: 'changed since approval', foreign: 'approved elsewhere, not confirmed here' };

/** A session's bound plans as the policy sees them: read, and a status an approval governs checked by the store (as a tool call would be). */
async function checkedPlans(b: Binding, heavy: () => Promise<HeavyActs>): Promise<BoundPlan[]> {
  const out: BoundPlan[] = [];
  for (const id of b.plans) {
    try {
      const read = readPlanFile(b.root, id);
      out.push({ facts: GOVERNED.has(read.facts.status) ? await withApproval(read.facts, read.bytes, b.root, { env: process.env, heavy }) : read.facts });
    } catch (e) {
      out.push({ id, problem: e instanceof PlanUnreadable ? e.message : String(e) });
    }
  }
  return out;
}

const shortSession = (s: string) => (s.length > 40 ? `${s.slice(0, 39)}…` : s);
const planWords = (b: BoundPlan) => ('facts' in b ? `${b.facts.id} (${b.facts.status}${b.facts.approval ? `, ${APPROVAL_WORDS[b.facts.approval.state]}` : ''})` : `${b.id} (unreadable)`);

async function status(root: string, now: number, json: boolean, io: HookIo, heavy: () => Promise<HeavyActs>): Promise<number> {
  let settings: HookSettings | undefined;
  let settingsProblem: string | undefined;
  try {
    settings = readSettings(root, process.env);
  } catch (e) {
    if (!(e instanceof SettingsBroken)) throw e;
    settingsProblem = e.message;
  }
  const rows = [];
  const bindings = listBindings(now, { root: realPathOf(root), prune: true });
  const guard = bindings.length ? (await heavy()).protection(root) : undefined;
  for (const b of bindings) {
    const plans = await checkedPlans(b, heavy);
    rows.push({
      session: b.session,
      host: b.host,
      plans: plans.map((p) => ('facts' in p ? { id: p.facts.id, status: p.facts.status, ...(p.facts.approval ? { approval: { ...p.facts.approval } } : {}) } : { id: p.id, problem: p.problem })),
      collecting: b.collecting ?? null,
      idleMinutes: Math.floor((now - Date.parse(b.seenAt)) / 60_000),
      protection: guard?.byHost[b.host] ?? 'unprotected',
      may: settings ? mayDo(plans, settings) : `read and use the plan tools only: the hook settings cannot be read (${settingsProblem})`,
      words: plans.map(planWords).join(', ') || 'a plan being created',
    });
  }
  const workMode = workModePlan(root);
  if (json) {
    io.out(`${JSON.stringify({ root, sessions: rows.map(({ words, ...r }) => (void words, r)), ...(guard ? { keyProtected: guard.keyProtected } : {}), ...(workMode ? { workMode } : {}) }, null, 2)}\n`);
    return 0;
  }
  if (workMode) io.out(`VS Code's plan work mode is on ${workMode}: it binds every VS Code agent session no plan tool call has bound.\n`);
  if (!rows.length) {
    io.out(`No agent session is bound to a plan in ${root}${workMode ? ' by a plan tool call' : ': every session is unrestricted'}. A session binds when it creates a plan or names one with a pi_plan_* tool, and stays bound until a person frees it (pi-plans hook release) or it is idle for a day.\n`);
    return 0;
  }
  for (const r of rows) {
    io.out(`${r.host} session ${shortSession(r.session)}, idle ${r.idleMinutes} min, ${r.protection}: ${r.words}${r.collecting ? `, collecting into ${r.collecting}` : ''}\n  may: ${r.may}\n`);
  }
  const shown = new Set(rows.map((r) => r.protection));
  for (const p of ['sealed', 'hooks only', 'unprotected'] as const) if (shown.has(p)) io.out(`${PROTECTION_WORDS[p]}\n`);
  io.out(guard?.keyProtected ? 'The approval key is protected with a passphrase: an agent that reads it cannot sign.\n' : 'The approval key is not protected: an agent that can read it and run a terminal could sign with it. Protect it: pi-plans key --protect\n');
  return 0;
}

function collect(root: string, id: string | undefined, session: string | undefined, agent: HookHost, now: number, io: HookIo): number {
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
    const had = readBinding(agent, session, now);
    const b: Binding = had.kind === 'bound' ? { ...had.binding, plans: [...had.binding.plans] } : { v: 2, host: agent, session, root: realPathOf(root), plans: [], boundAt: iso, seenAt: iso };
    if (!b.plans.includes(id) && hasPlan(b.root, id)) b.plans.push(id);
    writeBinding({ ...b, collecting: id, seenAt: iso });
  }
  io.out(`${id} collects: each file edit or terminal command the agent's session tries is recorded as a step of the draft instead of run${session ? '' : ' (the session whose agent ran this command; a person names one with --session and --agent)'}; pi_plan_submit ends it.\n`);
  return 0;
}

/**
 * `hook release SESSION`: frees an agent session from its plans, a person's act. At a terminal
 * only: it shows the session and its plans and asks; an agent's command (no terminal) is refused.
 */
async function release(root: string, prefix: string | undefined, agent: HookHost | undefined, now: number, io: HookIo, heavy: () => Promise<HeavyActs>): Promise<number> {
  if (!prefix) {
    io.err('pi-plans hook release: name the session (its id or the first characters of it, as pi-plans hook status shows it)\n');
    return 2;
  }
  const found = findBindings(prefix, now, { root: realPathOf(root) }).filter((b) => !agent || b.host === agent);
  if (!found.length) {
    io.err(`pi-plans hook release: no session ${prefix} is bound in ${root}: pi-plans hook status lists them\n`);
    return 1;
  }
  if (found.length > 1) {
    io.err(`pi-plans hook release: ${found.length} sessions start with ${prefix} (${found.map((b) => `${b.host} ${shortSession(b.session)}`).join(', ')}): give more of the id, or --agent\n`);
    return 2;
  }
  const b = found[0];
  if (!io.ask) {
    io.err(`pi-plans hook release: ${b.host} session ${shortSession(b.session)} was not freed: freeing a session from its plan is a person's act, done at their own terminal (it shows the session and asks) or with Release in VS Code's plan explorer.\nFor an agent: ask the user; do not try to free yourself.\n`);
    return 1;
  }
  io.out(`${HOSTS[b.host]?.name ?? b.host} session ${b.session}\n  bound to: ${b.plans.join(', ') || 'a plan being created'} in ${b.root}\n  since ${b.boundAt}, last active ${b.seenAt}\n`);
  const answer = await io.ask('Free this session, so its plans no longer restrict what it does? [y/N] ');
  if (!/^y(es)?$/i.test(answer.trim())) {
    io.out('Not freed.\n');
    return 1;
  }
  try {
    await (await heavy()).personUnlocks();
  } catch (e) {
    io.err(`pi-plans hook release: not freed: ${(e as Error).message}\n`);
    return 1;
  }
  removeBinding(b.host, b.session);
  io.out(`Freed: the ${HOSTS[b.host]?.name ?? b.host} session is no longer bound; it binds again when it names a plan.\n`);
  return 0;
}

/** Runs `pi-plans hook …` (argv after `hook`); resolves to the exit code (always 0 for a payload). */
export async function runHookCommand(argv: readonly string[], root: string | undefined, io: HookIo, heavy: () => Promise<HeavyActs>, shell: HookOptions['shell']): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { agent: { type: 'string' }, event: { type: 'string' }, root: { type: 'string' }, session: { type: 'string' }, json: { type: 'boolean' } } });
  } catch (e) {
    io.err(`pi-plans hook: ${(e as Error).message}\n`);
    return 2;
  }
  const v = parsed.values as { agent?: string; event?: string; root?: string; session?: string; json?: boolean };
  const now = Date.now();
  const dir = () => {
    const start = path.resolve(v.root ?? root ?? process.cwd());
    for (let d = start; ; d = path.dirname(d)) {
      if (hasPlanFolder(d)) return d;
      if (path.dirname(d) === d) return start;
    }
  };
  const [sub, arg] = parsed.positionals;
  const agent = hostOf(v.agent);
  if (v.agent && !agent) {
    io.err(`pi-plans hook: --agent ${v.agent} is not one of ${HOOK_HOSTS.join(', ')}\n`);
    if (sub !== undefined) return 2;
  }
  if (sub === 'status') return status(dir(), now, !!v.json, io, heavy);
  if (sub === 'collect') return collect(dir(), arg, v.session, agent ?? 'claude', now, io);
  if (sub === 'release') return release(dir(), arg, agent, now, io, heavy);
  if (sub !== undefined) {
    io.err(`pi-plans hook: unknown "${sub}": run pi-plans hook (a payload on stdin), pi-plans hook status, pi-plans hook collect PLAN-… or pi-plans hook release SESSION\n`);
    return 2;
  }
  const event = eventOf(v.event);
  if (v.event && !event) io.err(`pi-plans hook: --event ${v.event} is not an event it knows; detected from the payload instead\n`);
  const trace = process.env.PI_PLANS_HOOK_TRACE ? (line: string) => io.err(`pi-plans hook trace: ${line}\n`) : undefined;
  const a = await runHook(await io.stdin(), { agent, event, env: process.env, cwd: v.root ?? root ?? process.cwd(), now, heavy, shell, trace });
  io.out(a.stdout);
  if (a.stderr) io.err(a.stderr);
  return a.code;
}

const hasPlanFolder = (d: string) => fs.existsSync(path.join(d, '.pi', 'plans'));
