// Strict arguments and refusals that name the next call, for every face of the tools (the VS Code
// LM tools parse with the same schemas; the MCP server with its variant where "id" is required).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { PlanStore } from '../../../src/store';
import { ALL_TOOLS, mcpSchemaOf, parseArguments, PlanTool, ToolContext } from '../../../src/tools';
import { advertisedSize, inputSchemaOf } from '../../../src/tools/manifest';
import { memoryPorts } from '../../helpers/memoryPorts';

const tool = (name: string) => ALL_TOOLS.find((t) => t.name === name) as PlanTool;
const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));

async function setup(folders = ['ws']) {
  const stores: { name: string; store: PlanStore }[] = [];
  for (const name of folders) stores.push({ name, store: await PlanStore.open(`/work/${name}`, memoryPorts().ports) });
  const active: { id: string; folder: string }[] = [];
  const ctx: ToolContext = {
    stores: { folders: () => stores },
    active: { list: () => [...active], set: (id, folder) => void active.splice(0, active.length, { id, folder }), clear: () => void active.splice(0) },
    settings: { agentMayApprove: false, gating: 'always', waitForReview: false },
  };
  /** Calls a tool as the faces do: its schema, then its handler; resolves to the text or the refusal. */
  const call = (name: string, input: Record<string, unknown>) => tool(name).run(tool(name).schema.parse(input) as never, ctx).catch((e: Error) => e.message);
  return { ctx, call, store: stores[0].store };
}

describe('tool arguments: strict, refused in the project\'s words', () => {
  it('every tool\'s schema refuses an unknown key, naming it and the closest known key (the VS Code tools parse with these schemas)', () => {
    for (const t of ALL_TOOLS) {
      const r = t.schema.safeParse({ versoin: 1, zzzzzz: 2 });
      assert.equal(r.success, false, t.name);
      const unknown = r.error!.issues.find((i) => i.code === 'unrecognized_keys')!;
      assert.ok(unknown, t.name);
      const known = Object.keys(t.schema.shape);
      if (known.includes('version')) assert.match(unknown.message, /Unknown argument "versoin" \(did you mean "version"\?\)/, t.name);
      assert.match(unknown.message, new RegExp(`Unknown argument "zzzzzz" \\(the arguments are: ${known.join(', ')}\\)`), t.name);
    }
    // Nested objects too: a step of pi_plan_create.
    const r = tool('pi_plan_create').schema.safeParse({ title: 't', steps: [{ text: 'a', detials: 'x' }] });
    assert.match(r.error!.issues[0].message, /Unknown argument "detials" \(did you mean "details"\?\)/);
    assert.deepEqual(r.error!.issues[0].path, ['steps', 0]);
  });

  it('parseArguments: one sentence, every problem with its place, ending with what to do', () => {
    assert.throws(() => parseArguments(tool('pi_plan_get').schema, { id: 'PLAN-00000000', sectoin: 'Goal' }), { message: 'Unknown argument "sectoin" (did you mean "section"?): fix the arguments and call again.' });
    assert.throws(() => parseArguments(tool('pi_plan_step').schema, { op: 'add', text: 'x'.repeat(501), versoin: 2 }), (e: Error) => {
      assert.match(e.message, /^text: .*500.*; Unknown argument "versoin" \(did you mean "version"\?\): fix the arguments and call again\.$/);
      return true;
    });
    assert.deepEqual(parseArguments(tool('pi_plan_get').schema, { id: 'PLAN-00000000' }), { id: 'PLAN-00000000' });
  });

  it('the MCP schemas require "id" wherever a plan id is taken (no plan is active there); the VS Code schemas keep it optional', () => {
    for (const t of ALL_TOOLS) {
      const mcp = z.toJSONSchema(mcpSchemaOf(t)) as { required?: string[]; additionalProperties?: unknown };
      const vscode = inputSchemaOf(t) as { required?: string[] };
      assert.equal(mcp.additionalProperties, false, t.name);
      if ('id' in t.schema.shape) assert.ok(mcp.required?.includes('id'), t.name);
      if ('id' in t.schema.shape && t.name !== 'pi_plan_approve') assert.ok(!vscode.required?.includes('id'), t.name);
    }
    assert.throws(() => parseArguments(mcpSchemaOf(tool('pi_plan_submit')), {}), { message: /^id: .*required.*pi_plan_list.*: fix the arguments and call again\.$/ });
    assert.throws(() => parseArguments(mcpSchemaOf(tool('pi_plan_submit')), { id: 'PLAN-00000000', wiat: false }), { message: /Unknown argument "wiat" \(did you mean "wait"\?\)/ });
  });

  it('the tool set as MCP lists it stays under the 8,000-character budget too', () => {
    const size = advertisedSize('mcp');
    assert.ok(size < 8000, `${size} characters`);
  });

  it('package.json: every input schema (and every object inside one) says additionalProperties: false', () => {
    const walk = (s: Record<string, unknown>, where: string) => {
      if (s.type === 'object') assert.equal(s.additionalProperties, false, where);
      if (s.items) walk(s.items as Record<string, unknown>, `${where}[]`);
      for (const [k, v] of Object.entries((s.properties as Record<string, Record<string, unknown>>) ?? {})) walk(v, `${where}.${k}`);
    };
    for (const t of pkg.contributes.languageModelTools) walk(t.inputSchema, t.name);
  });
});

describe('refusals name the call that fixes them', () => {
  it('an unknown step: pi_plan_get (its step ids), not pi_plan_list', async () => {
    const { call } = await setup();
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(await call('pi_plan_create', { title: 'T', goal: 'G', steps: [{ text: 'a' }] }))![1];
    for (const input of [
      { id, op: 'update', step: 'S009', text: 'x' },
      { id, op: 'move', step: 'S001', after: 'S009' },
    ]) {
      const t = await call('pi_plan_step', input);
      assert.match(t, new RegExp(`has no step S009.*Call pi_plan_get \\{"id":"${id}"\\} to see its step ids\\.$`));
      assert.doesNotMatch(t, /pi_plan_list/);
    }
  });

  it('an unknown section: the sections the plan has and the read that works', async () => {
    const { call } = await setup();
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(await call('pi_plan_create', { title: 'T', goal: 'G', steps: [{ text: 'a' }] }))![1];
    const t = await call('pi_plan_get', { id, section: 'Context' });
    assert.equal(t, `${id} has no "## Context" section (its sections: Goal, Steps): call pi_plan_get {"id":"${id}"} for the whole plan, or with "section" set to one of those.`);
  });

  it('an unknown folder: the folder names, and the call with one of them', async () => {
    const { call } = await setup(['api', 'web']);
    const t = await call('pi_plan_create', { title: 'T', folder: 'app' });
    assert.equal(t, 'No workspace folder named "app" (folders: api, web): call pi_plan_create again with "folder" set to one of them.');
  });

  it('an unknown plan: pi_plan_list; a missing id with no active plan: pi_plan_list or pi_plan_create, said once', async () => {
    const { call } = await setup();
    assert.match(await call('pi_plan_get', { id: 'PLAN-00000000' }), /PLAN-00000000 is not in any workspace folder's \.pi\/plans\. Call pi_plan_list to find the right id\.$/);
    const none = await call('pi_plan_get', {});
    assert.match(none, /pass "id" \(call pi_plan_list to find it\) or create one with pi_plan_create\.$/);
    assert.equal(none.match(/pi_plan_list/g)!.length, 1);
  });

  it('op=mark without step or status, op=update without step: the call to make, with the plan id', async () => {
    const { call } = await setup();
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(await call('pi_plan_create', { title: 'T', goal: 'G', steps: [{ text: 'a' }] }))![1];
    assert.equal(await call('pi_plan_execute', { id, op: 'mark' }), `op=mark needs "step" and "status": call pi_plan_execute {"id":"${id}","op":"mark","step":"S001","status":"done"} (status: in_progress, done, blocked, failed, skipped or pending).`);
    assert.match(await call('pi_plan_step', { id, op: 'update', text: 'b' }), new RegExp(`op=update needs "step": call pi_plan_step \\{"id":"${id}","op":"update","step":"<step id>", \\.\\.\\.\\} \\(pi_plan_get \\{"id":"${id}"\\} lists the step ids\\)\\.$`));
    assert.match(await call('pi_plan_step', { id, op: 'add' }), new RegExp(`op=add needs "text": call pi_plan_step \\{"id":"${id}","op":"add","text":"\\.\\.\\."\\}\\.$`));
  });
});
