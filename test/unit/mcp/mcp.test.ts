// The MCP server as a client sees it: the SDK's own client over stdio against the built CLI
// (`node dist/cli.js --root DIR mcp`), decisions written by other processes (the CLI).
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ALL_TOOLS } from '../../../src/tools';
import { PLANNING_STRATEGIES, renderPlanningSection } from '../../../src/tools/strategies';
import { inputSchemaOf } from '../../../src/tools/manifest';
import { personSync } from '../../helpers/person.mjs';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

type Text = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as Text).content.map((c) => c.text ?? '').join('\n');

describe('MCP server (pi-plans mcp: the SDK client over stdio, the built CLI)', function () {
  this.timeout(60_000);
  let root: string;
  let home: string;
  let client: Client;

  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', root, ...args], { encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') } });
  async function connect(extraArgs: string[] = []) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--root', root, 'mcp', ...extraArgs],
      env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') },
      stderr: 'pipe',
    });
    const c = new Client({ name: 'pi-plans-test', version: '1.0.0' });
    await c.connect(transport);
    return c;
  }
  const call = async (name: string, args: Record<string, unknown>, opts: Parameters<Client['callTool']>[2] = {}) => (await client.callTool({ name, arguments: args }, undefined, opts)) as Text;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-mcp-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-mcp-home-'));
    // The person's name, as their configuration gives it.
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ name: 'Ana' }));
    client = await connect(['--review-wait', '20']);
  });
  afterEach(async () => {
    await client?.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('lists the same tools, with the same input schemas as the VS Code tool manifest but "id" required (approve only with agent approval on)', async () => {
    const { tools } = await client.listTools();
    const offered = ALL_TOOLS.filter((t) => t.name !== 'pi_plan_approve');
    assert.deepEqual(tools.map((t) => t.name).sort(), offered.map((t) => t.name).sort());
    for (const t of offered) {
      const served = tools.find((x) => x.name === t.name)!;
      const ours = inputSchemaOf(t) as { properties?: Record<string, unknown>; required?: string[] };
      assert.deepEqual(served.inputSchema.properties, ours.properties, t.name);
      const required = [...(ours.required ?? []), ...('id' in t.schema.shape && !ours.required?.includes('id') ? ['id'] : [])];
      assert.deepEqual([...(served.inputSchema.required ?? [])].sort(), required.sort(), t.name);
      assert.equal(served.description, t.modelDescription, t.name);
      // No plan is active over MCP (id is required there): no description says otherwise.
      assert.doesNotMatch(served.description ?? '', /active plan/, t.name);
    }
  });

  it('a whole lifecycle: create, steps, submit waiting, a decision by another process, execute to completion', async () => {
    let r = await call('pi_plan_create', { title: 'Served over MCP', goal: 'Prove the loop', steps: [{ text: 'First' }], verification: ['it completes'] });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(r))![1];
    r = await call('pi_plan_step', { id, op: 'add', text: 'Second' });
    assert.match(textOf(r), /Added S002/);
    // The waiting submit; a person approves from a terminal (another process) meanwhile.
    // The server's first progress notification says the wait began: the plan is proposed by then.
    const progress: string[] = [];
    let began!: () => void;
    const waitBegan = new Promise<void>((resolve) => (began = resolve));
    const waiting = call('pi_plan_submit', { id }, {
      onprogress: (p) => {
        progress.push(p.message ?? '');
        began();
      },
    });
    await waitBegan;
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), /^status: proposed$/m);
    // The person reads it (`show` prints the digest) and approves exactly that text.
    const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(cli('show', id).stdout)![1];
    const approved = personSync(CLI, ['--root', root, 'approve', id, '--digest', digest], { env: { ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') } });
    assert.equal(approved.status, 0, approved.stderr);
    r = await waiting;
    assert.match(textOf(r), /Approved by Ana at v\d+\./);
    assert.ok(progress.some((m) => m.includes(`awaiting the person's review of ${id}`)), `progress: ${JSON.stringify(progress)}`);
    r = await call('pi_plan_execute', { id, op: 'start' });
    assert.match(textOf(r), /status: executing/);
    await call('pi_plan_execute', { id, op: 'mark', step: 'S001', status: 'done' });
    r = await call('pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done', note: 'over MCP' });
    assert.match(textOf(r), /status: completed/);
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), /> Note: over MCP/);
  });

  it('a wait past --review-wait answers "still awaiting review" and changes nothing; a cancelled wait leaves the plan proposed', async () => {
    await client.close();
    client = await connect(['--review-wait', '1']);
    const created = await call('pi_plan_create', { title: 'Waits', goal: 'G', steps: [{ text: 'a' }], verification: ['v'] });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(created))![1];
    const r = await call('pi_plan_submit', { id });
    assert.match(textOf(r), /Still awaiting the user's review after 1 s; nothing changed\. To wait again, call pi_plan_submit \{"id":"PLAN-[0-9a-f]{8}"\}/);
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), /^status: proposed$/m);
    // A cancelled request: the client stops waiting; the server ends the wait; nothing changes.
    await client.close();
    client = await connect(['--review-wait', '30']);
    const second = await call('pi_plan_create', { title: 'Cancelled wait', goal: 'G', steps: [{ text: 'a' }], verification: ['v'] });
    const id2 = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(second))![1];
    const abort = new AbortController();
    // Cancelled at the first progress notification, i.e. while the server waits for the person.
    const waiting = call('pi_plan_submit', { id: id2 }, { signal: abort.signal, onprogress: () => abort.abort() });
    await assert.rejects(waiting, /abort|cancel/i);
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id2}.md`), 'utf8'), /^status: proposed$/m);
    // The server still answers.
    assert.match(textOf(await call('pi_plan_get', { id: id2 })), /status: proposed/);
  });

  it('refuses as the tools do, with what to call next; approval only with the user\'s own opt-in, never a workspace file', async () => {
    let r = await call('pi_plan_get', {});
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^id: required \(no plan is active over MCP\): pass the plan id; pi_plan_list finds it/);
    r = await call('pi_plan_get', { id: 'PLAN-00000000' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /PLAN-00000000 is not in any workspace folder/);
    const created = await call('pi_plan_create', { title: 'Approve me', goal: 'G', steps: [{ text: 'a' }], verification: ['v'] });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(created))![1];
    await client.close();
    client = await connect(['--review-wait', '0']);
    await call('pi_plan_submit', { id });
    const digest = /Digest of this text: (sha256:[0-9a-f]{64})\./.exec(textOf(await call('pi_plan_get', { id })))![1];
    // A configuration inside the workspace cannot turn agent approval on.
    fs.writeFileSync(path.join(root, '.pi', 'plans.json'), JSON.stringify({ agentMayApprove: true }));
    r = await call('pi_plan_approve', { id, digest });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /approv/i);
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), /^status: proposed$/m);
    // The user's own configuration (outside every workspace) does.
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ agentMayApprove: true }));
    r = await call('pi_plan_approve', { id, digest });
    assert.notEqual(r.isError, true, textOf(r));
    assert.match(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), /^status: approved$/m);
  });

  it('a bad --root exits 2 with the fix, and writes nothing; logs go to stderr, never stdout', () => {
    const missing = spawnSync(process.execPath, [CLI, '--root', path.join(root, 'nope'), 'mcp'], { encoding: 'utf8', input: '' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /does not exist: pass the workspace folder/);
    assert.equal(missing.stdout, '');
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'x');
    const notDir = spawnSync(process.execPath, [CLI, '--root', file, 'mcp'], { encoding: 'utf8', input: '' });
    assert.equal(notDir.status, 2);
    assert.match(notDir.stderr, /is not a folder/);
    assert.equal(fs.existsSync(path.join(root, 'nope')), false);
  });

  it('serves every plan as a resource; a subscriber hears of an outside edit, and every client of a new plan', async () => {
    const created = await call('pi_plan_create', { title: 'A resource', goal: 'G', steps: [{ text: 'a' }] });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(created))![1];
    const file = path.join(root, '.pi', 'plans', `${id}.md`);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [`pi-plans://plans/${id}`]);
    assert.equal(resources[0].title, 'A resource');
    const read = await client.readResource({ uri: `pi-plans://plans/${id}` });
    assert.equal((read.contents[0] as { text: string }).text, fs.readFileSync(file, 'utf8'));
    // Subscribed: edits by another process (plain file writes, as an editor or git makes them).
    const heard: string[] = [];
    const waiters: { n: number; resolve: () => void }[] = [];
    const listed = new Promise<void>((resolve) => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
      for (const w of waiters.filter((x) => heard.length >= x.n)) w.resolve();
    });
    await client.subscribeResource({ uri: `pi-plans://plans/${id}` });
    /** Resolves once `n` updates were heard (the test's own timeout is the deadline). */
    const until = (n: number) => (heard.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })));
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('\nG\n', '\nG, edited outside\n'));
    await until(1);
    assert.match(((await client.readResource({ uri: `pi-plans://plans/${id}` })).contents[0] as { text: string }).text, /G, edited outside/);
    // Once the folder is watched, each edit is heard on its own (a step's text: the index does not change).
    const before = heard.length;
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('S001 a', 'S001 a, edited again'));
    await until(before + 1);
    assert.deepEqual([...new Set(heard)], [`pi-plans://plans/${id}`]);
    // A new plan from another process: the list changed.
    await call('pi_plan_create', { title: 'Another', goal: 'G' });
    await listed;
  });

  it('a call on a named plan reads that plan only: the folder is indexed when a call lists it', async () => {
    const created = await call('pi_plan_create', { title: 'The one', goal: 'G', steps: [{ text: 'a' }] });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(textOf(created))![1];
    // Many more plans, written by another process after the server opened its store.
    const plans = path.join(root, '.pi', 'plans');
    const text = fs.readFileSync(path.join(plans, `${id}.md`), 'utf8');
    for (let i = 0; i < 2000; i++) {
      const other = `PLAN-${(0x10000000 + i).toString(16)}`;
      fs.writeFileSync(path.join(plans, `${other}.md`), text.replace(new RegExp(id, 'g'), other));
    }
    const cache = path.join(home, 'cache');
    const got = await call('pi_plan_get', { id });
    assert.ok(!got.isError, textOf(got));
    assert.match(textOf(got), /The one/);
    const stepped = await call('pi_plan_step', { id, op: 'add', text: 'b' });
    assert.ok(!stepped.isError, textOf(stepped));
    assert.ok(!fs.existsSync(cache) || fs.readdirSync(cache).length === 0, 'no index was built (none was saved)');
    const listed = textOf(await call('pi_plan_list', {}));
    assert.match(listed, /^2001 plans:/);
    assert.match(listed, /- PLAN-100007cf · /);
    assert.equal(fs.readdirSync(cache).length, 1, 'the listing built the index and saved it');
  });

  it('offers the planning strategies as prompts, each the one strategy module\'s text', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), PLANNING_STRATEGIES.map((s) => `plan-${s}`).sort());
    for (const s of PLANNING_STRATEGIES) {
      const got = await client.getPrompt({ name: `plan-${s}`, arguments: { task: 'Add a health check' } });
      const text = (got.messages[0].content as { text: string }).text;
      assert.ok(text.startsWith(renderPlanningSection(s)), s);
      assert.match(text, /The task:\n\nAdd a health check/);
    }
  });
});
