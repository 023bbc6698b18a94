/**
 * The MCP face: the agent tools of `src/tools` served over the Model Context Protocol (stdio), so
 * Claude Code, Codex, Cursor or any MCP client shares the `.pi/plans` store with VS Code. One
 * source: the same handlers, schemas, results and refusals. MCP has no plan work mode, so no plan
 * is active here: a plan id is needed wherever VS Code's tools fall back to the active plan.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isPlanId } from '../core';
import { folderInsideWorkspace, NodeWatcher, openNodeStore, readUserConfig, userConfigDir } from '../node';
import type { Following, PlanStore } from '../store';
import { ActivePlans, ALL_TOOLS, PlanTool, ToolContext, waitForDecision } from '../tools';
import { PLANNING_STRATEGIES, renderPlanningSection, STRATEGY_TITLES } from '../tools/strategies';

/** A plan as an MCP resource: `pi-plans://plans/PLAN-1a2b3c4d` (its Markdown). */
export const planResourceUri = (id: string) => `pi-plans://plans/${id}`;

/** How long a waiting `pi_plan_submit` holds the call before it answers "still awaiting review" (clients time out at 60 s by default). */
export const DEFAULT_REVIEW_WAIT_MS = 45_000;

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
  if (root !== undefined && folderInsideWorkspace(configDir, [root], 'agent approval')) return false;
  return readUserConfig(configDir).agentMayApprove === true;
}

/** The tool's description as MCP clients see it: the model description, plus the rule that ids are needed here. */
function mcpDescription(tool: PlanTool): string {
  const needsId = 'id' in tool.schema.shape;
  return needsId ? `${tool.modelDescription} Over MCP no plan is active: pass "id" (pi_plan_list finds it).` : tool.modelDescription;
}

/** Builds the server (tools registered; the store opens on the first call that needs it). */
export function createMcpServer(opts: McpOptions): { server: McpServer; store: () => Promise<PlanStore> } {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[pi-plans mcp] ${line}\n`));
  const configDir = opts.configDir ?? userConfigDir();
  const reviewWaitMs = opts.reviewWaitMs ?? DEFAULT_REVIEW_WAIT_MS;
  const subscribed = new Set<string>();
  let opened: Promise<PlanStore> | undefined;
  let following: Following | undefined;
  let contentWatch: { dispose(): void } | undefined;
  const updated = (file: string) => {
    const id = /(PLAN-[0-9a-f]{8})\.md$/.exec(file)?.[1];
    const uri = id ? planResourceUri(id) : undefined;
    if (uri && subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  };
  const store = () => {
    // Lazily indexed: a call on a named plan reads that plan; the folder is indexed when a call lists it.
    opened ??= openNodeStore(opts.root, { index: 'lazy' }).then(
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
          onDidCreate: (p) => updated(p),
          onDidChange: (p) => updated(p),
          onDidDelete: (p) => updated(p),
          // The folder appeared (or came back) after the watch began: whatever changed meanwhile is unknown.
          onDidLoseTrack: () => {
            for (const uri of subscribed) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
          },
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
  const indexed = async () => {
    const st = await store();
    await st.loadIndex();
    return st;
  };
  const server = new McpServer({ name: 'pi-plans', version: opts.version ?? '0.0.0' }, { capabilities: { logging: {} } });

  // Resources: every plan, its Markdown; list_changed and updated notifications from the watcher.
  server.registerResource(
    'plan',
    new ResourceTemplate('pi-plans://plans/{id}', {
      list: async () => ({
        resources: (await indexed())
          .list()
          .filter((e) => e.valid)
          .map((e) => ({ uri: planResourceUri(e.id), name: e.id, title: e.title, description: `${e.status} · v${e.version} · ${e.stepsDone}/${e.steps} steps`, mimeType: 'text/markdown' })),
      }),
    }),
    { title: 'Plan', description: 'A plan of .pi/plans as Markdown (the file)', mimeType: 'text/markdown' },
    async (uri, vars) => {
      const id = String(vars.id);
      const st = await store();
      const doc = await st.read(id);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: doc.text }] };
    },
  );
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscribed.add(req.params.uri);
    await store(); // the watcher runs from now on
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  // Prompts: the planning strategies (seed 003), from the one strategy module.
  for (const strategy of PLANNING_STRATEGIES) {
    server.registerPrompt(
      `plan-${strategy}`,
      { title: `Plan: ${STRATEGY_TITLES[strategy]}`, description: `Plan the task with the Pi Plans tools, ${STRATEGY_TITLES[strategy]}.`, argsSchema: { task: z.optional(z.string().check(z.maxLength(4000))) } },
      ({ task }) => ({
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `${renderPlanningSection(strategy)}${task ? `\nThe task:\n\n${task}\n` : ''}` } }],
      }),
    );
  }

  for (const tool of ALL_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.displayName, description: mcpDescription(tool), inputSchema: tool.schema, annotations: { readOnlyHint: !!tool.readOnly, title: tool.displayName } },
      async (args: unknown, extra) => {
        const st = await store();
        // A listing needs the index; a call on a named plan only that plan's entry.
        const id = (args as { id?: unknown } | undefined)?.id;
        if (tool.name === 'pi_plan_list') await st.loadIndex();
        else if (isPlanId(id)) await st.track(id).catch(() => undefined);
        const progressToken = extra._meta?.progressToken;
        const ctx: ToolContext = {
          stores: { folders: () => [{ name: path.basename(opts.root), store: st }] },
          active: NO_ACTIVE_PLAN,
          // Read on every call: the user's file may change while the server runs.
          settings: { agentMayApprove: agentMayApprove(configDir, opts.root), gating: 'always', waitForReview: true },
          signal: extra.signal,
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
                return await waitForDecision(s, id, signal, { timeoutMs: reviewWaitMs });
              } finally {
                if (beat) clearInterval(beat);
              }
            },
          },
        };
        try {
          const text = await tool.run(tool.schema.parse(args) as never, ctx);
          return { content: [{ type: 'text' as const, text }] };
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          log(`${tool.name} refused: ${message.split('\n')[0]}`);
          return { content: [{ type: 'text' as const, text: message }], isError: true };
        }
      },
    );
  }
  server.server.onclose = () => {
    following?.dispose();
    contentWatch?.dispose();
  };
  return { server, store };
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

/** Serves on a transport until it closes. */
export async function serveMcp(opts: McpOptions, transport: Transport): Promise<void> {
  const { server } = createMcpServer(opts);
  const closed = new Promise<void>((resolve) => {
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  await server.connect(transport);
  await closed;
}
