// Every "Next:" and every refusal names a call that works now (issue 39), as a property: random
// runs of agents (two sessions) and a person acting on one plan through the tools, and after each
// result the call it names, made as named by the same session, is never refused for the reason
// just given; a "Next:" call is not refused at all.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { approve, reject } from '../../../src/core';
import { PlanStore } from '../../../src/store';
import { ALL_TOOLS, PlanTool, ToolContext } from '../../../src/tools';
import { seenNow } from '../../helpers/approvals';
import { memoryPorts } from '../../helpers/memoryPorts';
import { callNamedIn, instructionOf } from '../../helpers/scriptedAgent';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name) as PlanTool;
type Result = { text: string; refused: boolean };

/** A tool call as a face makes it: arguments parsed by the tool's own schema, a refusal as its message. */
async function call(ctx: ToolContext, name: string, args: Record<string, unknown>): Promise<Result> {
  const parsed = tool(name).schema.safeParse(args);
  if (!parsed.success) return { text: `schema: ${parsed.error.message}`, refused: true };
  return tool(name).run(parsed.data as never, ctx).then(
    (text) => ({ text, refused: false }),
    (e: Error) => ({ text: e.message, refused: true }),
  );
}

const SESSIONS = ['agent-a', 'agent-b'] as const;
const STATUSES = ['in_progress', 'done', 'blocked', 'failed', 'skipped', 'pending'] as const;

/** One act: an agent's tool call, or the person's decision. */
const act = fc.oneof(
  fc.record({ kind: fc.constant('agent' as const), who: fc.constantFrom(...SESSIONS), what: fc.constantFrom('get', 'submit', 'start', 'next', 'mark', 'complete', 'add', 'fail'), step: fc.integer({ min: 1, max: 5 }), status: fc.constantFrom(...STATUSES), note: fc.boolean() }),
  fc.record({ kind: fc.constant('person' as const), approves: fc.boolean() }),
);

describe('every call a result names works now (tools on in-memory stores, random runs)', function () {
  this.timeout(120_000);

  it('after any act, the call the result names (its "Next:", or the one a refusal names) is not refused for the reason given', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(act, { minLength: 5, maxLength: 30 }), async (graph, acts) => {
        const m = memoryPorts();
        const store = await PlanStore.open('/work/ws', m.ports);
        const as = (session: string): ToolContext => ({
          stores: { folders: () => [{ name: 'ws', store }] },
          active: { list: () => [], set: () => undefined, clear: () => undefined },
          settings: { agentMayApprove: false, gating: 'always', waitForReview: false },
          session,
          // A wait (op=next wait=true) ends at once: the property is about what is named, not how long it waits.
          signal: AbortSignal.abort(),
        });
        const steps = [1, 2, 3, 4].map((i) => ({ text: `Step ${i}`, ...(graph ? { depends_on: i <= 2 ? 'none' : `S00${i - 2}` } : {}) }));
        const created = await call(as('agent-a'), 'pi_plan_create', { title: 'Random', goal: 'G', verification: ['v'], steps });
        const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(created.text)![1];
        const trail: string[] = [];
        for (const a of acts) {
          m.advance(60_000);
          if (a.kind === 'person') {
            const doc = await store.read(id);
            if (doc.fm.status !== 'proposed') continue;
            await store.update(id, 'user', (d, c) => (a.approves ? approve(d, seenNow(d), c) : reject(d, 'change it', c, d.fm.version)), { sign: a.approves });
            trail.push(`person ${a.approves ? 'approves' : 'rejects'}`);
            continue;
          }
          const who = a.who;
          const step = `S00${a.step}`;
          const args: Record<string, Record<string, unknown>> = {
            get: { id },
            submit: { id },
            start: { id, op: 'start' },
            next: { id, op: 'next' },
            mark: { id, op: 'mark', step, status: a.status, ...(a.note ? { note: 'because' } : {}) },
            complete: { id, op: 'complete', summary: 'done' },
            fail: { id, op: 'fail', summary: 'stuck' },
            add: { id, op: 'add', text: 'More' },
          };
          const name = a.what === 'get' ? 'pi_plan_get' : a.what === 'submit' ? 'pi_plan_submit' : a.what === 'add' ? 'pi_plan_step' : 'pi_plan_execute';
          const r = await call(as(who), name, args[a.what]);
          trail.push(`${who} ${name} ${JSON.stringify(args[a.what])} -> ${r.refused ? 'refused: ' : ''}${r.text.split('\n')[r.refused ? 0 : 1] ?? ''}`);
          const line = r.refused ? r.text : instructionOf(r.text);
          const named = callNamedIn(line, { note: 'why', summary: 'done' });
          if (!named) continue;
          // "Revise it …, then pi_plan_submit": the revision comes first (a step added), as the line says.
          if (/\brevise\b/i.test(line)) trail.push(`  revises: ${(await call(as(who), 'pi_plan_step', { id, op: 'add', text: 'Revised' })).text.split('\n')[1] ?? ''}`);
          const again = await call(as(who), named.name, named.args);
          trail.push(`  named: ${named.name} ${JSON.stringify(named.args)} -> ${again.refused ? 'refused: ' : 'ok'}${again.refused ? again.text.split('\n')[0] : ''}`);
          if (!r.refused) assert.ok(!again.refused, `a "Next:" call was refused:\n${trail.join('\n')}\n${again.text}`);
          else assert.notEqual(again.text, r.text, `the call a refusal named was refused for the same reason:\n${trail.join('\n')}`);
        }
      }),
      { numRuns: 100 },
    );
  });
});
