/**
 * The MCP face: the agent tools of `src/tools` served over the Model Context Protocol (stdio), so
 * Claude Code, Codex, Cursor or any MCP client shares the `.pi/plans` store with VS Code. One
 * source: the same handlers, schemas, results and refusals. MCP has no plan work mode, so no plan
 * is active here: `id` is required wherever VS Code's tools fall back to the active plan.
 *
 * To the letter of the specification: arguments are strict and refused in the project's words; a
 * malformed request answers -32602 (invalid params) saying what is wrong, a plan that cannot be
 * read -32002 (resource not found); `listChanged` is advertised only where it is sent; the server
 * ends with its stdin, and says why when the transport gives up on a request.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CallToolRequestSchema,
  ClientRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import * as z from 'zod/mini';
import { hostSession, isPlanError, isPlanId, PlanError, type PlanErrorCode } from '../core';
import { folderInsideWorkspace, NodeWatcher, openNodeStore, planWorkFacts, readUserConfig, userConfigDir } from '../node';
import type { Following, PlanStore } from '../store';
import { ActivePlans, ALL_TOOLS, closestName, mcpSchemaOf, parseArguments, PlanTool, ToolContext, waitForDecision } from '../tools';
import { mcpInputSchemaOf } from '../tools/manifest';
import { PLANNING_STRATEGIES, renderPlanningSection, STRATEGY_TITLES } from '../tools/strategies';

/** A plan as an MCP resource: `pi-plans://plans/PLAN-1a2b3c4d` (its Markdown). */
export const planResourceUri = (id: string) => `pi-plans://plans/${id}`;
const PLAN_TEMPLATE = 'pi-plans://plans/{id}';

/** How long a waiting `pi_plan_submit` holds the call before it answers "still awaiting review" (clients time out at 60 s by default). */
export const DEFAULT_REVIEW_WAIT_MS = 45_000;

/** MCP's code for "resource not found" (specification, Resources: Error Handling); the SDK has no name for it. */
export const RESOURCE_NOT_FOUND = -32002;

/** How the server runs: on which workspace folder, how long a submit waits for the review, where the user's configuration is. */
export interface McpOptions {
  root: string;
  reviewWaitMs?: number;
  /** Where the user's own configuration lives (never in a workspace): `$XDG_CONFIG_HOME/pi-plans`. */
  configDir?: string;
  log?: (line: string) => void;
  version?: string;
}

/** No plan work mode over MCP: nothing is active, and nothing becomes active. */
const NO_ACTIVE_PLAN: ActivePlans = { list: () => [], set: () => undefined, clear: () => undefined };

export { userConfigDir };

/**
 * Whether the user allowed agents to approve plans: `{"agentMayApprove": true}` in
 * `<configDir>/config.json`. Anything else is no, and so is a configuration folder inside the
 * workspace (`root`): an agent that edits the repository could otherwise turn it on.
 */
export function agentMayApprove(configDir: string, root?: string): boolean {
  if (root !== undefined && folderInsideWorkspace(configDir, [root], 'turn agent approval on')) return false;
  return readUserConfig(configDir).agentMayApprove === true;
}

/** A refusal answered as a JSON-RPC error with this code (the SDK sends an error's `code` and `message` as they are). */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Plan errors that mean "there is no readable plan there": a resource not found, with the reason. */
const UNREADABLE = new Set<PlanErrorCode>(['NOT_FOUND', 'INVALID_ID', 'INVALID_FILE', 'TOO_LARGE', 'UNSAFE_PATH', 'NOT_A_FILE']);

/**
 * The plan id a resource URI names. A string that is not a URI is invalid params (-32602); a URI
 * that names no plan answers `unknown` (a read: -32002, resource not found; a subscription: -32602).
 */
function planIdOf(uri: string, unknown: number): string {
  if (!URL.canParse(uri)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `${JSON.stringify(uri.slice(0, 200))} is not a URI: a plan is pi-plans://plans/PLAN-<8 hex digits>; resources/list gives them.`);
  }
  const id = new UriTemplate(PLAN_TEMPLATE).match(uri)?.id;
  if (id === undefined) throw new ProtocolError(unknown, `No resource at ${uri.slice(0, 200)}: the resources here are plans, pi-plans://plans/PLAN-<8 hex digits>; resources/list gives them.`);
  if (!isPlanId(id)) throw new ProtocolError(unknown, `${JSON.stringify(String(id).slice(0, 60))} is not a plan id (PLAN- and 8 lowercase hex digits): resources/list gives the plans.`);
  return id;
}

/** What each request the protocol defines must look like: the SDK's own schemas, by method. */
const REQUEST_SCHEMAS = new Map<string, z.ZodMiniType>(ClientRequestSchema.options.map((s) => [s.shape.method.value as string, s as unknown as z.ZodMiniType]));

/** Where a client finds the right value for a request's params. */
const PARAMS_HINT: Record<string, string> = {
  'tools/call': 'tools/list gives the tools and their arguments',
  'resources/read': 'resources/list gives the plans\' URIs',
  'resources/subscribe': 'resources/list gives the plans\' URIs',
  'resources/unsubscribe': 'resources/list gives the plans\' URIs',
  'prompts/get': 'prompts/list gives the prompts and their arguments',
};

/** Why a request does not fit its method's schema, in words (undefined when it fits, or the method is not the protocol's). */
function requestProblem(request: JSONRPCRequest): string | undefined {
  const schema = REQUEST_SCHEMAS.get(request.method);
  const r = schema && z.safeParse(schema, request);
  if (!r || r.success) return undefined;
  const problems = r.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ');
  const hint = PARAMS_HINT[request.method];
  return `Invalid params of ${request.method}: ${problems}${hint ? `; ${hint}` : ''}.`;
}

/**
 * A transport whose requests are checked against the protocol's schema before the SDK's handlers
 * see them. The SDK parses a request's params first thing and answers a misfit with -32603
 * (internal error) and zod's raw JSON; the specification's answer is -32602 (invalid params), and
 * whoever reads it should learn what is missing (`tools/call` without a name, `resources/read`
 * without a URI).
 */
function checkedRequests(inner: Transport): Transport {
  const outer: Transport = {
    start: () => {
      inner.onclose = () => outer.onclose?.();
      inner.onerror = (e) => outer.onerror?.(e);
      inner.onmessage = (message, extra) => {
        const problem = isJSONRPCRequest(message) ? requestProblem(message) : undefined;
        if (problem === undefined) return outer.onmessage?.(message, extra);
        const answer: JSONRPCMessage = { jsonrpc: '2.0', id: (message as JSONRPCRequest).id, error: { code: ErrorCode.InvalidParams, message: problem } };
        inner.send(answer).catch((e: unknown) => outer.onerror?.(e instanceof Error ? e : new Error(String(e))));
      };
      return inner.start();
    },
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    setProtocolVersion: (v) => inner.setProtocolVersion?.(v),
  };
  Object.defineProperty(outer, 'sessionId', { get: () => inner.sessionId });
  return outer;
}

/** A tool as tools/list shows it: the MCP variant of its schema (strict; `id` required), as JSON Schema. */
function toolDefinition(tool: PlanTool): Tool {
  return { name: tool.name, title: tool.displayName, description: tool.modelDescription, inputSchema: mcpInputSchemaOf(tool) as Tool['inputSchema'], annotations: { readOnlyHint: !!tool.readOnly, title: tool.displayName } };
}
const TOOLS = new Map(ALL_TOOLS.map((t) => [t.name, { tool: t, definition: toolDefinition(t), schema: mcpSchemaOf(t) }]));

/** A tool's answer: its text, or its refusal (`isError`: the model reads it and acts on it). */
const answer = (text: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) });

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The root's store as the server shares it: opened on first use, with the watchers that tell clients of changes. */
interface SharedStore {
  store(): Promise<PlanStore>;
  /** The store with the whole folder indexed (a listing needs it). */
  indexed(): Promise<PlanStore>;
  /** Resource URIs whose clients hear `resources/updated` on every change of the file. */
  readonly subscribed: Set<string>;
  dispose(): void;
}

/**
 * Opens the root's store lazily (a call on a named plan reads that plan; the folder is indexed
 * when a call lists it) and, once open, follows the folder: decisions reach a waiting submit, and
 * clients hear of plans that come and go and subscribers of every change of a plan's bytes.
 */
function sharedStore(root: string, server: McpServer): SharedStore {
  const subscribed = new Set<string>();
  let opened: Promise<PlanStore> | undefined;
  let following: Following | undefined;
  let contentWatch: { dispose(): void } | undefined;
  const tell = (uri: string) => void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  const updated = (file: string) => {
    const id = /(PLAN-[0-9a-f]{8})\.md$/.exec(file)?.[1];
    if (id && subscribed.has(planResourceUri(id))) tell(planResourceUri(id));
  };
  const store = () => {
    opened ??= openNodeStore(root, { index: 'lazy' }).then(
      (st) => {
        // Followed like VS Code follows it: a decision written by VS Code, the CLI or git reaches a waiting submit.
        following = st.watch(new NodeWatcher(), { settleMs: 150, confirmMs: 1000, periodMs: 30_000 });
        // Every client hears when plans come and go (the index changed) ...
        st.onDidChangePlans((e) => {
          if (e.added.length || e.removed.length) server.sendResourceListChanged();
        });
        // ... and a subscriber of a plan about every change of its bytes, whoever made it (the
        // index only changes with the fields it keeps; a hand edit of a step's text is news too).
        contentWatch = new NodeWatcher().watch(st.plansDir, {
          onDidCreate: updated,
          onDidChange: updated,
          onDidDelete: updated,
          // The folder appeared (or came back) after the watch began: whatever changed meanwhile is unknown.
          onDidLoseTrack: () => subscribed.forEach(tell),
        });
        return st;
      },
      (e: unknown) => {
        opened = undefined;
        throw e;
      },
    );
    return opened;
  };
  return {
    store,
    indexed: async () => {
      const st = await store();
      await st.loadIndex();
      return st;
    },
    subscribed,
    dispose: () => {
      following?.dispose();
      contentWatch?.dispose();
    },
  };
}

/** Resources: every plan as its Markdown; a read or a subscription of anything else is refused with the code the specification gives. */
function serveResources(server: McpServer, plans: SharedStore): void {
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await plans.indexed())
      .list()
      .filter((e) => e.valid)
      .map((e) => ({ uri: planResourceUri(e.id), name: e.id, title: e.title, description: `${e.status} · v${e.version} · ${e.stepsDone}/${e.steps} steps`, mimeType: 'text/markdown' })),
  }));
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: PLAN_TEMPLATE, name: 'plan', title: 'Plan', description: 'A plan of .pi/plans as Markdown (the file)', mimeType: 'text/markdown' }],
  }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const id = planIdOf(req.params.uri, RESOURCE_NOT_FOUND);
    try {
      const doc = await (await plans.store()).read(id);
      return { contents: [{ uri: req.params.uri, mimeType: 'text/markdown', text: doc.text }] };
    } catch (e) {
      if (isPlanError(e) && UNREADABLE.has(e.code)) throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${e.toLocatedString()} (resources/list gives the plans).`);
      throw e;
    }
  });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const id = planIdOf(req.params.uri, ErrorCode.InvalidParams);
    const st = await plans.store(); // the watchers run from now on
    if (!(await st.track(id))) throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${id} is not in .pi/plans (resources/list gives the plans).`);
    plans.subscribed.add(planResourceUri(id));
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    plans.subscribed.delete(planResourceUri(planIdOf(req.params.uri, ErrorCode.InvalidParams)));
    return {};
  });
}

/**
 * Prompts: the planning strategies, from the one strategy module. They never change while the
 * server runs, so no prompts/list_changed is ever sent, and none is promised (the SDK's
 * registration promises one).
 */
function servePrompts(server: McpServer): void {
  for (const strategy of PLANNING_STRATEGIES) {
    server.registerPrompt(
      `plan-${strategy}`,
      { title: `Plan: ${STRATEGY_TITLES[strategy]}`, description: `Plan the task with the Pi Plans tools, ${STRATEGY_TITLES[strategy]}.`, argsSchema: { task: z.optional(z.string().check(z.maxLength(4000))) } },
      ({ task }) => ({
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `${renderPlanningSection(strategy)}${task ? `\nThe task:\n\n${task}\n` : ''}` } }],
      }),
    );
  }
  server.server.registerCapabilities({ prompts: { listChanged: false } });
}

/**
 * Whether the user allows agent approval, as the tool list last told clients; `now()` reads it
 * again and, when the user switched it, sends tools/list_changed (the approve tool comes or goes).
 * Their configuration folder is watched, so a switch is heard without a call.
 */
function approvalSetting(server: McpServer, configDir: string, root: string): { now(): boolean; dispose(): void } {
  let listed = agentMayApprove(configDir, root);
  const now = () => {
    const allowed = agentMayApprove(configDir, root);
    if (allowed !== listed) {
      listed = allowed;
      if (server.isConnected()) void server.server.sendToolListChanged().catch(() => undefined);
    }
    return allowed;
  };
  const watch = new NodeWatcher().watch(configDir, { onDidCreate: now, onDidChange: now, onDidDelete: now, onDidLoseTrack: now });
  return { now, dispose: () => watch.dispose() };
}

/**
 * Tools. Served here rather than by McpServer.registerTool: a registered tool's arguments are
 * validated before its handler runs and refused in the SDK's words ("Input validation error:
 * Invalid arguments for tool …"); ours are parsed with the tool's own schema and refused in the
 * project's. What registration offers besides, a tool list that changes with a notification, is
 * the approve tool's: listed only while the user allows agent approval.
 */
function serveTools(server: McpServer, opts: McpOptions, plans: SharedStore, approval: { now(): boolean }, log: (line: string) => void): void {
  const session = connectionSession(server);
  const offered = (name: string) => name !== 'pi_plan_approve' || approval.now();
  const refused = (tool: PlanTool, e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    log(`${tool.name} refused: ${message.split('\n')[0]}`);
    return answer(message, true);
  };
  server.server.registerCapabilities({ tools: { listChanged: true } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOLS.values()].filter((t) => offered(t.tool.name)).map((t) => t.definition) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const entry = TOOLS.get(req.params.name);
    if (!entry) {
      const near = closestName(req.params.name, [...TOOLS.keys()].filter(offered));
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(req.params.name.slice(0, 60))}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}: tools/list gives the tools there are.`);
    }
    // (The approve tool, called while it is not listed, runs and refuses in its own words: it tells the model to ask the user.)
    let input: { id?: string };
    try {
      const off = entry.tool.refusedNow?.({ agentMayApprove: approval.now(), gating: 'always', waitForReview: true });
      if (off) throw new PlanError('HUMAN_ONLY', off);
      input = parseArguments(entry.schema, req.params.arguments) as { id?: string };
    } catch (e) {
      return refused(entry.tool, e);
    }
    try {
      return answer(await entry.tool.run(input as never, await toolContext(entry.tool, input, extra, opts, plans, approval, session(extra))));
    } catch (e) {
      return refused(entry.tool, e);
    }
  });
}

/** A host's session id as the server accepts one: a UUID-like token, nothing that could be a path or a line. */
const HOST_SESSION_ID = /^[\w.:-]{1,128}$/;

/**
 * The host's own agent session a call comes from, where the host says (measured on the real hosts):
 * Codex on each call's `_meta` (`sessionId`, with its turn metadata), Copilot CLI's
 * `preMcpToolCall` hook as `pi-plans/sessionId`, Claude Code and Copilot CLI in the server's
 * environment. Set by the host, never by the model's arguments. Undefined for any other client.
 */
export function hostSessionOf(meta: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv): { host: string; id: string } | undefined {
  const ok = (v: unknown): v is string => typeof v === 'string' && HOST_SESSION_ID.test(v);
  if (meta && ok(meta['pi-plans/sessionId'])) return { host: 'copilot-cli', id: meta['pi-plans/sessionId'] };
  if (meta && ok(meta.sessionId) && typeof meta['x-codex-turn-metadata'] === 'object') return { host: 'codex', id: meta.sessionId };
  if (ok(env.CLAUDE_CODE_SESSION_ID)) return { host: 'claude', id: env.CLAUDE_CODE_SESSION_ID };
  if (ok(env.COPILOT_AGENT_SESSION_ID)) return { host: 'copilot-cli', id: env.COPILOT_AGENT_SESSION_ID };
  return undefined;
}

/**
 * The session a call claims steps as (see core/claims): the host's agent session where the host
 * names it (`hostSessionOf`), so a restarted server or a resumed session goes on with its own
 * steps and the hook's reports find them; else the client's name, as it introduced itself, and a
 * random id of this connection (one stdio server serves one client), so two clients of the same
 * kind hold their steps apart.
 */
function connectionSession(server: McpServer, env: NodeJS.ProcessEnv = process.env): (extra: Extra) => string {
  const own = randomBytes(4).toString('hex');
  return (extra) => {
    const host = hostSessionOf(extra._meta as Record<string, unknown> | undefined, env);
    if (host) return hostSession(host.host, host.id);
    const name = (server.server.getClientVersion()?.name ?? 'mcp').replace(/[^\w.-]+/g, '-').slice(0, 40);
    return `${name}-${own}`;
  };
}

/** What a tool call runs with: the store (indexed for a listing, else the named plan tracked), the user's settings read now, the review wait. */
async function toolContext(tool: PlanTool, input: { id?: string }, extra: Extra, opts: McpOptions, plans: SharedStore, approval: { now(): boolean }, session: string): Promise<ToolContext> {
  const st = await plans.store();
  if (tool.name === 'pi_plan_list') await st.loadIndex();
  else if (isPlanId(input.id)) await st.track(input.id).catch(() => undefined);
  const progressToken = extra._meta?.progressToken;
  return {
    stores: { folders: () => [{ name: path.basename(opts.root), store: st }] },
    active: NO_ACTIVE_PLAN,
    // Read on every call: the user's file may change while the server runs.
    settings: { agentMayApprove: approval.now(), gating: 'always', waitForReview: true },
    facts: { of: (s, doc) => planWorkFacts(s.root, doc) },
    signal: extra.signal,
    session,
    review: {
      awaitDecision: async (s, id, signal) => {
        // Progress while the person reviews, so clients that reset their timeout on progress keep waiting.
        const started = Date.now();
        let n = 0;
        const tell = () =>
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: progressToken!, progress: n++, message: `awaiting the person's review of ${id} (${Math.round((Date.now() - started) / 1000)} s)` } }).catch(() => undefined);
        if (progressToken !== undefined) tell();
        const beat = progressToken === undefined ? undefined : setInterval(tell, 5_000);
        try {
          return await waitForDecision(s, id, signal, { timeoutMs: opts.reviewWaitMs ?? DEFAULT_REVIEW_WAIT_MS });
        } finally {
          if (beat) clearInterval(beat);
        }
      },
    },
  };
}

/** Builds the server: tools, resources and prompts (the store opens on the first call that needs it). */
export function createMcpServer(opts: McpOptions): { server: McpServer; store: () => Promise<PlanStore> } {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[pi-plans mcp] ${line}\n`));
  const server = new McpServer({ name: 'pi-plans', version: opts.version ?? '0.0.0' }, { capabilities: { logging: {} } });
  const plans = sharedStore(opts.root, server);
  const approval = approvalSetting(server, opts.configDir ?? userConfigDir(), opts.root);
  serveResources(server, plans);
  servePrompts(server);
  serveTools(server, opts, plans, approval, log);
  server.server.onclose = () => {
    plans.dispose();
    approval.dispose();
  };
  return { server, store: plans.store };
}

/** Checks the root before serving: a folder that exists and can be written. Returns the problem, or undefined. */
export function checkRoot(root: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch {
    return `--root ${root} does not exist: pass the workspace folder that holds .pi/plans`;
  }
  if (!st.isDirectory()) return `--root ${root} is not a folder: pass the workspace folder that holds .pi/plans`;
  try {
    fs.accessSync(root, fs.constants.W_OK);
  } catch {
    return `--root ${root} is not writable: plans could not be saved there; run the server as a user who can write it`;
  }
  return undefined;
}

/** The SDK's stdio reader gives up on a line over its limit (10 MB) with this error, then closes the transport. */
const OVER_LIMIT = /ReadBuffer exceeded maximum size of (\d+) bytes/;

/**
 * Serves on a transport until it closes, or until `input` ends: the stdio transport does not watch
 * its stdin end, and a client that closes it is done (the specification's way to end a stdio
 * server), so calls still running are cancelled, a waiting submit among them. `input` defaults to
 * process.stdin for the stdio transport (the one it reads). Rejects, with the reason, when the
 * transport gave up on a request (a line over its limit): the CLI exits non-zero then.
 */
export async function serveMcp(opts: McpOptions, transport: Transport, input: NodeJS.ReadableStream | undefined = transport instanceof StdioServerTransport ? process.stdin : undefined): Promise<void> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[pi-plans mcp] ${line}\n`));
  const { server } = createMcpServer(opts);
  let failure: Error | undefined;
  const closed = new Promise<void>((resolve, reject) => {
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      input?.off('end', end);
      if (failure) reject(failure);
      else resolve();
    };
  });
  server.server.onerror = (e) => {
    const over = OVER_LIMIT.exec(e.message);
    if (over) {
      const bytes = Number(over[1]);
      failure = new Error(`a request line was longer than the limit of ${bytes / 2 ** 20} MB (${bytes} bytes) of the stdio transport, so the connection was closed; a request that large is no plan's (the largest field, a plan's Markdown, takes 120,000 characters)`);
    } else {
      // A line that is not JSON-RPC, a response that could not be written: the SDK goes on; the log says why.
      log(`transport: ${e.message.split('\n')[0]}`);
    }
  };
  const end = () => void server.close();
  input?.once('end', end);
  const checked = checkedRequests(transport);
  await server.connect(checked);
  // A line the SDK cannot read as JSON-RPC is dropped with an error to its log, and the client
  // would wait for its own timeout: the specification's answer is sent instead.
  const lines = input ? answerUnreadable(input, (m) => transport.send(m).catch(() => undefined)) : undefined;
  await closed.finally(() => lines?.());
}

/** Lines longer than this are left to the SDK's reader (which gives up over 10 MB): none is a request worth answering. */
const MAX_CHECKED_LINE = 1024 * 1024;

/**
 * Reads the same lines as the stdio transport and answers those it cannot read: JSON that is no
 * JSON-RPC message but names an id gets an invalid request error (-32600) for that id. Returns
 * the function that stops listening.
 */
function answerUnreadable(input: NodeJS.ReadableStream, send: (m: JSONRPCMessage) => void): () => void {
  let pending = '';
  /** The line under way is over the limit: its rest is skipped up to its end. */
  let skipping = false;
  const onData = (chunk: Buffer | string) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl).replace(/\r$/, '');
      pending = pending.slice(nl + 1);
      if (!skipping && line.trim()) check(line);
      skipping = false;
    }
    if (pending.length > MAX_CHECKED_LINE) {
      pending = '';
      skipping = true;
    }
  };
  const check = (line: string) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return; // no id to answer (a reply with id null is one the SDK's own clients cannot read): the SDK logs it
    }
    if (JSONRPCMessageSchema.safeParse(value).success) return;
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request ("jsonrpc": "2.0", an "id", a "method" string and, when given, "params" as an object)' } });
  };
  input.on('data', onData);
  return () => {
    input.off('data', onData);
    // The transport paused stdin when it stopped reading only if no one else was: it is this reader's turn.
    if (!input.listenerCount('data')) input.pause();
  };
}
