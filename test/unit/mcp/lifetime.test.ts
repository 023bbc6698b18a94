// The server's lifetime as a client's process manager sees it: it ends with its stdin (even while a
// submit waits for the person), and a request line over the stdio transport's limit ends it with
// the reason on stderr and a non-zero exit, never silently.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ensureBuilt, idIn, Sandbox, ServerProcess, textOf } from './serverProcess';

describe('MCP server lifetime (the built CLI as a bare process)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let server: ServerProcess | undefined;
  before(ensureBuilt);
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    sandbox.dispose();
  });

  it('stdin closed while pi_plan_submit waits for the review: the wait is abandoned and the process exits within a second of the close', async () => {
    // A review wait of 120 s: an exit before this test's own timeout (60 s) cannot be the wait ending.
    server = new ServerProcess(sandbox, ['--review-wait', '120']);
    await server.initialize();
    const created = (await server.request('tools/call', { name: 'pi_plan_create', arguments: { title: 'Waits', goal: 'G', steps: [{ text: 'a' }], verification: ['v'] } })) as { result: unknown };
    const id = idIn(textOf(created.result));
    // The first progress notification says the server is waiting for the person.
    const waiting = server.next((m) => 'method' in m && m.method === 'notifications/progress');
    server.send({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'pi_plan_submit', arguments: { id }, _meta: { progressToken: 'wait' } } });
    await waiting;
    // The bound issue 27 states: the server is gone within 1 s of its stdin closing (measured from
    // the close, to the process's end; its output read), not at the end of the 120 s wait.
    const closed = performance.now();
    server.child.stdin.end();
    const { code, signal } = await server.exited;
    const ms = performance.now() - closed;
    assert.equal(signal, null);
    assert.equal(code, 0, server.stderr);
    assert.ok(ms < 1000, `the server exited ${Math.round(ms)} ms after its stdin closed (the bound is 1 s)`);
    // Nothing was decided: the plan stays proposed for the person.
    assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), /^status: proposed$/m);
  });

  it('stdin closed while idle: the process exits', async () => {
    server = new ServerProcess(sandbox, []);
    await server.initialize();
    // A call that opens the store (and its watchers): they must not hold the process either.
    await server.request('tools/call', { name: 'pi_plan_list', arguments: {} });
    server.child.stdin.end();
    assert.deepEqual(await server.exited, { code: 0, signal: null });
  });

  it('a request line over the stdio transport\'s 10 MB limit: a non-zero exit and a stderr line naming the limit', async () => {
    server = new ServerProcess(sandbox, []);
    await server.initialize();
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'pi_plan_create', arguments: { title: 'x', goal: 'y'.repeat(11 * 1024 * 1024) } } });
    assert.ok(huge.length > STDIO_DEFAULT_MAX_BUFFER_SIZE);
    server.child.stdin.write(huge + '\n');
    const { code } = await server.exited;
    assert.notEqual(code, 0, server.stderr);
    assert.match(server.stderr, /request line .*longer than the limit of 10 MB \(10485760 bytes\)/);
  });
  it('a line of JSON that is not JSON-RPC but names an id is answered as the specification says (-32600 for that id), and the server goes on', async () => {
    server = new ServerProcess(sandbox, []);
    await server.initialize();
    const invalid = server.next((m) => 'error' in m && (m as { id?: unknown }).id === 7);
    server.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 5 }) + '\n');
    const answer = (await invalid) as { error: { code: number; message: string } };
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.message, /^Invalid Request: /);
    const params = server.next((m) => 'error' in m && (m as { id?: unknown }).id === 'eight');
    server.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'eight', method: 'tools/list', params: 'all' }) + '\n');
    assert.equal(((await params) as { error: { code: number } }).error.code, -32600);
    // Still serving.
    const listed = (await server.request('tools/call', { name: 'pi_plan_list', arguments: {} })) as { result: unknown };
    assert.match(textOf(listed.result), /No plans|plans/i);
  });
});
