import * as path from 'node:path';
import * as vscode from 'vscode';
import { PlanDocument, readChangedLine } from '../../core';
import { GitEvidence } from '../../node';
import { DisposableScope } from '../common/disposable';

/** The scheme of a file as a step's snapshot holds it: `pi-plans-tree:/<path>?root=<folder>&tree=<tree>` (read-only, from git). */
export const TREE_SCHEME = 'pi-plans-tree';

function treeUri(root: string, tree: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: TREE_SCHEME, path: `/${file}`, query: new URLSearchParams({ root, tree }).toString() });
}

/**
 * **View changes** on a step: VS Code's multi-file diff (`vscode.changes`) between the trees its
 * `> Changed:` line names, each side a read-only document read from git (`git cat-file`): the
 * files as they were when the step started and when it ended, not as they are now.
 */
export class StepChangesView extends DisposableScope implements vscode.TextDocumentContentProvider {
  constructor() {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(TREE_SCHEME, this));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const root = q.get('root');
    const tree = q.get('tree');
    if (!root || !tree || !/^[0-9a-f]{4,40}$/.test(tree)) return '';
    const g = await GitEvidence.open(root).catch(() => undefined);
    return (await g?.show(tree, uri.path.slice(1))) ?? '';
  }

  /** Opens the diff of what `step` of `doc` changed; says why when it cannot. */
  async open(doc: PlanDocument, step: string, folder: string): Promise<void> {
    const line = doc.steps.find((s) => s.id === step)?.record?.Changed;
    const c = line ? readChangedLine(line) : undefined;
    if (!c?.recorded || !c.before || !c.after) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no recorded change to show{1}.', step, c?.why ? ` (${c.why})` : ''));
      return;
    }
    const g = await GitEvidence.open(folder).catch(() => undefined);
    const files = g ? await g.diff(c.before, c.after).catch(() => undefined) : undefined;
    if (!g || !files) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The snapshots of {0} are not in this repository (a clone without them, or removed): its line still lists the files.', step));
      return;
    }
    const resources = files.map((f) => [
      vscode.Uri.file(path.join(g.top, f.path)),
      f.status === 'added' ? undefined : treeUri(folder, c.before!, f.from ?? f.path),
      f.status === 'deleted' ? undefined : treeUri(folder, c.after!, f.path),
    ]);
    await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('{0} {1}: what the step changed', doc.fm.id, step), resources);
  }
}
