import * as vscode from 'vscode';
import type { ActivePlans } from '../../tools';
import { DisposableScope } from '../common/disposable';
import { CONTEXT_KEYS } from '../common/ids';

const KEY = 'piPlans.activePlans';
/** The plan work was last on: what `@plans /on` resumes and `/show` shows when no plan is named. */
const LAST_KEY = 'piPlans.lastPlan';
/** What `pi-plans hook` reads (src/hosts/hook/workMode.ts): the file's name in `.pi/plans/hooks/`. */
const WORK_MODE_FILE = 'work-mode.json';
/** Context key: a plan is active (plan work mode), for the gated tools' `when` clauses. */
export const WORK_ACTIVE_CONTEXT = CONTEXT_KEYS.planWorkActive;

/**
 * Plan work mode: at most one active plan per workspace folder, kept in workspace state (window
 * UI state, never plan content). Mirrors itself into a context key and fires on change.
 */
export class WorkspaceActivePlans extends DisposableScope implements ActivePlans {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {
    super();
    this.told = keyOf(this.list());
    void this.publish();
  }

  list(): { id: string; folder: string }[] {
    return this.state.get<{ id: string; folder: string }[]>(KEY, []).filter((a) => typeof a?.id === 'string' && typeof a?.folder === 'string');
  }

  async set(id: string, folder: string): Promise<void> {
    await this.state.update(KEY, [...this.list().filter((a) => a.folder !== folder && a.id !== id), { id, folder }]);
    await this.state.update(LAST_KEY, { id, folder });
    await this.publish();
  }

  /** The plan work was last on (kept when work ends, forgotten by a reset), if any. */
  last(): { id: string; folder: string } | undefined {
    const l = this.state.get<{ id: string; folder: string }>(LAST_KEY);
    return typeof l?.id === 'string' && typeof l?.folder === 'string' ? l : undefined;
  }

  /** Ends plan work on every plan; `forget` also drops the plan it was on (a reset). Returns what was active. */
  async endWork(opts: { forget: boolean }): Promise<{ id: string; folder: string }[]> {
    const was = this.list();
    await this.state.update(KEY, []);
    if (opts.forget) await this.state.update(LAST_KEY, undefined);
    await this.publish();
    return was;
  }

  async clear(id: string): Promise<void> {
    await this.state.update(KEY, this.list().filter((a) => a.id !== id));
    await this.publish();
  }

  async clearAll(): Promise<void> {
    await this.state.update(KEY, []);
    await this.publish();
  }

  /** The list as last told to listeners: a publish that changes nothing tells no one (the explorer would redraw every row). */
  private told: string;

  private async publish(): Promise<void> {
    await vscode.commands.executeCommand('setContext', WORK_ACTIVE_CONTEXT, this.list().length > 0);
    const now = keyOf(this.list());
    if (now !== this.told) {
      this.told = now;
      this.changed.fire();
    }
    await this.tellHooks().catch(() => undefined); // the hooks file is a convenience: never fails plan work
  }

  /**
   * Agent hooks (`pi-plans hook`) run in processes of their own: each folder's active plan goes to
   * `.pi/plans/hooks/work-mode.json` while plan work mode is on there (it binds the VS Code agent
   * sessions no plan tool call bound), and the file goes when it ends.
   */
  private async tellHooks(): Promise<void> {
    const active = new Map(this.list().map((a) => [a.folder, a.id]));
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const plans = vscode.Uri.joinPath(folder.uri, '.pi', 'plans');
      const file = vscode.Uri.joinPath(plans, 'hooks', WORK_MODE_FILE);
      const id = active.get(folder.name);
      const had = await vscode.workspace.fs.readFile(file).then((b) => new TextDecoder().decode(b), () => undefined);
      if (!id) {
        if (had !== undefined) await vscode.workspace.fs.delete(file);
        continue;
      }
      const text = `${JSON.stringify({ plan: id })}\n`;
      const hasPlans = await vscode.workspace.fs.stat(plans).then(() => true, () => false);
      if (had !== text && hasPlans) await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
    }
  }
}

/** The active plans as one comparable string, in no particular order. */
function keyOf(list: { id: string; folder: string }[]): string {
  return JSON.stringify(list.map((a) => [a.folder, a.id]).sort());
}
