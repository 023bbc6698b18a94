import * as vscode from 'vscode';
import { isPlanError } from '../../core';
import { PLAN_EDITOR_VIEW_TYPE, SETTINGS } from './ids';

/** Opens a plan file the way the person chose (`piPlans.editor.openPlansIn`): the plan editor, or as text. */
export async function openPlan(uri: vscode.Uri, opts: { preview?: boolean; preserveFocus?: boolean } = {}): Promise<void> {
  const how = vscode.workspace.getConfiguration(SETTINGS.section).get<string>(SETTINGS.openPlansIn, 'preview');
  if (how === 'text') await vscode.window.showTextDocument(uri, { preview: opts.preview ?? true, preserveFocus: opts.preserveFocus });
  else await vscode.commands.executeCommand('vscode.openWith', uri, PLAN_EDITOR_VIEW_TYPE, { preview: opts.preview ?? true, preserveFocus: opts.preserveFocus });
}

/** Says what went wrong in the words of the error (they name the fix). */
export function report(e: unknown): void {
  void vscode.window.showErrorMessage(isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e));
}
