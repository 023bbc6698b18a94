import * as vscode from 'vscode';
import { DisposableScope } from '../common/disposable';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** What a plan file's badge says: two characters at most, a theme colour, a tooltip. */
const BADGES: Record<string, { badge: string; color?: string; tooltip: string }> = {
  // Plain badges where a coloured label would only be harder to read; colour where something is wrong.
  review: { badge: 'R', tooltip: 'Plan awaits your review' },
  running: { badge: '▶', tooltip: 'Plan is executing' },
  stalled: { badge: '‖', color: 'list.warningForeground', tooltip: 'Plan is stalled' },
  failed: { badge: '✗', color: 'list.errorForeground', tooltip: 'Plan failed' },
  changed: { badge: 'Δ', color: 'list.warningForeground', tooltip: 'Plan changed since its approval' },
  invalid: { badge: '!', color: 'list.errorForeground', tooltip: 'Invalid plan file: see Problems' },
  done: { badge: '✓', tooltip: 'Plan completed' },
};

/**
 * Badges on plan files in the file explorer, editor tabs and the plan explorer: to review,
 * running, stalled, failed, changed since approval, invalid, done. From the index; redrawn for
 * the files a change names.
 */
export class PlanFileDecorations extends DisposableScope implements vscode.FileDecorationProvider {
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>());
  readonly onDidChangeFileDecorations = this.changed.event;

  constructor(private readonly plans: WorkspacePlans) {
    super();
    this.register(vscode.window.registerFileDecorationProvider(this));
    this.register(
      plans.onDidChangePlans((e) => {
        const files = [...e.added, ...e.changed, ...e.removed];
        // A whole index (a folder opened, a branch switched) is one "everything changed", not thousands of names.
        if (files.length > 100) this.changed.fire(undefined);
        else if (files.length) this.changed.fire(files.map((f) => vscode.Uri.joinPath(e.folder, '.pi', 'plans', f)));
      }),
    );
    this.register(plans.onDidChangeAttention(() => this.changed.fire(undefined)));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file') return undefined;
    const m = /\/\.pi\/plans\/(PLAN-[^/]+)\.md$/.exec(uri.path);
    const folder = m ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    const store = folder ? this.plans.storeFor(folder.uri) : undefined;
    const e = store?.entry(m![1]);
    if (!e || !folder || vscode.Uri.joinPath(folder.uri, '.pi', 'plans', e.file).toString() !== uri.toString()) return undefined;
    const kind = badgeOf(e.valid, e.status, this.plans.attention(folder.uri, e.file));
    if (!kind) return undefined;
    const b = BADGES[kind];
    return new vscode.FileDecoration(b.badge, vscode.l10n.t(b.tooltip), b.color ? new vscode.ThemeColor(b.color) : undefined);
  }
}

/** Which badge a plan file gets, if any: what needs a person first. */
function badgeOf(valid: boolean, status: string | undefined, flag: string | undefined): keyof typeof BADGES | undefined {
  if (!valid) return 'invalid';
  if (flag === 'changed' || flag === 'unapproved' || flag === 'foreign') return 'changed';
  if (flag === 'stalled' || status === 'stalled') return 'stalled';
  if (status === 'proposed' || status === 'needs_review') return 'review';
  if (status === 'executing') return 'running';
  if (status === 'failed') return 'failed';
  if (status === 'completed') return 'done';
  return undefined;
}
