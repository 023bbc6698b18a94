// `pi-plans hook`: one payload in, one answer out. Reads the payload, keeps the session's binding
// (sticky, in the user's state folder), reads the bound plans (frontmatter and steps only) and
// answers with the policy's decision in the host's format. For a session bound to a plan it fails
// closed: any error, unreadable state or settings, or broken plan holds the session to reads and
// the plan tools, with a sentence saying what a person does. A session that is not bound is never
// restricted.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hostSession } from '../../core/format/claimText';
import { recordStepEvent } from '../../node/work/stepReports';
import { StateBroken } from '../../node/ports/stateFiles';
import type { HookAnswer, HostProfile } from '../host';
import { HOSTS } from '../hosts';
import type { classifyCommand, Finding } from '../policy/commands';
import { BoundPlan, CONTEXT_EVENTS, decideStop, decideTool, Decision, FINISHED, JudgedCall, levelOf, nextStep, PlanFacts, summary } from '../policy/decide';
import { HookEvent, HookPayload, readPayload, type HookHost } from '../policy/payload';
import type { Protected } from '../policy/paths';
import type { Protection } from '../setup/protection';
import { classifyTool, ToolCall } from '../policy/tools';
import { callKey, once } from './once';
import { Binding, MAX_PLANS, readBinding, readSeenVersion, writeBinding, writeSeenVersion } from './sessions';
import { GOVERNED, Verdict, verdictCache } from './verdict';
import { workModePlan } from './workMode';
import { hasPlan, physical, PlanUnreadable, plansDir, protectedPlaces, readPlanFile, readSettings, SettingsBroken, workspaceCandidates } from './workspace';

/** The store's acts the hook needs rarely (see heavy.ts), loaded only then. */
export interface HeavyActs {
  markStalled(root: string, id: string, reason: string): Promise<string>;
  addCollectedStep(root: string, id: string, step: { text: string; tool?: string; operation?: string; target?: string }): Promise<string>;
  approvalVerdict(root: string, id: string, bytes: Uint8Array): Promise<Verdict>;
  /** `hook status`: how each host's sessions in the workspace are kept to their plans, and whether the approval key is protected. */
  protection(root: string): { byHost: Record<HookHost, Protection>; keyProtected: boolean };
  /** `hook release`, after the person's yes: the approval key's passphrase where it is protected (throws when not given). */
  personUnlocks(): Promise<void>;
}

export interface HookOptions {
  agent?: HookHost;
  event?: HookEvent;
  env: NodeJS.ProcessEnv;
  /** The folder the host runs the hook in (its own: a `cd` in the agent's shell does not move it). */
  cwd: string;
  now: number;
  heavy: () => Promise<HeavyActs>;
  /** The shell command reader (policy/commands.ts), loaded only for a shell command (dist/hook-shell.js beside the hook's bundle). */
  shell: () => { classifyCommand: typeof classifyCommand };
  /** PI_PLANS_HOOK_TRACE: which path the hook took (the approval verdict from the cache, or the store's check), on stderr. */
  trace?: (line: string) => void;
  home?: string;
}

/** The events whose decision changes the plan or the binding (a collected step, the Stop loop guard): decided once per call. */
const ONCE_EVENTS: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'Stop']);
/** A binding's last-seen time is written again only after this long (the hook runs on every call). */
const SEEN_EVERY_MS = 60_000;
/** A pi_plan_create whose plan never appeared stops counting after this long (its session is as it was before the call). */
const CREATING_MS = 10 * 60_000;

/** What the hook knows of the session while it works: whether it is bound (then every failure closes). */
interface Known {
  bound: boolean;
  session?: string;
  call?: ToolCall;
}

/** Answers one payload (stdin's text). Never throws. */
export async function runHook(stdin: string, o: HookOptions): Promise<HookAnswer> {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch {
    return notice(o.agent, 'pi-plans hook: its input was not JSON (the host should send the event as JSON on stdin); nothing was checked');
  }
  const p = readPayload(raw, { agent: o.agent, event: o.event });
  if (!p) return notice(o.agent, "pi-plans hook: the payload is not one it knows (pass --agent and --event in the hook's command); nothing was checked");
  const host = HOSTS[p.host];
  // Bound until the binding's read says otherwise: an error before it closes, never opens.
  const known: Known = { bound: true, session: p.session };
  try {
    const d = await decidePayload(p, host, o, stdin, known);
    return d.kind === 'allow' && d.notice ? host.notice(d.notice) : host.answer(p, d);
  } catch (e) {
    const why = e instanceof PlanUnreadable || e instanceof SettingsBroken || e instanceof StateBroken ? e.message : `its own error: ${(e as Error).message ?? String(e)}`;
    if (!known.bound) return host.notice(`pi-plans hook could not check this call (${why}); the session is not bound to a plan, so it runs.`);
    return host.answer(p, closed(p, known, why));
  }
}

/** A notice before the host is known. */
function notice(agent: HookHost | undefined, message: string): HookAnswer {
  return agent ? HOSTS[agent].notice(message) : { stdout: '', stderr: `${message}\n`, code: 0 };
}

/** What a bound session gets when the hook cannot decide: reads and plan tools run, nothing else; a Stop is let go. */
export function closed(p: HookPayload, known: Known, why: string): Decision {
  const release = known.session ? ` or frees this session (pi-plans hook release ${known.session.slice(0, 64)} in their own terminal)` : '';
  const text = `pi-plans: this session is bound to a plan, and the hook could not check this call against it (${why}); until a person fixes that${release}, only reads and the plan tools run.`;
  if (p.event === 'PreToolUse') return known.call && (known.call.kind === 'read' || known.call.kind === 'plan') ? { kind: 'allow' } : { kind: 'deny', reason: text };
  if (CONTEXT_EVENTS.has(p.event)) return { kind: 'context', context: text };
  return { kind: 'allow' };
}

async function decidePayload(p: HookPayload, host: HostProfile, o: HookOptions, raw: string, known: Known): Promise<Decision> {
  // No session id (some cloud runs): nothing can be bound, and an unbound session is never restricted.
  // SessionEnd ends nothing: a resumed session is the same session, still bound.
  if (!p.session || p.event === 'other' || p.event === 'SubagentStop' || p.event === 'SessionEnd') {
    known.bound = false;
    return { kind: 'allow' };
  }
  const session = { ...p, session: p.session };
  // What the call is (pure): known before the binding is read, so a broken binding still lets reads and plan tools run.
  let call: ToolCall | undefined;
  let classifyError: unknown;
  try {
    call = p.event === 'PreToolUse' || p.event === 'PostToolUse' ? classifyTool(p, host) : undefined;
  } catch (e) {
    classifyError = e;
  }
  known.call = call;
  const read = readBinding(p.host, p.session, o.now, o.env);
  if (read.kind === 'broken') throw new StateBroken(read.why);
  let b = read.kind === 'bound' ? read.binding : undefined;
  known.bound = !!b;
  if (classifyError) throw classifyError;
  if (!b) {
    b = firstBinding(session, call, o);
    if (!b) return { kind: 'allow' };
    known.bound = true;
    writeBinding(b, o.env);
  }
  const bound = b;
  if (ONCE_EVENTS.has(p.event)) {
    return once(o.env, callKey(session, raw), o.now, () => decideBound(session, host, bound, call, o, true), () => decideBound(session, host, bound, call, o, false));
  }
  return decideBound(session, host, bound, call, o, true);
}

/** The plan a call binds an unbound session to, and where: a plan tool naming a plan, a create, VS Code's plan work mode, `hook collect`. */
function firstBinding(p: HookPayload & { session: string }, call: ToolCall | undefined, o: HookOptions): Binding | undefined {
  const roots = workspaceCandidates(p.cwd, o.env, o.cwd);
  const iso = new Date(o.now).toISOString();
  const make = (root: string, plans: string[], extra: Partial<Binding> = {}): Binding => {
    const finished = plans.filter((id) => finishedNow(root, id));
    return { v: 2, host: p.host, session: p.session.slice(0, 512), root, plans, ...(finished.length ? { finished } : {}), boundAt: iso, seenAt: iso, ...extra };
  };
  if (call?.kind === 'plan') {
    if (call.plan) {
      const root = roots.find((r) => hasPlan(r, call.plan!));
      return root ? make(root, [call.plan], p.event === 'PostToolUse' && call.creates && p.input.collect === true ? { collecting: call.plan } : {}) : undefined;
    }
    // A create whose id is not known yet (PreToolUse): the session counts as planning until it is.
    if (call.creates && p.event === 'PreToolUse' && roots[0]) return make(roots[0], [], { creating: iso });
    return undefined;
  }
  if (call?.kind === 'terminal' && p.event === 'PreToolUse') {
    for (const root of roots) {
      const plan = collectPlan(call.command, root, call.cwd ?? p.cwd, o);
      if (plan && hasPlan(root, plan)) return make(root, [plan], { collecting: plan });
    }
  }
  if (p.host === 'copilot' && roots[0]) {
    const plan = workModePlan(roots[0]);
    if (plan) return make(roots[0], [plan]);
  }
  return undefined;
}

/** The draft a command that is exactly `pi-plans hook collect PLAN-…` puts in collect mode. */
function collectPlan(command: string, root: string, cwd: string | undefined, o: HookOptions): string | undefined {
  // Most commands of a session not bound are not this one: the shell parser is loaded only for one
  // that could be (binding only ever adds restrictions, so a spelling missed here frees nothing).
  if (!command.includes('collect') || !command.includes('PLAN-')) return undefined;
  const f = findings(command, root, cwd, o);
  return f.length === 1 && f[0].kind === 'collect' ? f[0].plan : undefined;
}

function findings(command: string, root: string, cwd: string | undefined, o: HookOptions, places = protectedPlaces(root, o.env, o.home ?? os.homedir())): Finding[] {
  const dir = cwd && path.isAbsolute(cwd) ? physical('/', cwd) : root;
  return o.shell().classifyCommand(command, { cwd: dir, home: o.home ?? os.homedir(), places, resolve: physical });
}

/** The binding after this call: a plan named is added (never one removed), a create's id learnt, collect mode set or ended, the time seen. */
function bindingAfter(p: HookPayload & { session: string }, call: ToolCall | undefined, b: Binding, o: HookOptions, f: Finding[] | undefined): { next: Binding; tooMany?: string } {
  const next: Binding = { ...b, plans: [...b.plans] };
  const add = (id: string) => {
    if (next.plans.includes(id) || !hasPlan(b.root, id)) return undefined;
    if (next.plans.length >= MAX_PLANS) return id;
    next.plans.push(id);
    if (finishedNow(b.root, id)) next.finished = [...(next.finished ?? []), id];
    return undefined;
  };
  let tooMany: string | undefined;
  if (call?.kind === 'plan' && call.plan && (p.event === 'PostToolUse' || !call.creates)) tooMany = add(call.plan);
  if (call?.kind === 'plan' && call.creates) {
    if (p.event === 'PreToolUse') next.creating = new Date(o.now).toISOString();
    else if (call.plan) {
      delete next.creating;
      // pi_plan_create with collect=true (chat's way into collect mode): the new draft collects; any other create ends collect mode.
      if (p.input.collect === true) next.collecting = call.plan;
      else delete next.collecting;
    }
  }
  if (call?.kind === 'plan' && call.tool === 'pi_plan_submit' && p.event === 'PostToolUse') delete next.collecting;
  const collect = f?.length === 1 && f[0].kind === 'collect' ? f[0].plan : undefined;
  if (collect && !add(collect)) next.collecting = collect;
  if (next.creating) learnCreated(next, o);
  if (o.now - Date.parse(b.seenAt) > SEEN_EVERY_MS) next.seenAt = new Date(o.now).toISOString();
  return { next, ...(tooMany ? { tooMany } : {}) };
}

/** A pending create: the plans that appeared in the workspace since it began are this session's (binding more is only stricter). */
function learnCreated(b: Binding, o: HookOptions): void {
  const since = Date.parse(b.creating!);
  let found = false;
  try {
    for (const n of fs.readdirSync(plansDir(b.root))) {
      const m = /^(PLAN-[0-9a-f]{8})\.md$/.exec(n);
      if (!m || b.plans.includes(m[1])) continue;
      const st = fs.lstatSync(path.join(plansDir(b.root), n), { throwIfNoEntry: false });
      if (st && st.birthtimeMs >= since - 2000 && b.plans.length < MAX_PLANS) {
        b.plans.push(m[1]);
        found = true;
      }
    }
  } catch {
    // no plans folder yet
  }
  if (found || o.now - since > CREATING_MS) delete b.creating;
}

const sameBinding = (a: Binding, b: Binding) => JSON.stringify(a) === JSON.stringify(b);

/** The decision for a bound session's payload. `acts`: record a collected step, change the Stop guard (false for a duplicate). */
async function decideBound(p: HookPayload & { session: string }, host: HostProfile, b: Binding, call: ToolCall | undefined, o: HookOptions, acts: boolean): Promise<Decision> {
  const root = b.root;
  const cwd = p.cwd && path.isAbsolute(p.cwd) ? p.cwd : root;
  const places = call?.kind === 'terminal' || call?.kind === 'edit' ? protectedPlaces(root, o.env, o.home ?? os.homedir()) : [];
  const f = call?.kind === 'terminal' ? findings(call.command, root, call.cwd ? path.resolve(cwd, call.cwd) : cwd, o, places) : undefined;
  // A shell the host keeps open for input no hook sees (Codex's tty).
  if (call?.kind === 'terminal' && call.interactive) f!.push({ kind: 'interactive', why: 'the host keeps its shell open for input no hook sees', command: call.command.slice(0, 120) });
  const { next, tooMany } = bindingAfter(p, call, b, o, f);
  if (!sameBinding(next, b)) writeBinding(next, o.env);
  if (p.event === 'PostToolUse') {
    if (call?.kind === 'edit' || call?.kind === 'terminal') reportToStep(next, host, call, cwd, o, f);
    return { kind: 'allow' };
  }
  if (tooMany) return { kind: 'deny', reason: `pi-plans: ${tooMany} is not added to this session's plans: it is bound to ${MAX_PLANS} already. Ask the person to free this session (pi-plans hook release ${p.session.slice(0, 64)}) and start a new one.` };
  if (p.event === 'PreToolUse' && (call?.kind === 'plan' || call?.kind === 'read')) return { kind: 'allow' };
  const plans = await boundPlans(next, o);
  const ref = { session: p.session };
  if (CONTEXT_EVENTS.has(p.event)) return { kind: 'context', context: summary(plans, ref) };
  if (p.event === 'Stop') return stop(p, plans, next, o, acts);
  if (p.event !== 'PreToolUse' || !call) return { kind: 'allow' };
  const settings = readSettings(root, o.env);
  const j = judge(call, f, root, cwd, places);
  const collecting = next.collecting ? plans.find((x) => 'facts' in x && x.facts.id === next.collecting && x.facts.status === 'draft') : undefined;
  if (collecting && 'facts' in collecting && (call.kind === 'edit' || call.kind === 'terminal') && !f?.some((x) => x.kind === 'collect')) {
    const plain = decideTool(plans.filter((x) => x !== collecting), j, settings, ref);
    if (plain.kind === 'deny') return plain;
    if (acts) return collect(collecting.facts, call, j.paths ?? j.patch?.paths ?? [], root, o);
    return { kind: 'deny', reason: `pi-plans: recorded as a step of ${collecting.facts.id} (collect mode), not run.` };
  }
  if (f?.length === 1 && f[0].kind === 'collect') return { kind: 'allow' };
  return decideTool(plans, j, settings, ref);
}

/**
 * A plan's version never goes back under a bound session: the highest version the hook has seen of
 * each plan is kept in the user's state folder (`plan-versions/`), and a file whose version is
 * lower (a checkout, a stash, old bytes written back: an approved text replayed over a stalled or
 * rejected one) is refused as unreadable until a person sets it right or frees the session.
 */
function versionNeverBack(root: string, f: PlanFacts, o: HookOptions): void {
  const seen = readSeenVersion(root, f.id, o.env);
  if (seen !== undefined && f.version < seen) throw new PlanUnreadable(`its version went back from v${seen} to v${f.version} (its file was written back: a checkout, a stash or old bytes), which only a person may accept`);
  if (seen === undefined || f.version > seen) writeSeenVersion(root, f.id, f.version, o.env);
}

/** Whether a plan is finished now (a plan that was, when named, binds nothing; a file that cannot be read counts as not finished). */
function finishedNow(root: string, id: string): boolean {
  try {
    return FINISHED.has(readPlanFile(root, id).facts.status);
  } catch {
    return false;
  }
}

/** The bound plans that decide, read (an unreadable one stays, as broken), statuses an approval governs checked by the store. */
async function boundPlans(b: Binding, o: HookOptions): Promise<BoundPlan[]> {
  const out: BoundPlan[] = [];
  for (const id of b.plans) {
    if (b.finished?.includes(id)) continue;
    try {
      const r = readPlanFile(b.root, id);
      versionNeverBack(b.root, r.facts, o);
      out.push({ facts: GOVERNED.has(r.facts.status) ? await withApproval(r.facts, r.bytes, b.root, o) : r.facts });
    } catch (e) {
      if (!(e instanceof PlanUnreadable)) throw e;
      out.push({ id, problem: e.message });
    }
  }
  if (b.creating) out.push({ facts: { id: 'the new plan', title: 'not created yet', status: 'draft', version: 0, steps: [], openComments: 0 } });
  return out;
}

/** The call with what the hook finds on the disk: an edit's files resolved through links, and the protected places among them. */
function judge(call: ToolCall, f: Finding[] | undefined, root: string, cwd: string, places: readonly Protected[]): JudgedCall {
  const within = (abs: string) => places.filter((pl) => abs === pl.path || abs.startsWith(pl.path.endsWith('/') ? pl.path : `${pl.path}/`));
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join('/') || '.';
  if (call.kind === 'edit') {
    if (!call.paths) return { call };
    const abs = call.paths.map((x) => physical(cwd, x));
    return { call, paths: abs.map(rel), places: abs.flatMap(within) };
  }
  if (call.kind === 'terminal') {
    const edit = f?.find((x): x is Extract<Finding, { kind: 'edit' }> => x.kind === 'edit');
    return { call, findings: f, ...(edit ? { patch: { paths: edit.paths.map(rel), places: edit.paths.flatMap(within) } } : {}) };
  }
  return { call };
}

/**
 * The facts with the store's verdict on the approval of exactly these bytes: from the verdict cache
 * (keyed by the bytes' SHA-256) when it holds one, else the store's check (heavy), then cached.
 * A check that fails makes the plan unreadable (its session is held to reads and plan tools).
 */
export async function withApproval(f: PlanFacts, bytes: Buffer, root: string, o: Pick<HookOptions, 'env' | 'heavy' | 'trace'>): Promise<PlanFacts> {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const cache = verdictCache(root, o.env);
  let v = typeof cache === 'string' ? undefined : cache.get(f.id, sha);
  if (v) o.trace?.(`${f.id} ${f.status}: approval verdict from the cache: ${v.state}`);
  else {
    if (typeof cache === 'string') o.trace?.(cache);
    const t = Date.now();
    try {
      v = await (await o.heavy()).approvalVerdict(root, f.id, bytes);
    } catch (e) {
      throw new PlanUnreadable(`the approval of ${f.id} (${f.status}) could not be checked: ${(e as Error).message ?? String(e)}`);
    }
    o.trace?.(`${f.id} ${f.status}: approval checked by the store in ${Date.now() - t} ms: ${v.state}`);
    if (typeof cache !== 'string') {
      try {
        cache.put(f.id, sha, v);
      } catch (e) {
        o.trace?.(`the verdict was not cached: ${(e as Error).message}`);
      }
    }
  }
  if (v.state === 'valid') return { ...f, openComments: v.openComments ?? 0 };
  // `none` (the store does not read this status as one an approval governs) is no approval either.
  return { ...f, approval: { state: v.state === 'none' ? 'invalid' : v.state, detail: v.state === 'none' ? 'the store does not read this file as an approved plan' : v.detail } };
}

/**
 * An edit's files or a command, reported to each bound plan's step in progress (its evidence tells
 * the session's changes from another process's by them). Never fails the hook: the evidence only
 * loses the attribution.
 */
function reportToStep(b: Binding, host: HostProfile, call: ToolCall, cwd: string, o: HookOptions, f: Finding[] | undefined): void {
  // A shell command that is only Codex's apply_patch is an edit of the patch's files.
  const patch = f?.length === 1 && f[0].kind === 'edit' ? f[0].paths : undefined;
  const rel = (abs: string) => path.relative(b.root, abs).split(path.sep).join('/');
  const paths = call.kind === 'edit' && call.paths ? call.paths.map((x) => rel(physical(cwd, x))) : patch?.map(rel);
  const me = hostSession(b.host, b.session);
  for (const id of b.plans) {
    try {
      // The step this session holds (the MCP server claims as the host's session); else the one step in progress, if only one is.
      const running = readPlanFile(b.root, id).facts.steps.filter((s) => s.status === 'in_progress');
      const step = running.find((s) => s.claimedBy === me) ?? (running.length === 1 && !running[0].claimedBy?.startsWith(`${b.host}-`) ? running[0] : undefined);
      if (!step?.id) continue;
      recordStepEvent(b.root, host.id, b.session, { plan: id, step: step.id, kind: paths ? 'edit' : 'command', ...(paths ? { paths } : {}), at: new Date(o.now).toISOString() }, o.env);
    } catch {
      // the evidence only loses the attribution
    }
  }
}

/** Stop: block once with the next step; the second attempt (or the host's loop guard) goes, and the plan is marked stalled. */
async function stop(p: HookPayload, plans: readonly BoundPlan[], b: Binding, o: HookOptions, acts: boolean): Promise<Decision> {
  const letGo = p.stopHookActive || b.stopBlocked === true;
  const d = decideStop(plans, letGo);
  if (!acts) return d;
  if (d.kind === 'block') {
    writeBinding({ ...b, stopBlocked: true }, o.env);
    return d;
  }
  if (b.stopBlocked) {
    const next = { ...b };
    delete next.stopBlocked;
    writeBinding(next, o.env);
  }
  const top = plans.find((x) => levelOf(x) === 'executing' && 'facts' in x);
  const facts = top && 'facts' in top ? top.facts : undefined;
  const open = facts ? nextStep(facts) : undefined;
  if (!letGo || !facts || !open) return { kind: 'allow' };
  const reason = `the agent ended its turn with ${open.id} open after a reminder (pi-plans hook)`;
  const status = await (await o.heavy()).markStalled(b.root, facts.id, reason);
  return { kind: 'allow', notice: `pi-plans: ${facts.id} "${facts.title}" ${status === 'stalled' ? 'is marked stalled' : status}: the agent stopped with ${open.id} open; the person resumes it with pi-plans resume ${facts.id} or in VS Code.` };
}

/** Collect mode: the denied call becomes a step of the draft, and the denial says which. */
async function collect(facts: PlanFacts, call: ToolCall & { kind: 'edit' | 'terminal' }, paths: readonly string[], root: string, o: HookOptions): Promise<Decision> {
  const command = call.kind === 'terminal' ? call.command : '';
  const target = call.kind === 'edit' ? paths[0] : command.replace(/[\r\n]+/g, ' ').replace(/[()]/g, '').trim().slice(0, 200);
  const text = call.kind === 'edit' ? `Edit ${paths.join(', ') || 'a file'}` : `Run \`${command.replace(/[\r\n]+/g, ' ').slice(0, 400)}\``;
  const tool = /^[^\s():]{1,60}$/.test(call.tool) ? call.tool : call.kind;
  const step = await (await o.heavy()).addCollectedStep(root, facts.id, { text: text.slice(0, 480), tool, operation: call.kind === 'edit' ? 'edit' : 'run', ...(target ? { target } : {}) });
  return { kind: 'deny', reason: `pi-plans: recorded as ${step} of ${facts.id} "${facts.title}" (collect mode), not run: go on planning, and call pi_plan_submit with id ${facts.id} when the plan is complete.` };
}
