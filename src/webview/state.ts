/**
 * What the plan editor's webview keeps across re-renders: the state on screen, what the person is
 * writing and editing, and the re-render itself (main.ts sets it).
 */
import type { InvalidView, PlanView } from '../protocol/planEditor';
import { vscode } from './host';

/** The feedback kept by VS Code across reloads of the view. */
const feedback = (vscode.getState() as { feedback?: string } | undefined)?.feedback ?? '';

export const ui: {
  current: PlanView | InvalidView | undefined;
  /** The feedback being written: it outlives every re-render until it is sent or discarded. */
  feedback: string;
  rejecting: boolean;
  /** The step being edited ('new' for a step being added) and the goal's edit box. */
  editing: string | undefined;
  editingGoal: boolean;
  /** The section whose Markdown is being edited (by its key). */
  editingSection: string | undefined;
} = { current: undefined, feedback, rejecting: feedback.length > 0, editing: undefined, editingGoal: false, editingSection: undefined };

/**
 * What the person has typed into an edit box, by the box's id: an outside change rebuilds the
 * forms, and the text must outlive that until it is saved or the edit is cancelled.
 */
const typed = new Map<string, string>();
export const STEP_FIELDS = ['step-text', 'step-tool', 'step-operation', 'step-target'];

/** An edit box showing what was typed into it before a re-render, or `initial`. */
export function keepTyped<T extends HTMLInputElement | HTMLTextAreaElement>(box: T, initial: string): T {
  box.value = typed.get(box.id) ?? initial;
  box.addEventListener('input', () => typed.set(box.id, box.value));
  return box;
}

export function forgetTyped(ids: readonly string[]): void {
  for (const id of ids) typed.delete(id);
}

/** The version on screen now (an element reused across states reads it when it is clicked). */
export function shownVersion(): number {
  return ui.current?.kind === 'plan' ? ui.current.version : 0;
}

let renderer: () => void = () => undefined;
/** Sets the re-render (main.ts: it keeps the scroll position and the focus). */
export function setRenderer(r: () => void): void {
  renderer = r;
}
/** Re-renders in place. */
export function render(): void {
  renderer();
}

/** Opens a step's edit box ('new': the box that adds one), or closes it (undefined). */
export function openStepEditor(step: string | undefined): void {
  if (step !== ui.editing) forgetTyped(STEP_FIELDS);
  ui.editing = step;
  render();
  (document.getElementById('step-text') as HTMLInputElement | null)?.focus();
}
