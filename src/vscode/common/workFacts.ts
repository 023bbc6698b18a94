import * as vscode from 'vscode';

/**
 * What the files say of a plan changed without its file changing (a drift acknowledged, a check's
 * output kept): the views that show checks and drift (the plan editor, the explorer) draw again.
 * A check's result is written into the plan, so its own write already tells them.
 */
const changed = new vscode.EventEmitter<string>();

/** Fired with the plan id. */
export const onDidChangeWorkFacts = changed.event;

export function workFactsChanged(id: string): void {
  changed.fire(id);
}

/** For the composition root: the emitter goes with the extension. */
export const workFactsEmitter: vscode.Disposable = changed;
