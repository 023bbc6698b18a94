// Several agents on one plan (issue 31), through the tools as every face calls them: the step
// graph from depends_on, the runnable steps and waves in results, out-of-order marks refused,
// op=next claiming for each session, claims held against other sessions and taken over once stalled.
import { strict as assert } from 'node:assert';
import { seenNow } from '../../helpers/approvals';
import { approve, markStep, OpContext, parseClaim, PlanDocument, releaseStep } from '../../../src/core';

/** A person skips a step (no reason given: a person's mark needs none). */
const markStepAsPerson = (d: PlanDocument, step: string, c: OpContext) => markStep(d, step, 'skipped', c);
import { PlanStore } from '../../../src/store';
import { ALL_TOOLS, PlanTool, ToolContext } from '../../../src/tools';
import { memoryPorts } from '../../helpers/memoryPorts';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name) as PlanTool;
async function call(ctx: ToolContext, name: string, input: Record<string, unknown>): Promise<string> {
  const parsed = tool(name).schema.safeParse(input);
  if (!parsed.success) throw new Error(`schema: ${parsed.error.message}`);
  return tool(name).run(parsed.data as never, ctx);
}
async function refused(ctx: ToolContext, name: string, input: Record<string, unknown>): Promise<string> {
  return call(ctx, name, input).then(
    (r) => assert.fail(`expected a refusal, got:\n${r}`),
    (e: Error) => e.message,
  );
}
const idOf = (text: string) => /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(text)![1];

async function setup() {
  const m = memoryPorts();
  const store = await PlanStore.open('/work/ws', m.ports);
  const as = (session?: string): ToolContext => ({
    stores: { folders: () => [{ name: 'ws', store }] },
    active: { list: () => [], set: () => undefined, clear: () => undefined },
    settings: { agentMayApprove: false, gating: 'always', waitForReview: false },
    ...(session ? { session } : {}),
  });
  return { store, as, advance: m.advance };
}

/** S001 and S002 run together; S003 waits for both; S004 (no after:) waits for S003. */
async function graphPlan(ctx: ToolContext, store: PlanStore): Promise<string> {
  const id = idOf(await call(ctx, 'pi_plan_create', { title: 'Parallel', goal: 'G', verification: ['v'] }));
  await call(ctx, 'pi_plan_step', { id, op: 'add', text: 'Parser' });
  await call(ctx, 'pi_plan_step', { id, op: 'add', text: 'Printer', depends_on: 'none' });
  await call(ctx, 'pi_plan_step', { id, op: 'add', text: 'Round trip', details: 'both sides', depends_on: 'S001, S002' });
  await call(ctx, 'pi_plan_step', { id, op: 'add', text: 'Release' });
  await call(ctx, 'pi_plan_submit', { id });
  await store.update(id, 'user', (d, c) => approve(d, seenNow(d), c), { sign: true });
  return id;
}

describe('several agents on one plan: dependencies, next, claims (tools on in-memory stores)', () => {
  it('depends_on writes the after: line; start names the runnable steps and the waves', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    const text = (await store.read(id)).text;
    assert.match(text, /2\. \[ \] S002 Printer\n {3}after: none\n3\. \[ \] S003 Round trip\n {3}both sides\n {3}after: S001, S002\n4\. \[ \] S004 Release\n/);
    // The session that starts the plan is handed its first step at once; the other runnable one is named for another agent.
    const started = await call(as('A'), 'pi_plan_execute', { id, op: 'start' });
    assert.match(started, /^S001 is yours now \(claimed for A, in progress\)\.$/m);
    assert.match(started, /Runnable now: S002\. Waves \(steps that can run together\): S001 S002 \| S003 \| S004\./);
    assert.match(started, /^Next: do step S001 \("Parser"\), yours, then pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"done"\}\.$/m);
    assert.match((await store.read(id)).text, /1\. \[ \] S001 \*in progress\* Parser\n {3}> Claimed: A at /);
    assert.match(await call(as('A'), 'pi_plan_get', { id }), /Runnable now: S002\./);
    assert.equal((await store.read(id)).fm.execution_session, 'A', 'the session that started it');
    // depends_on on update replaces the line; an unknown id is a problem pi_plan_get names.
    await assert.rejects(call(as('A'), 'pi_plan_step', { id, op: 'update', step: 'S004', depends_on: 'S009' }), /executing/);
  });

  it('a mark before the steps it waits for is refused, naming them and the call to make', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    const why = await refused(as('A'), 'pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'in_progress' });
    assert.match(why, /^S003 waits for S001 \(pending\), S002 \(pending\): do them first \(pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"in_progress"\}\), or call pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"next"\} for a step that can run now \(runnable now: S001, S002\)/);
    await refused(as('A'), 'pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'done' });
    // Skipping is not starting: allowed.
    await call(as('A'), 'pi_plan_execute', { id, op: 'mark', step: 'S004', status: 'skipped' });
  });

  it('op=next gives each session its own step, says why when none can start, and that the plan is complete', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    const a = await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    assert.match(a.split('\n')[0], /^S001 is yours \(claimed by agent-a\): "Parser"\. Do it, then pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"done"\}\.$/);
    const b = await call(as('agent-b'), 'pi_plan_execute', { id, op: 'next' });
    assert.match(b.split('\n')[0], /^S002 is yours \(claimed by agent-b\)/);
    const c = await call(as('agent-c'), 'pi_plan_execute', { id, op: 'next' });
    assert.match(c.split('\n')[0], /^No step is runnable now: held by S001 \(in progress, agent-a since [^)]+\), S002 \(in progress, agent-b since [^)]+\); S003 waits for S001, S002; S004 waits for S003\./);
    // agent-a's mark frees nothing (S003 waits for S002 too): it is told to wait, naming the holder.
    assert.match(await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' }), /Next: wait: no step can start until S002 \(in progress, held by agent-b\) is done/);
    // agent-b's mark frees S003, which it is handed with its details; then no one else gets it.
    const doneB = await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done' });
    assert.match(doneB, /^S003 is yours now \(claimed for agent-b, in progress\)\.\n[^]*<plan-data[^>]*>\nboth sides\nafter: S001, S002\n<\/plan-data>/m);
    assert.match(await call(as('agent-c'), 'pi_plan_execute', { id, op: 'next' }), /^No step is runnable now: held by S003 \(in progress, agent-b since [^)]+\); S004 waits for S003\./);
    assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'done' }), /^S004 is yours now \(claimed for agent-b, in progress\)\./m);
    assert.match(await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' }), /^No step is runnable now: held by S004 \(in progress, agent-b/);
    assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S004', status: 'done' }), /every step is done, so the plan is completed/);
    assert.match(await call(as('agent-c'), 'pi_plan_execute', { id, op: 'next' }), /^Complete: PLAN-[0-9a-f]{8} is complete: every step is done or skipped\./);
    // Each step records who did it.
    const text = (await store.read(id)).text;
    for (const [step, who] of [['S001', 'agent-a'], ['S002', 'agent-b'], ['S003', 'agent-b'], ['S004', 'agent-b']]) {
      assert.match(text, new RegExp(`${step} [^\\n]*\\n(?: {3}[^\\n]*\\n)*? {3}> Claimed: ${who} at 20\\d\\d-`), `${step} by ${who}`);
    }
  });

  it('a step in progress is its session\'s: another is refused naming the holder; a stalled claim is taken over, and the takeover is logged', async () => {
    const { store, as, advance } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    const held = await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    assert.match(held, /^S001 is in progress, claimed by agent-a at [^ ]+ \(0 min ago\): leave it to that session and call pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"next"\} for another step; it can be taken over once it is older than 30 min/);
    // takeover before the stall threshold: still refused.
    await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done', takeover: true });
    advance(31 * 60_000);
    assert.match(await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' }), /so you may take it over with pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"done","takeover":true\}/);
    const r = await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', takeover: true });
    assert.match(r, /S001 is in progress \(S001 taken over from agent-a \(claimed [^)]+, 31 min ago\) by agent-b\)/);
    assert.match((await store.read(id)).text, /> Claimed: agent-b at [^ ]+ \(taken over from agent-a, claimed [^)]+\)/);
    const log = await store.readCheckpoints(id);
    assert.ok(log.some((c) => c.step === 'S001' && /taken over from agent-a/.test(c.note ?? '')), JSON.stringify(log));
    // The holder now is agent-b: agent-a is refused.
    assert.match(await refused(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' }), /claimed by agent-b/);
  });

  it('a threshold lowered in .pi/plans.json (a file an agent writes) takes no live claim: never below 10 minutes', async () => {
    const m = memoryPorts();
    m.fs.put('/work/ws/.pi/plans.json', JSON.stringify({ executor_timeout_minutes: 1 }));
    const store = await PlanStore.open('/work/ws', m.ports);
    assert.equal(store.config.executor_timeout_minutes, 1);
    const as = (session?: string): ToolContext => ({ stores: { folders: () => [{ name: 'ws', store }] }, active: { list: () => [], set: () => undefined, clear: () => undefined }, settings: { agentMayApprove: false, gating: 'always', waitForReview: false }, ...(session ? { session } : {}) });
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    m.advance(5 * 60_000);
    assert.match(await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', takeover: true }), /can be taken over once it is older than 10 min/);
    m.advance(6 * 60_000);
    assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', takeover: true }), /taken over from agent-a/);
  });
  it('the claim line is text any agent can edit: back-dated, its age still counts from the log; deleted, the log\'s last session still holds the step', async () => {
    const m = memoryPorts();
    const store = await PlanStore.open('/work/ws', m.ports);
    const as = (session?: string): ToolContext => ({ stores: { folders: () => [{ name: 'ws', store }] }, active: { list: () => [], set: () => undefined, clear: () => undefined }, settings: { agentMayApprove: false, gating: 'always', waitForReview: false }, ...(session ? { session } : {}) });
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    const file = `/work/ws/.pi/plans/${id}.md`;
    const text = () => m.ports.fs.text(file)!;
    assert.equal((await store.readCheckpoints(id)).at(-1)?.session, 'agent-a', 'the log says which session claimed it');
    // Back-dated by a day, by hand (the version kept, as a file edit would).
    m.ports.fs.put(file, text().replace(/> Claimed: agent-a at \S+/, '> Claimed: agent-a at 2020-01-01T00:00:00.000Z'));
    await store.rescan();
    const early = await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', takeover: true });
    assert.match(early, /claimed by agent-a at 2020-01-01T00:00:00\.000Z \(0 min ago\).*can be taken over once it is older than 30 min/);
    // Deleted: the log's last session on S001 holds it still.
    m.ports.fs.put(file, text().replace(/\n +> Claimed: [^\n]*/, ''));
    await store.rescan();
    assert.doesNotMatch(text(), /Claimed/);
    assert.match(await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' }), /S001 is in progress, claimed by agent-a/);
    // Its own session goes on, and the line is written again.
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    assert.match(text(), /> Claimed: agent-a at /);
  });

  it('a claimed step with no event in the checkpoint log (the log removed): its age cannot be told, so no agent takes it over; a person may', async () => {
    const m = memoryPorts();
    const store = await PlanStore.open('/work/ws', m.ports);
    const advance = m.advance;
    const as = (session?: string): ToolContext => ({ stores: { folders: () => [{ name: 'ws', store }] }, active: { list: () => [], set: () => undefined, clear: () => undefined }, settings: { agentMayApprove: false, gating: 'always', waitForReview: false }, ...(session ? { session } : {}) });
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    const log = `/work/ws/.pi/plans/sessions/${id}.jsonl`;
    await m.ports.fs.removeFile(log);
    advance(120 * 60_000);
    assert.match(await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', takeover: true }), /the checkpoint log has no event of that step.*only a person can take it over/);
    const { markPlanStep } = await import('../../../src/service');
    await markPlanStep({ store }, id, 'S001', 'in_progress', undefined, { actor: 'user' }, { session: 'person', takeover: true });
    assert.match((await store.read(id)).text, /> Claimed: person at \S+ \(taken over from agent-a/);
  });
  it('a done step is the record of who did it: another session cannot set it back; its own session reopens it only with the reason, which the log keeps', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    const other = await refused(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'pending' });
    assert.match(other, /^S001 is done, done by agent-a: only that session or a person reopens it\. Call pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"next"\}/);
    assert.equal((await store.read(id)).steps[0].status, 'done', 'nothing changed');
    const bare = await refused(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress' });
    assert.match(bare, /S001 is done: reopening it \(to in_progress\) needs the reason, which the checkpoint log keeps: call pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"in_progress","note":"<why S001 must be done again>"\}/);
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress', note: 'the parser misses nested lists' });
    const log = await store.readCheckpoints(id);
    assert.deepEqual(
      log.filter((c) => c.step === 'S001' && c.type === 'step').map((c) => [c.status, c.session, c.note]),
      [
        ['in_progress', 'agent-a', undefined],
        ['done', 'agent-a', undefined],
        ['in_progress', 'agent-a', 'the parser misses nested lists'],
      ],
    );
  });
  it('op=complete: refused while steps are open or skipped without a reason, naming them and the mark to make', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    const early = await refused(as('A'), 'pi_plan_execute', { id, op: 'complete' });
    assert.match(early, /^PLAN-[0-9a-f]{8} cannot be completed: S001 \(pending\), S002 \(pending\), S003 \(pending\), S004 \(pending\) are not done\. Mark S001 first: pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"mark","step":"S001","status":"done"\}/);
    assert.equal((await store.read(id)).fm.status, 'executing');
    for (const step of ['S001', 'S002']) await call(as('A'), 'pi_plan_execute', { id, op: 'mark', step, status: 'done' });
    await store.update(id, 'user', (d, c) => markStepAsPerson(d, 'S003', c));
    const unexplained = await refused(as('A'), 'pi_plan_execute', { id, op: 'complete' });
    assert.match(unexplained, /cannot be completed: S004 \(pending\) is not done; S003 was skipped without a reason\. Mark S004 first/);
  });

  it('op=complete on a plan its last mark completed: "Already completed", not a refusal', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    for (const step of ['S001', 'S002', 'S003', 'S004']) await call(as('A'), 'pi_plan_execute', { id, op: 'mark', step, status: 'done' });
    assert.equal((await store.read(id)).fm.status, 'completed');
    assert.match(await call(as('A'), 'pi_plan_execute', { id, op: 'complete' }), /Already completed/);
  });
  it('two agents: each mark\'s Next is for its own session, never a step the other holds; next with wait=true waits for the other\'s mark and claims the step it frees', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    assert.match(await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' }), /^S001 is yours/);
    const inProgress = await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'in_progress' });
    assert.match(inProgress, /Next: do step S001 \("Parser"\), yours/);
    assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'next' }), /^S002 is yours/);
    const doneA = await call(as('agent-a'), 'pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    assert.match(doneA, /Next: wait: no step can start until S002 \(in progress, held by agent-b\) is done; pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"next","wait":true\} waits for one and claims it\./);
    assert.doesNotMatch(doneA, /do step S002/);
    // agent-a waits; agent-b's mark frees S003: exactly one of them gets it (the waiter, woken by the
    // write, or agent-b, handed it by its own mark), and the other is told so, never the same step.
    const abort = new AbortController();
    const waiting = call({ ...as('agent-a'), signal: abort.signal }, 'pi_plan_execute', { id, op: 'next', wait: true });
    const doneB = await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done' });
    const holder = parseClaim((await store.read(id)).steps.find((x) => x.id === 'S003')!.record?.Claimed)?.session;
    if (holder === 'agent-b') {
      assert.match(doneB, /^S003 is yours now \(claimed for agent-b, in progress\)\.$/m);
      abort.abort();
      assert.match(await waiting, /^No step is runnable now \(waited \d+ s\): held by S003 \(in progress, agent-b/);
    } else {
      assert.equal(holder, 'agent-a', 'S003 went to one of them');
      assert.match(await waiting, /^S003 is yours \(claimed by agent-a\)/);
      assert.doesNotMatch(doneB, /S003 is yours/);
      assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'mark', step: 'S003', status: 'done' }).catch((e: Error) => e.message), /S003 is in progress, claimed by agent-a/);
    }
  });

  it('a claim is released by a person only: the step is pending again with no claim line, and the log says whose it was', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    await assert.rejects(store.update(id, 'agent', (d, c) => releaseStep(d, 'S001', c), { claims: true }), /releasing another session's claim is a person's decision; mark your own step "pending"/);
    await assert.rejects(store.update(id, 'user', (d, c) => releaseStep(d, 'S002', c), { claims: true }), /S002 is pending, not in progress: there is no claim to release/);
    await store.update(id, 'user', (d, c) => releaseStep(d, 'S001', c), { claims: true });
    const doc = await store.read(id);
    assert.equal(doc.steps[0].status, 'pending');
    assert.equal(doc.steps[0].record?.Claimed, undefined);
    assert.match(await call(as('agent-b'), 'pi_plan_execute', { id, op: 'next' }), /^S001 is yours \(claimed by agent-b\)/);
  });

  it('next with wait=true ends when the request is cancelled, and says how to wait again', async () => {
    const { store, as } = await setup();
    const id = await graphPlan(as('A'), store);
    await call(as(), 'pi_plan_execute', { id, op: 'start' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    await call(as('agent-a'), 'pi_plan_execute', { id, op: 'next' });
    const abort = new AbortController();
    const waiting = call({ ...as('agent-b'), signal: abort.signal }, 'pi_plan_execute', { id, op: 'next', wait: true });
    abort.abort();
    assert.match(await waiting, /^No step is runnable now \(waited 0 s\): held by S001 \(in progress, agent-a since [^)]+\), S002 \(in progress, agent-a since [^)]+\).*To wait until one is, call pi_plan_execute \{"id":"PLAN-[0-9a-f]{8}","op":"next","wait":true\}\./s);
  });
});
