// The MCP server to the letter of the specification and to what a client developer expects: the
// SDK's own client over stdio against the built CLI, one test per defect of issue 27.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, EmptyResultSchema, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ALL_TOOLS } from '../../../src/tools';
import { ensureBuilt, idIn, Sandbox, type Text, textOf } from './serverProcess';

/** The JSON-RPC error a request is answered with (fails when it succeeds). */
async function errorOf(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    (r) => assert.fail(`expected an error, got ${JSON.stringify(r)}`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof McpError, String(e));
  return e;
}

describe('MCP server to the specification (the SDK client over stdio, the built CLI)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Text;
  const create = async (title = 'A plan') => idIn(textOf(await call('pi_plan_create', { title, goal: 'G', steps: [{ text: 'a' }, { text: 'b' }], verification: ['v'] })));

  before(ensureBuilt);
  beforeEach(async () => {
    sandbox = new Sandbox();
    client = await sandbox.connect();
  });
  afterEach(async () => {
    await client?.close();
    sandbox.dispose();
  });

  describe('strict arguments', () => {
    it('an unknown key is refused, naming it and the closest known key: a typo of "version" never turns the lost-update guard off', async () => {
      const id = await create();
      await call('pi_plan_step', { id, op: 'add', text: 'c' }); // now at version 2: version 1 is stale
      const before = fs.readFileSync(sandbox.planFile(id), 'utf8');
      const r = await call('pi_plan_step', { id, op: 'remove', step: 'S001', versoin: 1 });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'Unknown argument "versoin" (did you mean "version"?): fix the arguments and call again.');
      assert.equal(fs.readFileSync(sandbox.planFile(id), 'utf8'), before, 'nothing was removed');
      // Each unknown key is named, nested ones with their place; a key like no other says which there are.
      const many = textOf(await call('pi_plan_create', { title: 't', goal: 'g', steps: [{ txt: 'a' }], colour: 'red' }));
      assert.match(many, /steps\.0: Unknown argument "txt" \(did you mean "text"\?\)/);
      assert.match(many, /Unknown argument "colour" \(the arguments are: title, steps, goal, /);
      assert.match(many, /: fix the arguments and call again\.$/);
    });

    it('a NUL byte in an argument is refused as the argument\'s, never as an invalid file the user must fix; nothing is written', async () => {
      const id = await create();
      const before = fs.readFileSync(sandbox.planFile(id), 'utf8');
      const r = await call('pi_plan_update', { id, context: 'Some context\u0000 with a NUL' });
      assert.equal(r.isError, true);
      assert.equal(textOf(r), 'context: contains a NUL byte (character 13): plans are text; call again without it.');
      assert.doesNotMatch(textOf(r), /file is invalid|ask the user/);
      assert.equal(fs.readFileSync(sandbox.planFile(id), 'utf8'), before);
      // Nested arguments are named with their place.
      const step = await call('pi_plan_create', { title: 't', goal: 'g', steps: [{ text: 'a', details: 'x\u0000' }] });
      assert.equal(textOf(step), 'steps.0.details: contains a NUL byte (character 2): plans are text; call again without it.');
    });

    it('tools/list: every input schema has additionalProperties: false, and "id" is required wherever a tool takes a plan id', async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
      for (const t of tools) {
        const s = t.inputSchema as { additionalProperties?: unknown; properties?: Record<string, unknown>; required?: string[] };
        assert.equal(s.additionalProperties, false, t.name);
        if (s.properties?.id) assert.ok(s.required?.includes('id'), `${t.name}: id is required over MCP`);
        assert.doesNotMatch(t.description ?? '', /Over MCP no plan is active/, `${t.name}: the schema says it, not prose`);
      }
      const withId = ALL_TOOLS.filter((t) => 'id' in t.schema.shape && t.name !== 'pi_plan_approve').map((t) => t.name);
      assert.ok(withId.length >= 7, withId.join(', '));
      // A call without it is refused by the schema, in the project's words.
      const r = await call('pi_plan_get', {});
      assert.equal(r.isError, true);
      assert.match(textOf(r), /^id: .*required.*pi_plan_list.*: fix the arguments and call again\.$/);
    });

    it('schema errors read in the project\'s words ("fix the arguments and call again"), not only the SDK\'s "Input validation error"', async () => {
      const id = await create();
      const r = await call('pi_plan_execute', { id, op: 'begin' });
      assert.equal(r.isError, true);
      assert.doesNotMatch(textOf(r), /MCP error|Input validation error/);
      assert.match(textOf(r), /^op: .*"start".*: fix the arguments and call again\.$/);
      const long = await call('pi_plan_create', { title: 'x'.repeat(300), goal: 'g' });
      assert.match(textOf(long), /^title: .*200.*: fix the arguments and call again\.$/);
    });
  });

  describe('error codes', () => {
    it('resources/read: an unknown plan or a URI naming no plan answers -32002 (resource not found) with the reason; a malformed URI -32602', async () => {
      const id = await create();
      assert.ok((await client.readResource({ uri: `pi-plans://plans/${id}` })).contents.length);
      let e = await errorOf(client.readResource({ uri: 'pi-plans://plans/PLAN-00000000' }));
      assert.equal(e.code, -32002);
      assert.match(e.message, /PLAN-00000000 .*resources\/list/);
      e = await errorOf(client.readResource({ uri: 'pi-plans://plans/nope' }));
      assert.equal(e.code, -32002);
      assert.match(e.message, /"nope" is not a plan id/);
      e = await errorOf(client.readResource({ uri: 'pi-plans://plans/PLAN-../../etc' }));
      assert.equal(e.code, -32002);
      assert.match(e.message, /No resource at pi-plans:\/\/plans\/PLAN-\.\.\/\.\.\/etc/);
      e = await errorOf(client.readResource({ uri: 'https://example.com/PLAN-00000000' }));
      assert.equal(e.code, -32002);
      assert.match(e.message, /pi-plans:\/\/plans\/PLAN-/);
      // An invalid plan file: its reason, with the line.
      fs.writeFileSync(sandbox.planFile('PLAN-0000000a'), '---\nid: PLAN-0000000a\nversion: "3"\n---\n');
      e = await errorOf(client.readResource({ uri: 'pi-plans://plans/PLAN-0000000a' }));
      assert.equal(e.code, -32002);
      assert.match(e.message, /PLAN-0000000a/);
      for (const uri of ['not a uri', '', '::']) {
        e = await errorOf(client.readResource({ uri }));
        assert.equal(e.code, -32602, uri);
        assert.match(e.message, /not a URI/, uri);
      }
    });

    it('tools/call without a name answers a clear -32602 (what is missing, what to call), not -32603 with zod\'s JSON', async () => {
      let e = await errorOf(client.request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema));
      assert.equal(e.code, -32602);
      assert.match(e.message, /tools\/call: params\.name: .*tools\/list/);
      assert.doesNotMatch(e.message, /"code"|"path"|\[\{/);
      // An unknown tool: the same code, and the names there are.
      e = await errorOf(client.request({ method: 'tools/call', params: { name: 'pi_plan_gte', arguments: {} } }, CallToolResultSchema));
      assert.equal(e.code, -32602);
      assert.match(e.message, /Unknown tool "pi_plan_gte" \(did you mean "pi_plan_get"\?\)/);
      // The server still answers.
      assert.ok((await client.listTools()).tools.length);
    });

    it('resources/subscribe validates its URI: a malformed one or one naming no plan answers -32602', async () => {
      const id = await create();
      await client.subscribeResource({ uri: `pi-plans://plans/${id}` });
      for (const uri of ['not a uri', 'pi-plans://plans/nope', 'file:///etc/passwd']) {
        const e = await errorOf(client.subscribeResource({ uri }));
        assert.equal(e.code, -32602, uri);
      }
      const e = await errorOf(client.request({ method: 'resources/subscribe', params: {} }, EmptyResultSchema));
      assert.equal(e.code, -32602);
      assert.match(e.message, /params\.uri/);
      await client.unsubscribeResource({ uri: `pi-plans://plans/${id}` });
    });

    it('listChanged is advertised only where it is sent: tools/list_changed when the user switches agent approval; pi_plan_approve is listed only while it is on', async () => {
      const caps = client.getServerCapabilities()!;
      assert.equal(caps.tools?.listChanged, true);
      assert.notEqual(caps.prompts?.listChanged, true, 'the prompts never change');
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!(await names()).includes('pi_plan_approve'), 'agent approval is off');
      assert.ok((await names()).includes('pi_plan_get'));
      let changed!: () => void;
      let heard = new Promise<void>((resolve) => (changed = resolve));
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
      // The person turns agent approval on in their own configuration (outside every workspace).
      sandbox.writeConfig({ name: 'Ana', agentMayApprove: true });
      await heard;
      assert.ok((await names()).includes('pi_plan_approve'));
      heard = new Promise<void>((resolve) => (changed = resolve));
      sandbox.writeConfig({ name: 'Ana' });
      await heard;
      assert.ok(!(await names()).includes('pi_plan_approve'));
      // Called anyway while off: the tool's own refusal, with what to do instead.
      const r = await call('pi_plan_approve', { id: 'PLAN-00000000', digest: `sha256:${'0'.repeat(64)}` });
      assert.equal(r.isError, true);
      assert.match(textOf(r), /agent approval is off/);
    });
  });

  describe('answers that name the right next call', () => {
    it('an unknown step names pi_plan_get, an unknown section the sections there are, an unknown folder the folders, an unknown plan pi_plan_list', async () => {
      const id = await create();
      let t = textOf(await call('pi_plan_step', { id, op: 'remove', step: 'S009' }));
      assert.match(t, new RegExp(`has no step S009.*Call pi_plan_get \\{"id":"${id}"\\} to see its step ids`));
      assert.doesNotMatch(t, /pi_plan_list/);
      t = textOf(await call('pi_plan_get', { id, section: 'Risks' }));
      assert.match(t, new RegExp(`${id} has no "## Risks" section \\(its sections: Goal, Steps, Verification\\).*pi_plan_get \\{"id":"${id}"\\}`));
      assert.doesNotMatch(t, /pi_plan_list/);
      t = textOf(await call('pi_plan_create', { title: 't', goal: 'g', folder: 'elsewhere' }));
      assert.match(t, new RegExp(`No workspace folder named "elsewhere" \\(folders: ${path.basename(sandbox.root)}\\)`));
      assert.doesNotMatch(t, /pi_plan_list/);
      t = textOf(await call('pi_plan_get', { id: 'PLAN-00000000' }));
      assert.match(t, /PLAN-00000000 is not in any workspace folder.*Call pi_plan_list to find the right id\./);
    });

    it('"op=mark needs step and status" names the call to make', async () => {
      const id = await create();
      const t = textOf(await call('pi_plan_execute', { id, op: 'mark', step: 'S001' }));
      assert.match(t, new RegExp(`op=mark needs "step" and "status": call pi_plan_execute \\{"id":"${id}","op":"mark","step":"S001","status":"done"\\}`));
    });
  });
});
