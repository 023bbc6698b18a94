/**
 * `pi-plans setup` on the disk, for the CLI and VS Code's "Set Up an Agent…": resolves where each
 * host's files are, reads them all and computes every edit first (core/agentSetup, core/configEdit),
 * so a file that does not parse refuses the whole run before anything is written; then writes
 * (unless a dry run). At workspace scope no configuration file is followed out of the workspace
 * through a link.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOSTS, setupTargets } from '../hosts';
import { AGENT_HOSTS, AgentHost, cursorTargets, HOST_NAMES, namesAbsolutePath, SealPaths, SETUP_SCOPES, SetupHost, SetupRequest, SetupScope, SetupTarget } from '../setup/targets';
import { ConfigFileError, editConfig, hasOurHooks } from '../setup/configEdit';
import { PROTECT_KEY, sealRefusal } from '../setup/seal';
import { realPathOf } from '../../node/ports/userFolders';
import { UserFolders, userFolders } from './folders';
import { nodeSealSystem, SealSystem, sealPaths } from './seal';

export { userFolders, type UserFolders } from './folders';
export { nodeSealSystem, type SealSystem } from './seal';

export interface SetupOptions extends Omit<SetupRequest, 'agent'> {
  /** A host with hooks, or Cursor (its MCP server only). */
  agent: SetupHost;
  remove: boolean;
  dryRun: boolean;
  /** `--seal`: set the host's own sandbox up too (refused where it cannot be); `--remove` takes a seal out with or without it. */
  seal?: boolean;
}

/** One file: what setup did (or would do) to it. */
export interface FileReport {
  file: string;
  /** The path as shown: relative to the workspace, or under ~. */
  shown: string;
  kind: SetupTarget['kind'];
  /** created: a new file; deleted: nothing of the person's was left in it; unchanged: as wanted already. */
  status: 'created' | 'updated' | 'deleted' | 'unchanged';
  changes: string[];
  note?: string;
  removeNote?: string;
  /** What setup writes in it names an absolute path of this machine (the command, the workspace, the seal's folders). */
  machinePaths: boolean;
}

export interface SetupReport {
  agent: SetupHost;
  scope: SetupRequest['scope'];
  dryRun: boolean;
  remove: boolean;
  /** The hooks set up: whether the host is sealed too, could be (`--seal`), or cannot be by Pi Plans. */
  seal: 'sealed' | 'not sealed' | 'cannot';
  /** The command that runs pi-plans names an absolute path (the default: this Node and this script). */
  absoluteCommand: boolean;
  files: FileReport[];
}

/** A run setup refused before writing anything; the message names the file and the fix. */
export class SetupRefused extends Error {}

const inside = (dir: string, p: string) => {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

interface Planned {
  target: SetupTarget;
  report: FileReport;
  /** Where the text is written (the real path: a link inside the workspace stays a link). */
  real: string;
  text: string | undefined;
  /** Whether this edit changes the file's text. */
  edited: boolean;
  /** The folders the file's settings name that are not there yet (created when it is written). */
  missing: NonNullable<SetupTarget['folders']>;
}

function showPath(file: string, opts: SetupOptions, folders: UserFolders): string {
  if (opts.scope === 'workspace' && inside(opts.workspace, file)) return path.relative(opts.workspace, file).split(path.sep).join('/');
  return inside(folders.home, file) ? `~/${path.relative(folders.home, file).split(path.sep).join('/')}` : file;
}

/**
 * Reads one file (or takes its text as an edit before this one in the run left it: `texts`, by
 * real path) and computes its edit; refuses a link out of the workspace, a folder, or a file that
 * does not parse, and a folder the settings name that is something else.
 */
function planFile(target: SetupTarget, opts: SetupOptions, folders: UserFolders, texts: Map<string, string | undefined>): Planned {
  const base = target.base === 'workspace' ? opts.workspace : folders[target.base];
  const file = path.join(base, ...target.path);
  const shown = showPath(file, opts, folders);
  const real = realPathOf(file);
  if (opts.scope === 'workspace' && !inside(realPathOf(opts.workspace), real)) {
    throw new SetupRefused(`${shown} leads out of the workspace through a link (to ${real}): setup does not write there at workspace scope. Replace the link with a file, or run setup with --scope user.`);
  }
  let before: string | undefined;
  if (texts.has(real)) {
    before = texts.get(real);
  } else {
    const stat = fs.statSync(real, { throwIfNoEntry: false });
    if (stat && !stat.isFile()) throw new SetupRefused(`${shown} is not a file: move it aside, then run setup again. Nothing was written.`);
    before = stat ? fs.readFileSync(real, 'utf8') : undefined;
  }
  let out;
  try {
    out = editConfig(target.format, before, target.edit, opts.remove);
  } catch (e) {
    if (!(e instanceof ConfigFileError)) throw e;
    throw new SetupRefused(`${shown}: ${e.message}. Fix the file (or move it aside), then run setup again. Nothing was written.`);
  }
  // Not the folder that holds the file itself: writing the file makes it.
  const missing = opts.remove ? [] : (target.folders ?? []).filter((f) => {
    if (inside(f.path, file)) return false;
    const st = fs.statSync(f.path, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new SetupRefused(`${showPath(f.path, opts, folders)} is not a folder, and ${shown} names it as one: move it aside, then run setup again. Nothing was written.`);
    return !st;
  });
  const changes = [...out.changes, ...(missing.length ? [`created the folder${missing.length > 1 ? 's' : ''} it names that ${missing.length > 1 ? 'were' : 'was'} not there: ${missing.map((f) => showPath(f.path, opts, folders)).join(', ')}`] : [])];
  const status = !changes.length ? 'unchanged' : before === undefined ? 'created' : out.text === undefined ? 'deleted' : 'updated';
  const machinePaths = !opts.remove && target.edit.entries.some((e) => namesAbsolute(e.value));
  return { target, real, text: out.text, edited: out.changes.length > 0, missing, report: { file, shown, kind: target.kind, status, changes, note: target.note, removeNote: target.removeNote, machinePaths } };
}

/**
 * Whether a value setup writes names an absolute path, in a string or a key: a word of a command
 * line (`/usr/bin/node '/opt/pi plans/bin.js' hook …`), an argument, a permission rule's path
 * (`Read(//home/…)`), a folder a permission profile names.
 */
function namesAbsolute(v: unknown): boolean {
  if (typeof v === 'string') return /(^|[\s'"(=])(\/|[A-Za-z]:[\\/])/.test(v);
  if (Array.isArray(v)) return v.some(namesAbsolute);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => namesAbsolute(k) || namesAbsolute(x));
  return false;
}

/** Writes beside and renames (a host reading meanwhile never sees half a file), keeping the file's mode. */
function writeAtomic(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const mode = fs.statSync(file, { throwIfNoEntry: false })?.mode;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  fs.writeFileSync(tmp, text, mode !== undefined ? { mode: mode & 0o7777 } : {});
  fs.renameSync(tmp, file);
}

/** Deletes a file setup emptied, and the folders above it it leaves empty, up to the base folder. */
function deleteFile(file: string, stop: string): void {
  fs.rmSync(file, { force: true });
  for (let dir = path.dirname(file); inside(stop, dir) && dir !== stop; dir = path.dirname(dir)) {
    if (fs.readdirSync(dir).length) return;
    fs.rmdirSync(dir);
  }
}

/**
 * The paths the host's seal names: for `--seal` once the host, scope, platform and the sandbox's
 * programs allow it (else SetupRefused); for `--remove`, always where the host has a sandbox, so
 * a seal is taken out with the rest. Undefined: no seal in this run.
 */
function sealFor(opts: SetupOptions, folders: UserFolders, system: SealSystem): SealPaths | undefined {
  if (opts.agent === 'cursor') {
    if (opts.seal && !opts.remove) throw new SetupRefused(`Cursor cannot be sealed: Pi Plans writes only its MCP server for Cursor, with no hooks, so nothing holds its agent to a plan or keeps it from your approval key. Run setup without --seal, and protect the approval key with a passphrase: ${PROTECT_KEY}. Nothing was written.`);
    return undefined;
  }
  const req = { ...opts, agent: opts.agent };
  const host = HOSTS[req.agent];
  if (opts.remove) return host.sandbox && opts.scope === 'workspace' ? sealPaths(req, folders, system.env) : undefined;
  if (!opts.seal) return undefined;
  const why = sealRefusal(host, opts.scope, system.platform, system.onPath);
  if (why) throw new SetupRefused(why);
  return sealPaths(req, folders, system.env);
}

/**
 * Plans every file, then (unless a dry run) writes them. Throws SetupRefused with nothing written.
 * `system`: the environment, platform and PATH a seal is made for (this process's by default).
 */
export function runAgentSetup(opts: SetupOptions, folders: UserFolders = userFolders(), system: SealSystem = nodeSealSystem()): SetupReport {
  if (opts.scope === 'workspace' && !fs.statSync(opts.workspace, { throwIfNoEntry: false })?.isDirectory()) {
    throw new SetupRefused(`${opts.workspace} is not a folder: pass the workspace folder with --root, or use --scope user.`);
  }
  const req = { ...opts, sealPaths: sealFor(opts, folders, system) };
  const targets = opts.agent === 'cursor' ? cursorTargets(req) : setupTargets({ ...req, agent: opts.agent });
  // Two targets can share a file (Codex's MCP server and seal, in .codex/config.toml): each edit sees the one before.
  const texts = new Map<string, string | undefined>();
  const planned = targets.map((t) => {
    const p = planFile(t, opts, folders, texts);
    texts.set(p.real, p.text);
    return p;
  });
  // A removal without --seal reports the seal's file only when there was a seal to take out.
  const reported = planned.filter((p) => !(p.target.kind === 'seal' && opts.remove && !opts.seal && !p.report.changes.length));
  if (!opts.dryRun) {
    for (const f of planned.flatMap((p) => p.missing)) fs.mkdirSync(f.path, { recursive: true, ...(f.private ? { mode: 0o700 } : {}) });
    // Each file once, as its last edit left it, where any edit changed it.
    const last = new Map(planned.map((p) => [p.real, p]));
    for (const [real, p] of last) {
      if (!planned.some((q) => q.real === real && q.edited)) continue;
      if (p.text === undefined) deleteFile(p.report.file, p.target.base === 'workspace' ? opts.workspace : folders[p.target.base]);
      else writeAtomic(real, p.text);
    }
  }
  const seal = req.sealPaths && !opts.remove ? 'sealed' : opts.agent !== 'cursor' && HOSTS[opts.agent].sandbox ? 'not sealed' : 'cannot';
  return { agent: opts.agent, scope: opts.scope, dryRun: opts.dryRun, remove: opts.remove, seal, absoluteCommand: namesAbsolutePath(opts.command), files: reported.map((p) => p.report) };
}

const WOULD: Record<string, string> = { added: 'would add', updated: 'would update', removed: 'would remove', created: 'would create' };

/** The report as the CLI prints it: one line per file, its notes, then what to do next. */
export function formatSetupReport(r: SetupReport): string {
  const changed = r.files.filter((f) => f.changes.length);
  const head = `${r.remove ? 'Removing Pi Plans from' : 'Setting up'} ${HOST_NAMES[r.agent]} (${r.scope} scope)${r.dryRun ? ', dry run: nothing is written' : ''}:`;
  const lines = [head];
  for (const f of r.files) {
    const would = (c: string) => (r.dryRun ? c.replace(/^(added|updated|removed|created)/, (v: string) => WOULD[v]) : c);
    const what = f.changes.length ? f.changes.map(would).join('; ') : r.remove ? 'nothing of Pi Plans\' in it' : 'already set up';
    const status = f.status === 'created' ? ' (new file)' : f.status === 'deleted' ? ' (file deleted: nothing else was in it)' : '';
    lines.push(`  ${f.shown}${status}: ${what}`);
    const note = r.remove ? f.removeNote : f.note;
    if (note && f.changes.length) lines.push(`    ${note}.`);
  }
  if (!r.files.length) lines.push('  nothing to do: --no-hooks and --no-mcp leave nothing.');
  else if (!changed.length) lines.push(r.remove ? 'Nothing to remove.' : 'Already set up: nothing to change.');
  else if (r.dryRun) lines.push('Dry run: run the same command without --dry-run to write these changes.');
  else if (!r.remove) lines.push(`Done. Restart ${HOST_NAMES[r.agent]} (or start a new session) to load the changes.`);
  if (r.remove) return `${lines.join('\n')}\n`;
  // The workspace's files (usually committed) that name this machine's paths, once each.
  const machine = [...new Map(changed.filter((f) => f.machinePaths && !f.shown.startsWith('~/') && !path.isAbsolute(f.shown)).map((f) => [f.shown, f])).values()];
  if (machine.length) lines.push(machineWords(machine, changed, r));
  // No --root: the server serves the folder the host starts it in (VS Code and Cursor name the folder they have open).
  if (!r.absoluteCommand && r.scope === 'workspace' && r.agent !== 'copilot' && r.agent !== 'cursor' && changed.some((f) => f.kind === 'mcp')) {
    lines.push(`The MCP server entry names no folder: the server serves the folder ${HOST_NAMES[r.agent]} starts it in, this workspace when ${HOST_NAMES[r.agent]} is started here.`);
  }
  // What holds the agent to its plans, said last once the hooks went in: the seal, or why not and what else to do.
  if (changed.some((f) => f.kind === 'hooks')) lines.push(SEAL_WORDS[r.seal](r.agent));
  if (r.agent === 'cursor' && changed.length) lines.push(CURSOR_WORDS);
  return `${lines.join('\n')}\n`;
}

const CURSOR_WORDS = `Cursor gets the plan tools only: Pi Plans has no hooks for Cursor and cannot seal it, so nothing holds its agent to a plan (it plans, and a person approves, through the tools). Protect your approval key with a passphrase, so an agent that reads it cannot sign: ${PROTECT_KEY}.`;

/**
 * Says which of the workspace's files (usually committed) now name absolute paths of this machine,
 * and how to write them without: a pi-plans on the PATH (`--command pi-plans`), or each person's
 * own setup. The seal's paths are this machine's whatever the command.
 */
function machineWords(reports: readonly FileReport[], changed: readonly FileReport[], r: SetupReport): string {
  const files = reports.map((f) => f.shown);
  const many = files.length > 1;
  // The MCP entry names the workspace by path where the command does (VS Code and Cursor put in the folder they have open).
  const rooted = r.absoluteCommand && r.agent !== 'copilot' && r.agent !== 'cursor' && changed.some((f) => f.kind === 'mcp');
  const sealed = changed.some((f) => f.kind === 'seal' && f.machinePaths);
  const what = [r.absoluteCommand ? 'the command that runs pi-plans' : '', rooted ? 'the workspace folder' : '', sealed ? 'the folders the seal names' : ''].filter(Boolean);
  const list = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : xs[0]);
  const fix = r.absoluteCommand ? ` With pi-plans on the PATH, \`pi-plans setup --agent ${r.agent} --command pi-plans\` writes ${sealed ? "the hooks and the MCP server with no path of this machine (the seal's folders are this machine's whatever the command)" : `${many ? 'them' : 'it'} with no path of this machine`}.` : '';
  return `Machine-specific: ${list(files)} ${r.dryRun ? 'would name' : many ? 'name' : 'names'} absolute paths of this machine${what.length ? ` (${list(what)})` : ''}: committed, ${many ? 'they work' : 'it works'} only where those paths are the same; otherwise keep ${many ? 'them' : 'it'} out of git and have each person run setup.${fix}`;
}

const SEAL_WORDS: Record<SetupReport['seal'], (agent: SetupHost) => string> = {
  sealed: (a) => `Sealed: ${HOST_NAMES[a]}'s own sandbox keeps the agent from your approval key and from writing .pi/; the hooks hold it to its plan.`,
  'not sealed': (a) => `Not sealed: only the hooks hold ${HOST_NAMES[a]} to its plans, and an agent with a shell may find a way past them. Seal it: pi-plans setup --agent ${a} --seal; and protect your approval key: ${PROTECT_KEY}.`,
  cannot: (a) => `${HOST_NAMES[a]} cannot be sealed by Pi Plans (its sandbox cannot be set to keep the agent from your approval key and .pi/): only the hooks hold it to its plans. Protect your approval key with a passphrase, so an agent that reads it cannot sign: ${PROTECT_KEY}.`,
};



/** A host whose hook file holds Pi Plans' hooks: the hooks enforce bound plans in its sessions. */
export interface HooksSetUp {
  host: AgentHost;
  scope: SetupScope;
  file: string;
}

/** A hook file larger than this is not one setup wrote into (it is not read). */
const MAX_HOOK_FILE_BYTES = 1024 * 1024;

/**
 * Which hosts have Pi Plans' hooks set up for a workspace: the hook files `pi-plans setup` writes
 * (setupTargets, at workspace and user scope) that hold a hook of ours (configEdit's hasOurHooks).
 * Reads at most one small file per host and scope; a missing or broken file is no hooks.
 */
export function hooksSetUp(workspace: string, folders: UserFolders = userFolders()): HooksSetUp[] {
  const out: HooksSetUp[] = [];
  for (const agent of AGENT_HOSTS) {
    for (const scope of SETUP_SCOPES) {
      for (const t of setupTargets({ agent, scope, hooks: true, mcp: false, command: ['pi-plans'], workspace })) {
        const file = path.join(t.base === 'workspace' ? workspace : folders[t.base], ...t.path);
        try {
          const st = fs.statSync(file, { throwIfNoEntry: false });
          if (st?.isFile() && st.size <= MAX_HOOK_FILE_BYTES && hasOurHooks(fs.readFileSync(file, 'utf8'))) out.push({ host: agent, scope, file });
        } catch {
          // unreadable: no hooks of ours to count on
        }
      }
    }
  }
  return out;
}
