// `pi-plans hook`: one payload in, one answer out. Reads the payload, keeps the session's binding,
// reads the bound plan (frontmatter and steps only) and answers with the policy's decision in the
// host's format. Whatever goes wrong inside it, it allows and says why: a hook never blocks
// because of its own failure.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { answer, failOpen, HookAnswer, notice } from '../policy/answer';
import { callKey, once } from './once';
import { HookEvent, HookHost, HookPayload, readPayload } from '../policy/payload';
import { CONTEXT_EVENTS, decideStop, decideTool, Decision, nextStep, PlanFacts, summary } from '../policy/decide';
import { classifyTool, ToolCall } from '../policy/tools';
import { GOVERNED, Verdict, verdictCache } from './verdict';
import { workModeBinding } from './workMode';
import { Binding, PlanUnreadable, plansDir, readBinding, readPlanFile, recordStepEvent, readSettings, removeBinding, workspaceOf, writeBinding } from './workspace';

/** The store's acts the hook needs rarely (see heavy.ts), loaded only then. */
export interface HeavyActs {
  markStalled(root: string, id: string, reason: string): Promise<string>;
  addCollectedStep(root: string, id: string, step: { text: string; tool?: string; operation?: string; target?: string }): Promise<string>;
  approvalVerdict(root: string, id: string, bytes: Uint8Array): Promise<Verdict>;
}

export interface HookOptions {
  agent?: HookHost;
  event?: HookEvent;
  env: NodeJS.ProcessEnv;
  cwd: string;
  now: number;
  heavy: () => Promise<HeavyActs>;
  /** PI_PLANS_HOOK_TRACE: which path the hook took (the approval verdict from the cache, or the store's check), on stderr. */
  trace?: (line: string) => void;
}

const EMPTY: HookAnswer = { stdout: '', stderr: '', code: 0 };
/** The events whose decision changes the plan or the binding (a collected step, the Stop loop guard): decided once per call. */
const ONCE_EVENTS: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PostToolUse', 'Stop']);
/** A binding's last-seen time is written again only after this long (the hook runs on every call). */
const SEEN_EVERY_MS = 60_000;
/** `pi-plans hook collect PLAN-…` run by the agent in its terminal: the hook sees the session that runs it. */
const COLLECT_COMMAND = /\bpi-plans(?:\.js)?\s+(?:--root\s+\S+\s+)?hook\s+collect\s+(PLAN-[0-9a-f]{8})\b/;

/** Answers one payload (stdin's text). Never throws, never blocks on its own failure. */
export async function runHook(stdin: string, o: HookOptions): Promise<HookAnswer> {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin);
  } catch {
    return failOpen(o.agent, 'its input was not JSON (the host should send the event as JSON on stdin)');
  }
  const p = readPayload(raw, { agent: o.agent, event: o.event });
  if (!p) return failOpen(o.agent, 'the payload is not one it knows: pass --agent and --event in the hook\'s command');
  try {
    return await decidePayload(p, o, stdin);
  } catch (e) {
    if (e instanceof PlanUnreadable) return failOpen(p.host, e.message);
    return failOpen(p.host, `its own error: ${(e as Error).message ?? String(e)}`);
  }
}

/** The binding after this payload: a plan tool naming a plan binds (or rebinds) the session to it. */
function bindingAfter(p: HookPayload & { session: string }, call: ToolCall | undefined, b: Binding | undefined, root: string, now: number): Binding | undefined {
  const iso = new Date(now).toISOString();
  let plan: string | undefined;
  let collecting = b?.collecting;
  if (call?.kind === 'plan' && call.plan && (p.event === 'PostToolUse' || !call.creates)) plan = call.plan;
  // pi_plan_create with collect=true (chat's way into collect mode): the new draft collects; any other create does not.
  if (call?.kind === 'plan' && call.creates && call.plan && p.event === 'PostToolUse') collecting = p.input.collect === true || undefined;
  if (call?.kind === 'terminal' && p.event === 'PreToolUse') {
    const m = COLLECT_COMMAND.exec(call.command);
    if (m) [plan, collecting] = [m[1], true];
  }
  // pi_plan_submit finalises a collection.
  if (call?.kind === 'plan' && call.tool === 'pi_plan_submit' && p.event === 'PostToolUse') collecting = undefined;
  if (plan && plan !== b?.plan && fs.existsSync(path.join(plansDir(root), `${plan}.md`))) {
    const next: Binding = { v: 1, session: p.session, host: p.host, plan, boundAt: iso, seenAt: iso, ...(collecting ? { collecting } : {}) };
    writeBinding(root, next);
    return next;
  }
  if (!b) return undefined;
  if (collecting !== b.collecting || now - Date.parse(b.seenAt) > SEEN_EVERY_MS) {
    const next: Binding = { ...b, seenAt: iso };
    if (collecting) next.collecting = true;
    else delete next.collecting;
    writeBinding(root, next);
    return next;
  }
  return b;
}

/**
 * An edit's files or a command, reported to the bound plan's step in progress (its evidence tells
 * the session's changes from another process's by them). Never fails the hook: the evidence only
 * loses the attribution.
 */
function reportToStep(root: string, session: string, plan: string, call: ToolCall, now: number): void {
  try {
    const step = readPlanFile(root, plan).facts.steps.find((s) => s.status === 'in_progress');
    if (!step?.id) return;
    const paths = call.kind === 'edit' ? call.paths.map((f) => path.relative(root, path.resolve(root, f)).split(path.sep).join('/')) : undefined;
    recordStepEvent(root, session, { plan, step: step.id, kind: call.kind === 'edit' ? 'edit' : 'command', ...(paths ? { paths } : {}), at: new Date(now).toISOString() });
  } catch {
    // fail open: nothing is reported
  }
}

async function decidePayload(p: HookPayload, o: HookOptions, raw: string): Promise<HookAnswer> {
  // No session id (some cloud runs): nothing can be bound, and an unbound session is never restricted.
  if (!p.session || p.event === 'other' || p.event === 'SubagentStop') return EMPTY;
  const root = workspaceOf(p.cwd, o.env, o.cwd);
  if (p.event === 'SessionEnd') {
    removeBinding(root, p.session);
    return EMPTY;
  }
  const session = { ...p, session: p.session };
  const had = readBinding(root, p.session, o.now) ?? workModeBinding(root, session, o.now);
  // A bound session's tool call or Stop that reached the hook through two hook files is decided
  // once (once.ts). An unbound session's calls change nothing twice (a plan tool's binding is the
  // same written again), and neither do the context events (a summary, read afresh each time).
  if (had && ONCE_EVENTS.has(p.event)) return once(root, callKey(session, raw), o.now, () => decideSession(session, had, root, o));
  return decideSession(session, had, root, o);
}

/** The decision for a session's payload, from its binding before this call (if any). */
async function decideSession(p: HookPayload & { session: string }, had: Binding | undefined, root: string, o: HookOptions): Promise<HookAnswer> {
  const call = p.event === 'PreToolUse' || p.event === 'PostToolUse' ? classifyTool(p) : undefined;
  const b = bindingAfter(p, call, had, root, o.now);
  if (b && p.event === 'PostToolUse' && (call?.kind === 'edit' || call?.kind === 'terminal')) reportToStep(root, p.session, b.plan, call, o.now);
  if (!b || p.event === 'PostToolUse') return EMPTY;
  const read = readPlanFile(root, b.plan);
  // A status that relaxes the planning policy counts only with a person's approval of this text
  // behind it; a call the policy allows whatever the status (a read, a plan tool) does not ask.
  const relaxed = GOVERNED.has(read.facts.status) && !(call && (call.kind === 'plan' || call.kind === 'other'));
  const facts = relaxed ? await withApproval(read.facts, read.bytes, root, o) : read.facts;
  if (CONTEXT_EVENTS.has(p.event)) return answer(p, { kind: 'context', context: summary(facts) });
  if (p.event === 'Stop') return stop(p, facts, b, root, o);
  if (p.event !== 'PreToolUse' || !call) return EMPTY;
  if (call.kind === 'terminal' && COLLECT_COMMAND.test(call.command)) return EMPTY;
  const paths = call.kind === 'edit' ? call.paths.map((f) => path.relative(root, path.resolve(root, f)).split(path.sep).join('/')) : [];
  const d = decideTool(facts, call, paths, readSettings(root));
  if (b.collecting && facts.status === 'draft' && (call.kind === 'edit' || call.kind === 'terminal')) return answer(p, await collect(facts, call, paths, root, o));
  return answer(p, d);
}

/**
 * The facts with the store's verdict on the approval of exactly these bytes: from the verdict cache
 * (keyed by the bytes' SHA-256) when it holds one, else the store's check (heavy), then cached.
 * A check that fails makes the hook fail open, saying why.
 */
export async function withApproval(f: PlanFacts, bytes: Buffer, root: string, o: Pick<HookOptions, 'env' | 'heavy' | 'trace'>): Promise<PlanFacts> {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const cache = verdictCache(root, o.env);
  let v = typeof cache === 'string' ? undefined : cache.get(f.id, sha);
  if (v) o.trace?.(`${f.id} ${f.status}: approval verdict from the cache: ${v.state}`);
  else {
    if (typeof cache === 'string') o.trace?.(cache);
    const t = performance.now();
    try {
      v = await (await o.heavy()).approvalVerdict(root, f.id, bytes);
    } catch (e) {
      throw new PlanUnreadable(`the approval of ${f.id} (${f.status}) could not be checked: ${(e as Error).message ?? String(e)}`);
    }
    o.trace?.(`${f.id} ${f.status}: approval checked by the store in ${(performance.now() - t).toFixed(0)} ms: ${v.state}`);
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

/** Stop: block once with the next step; the second attempt (or the host's loop guard) goes, and the plan is marked stalled. */
async function stop(p: HookPayload, facts: PlanFacts, b: Binding, root: string, o: HookOptions): Promise<HookAnswer> {
  const letGo = p.stopHookActive || b.stopBlocked === true;
  const d = decideStop(facts, letGo);
  if (d.kind === 'block') {
    writeBinding(root, { ...b, stopBlocked: true });
    return answer(p, d);
  }
  if (b.stopBlocked) writeBinding(root, { ...b, stopBlocked: undefined });
  const next = facts.status === 'executing' && !facts.approval ? nextStep(facts) : undefined;
  if (!letGo || !next) return EMPTY;
  const reason = `the agent ended its turn with ${next.id} open after a reminder (pi-plans hook)`;
  const status = await (await o.heavy()).markStalled(root, facts.id, reason);
  return notice(p.host, `pi-plans: ${facts.id} "${facts.title}" ${status === 'stalled' ? 'is marked stalled' : status}: the agent stopped with ${next.id} open; resume it with pi-plans resume ${facts.id} or in VS Code.`);
}

/** Collect mode: the denied call becomes a step of the draft, and the denial says which. */
async function collect(facts: PlanFacts, call: ToolCall & { kind: 'edit' | 'terminal' }, paths: readonly string[], root: string, o: HookOptions): Promise<Decision> {
  const target = call.kind === 'edit' ? paths[0] : call.command.replace(/[\r\n]+/g, ' ').replace(/[()]/g, '').trim().slice(0, 200);
  const text = call.kind === 'edit' ? `Edit ${paths.join(', ') || 'a file'}` : `Run \`${call.command.replace(/[\r\n]+/g, ' ').slice(0, 400)}\``;
  const tool = /^[^\s():]{1,60}$/.test(call.tool) ? call.tool : call.kind;
  const step = await (await o.heavy()).addCollectedStep(root, facts.id, { text: text.slice(0, 480), tool, operation: call.kind === 'edit' ? 'edit' : 'run', ...(target ? { target } : {}) });
  return { kind: 'deny', reason: `pi-plans: recorded as ${step} of ${facts.id} "${facts.title}" (collect mode), not run: go on planning, and call pi_plan_submit with id ${facts.id} when the plan is complete.` };
}

