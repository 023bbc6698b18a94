import * as vscode from 'vscode';
import { PlanError } from '../../core';
import type { WriteGuard } from '../../store';

/**
 * Refuses a write to a plan whose open document has unsaved edits: writing under a dirty
 * document would make the user's next save fail, and their edits must never be clobbered.
 * A clean open document is reloaded by VS Code itself after the write.
 */
export const dirtyDocumentGuard: WriteGuard = async (path) => {
  const target = vscode.Uri.file(path).toString();
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target);
  if (doc?.isDirty) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    throw new PlanError(
      'EDIT_CONFLICT',
      vscode.l10n.t('{0} has unsaved changes in the editor: nothing was written. Save or revert them, then read the plan again and retry.', name),
      { file: path },
    );
  }
};
