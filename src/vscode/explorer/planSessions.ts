import * as vscode from 'vscode';
import { AGENT_HOSTS, HOST_NAMES } from '../../hosts/setup/targets';
import { protectionByHost, type Protection } from '../../hosts/install/protection';
import * as path from 'node:path';
import { Binding, listBindings } from '../../hosts/hook/sessions';
import { ownFolder } from '../../node/ports/stateFiles';
import { realPathOf, userStateDir } from '../../node/ports/userFolders';
import { DisposableScope } from '../common/disposable';
import { relativeTime } from '../common/planIcons';

/** A burst of binding writes (the hook touches a binding on every plan tool call) ends after this much quiet. */
const QUIET_MS = 200;
/** Bindings end after a day idle without an event: looked at again this often (and when the window is focused). */
const PERIOD_MS = 60_000;

/**
 * The agent sessions bound to plans (`pi-plans hook` keeps them in the user's state folder,
 * `sessions/`), per workspace folder, for the plan explorer. Follows that folder with a file
 * watcher; never writes (an expired binding is left out, not removed: the hook removes it).
 */
export class PlanSessions extends DisposableScope {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when the sessions bound to some plan changed (not when a session was only seen again). */
  readonly onDidChange = this.changed.event;
  /** folder uri -> plan id -> its sessions. */
  private byFolder = new Map<string, Map<string, Binding[]>>();
  private signature = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watchers: vscode.Disposable[] = [];

  constructor() {
    super();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.follow()));
    this.register(vscode.window.onDidChangeWindowState((s) => s.focused && this.readSoon()));
    const period = setInterval(() => this.readSoon(), PERIOD_MS);
    this.register({ dispose: () => (clearInterval(period), clearTimeout(this.timer), this.unwatch()) });
    this.follow();
  }

  /** The live sessions bound to a plan of a folder (most recently seen first). */
  of(folder: vscode.Uri, id: string): readonly Binding[] {
    return this.byFolder.get(folder.toString())?.get(id) ?? [];
  }

  /** Every live session bound in the open folders, each once. */
  all(): Binding[] {
    const seen = new Map<string, Binding>();
    for (const byPlan of this.byFolder.values()) for (const list of byPlan.values()) for (const b of list) seen.set(`${b.host}\0${b.session}`, b);
    return [...seen.values()];
  }

  /** What the rows of a plan show of its sessions: changes when one is bound or ends. */
  key(folder: vscode.Uri, id: string): string {
    return this.of(folder, id).map((b) => `${b.host}:${b.session}`).join(',');
  }

  /** Reads every folder's bindings now (the tests, and after a change settles). */
  read(): void {
    const next = new Map<string, Map<string, Binding[]>>();
    const now = Date.now();
    for (const f of this.fileFolders()) {
      const byPlan = new Map<string, Binding[]>();
      for (const b of listBindings(now, { root: realPathOf(f.uri.fsPath) })) {
        for (const plan of b.plans) {
          const list = byPlan.get(plan) ?? [];
          list.push(b);
          byPlan.set(plan, list);
        }
      }
      for (const list of byPlan.values()) list.sort((a, b) => b.seenAt.localeCompare(a.seenAt));
      next.set(f.uri.toString(), byPlan);
    }
    this.byFolder = next;
    const sig = [...next].map(([f, m]) => `${f}=${[...m].map(([id]) => `${id}:${this.key(vscode.Uri.parse(f), id)}`).join(';')}`).join('|');
    if (sig === this.signature) return;
    this.signature = sig;
    this.changed.fire();
  }

  private readSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.read(), QUIET_MS);
  }

  private fileFolders(): readonly vscode.WorkspaceFolder[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  }

  /** One watcher on the bindings in the user's state folder (the pattern reaches into sessions/, so the folder may appear later). */
  private follow(): void {
    this.unwatch();
    // The folder is made first: a watcher on a folder that does not exist yet sees nothing when it appears.
    let dir: string;
    try {
      dir = ownFolder(userStateDir(), 'sessions');
    } catch {
      dir = path.join(userStateDir(), 'sessions'); // something else stands there: the hook fails closed, the explorer only reads
    }
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '*.json'));
    this.watchers.push(w, w.onDidCreate(() => this.readSoon()), w.onDidChange(() => this.readSoon()), w.onDidDelete(() => this.readSoon()));
    this.read();
  }

  private unwatch(): void {
    for (const d of this.watchers.splice(0)) d.dispose();
  }
}

/** The explorer row's mark for a plan's sessions: "1 agent", "2 agents". */
export function sessionsMark(sessions: readonly Binding[]): string {
  if (!sessions.length) return '';
  return sessions.length === 1 ? vscode.l10n.t('1 agent') : vscode.l10n.t('{0} agents', sessions.length);
}

/** What each protection reads as in the tooltip, after the session. */
const PROTECTION_SHORT: Record<Protection, string> = {
  sealed: "sealed (its host's sandbox keeps the agent from the approval key and from writing .pi/)",
  'hooks only': 'hooks only (the hook checks each call)',
  unprotected: 'unprotected (no Pi Plans hook set up for its host)',
};

/**
 * The tooltip's lines about a plan's sessions: each one (host, short session id, when last seen,
 * collecting, how it is kept to the plan: sealed, hooks only or unprotected), then whether hooks
 * enforce the plan and for which hosts.
 */
export function sessionsTooltip(folder: vscode.Uri, sessions: readonly Binding[], now = Date.now()): string[] {
  if (!sessions.length) return [];
  let byHost: Partial<Record<string, Protection>> = {};
  let hosts: string[] = [];
  try {
    byHost = protectionByHost(folder.fsPath);
    hosts = AGENT_HOSTS.filter((h) => byHost[h] !== 'unprotected').map((h) => HOST_NAMES[h]);
  } catch {
    // the user's folders could not be resolved: said as no hooks
  }
  const lines = [sessions.length === 1 ? vscode.l10n.t('Bound to 1 agent session:') : vscode.l10n.t('Bound to {0} agent sessions:', sessions.length)];
  for (const b of sessions) {
    const short = b.session.length > 8 ? `${b.session.slice(0, 8)}…` : b.session;
    const seen = relativeTime(b.seenAt, now);
    const guard = byHost[b.host] ?? 'unprotected';
    lines.push(`- ${HOST_NAMES[b.host] ?? b.host} ${short}${seen ? `, ${vscode.l10n.t('last active {0}', seen)}` : ''}${b.collecting ? `, ${vscode.l10n.t('collecting steps')}` : ''}: ${vscode.l10n.t(PROTECTION_SHORT[guard])}`);
  }
  lines.push(hosts.length ? vscode.l10n.t('Enforced by hooks for {0}.', hosts.join(', ')) : vscode.l10n.t('No agent hooks set up: run Pi Plans: Set Up an Agent… to enforce the plan.'));
  return lines;
}
