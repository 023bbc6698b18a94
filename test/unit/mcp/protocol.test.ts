// The MCP server to the letter of the specification and to what a client developer expects: the
// SDK's own client over stdio against the built CLI, one test per defect of issue 27.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, EmptyResultSchema, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ALL_TOOLS } from '../../../src/tools';
import { CLI, ensureBuilt, idIn, Sandbox, type Text, textOf } from './serverProcess';

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
      // With wrong arguments too: approval being off is said first, not "fix the arguments" (which would only be refused again).
      for (const args of [{}, { id: 'PLAN-00000000' }, { id: 'x', digest: 'y', wiat: 1 }]) {
        const bad = textOf(await call('pi_plan_approve', args));
        assert.match(bad, /agent approval is off\. Ask the user to approve it/, JSON.stringify(args));
        assert.doesNotMatch(bad, /fix the arguments/, JSON.stringify(args));
      }
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

  describe('listed means readable', () => {
    it('a hand-written plan with a 60 KB ## Context: pi_plan_list lists it invalid with the reason, resources/list leaves it out, resources/read answers -32002 with the same reason', async () => {
      const good = await create('Readable');
      const id = 'PLAN-0000c0de';
      const line = 'Background for the change, pasted from the design document.\n';
      fs.writeFileSync(
        sandbox.planFile(id),
        ['---', `id: ${id}`, 'title: Hand-written plan', 'status: draft', 'version: 1', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-01T00:00:00.000Z', '---', '', '## Goal', 'Ship it.', '', '## Steps', '1. [ ] S001 Build it', '', '## Context', line.repeat(Math.ceil((60 * 1024) / line.length))].join('\n'),
      );
      const reason = /## Context is \d+ characters, over the 51200-character limit \(50 KB\): move large context into a file under \.pi\/plans\/artifacts\/ and link it/;
      const listed = textOf(await call('pi_plan_list', {}));
      const row = listed.split('\n').find((l) => l.includes(id));
      assert.ok(row, listed);
      assert.match(row, new RegExp(`^- ${id} · INVALID \\(${reason.source}, line 16\\) · `));
      const said = reason.exec(row)![0];
      assert.match(listed, new RegExp(`^- ${good} · draft `, 'm'), 'the readable plan is listed as it is');
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri), [`pi-plans://plans/${good}`]);
      const e = await errorOf(client.readResource({ uri: `pi-plans://plans/${id}` }));
      assert.equal(e.code, -32002);
      assert.ok(e.message.includes(said), `${e.message}\nshould say: ${said}`);
      // pi_plan_get refuses it for the same reason.
      const got = await call('pi_plan_get', { id });
      assert.equal(got.isError, true);
      assert.ok(textOf(got).includes(said), textOf(got));
    });
  });

  describe('review comments', () => {
    it('a comment asking for a section is addressed by adding it: pi_plan_submit\'s result lists only the comment whose section did not change', async () => {
      const id = await create('No risks yet');
      assert.match(textOf(await call('pi_plan_submit', { id })), /awaiting the user's review/);
      // The person rejects in a terminal (another process), with a comment per section.
      const r = spawnSync(process.execPath, [CLI, '--root', sandbox.root, 'reject', id, '--comment', 'Risks=add a Risks section', '--comment', 'Verification=name the command'], { env: sandbox.env(), encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(textOf(await call('pi_plan_get', { id })), /- ## Risks: add a Risks section → pi_plan_update/);
      // The agent adds ## Risks and leaves Verification alone.
      assert.ok(!(await call('pi_plan_update', { id, risks: ['The parser may be slow on large files.'] })).isError);
      assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), /\n## Risks\n- The parser may be slow on large files\.\n/);
      // The server waits 0 s for the review (--review-wait 0): the answer is "still awaiting", and it names the untouched comments all the same.
      const submitted = textOf(await call('pi_plan_submit', { id }));
      assert.match(submitted, /Still awaiting the user's review after 0 s/);
      assert.match(submitted, /Not changed since the rejection \(the reviewer may ask again\):\n- ## Verification: name the command → pi_plan_update/);
      assert.doesNotMatch(submitted, /## Risks/, 'the added section answered its comment');
    });
  });

  describe('calls in flight', () => {
    it('100 tool calls in flight on one server against one plan all land, with consecutive versions (no lost update)', async () => {
      const id = await create('Busy');
      const start = Number(/version: (\d+)/.exec(fs.readFileSync(sandbox.planFile(id), 'utf8'))![1]);
      // Sent at once, without waiting for any answer.
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call('pi_plan_step', { id, op: 'add', text: `Added in flight ${i + 1}` })));
      for (const r of results) assert.ok(!r.isError, textOf(r));
      const versions = results.map((r) => Number(/version: (\d+)/.exec(textOf(r))![1])).sort((a, b) => a - b);
      assert.deepEqual(versions, Array.from({ length: 100 }, (_, i) => start + i + 1), 'each call wrote its own next version');
      const text = fs.readFileSync(sandbox.planFile(id), 'utf8');
      assert.match(text, new RegExp(`^version: ${start + 100}$`, 'm'));
      for (let i = 1; i <= 100; i++) assert.ok(text.includes(` Added in flight ${i}\n`), `step ${i} is in the file`);
      // The log has one edit per call, versions consecutive.
      const edits = fs
        .readFileSync(path.join(sandbox.root, '.pi', 'plans', 'sessions', `${id}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; version: number })
        .filter((c) => c.type === 'edit')
        .map((c) => c.version);
      assert.deepEqual(edits, Array.from({ length: 100 }, (_, i) => start + i + 1));
    });
  });
});
