import * as vscode from 'vscode';
import { PLAN_ID_PATTERN } from '../../core';
import { compareWithReviewed } from '../../service';
import { DisposableScope } from '../common/disposable';
import { COMMANDS } from '../common/ids';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** The scheme of a reviewed version's read-only text: `pi-plans-reviewed:/PLAN-….md?folder=…&version=N`. */
export const REVIEWED_SCHEME = 'pi-plans-reviewed';

/** The Uri of a plan's snapshot at a version (read-only, served from `.pi/plans/reviews/`). */
export function reviewedUri(folder: vscode.Uri, id: string, version: number): vscode.Uri {
  const query = new URLSearchParams({ folder: folder.toString(), version: String(version) }).toString();
  return vscode.Uri.from({ scheme: REVIEWED_SCHEME, path: `/${id}.md`, query });
}

/**
 * "Compare with the last reviewed version": VS Code's diff editor between the version a person
 * last approved or rejected (a read-only virtual document) and the plan as it is now.
 */
export class ReviewCompare extends DisposableScope implements vscode.TextDocumentContentProvider {
  constructor(private readonly plans: WorkspacePlans) {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(REVIEWED_SCHEME, this));
    this.register(vscode.commands.registerCommand(COMMANDS.compareWithReviewed, (arg?: unknown) => this.compare(arg)));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const id = /^\/(PLAN-[0-9a-f]{8})\.md$/.exec(uri.path)?.[1];
    const folder = q.get('folder');
    const version = Number(q.get('version'));
    const store = folder ? this.plans.storeFor(vscode.Uri.parse(folder)) : undefined;
    if (!id || !store || !Number.isInteger(version)) return vscode.l10n.t('(not a reviewed version of a plan)');
    const snap = await store.readSnapshot(id, { version }).catch(() => undefined);
    return snap?.text ?? vscode.l10n.t('(the reviewed version v{0} of {1} is no longer kept)', String(version), id);
  }

  /** Opens the diff for a plan: a file Uri, an explorer row or `{ id }`, the active plan editor or text editor. */
  async compare(arg?: unknown): Promise<void> {
    const target = this.resolve(arg);
    if (!target) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a plan first, or pick one in the Plans view.'));
      return;
    }
    const { uri, id, folder } = target;
    const store = this.plans.storeFor(folder);
    if (!store) return;
    const r = await compareWithReviewed({ store }, id).catch((e: Error) => ({ unavailable: e.message, comparison: undefined }));
    if (!r.comparison) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No comparison for {0}: {1}. A version is kept when a person approves or rejects it.', id, r.unavailable ?? ''));
      return;
    }
    const title = vscode.l10n.t('{0}: v{1} (reviewed) ↔ now', id, String(r.comparison.fromVersion));
    await vscode.commands.executeCommand('vscode.diff', reviewedUri(folder, id, r.comparison.fromVersion), uri, title, { preview: true });
  }

  private resolve(arg: unknown): { uri: vscode.Uri; id: string; folder: vscode.Uri } | undefined {
    let uri: vscode.Uri | undefined;
    if (arg instanceof vscode.Uri) uri = arg;
    else if (arg && typeof arg === 'object' && 'folder' in arg && 'file' in arg && (arg as { folder: unknown }).folder instanceof vscode.Uri) {
      const row = arg as { folder: vscode.Uri; file: string };
      uri = vscode.Uri.joinPath(row.folder, '.pi', 'plans', row.file);
    } else if (arg && typeof arg === 'object' && typeof (arg as { id?: unknown }).id === 'string') {
      const id = (arg as { id: string }).id;
      const store = PLAN_ID_PATTERN.test(id) ? this.plans.storeOf(id) : undefined;
      if (store) uri = vscode.Uri.file(store.pathOf(id));
    }
    if (!uri) {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      uri = tab instanceof vscode.TabInputCustom || tab instanceof vscode.TabInputText ? tab.uri : vscode.window.activeTextEditor?.document.uri;
    }
    const id = uri ? /(PLAN-[0-9a-f]{8})\.md$/.exec(uri.path)?.[1] : undefined;
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri)?.uri : undefined;
    return uri && id && folder ? { uri, id, folder } : undefined;
  }
}
