// Commands that plug pi-plans into other tools: the MCP server, an agent host's setup, and git's
// merge driver and its setup.
import { Option } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOST_NAMES, SETUP_HOSTS, SETUP_SCOPES, SetupHost, SetupScope } from '../../hosts/setup/targets';
import { gitSetup, runMergeDriver } from '../git';
import { readStdin, runHookCommand } from '../../hosts/hook/command';
import * as shellReader from '../../hosts/policy/commands';
import { CliContext, needsPerson, personConfirms, UsageError, wholeNumber } from '../cliContext';

/** Registers `mcp`, `setup`, `merge-driver`, `git-setup` and `hook`, in that order. */
export function registerIntegrationCommands(ctx: CliContext): void {
  registerMcp(ctx);
  registerSetup(ctx);
  registerGit(ctx);
  registerHook(ctx);
}

/**
 * `hook`: what agent hosts run around every tool call. The bin sends it to the small bundle
 * (dist/hook.js) before this program loads; this registration serves the same command from this
 * bundle alone (the copy of the CLI the MCP configuration points at), and lists it in the help.
 */
function registerHook({ program, io, root }: CliContext): void {
  program
    .command('hook')
    .description('answer an agent host\'s hook event (JSON on stdin) with the bound plan\'s policy; `hook status` lists bound sessions, `hook collect PLAN-…` records denied calls as steps of a draft')
    .argument('[sub]', 'status | collect')
    .argument('[id]', 'the draft, for collect')
    .option('--agent <host>', 'copilot | claude | codex | copilot-cli (default: told from the payload)')
    .option('--event <name>', 'the event, as the host names it (default: from the payload)')
    .option('--session <id>', 'collect: the session to put in collect mode')
    .option('--json', 'status: as JSON')
    .action(async (sub: string | undefined, id: string | undefined, o: { agent?: string; event?: string; session?: string; json?: boolean }) => {
      const argv = [sub, id].filter((a): a is string => !!a);
      for (const k of ['agent', 'event', 'session'] as const) if (o[k]) argv.push(`--${k}`, o[k]);
      if (o.json) argv.push('--json');
      process.exitCode = await runHookCommand(argv, root(), { out: io.out, err: io.err, stdin: readStdin, ...(io.ask ? { ask: io.ask } : {}) }, () => import('../../hosts/hook/heavy'), () => shellReader);
    });
}

/**
 * The entry the hooks should run: the bin (dist/bin.js), which hands `hook` to the small bundle
 * before anything else loads, even when setup itself ran as `node dist/cli.js setup` (the full
 * bundle costs every tool call 75–150 ms more to load).
 */
export function smallEntry(script: string): string {
  const bin = path.join(path.dirname(script), 'bin.js');
  return path.basename(script) === 'cli.js' && fs.existsSync(bin) ? bin : script;
}

interface SetupFlags {
  agent: SetupHost;
  scope: SetupScope;
  hooks: boolean;
  mcp: boolean;
  dryRun?: boolean;
  remove?: boolean;
  seal?: boolean;
  command?: string;
}

function registerSetup(ctx: CliContext): void {
  const { program, io, root } = ctx;
  program
    .command('setup')
    .description('write the MCP server entry and the hooks for an agent host into its configuration files, kept with everything else in them; idempotent; --remove takes out only what setup added')
    .addOption(new Option('--agent <host>', 'the agent host (cursor: its MCP server only, no hooks)').choices([...SETUP_HOSTS]).makeOptionMandatory())
    .addOption(new Option('--scope <scope>', 'the workspace\'s files (--root) or your user files').choices([...SETUP_SCOPES]).default('workspace'))
    .option('--no-hooks', 'leave the hooks out')
    .option('--no-mcp', 'leave the MCP server out')
    .option('--dry-run', 'show what would change; write nothing')
    .option('--seal', 'also set the host\'s own sandbox so the agent\'s tools and commands cannot read Pi Plans\' folders (the approval key) nor write .pi/ or these files (Claude Code: needs bwrap and socat on Linux; Codex: a permission profile, on Linux)')
    .option('--remove', 'take out the hooks, the MCP server and the seal setup added, nothing else')
    .option('--command <cmd>', 'how the agent should run pi-plans, words separated by spaces, e.g. "pi-plans" when it is on the PATH: then the files name no path of this machine, and the MCP server serves the folder the host starts it in (default: this Node and this script, by absolute path)')
    .action(async (o: SetupFlags) => {
      const command = o.command !== undefined ? o.command.trim().split(/\s+/).filter(Boolean) : [process.execPath, smallEntry(path.resolve(process.argv[1] ?? 'pi-plans'))];
      if (!command.length) throw new UsageError('--command takes the command that runs pi-plans, e.g. --command pi-plans');
      // Loaded only for this command: the TOML and JSONC editors stay out of every other command's start-up.
      const { formatSetupReport, runAgentSetup, SetupRefused } = await import('../../hosts/install/apply');
      try {
        const opts = { agent: o.agent, scope: o.scope, hooks: o.hooks, mcp: o.mcp, command, workspace: path.resolve(root()), remove: !!o.remove, dryRun: !!o.dryRun, seal: !!o.seal };
        // Taking hooks or a seal out loosens what every agent of the host may do: a person's act.
        if (opts.remove && !opts.dryRun) {
          const would = runAgentSetup({ ...opts, dryRun: true }).files.filter((f) => f.changes.length && f.kind !== 'mcp');
          if (would.length) {
            const what = would.map((f) => f.shown).join(', ');
            if (!io.ask) {
              needsPerson(
                `Taking Pi Plans' hooks or seal out of ${what} frees every ${HOST_NAMES[o.agent]} session from its plan: a person decides that`,
                'The person runs this at their own terminal (it asks).',
                'ask the user; do not try to remove the hooks that hold you to the plan.',
              );
            }
            await personConfirms(ctx, `Remove Pi Plans' hooks${opts.seal || would.some((f) => f.kind === 'seal') ? ' and seal' : ''} from ${what}, so ${HOST_NAMES[o.agent]} is no longer held to its plans? [y/N] `, 'Nothing was removed.');
          }
        }
        const report = runAgentSetup(opts);
        io.out(formatSetupReport(report));
      } catch (e) {
        if (!(e instanceof SetupRefused)) throw e;
        io.err(`pi-plans setup: ${e.message}\n`);
        process.exitCode = 1;
      }
    });
}

function registerMcp({ program, io, root, version }: CliContext): void {
  program
    .command('mcp')
    .description('serve the plan tools over MCP on stdin/stdout (for Claude Code, Codex, Cursor, any MCP client)')
    .option('--review-wait <seconds>', 'how long pi_plan_submit waits for the person\'s decision before answering "still awaiting review"', wholeNumber('--review-wait takes a whole number of seconds, e.g. --review-wait 45'))
    .action(async (o: { reviewWait?: number }) => {
      // Loaded only for this command: the MCP SDK stays out of every other command's start-up.
      const [{ checkRoot, serveMcp }, { StdioServerTransport }] = await Promise.all([import('../../mcp/server'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
      const dir = path.resolve(root());
      const problem = checkRoot(dir);
      if (problem) throw new UsageError(problem);
      io.err(`[pi-plans mcp] serving ${dir} on stdio\n`);
      await serveMcp({ root: dir, reviewWaitMs: o.reviewWait !== undefined ? o.reviewWait * 1000 : undefined, log: (l) => io.err(`[pi-plans mcp] ${l}\n`), version }, new StdioServerTransport());
    });
}

function registerGit({ program, io, root }: CliContext): void {
  program
    .command('merge-driver <base> <ours> <theirs> [path]')
    .description('git merge driver for plan files (%O %A %B %P): merges by step id and frontmatter key; set up by git-setup')
    .option('--marker-size <n>', 'conflict marker length (git\'s %L)', wholeNumber('--marker-size takes a whole number (git passes %L)'))
    .action((base: string, ours: string, theirs: string, file: string | undefined, o: { markerSize?: number }) => {
      process.exitCode = runMergeDriver({ base, ours, theirs, path: file, markerSize: o.markerSize }, io);
    });

  program
    .command('git-setup')
    .description('register the merge driver in this repository\'s git config and write .gitattributes and .pi/plans/.gitignore (the git policy)')
    .option('--command <cmd>', 'how git should run pi-plans (default: this Node and this script, by absolute path)')
    .action((o: { command?: string }) => {
      process.exitCode = gitSetup(path.resolve(root()), { command: o.command, cli: path.resolve(process.argv[1] ?? 'pi-plans') }, io);
    });
}
