// The built MCP server (`node dist/cli.js --root DIR mcp`) as the MCP tests meet it: a temporary
// workspace and user home, the SDK's own client over stdio, or the bare process for tests that
// must control its stdin (closing it, sending a line no client would send).
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

/** A tool result as the tests read it. */
export type Text = { content: { type: string; text?: string }[]; isError?: boolean };
/** The text of a tool result. */
export const textOf = (r: unknown) => (r as Text).content.map((c) => c.text ?? '').join('\n');
/** The plan id a create result names. */
export const idIn = (text: string) => /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(text)![1];

/** Builds dist/ when it is missing (the tests run the built CLI, as clients do). */
export function ensureBuilt(): void {
  if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
}

/** A workspace folder and a user home (configuration, state, cache) of its own, removed by `dispose`. */
export class Sandbox {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-mcp-'));
  readonly home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-mcp-home-'));

  constructor(config: Record<string, unknown> = { name: 'Ana' }) {
    this.writeConfig(config);
  }

  /** The environment the server runs in: this sandbox's configuration, state and cache folders. */
  env(): Record<string, string> {
    // A host's session (these tests may run inside one) would make every server here the same session.
    const { CLAUDE_CODE_SESSION_ID: _c, COPILOT_AGENT_SESSION_ID: _p, ...inherited } = process.env as Record<string, string>;
    return { ...inherited, XDG_CONFIG_HOME: path.join(this.home, 'config'), XDG_STATE_HOME: path.join(this.home, 'state'), PI_PLANS_CACHE_DIR: path.join(this.home, 'cache') };
  }

  /** Writes the user's own configuration file (outside the workspace), as the person edits it. */
  writeConfig(config: Record<string, unknown>): void {
    fs.mkdirSync(path.join(this.home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(this.home, 'config', 'pi-plans', 'config.json'), JSON.stringify(config));
  }

  /** The path of a plan's file. */
  planFile(id: string): string {
    return path.join(this.root, '.pi', 'plans', `${id}.md`);
  }

  /** The SDK's client, connected over stdio to a fresh server process on this workspace (`env`: variables a host would add, its session's). */
  async connect(args: string[] = ['--review-wait', '0'], env: Record<string, string> = {}): Promise<Client> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--root', this.root, 'mcp', ...args], env: { ...this.env(), ...env }, stderr: 'pipe' });
    const client = new Client({ name: 'pi-plans-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

/**
 * The server as a bare process speaking JSON-RPC lines (framed by the SDK's own stdio reader):
 * for what the SDK's client cannot do, such as closing stdin while a call waits.
 */
export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  /** Resolves with the exit code (or the signal) once the process has exited and its output is all read ('close', not 'exit'). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly buffer = new ReadBuffer();
  private readonly waiters: { match: (m: JSONRPCMessage) => boolean; resolve: (m: JSONRPCMessage) => void }[] = [];
  private nextId = 1;

  constructor(sandbox: Sandbox, args: string[]) {
    this.child = spawn(process.execPath, [CLI, '--root', sandbox.root, 'mcp', ...args], { env: sandbox.env() });
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })));
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => (this.stderr += s));
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) {
        const message = m;
        const i = this.waiters.findIndex((w) => w.match(message));
        if (i >= 0) this.waiters.splice(i, 1)[0].resolve(message);
      }
    });
    // A write after the server has gone (its stdin closed) is expected in these tests, not a failure.
    this.child.stdin.on('error', () => undefined);
  }

  /** Resolves with the first message from the server that `match` accepts from now on. */
  next(match: (m: JSONRPCMessage) => boolean): Promise<JSONRPCMessage> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Sends a request; resolves with its response. */
  request(method: string, params: Record<string, unknown> = {}): Promise<JSONRPCMessage> {
    const id = this.nextId++;
    const answer = this.next((m) => 'id' in m && m.id === id && !('method' in m));
    this.send({ jsonrpc: '2.0', id, method, params });
    return answer;
  }

  send(message: JSONRPCMessage): void {
    this.child.stdin.write(serializeMessage(message));
  }

  /** The handshake every client makes first. */
  async initialize(): Promise<void> {
    await this.request('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'pi-plans-test', version: '1.0.0' } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
}
