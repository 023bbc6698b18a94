import * as vscode from 'vscode';
import { contentDigest } from '../../core';
import { finishPlan } from '../../service';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { DisposableScope } from '../common/disposable';
import { COMMANDS, SETTINGS } from '../common/ids';
import { report } from '../common/planUi';
import { executePrompt, openAgentChat } from './planCommands';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/**
 * Tells the person what needs them when it happens outside this window's own actions, each kind
 * mutable in settings: a plan proposed by another agent, the CLI or git (Open / Approve /
 * Reject…); an executing plan that hit a blocked or failed step, failed or completed (Open);
 * plans found stalled (Resume / Mark failed / Cancel).
 */
export class PlanNotifications extends DisposableScope {
  /** Blocked and failed steps already told about, by plan id, so each is told once. */
  private readonly toldSteps = new Map<string, Set<string>>();
  private stalledSeen = new Set<string>();

  constructor(
    private readonly plans: WorkspacePlans,
    private readonly active: WorkspaceActivePlans,
  ) {
    super();
    this.register(
      plans.onDidChangePlanStatus((e) => {
        // Plans that were there when the window opened are not news; the status bar and explorer show them.
        if (!plans.loaded || e.from === undefined && !e.outside) return;
        if (e.to === 'proposed' && e.outside && this.enabled(SETTINGS.notifyProposed)) void this.proposed(e.id, e.version);
        if ((e.to === 'completed' || e.to === 'failed') && this.enabled(SETTINGS.notifyExecution)) void this.finished(e.id, e.to);
      }),
    );
    this.register(plans.onDidChangePlans((e) => void this.stepsOf(e.folder, [...e.changed]).catch(() => undefined)));
    this.register(plans.onDidChangeAttention(() => this.stalled()));
  }

  private enabled(key: string): boolean {
    return vscode.workspace.getConfiguration(SETTINGS.section).get<boolean>(key, true);
  }

  private title(id: string): string {
    return `${id} "${this.plans.storeOf(id)?.entry(id)?.title ?? ''}"`;
  }

  private async proposed(id: string, version: number): Promise<void> {
    // The text this notification is about: Approve approves exactly it (by its digest).
    const store = this.plans.storeOf(id);
    const doc = store ? await store.read(id).catch(() => undefined) : undefined;
    const digest = doc && doc.fm.version === version ? contentDigest(doc) : undefined;
    const open = vscode.l10n.t('Open');
    const approve = vscode.l10n.t('Approve');
    const reject = vscode.l10n.t('Reject…');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('{0} awaits your review (proposed from outside this window).', this.title(id)), open, approve, reject);
    if (choice === open) await vscode.commands.executeCommand(COMMANDS.open, { id });
    // The version shown: a plan changed since is refused by the commands, with the reason.
    if (choice === approve) await vscode.commands.executeCommand(COMMANDS.approve, { id, version, digest });
    if (choice === reject) await vscode.commands.executeCommand(COMMANDS.reject, { id, version });
  }

  private async finished(id: string, to: string): Promise<void> {
    const open = vscode.l10n.t('Open');
    const say = to === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const choice = await say(to === 'completed' ? vscode.l10n.t('{0} completed.', this.title(id)) : vscode.l10n.t('{0} failed.', this.title(id)), open);
    if (choice === open) await vscode.commands.executeCommand(COMMANDS.open, { id });
  }

  /** Reads the executing plans a change touched (one file each) for steps newly blocked or failed. */
  private async stepsOf(folder: vscode.Uri, files: string[]): Promise<void> {
    if (!this.enabled(SETTINGS.notifyExecution) || !this.plans.loaded) return;
    const store = this.plans.storeFor(folder);
    if (!store) return;
    for (const file of files) {
      const e = store.entry(file.replace(/\.md$/, ''));
      if (!e?.valid || e.status !== 'executing') continue;
      const doc = await store.read(e.id);
      const stuck = doc.steps.filter((s) => s.status === 'blocked' || s.status === 'failed');
      const told = this.toldSteps.get(e.id) ?? new Set<string>();
      const fresh = stuck.filter((s) => !told.has(`${s.id}:${s.status}`));
      this.toldSteps.set(e.id, new Set(stuck.map((s) => `${s.id}:${s.status}`)));
      if (!fresh.length) continue;
      const s = fresh[0];
      const open = vscode.l10n.t('Open');
      void vscode.window
        .showWarningMessage(vscode.l10n.t('{0}: step {1} is {2}{3}', this.title(e.id), s.id, s.status, s.note ? ` (${s.note})` : ''), open)
        .then((c) => c === open && vscode.commands.executeCommand(COMMANDS.open, { id: e.id }));
    }
  }

  /**
   * Plans newly found stalled: offer to resume (in Copilot), mark failed, or cancel. Plans that
   * were stalled when the window opened are not news (as plans proposed before it opened): the
   * status bar and the explorer show them, and the first thing on screen is what happens now.
   */
  private stalled(): void {
    const now = new Set(this.plans.list().filter((e) => this.plans.attention(e.folder, e.file) === 'stalled' || e.status === 'stalled').map((e) => e.id));
    const fresh = [...now].filter((id) => !this.stalledSeen.has(id));
    this.stalledSeen = now;
    if (!this.plans.loaded || !fresh.length || !this.enabled(SETTINGS.notifyStalled)) return;
    for (const id of fresh) void this.offerStalled(id);
  }

  private async offerStalled(id: string): Promise<void> {
    const resume = vscode.l10n.t('Resume');
    const fail = vscode.l10n.t('Mark failed');
    const cancel = vscode.l10n.t('Cancel…');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('{0} is stalled: no activity for a while.', this.title(id)), resume, fail, cancel);
    const f = this.plans.folders().find((x) => x.store.entry(id));
    const e = f?.store.entry(id);
    if (!choice || !f || !e) return;
    try {
      if (choice === resume) {
        // A plan whose file still says executing needs no status change: hand it back to the agent.
        if (e.status === 'stalled') await vscode.commands.executeCommand(COMMANDS.resume, { id, version: e.version });
        await this.active.set(id, f.name);
        await openAgentChat(executePrompt(id, e.title ?? id, 'executing'));
      }
      if (choice === fail) {
        if (e.status !== 'executing') await vscode.commands.executeCommand(COMMANDS.resume, { id, version: e.version });
        await finishPlan({ store: f.store, folder: f.name, active: this.active }, id, 'fail', 'marked failed by a person: no activity', { actor: 'user' });
      }
      if (choice === cancel) await vscode.commands.executeCommand(COMMANDS.cancel, { id, version: e.version });
    } catch (err) {
      report(err);
    }
  }
}
