import * as vscode from 'vscode';
import type { ActivePlans } from '../tools';
import { DisposableScope } from './disposable';
import { CONTEXT_KEYS } from './ids';

const KEY = 'piPlans.activePlans';
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
    void this.publish();
  }

  list(): { id: string; folder: string }[] {
    return this.state.get<{ id: string; folder: string }[]>(KEY, []).filter((a) => typeof a?.id === 'string' && typeof a?.folder === 'string');
  }

  async set(id: string, folder: string): Promise<void> {
    await this.state.update(KEY, [...this.list().filter((a) => a.folder !== folder && a.id !== id), { id, folder }]);
    await this.publish();
  }

  async clear(id: string): Promise<void> {
    await this.state.update(KEY, this.list().filter((a) => a.id !== id));
    await this.publish();
  }

  async clearAll(): Promise<void> {
    await this.state.update(KEY, []);
    await this.publish();
  }

  private async publish(): Promise<void> {
    await vscode.commands.executeCommand('setContext', WORK_ACTIVE_CONTEXT, this.list().length > 0);
    this.changed.fire();
  }
}
