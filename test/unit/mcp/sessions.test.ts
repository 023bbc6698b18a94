// Whose call it is (issue 41): the MCP server claims steps as the host's own agent session where the
// host names it (measured on the real hosts: Claude Code and Copilot CLI in the server's
// environment, Codex on each call's `_meta`), so a restarted server or a resumed session goes on
// with its steps, and the hooks' reports find them; any other client is its connection.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { hostSessionOf } from '../../../src/mcp/server';
import { CLI, ensureBuilt, idIn, Sandbox, textOf } from './serverProcess';
import { digestIn, personSync } from '../../helpers/person.mjs';
import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

const SESSION = '3f2a9c1e-7b4d-4e6f-8a1b-2c3d4e5f6a7b';

describe('the MCP server: the host session a call comes from', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  before(ensureBuilt);
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.dispose());

  it('reads the host\'s session: a call\'s _meta (Codex; Copilot CLI\'s preMcpToolCall hook) before the environment (Claude Code, Copilot CLI); nothing that is not an id', () => {
    const codex = { sessionId: SESSION, threadId: SESSION, 'x-codex-turn-metadata': { session_id: SESSION } };
    assert.deepEqual(hostSessionOf(codex, {}), { host: 'codex', id: SESSION });
    assert.deepEqual(hostSessionOf({ 'pi-plans/sessionId': SESSION }, { COPILOT_AGENT_SESSION_ID: 'other' }), { host: 'copilot-cli', id: SESSION });
    assert.deepEqual(hostSessionOf({ progressToken: 1 }, { CLAUDE_CODE_SESSION_ID: SESSION }), { host: 'claude', id: SESSION });
    assert.deepEqual(hostSessionOf(undefined, { COPILOT_AGENT_SESSION_ID: SESSION }), { host: 'copilot-cli', id: SESSION });
    // A sessionId without Codex's turn metadata is not taken for Codex's; nothing that could be a path or a line is taken at all.
    assert.equal(hostSessionOf({ sessionId: SESSION }, {}), undefined);
    for (const bad of ['../x', 'a b', 'line\nbreak', '', 'x'.repeat(129)]) assert.equal(hostSessionOf(undefined, { CLAUDE_CODE_SESSION_ID: bad }), undefined, JSON.stringify(bad));
  });

  /** An executing plan of two steps (a plain list), approved by the person at a terminal. */
  async function executing(client: Client): Promise<string> {
    const id = idIn(textOf(await client.callTool({ name: 'pi_plan_create', arguments: { title: 'Restart', goal: 'G', verification: ['v'], steps: [{ text: 'One' }, { text: 'Two' }] } })));
    await client.callTool({ name: 'pi_plan_submit', arguments: { id } });
    const shown = spawnSync(process.execPath, [CLI, '--root', sandbox.root, 'show', id], { encoding: 'utf8', env: sandbox.env() }).stdout;
    const approved = personSync(CLI, ['--root', sandbox.root, 'approve', id, '--digest', digestIn(shown)], { env: sandbox.env() });
    assert.equal(approved.status, 0, approved.stderr);
    return id;
  }

  it('a server restarted under the same Claude Code session goes on with the step it holds; another session is still refused it', async () => {
    const claude = { CLAUDE_CODE_SESSION_ID: SESSION };
    let client = await sandbox.connect(undefined, claude);
    const id = await executing(client);
    const started = textOf(await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'start' } }));
    assert.match(started, new RegExp(`^S001 is yours now \\(claimed for claude-${SESSION}, in progress\\)\\.$`, 'm'));
    await client.close();
    // Another client (its own connection) cannot take it.
    const other = await sandbox.connect();
    const refused = await other.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S001', status: 'done' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), new RegExp(`S001 is in progress, claimed by claude-${SESSION}`));
    await other.close();
    // The host restarts the server (or the session is resumed): the same session marks its step.
    client = await sandbox.connect(undefined, claude);
    const marked = await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S001', status: 'done' } });
    assert.notEqual(marked.isError, true, textOf(marked));
    assert.match(textOf(marked), new RegExp(`^S002 is yours now \\(claimed for claude-${SESSION}, in progress\\)\\.$`, 'm'));
    await client.close();
    assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), new RegExp(`1\\. \\[x\\] S001 One\\n {3}> Claimed: claude-${SESSION} at `));
  });

  it('a client that names no session and went away for good: its step is released by a person at a terminal (never by an agent\'s command), and another client takes it', async () => {
    let client = await sandbox.connect();
    const id = await executing(client);
    const started = textOf(await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'start' } }));
    const gone = /S001 is yours now \(claimed for (\S+), in progress\)/.exec(started)![1];
    await client.close();
    client = await sandbox.connect();
    const locked = await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S001', status: 'done' } });
    assert.match(textOf(locked), new RegExp(`S001 is in progress, claimed by ${gone}`));
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', sandbox.root, ...args], { encoding: 'utf8', env: sandbox.env() });
    // An agent's command (no terminal) releases nothing.
    const plain = cli('release', id, 'S001');
    assert.equal(plain.status, 1);
    assert.match(plain.stderr, /the claim on S001 was not released: it is a person's decision, and there is no terminal here/);
    assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), new RegExp(`> Claimed: ${gone} at `));
    // A step not in progress has no claim to release.
    assert.match(cli('release', id, 'S002').stderr, /S002 is pending, not in progress: there is no claim to release/);
    // The person, at a terminal, is shown whose claim it is and says yes.
    const released = personSync(CLI, ['--root', sandbox.root, 'release', id, 'S001'], { env: sandbox.env() });
    assert.equal(released.status, 0, released.stdout);
    assert.match(released.stdout, new RegExp(`Release S001 "One" of ${id}, claimed by ${gone} since `));
    assert.match(released.stdout, /S001 is pending again, claimed by no one/);
    const text = fs.readFileSync(sandbox.planFile(id), 'utf8');
    assert.doesNotMatch(text, /> Claimed:/);
    assert.match(text, /1\. \[ \] S001 One\n/);
    // The log keeps whose claim it was.
    assert.match(fs.readFileSync(`${sandbox.root}/.pi/plans/sessions/${id}.jsonl`, 'utf8'), new RegExp(`${gone}'s claim \\(since [^)]+\\) released by a person`));
    const next = textOf(await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'next' } }));
    assert.match(next, /^S001 is yours \(claimed by pi-plans-test-[0-9a-f]{8}\)/);
    await client.close();
  });

  it('Codex\'s session, named on each call, holds its step across servers', async () => {
    const meta = { sessionId: SESSION, threadId: SESSION, 'x-codex-turn-metadata': { session_id: SESSION, turn_id: 'turn-1' } };
    let client = await sandbox.connect();
    const id = await executing(client);
    assert.match(textOf(await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'start' }, _meta: meta })), new RegExp(`S001 is yours now \\(claimed for codex-${SESSION}`));
    await client.close();
    client = await sandbox.connect();
    const marked = await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S001', status: 'done' }, _meta: { ...meta, 'x-codex-turn-metadata': { session_id: SESSION, turn_id: 'turn-2' } } });
    assert.notEqual(marked.isError, true, textOf(marked));
    // The same server without the session on the call is another client: refused S002, which Codex's session now holds.
    const plain = await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S002', status: 'done' } });
    assert.equal(plain.isError, true);
    assert.match(textOf(plain), new RegExp(`claimed by codex-${SESSION}`));
    await client.close();
  });
});
