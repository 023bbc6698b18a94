/** The plan editor's forms: a step's, a section's and the goal's edit boxes, and the rejection's feedback. */
import type { PlanView, StepView } from '../protocol/planEditor';
import { button, el } from './dom';
import { post, vscode } from './host';
import { forgetTyped, keepTyped, openStepEditor, render, shownVersion, STEP_FIELDS, ui } from './state';

function input(id: string, label: string, value: string, max: number): HTMLLabelElement {
  const i = keepTyped(el('input', { id, type: 'text', maxlength: String(max) }), value);
  return el('label', { class: 'field' }, el('span', {}, label), i);
}

/** The form that edits a step (or adds one): Enter saves, Escape cancels; one edit of the document. */
export function stepForm(p: PlanView, s: StepView | undefined): HTMLElement {
  const form = el('form', { class: 'step-form', 'aria-label': s ? `Edit ${s.id}` : 'Add a step' });
  form.append(input('step-text', 'Step', s?.source ?? '', 500), el('div', { class: 'annotation-fields' }, input('step-tool', 'Tool', s?.tool ?? '', 60), input('step-operation', 'Operation', s?.operation ?? '', 60), input('step-target', 'Target', s?.target ?? '', 200)));
  const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value.trim();
  const cancel = button('Cancel', () => openStepEditor(undefined), 'secondary');
  form.append(el('div', { class: 'actions' }, el('button', { type: 'submit' }, s ? 'Save step' : 'Add step'), cancel));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = value('step-text');
    if (!text) return (document.getElementById('step-text') as HTMLInputElement).focus();
    const annotation = { tool: value('step-tool') || undefined, operation: value('step-operation') || undefined, target: value('step-target') || undefined };
    post(s ? { type: 'editStep', op: 'update', step: s.id, text, ...annotation, version: shownVersion() } : { type: 'editStep', op: 'add', text, ...annotation, version: shownVersion() });
    ui.editing = undefined;
    forgetTyped(STEP_FIELDS);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') cancel.click();
  });
  return form;
}

/**
 * A box of Markdown saved as one edit of the document: Save posts it, Cancel (or Escape) drops
 * what was typed and draws the view again.
 */
function markdownForm(area: HTMLTextAreaElement, formLabel: string, saveLabel: string, close: () => void, save: (text: string) => void): HTMLElement {
  const form = el('form', { class: 'goal-form', 'aria-label': formLabel }, area);
  const done = () => {
    close();
    forgetTyped([area.id]);
  };
  const cancel = button('Cancel', () => {
    done();
    render();
  }, 'secondary');
  form.append(el('div', { class: 'actions' }, el('button', { type: 'submit' }, saveLabel), cancel));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    save(area.value);
    done();
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') cancel.click();
  });
  return form;
}

/** A section's Markdown in a box: saved as one edit of the document (the core replaces the section whole). */
export function sectionForm(p: PlanView, title: string, key: string, source: string): HTMLElement {
  const area = keepTyped(el('textarea', { id: 'section-text', rows: String(Math.min(12, Math.max(4, source.split('\n').length + 1))), 'aria-label': title }), source);
  return markdownForm(area, `Edit ${title}`, `Save ${title.toLowerCase()}`, () => (ui.editingSection = undefined), (text) => post({ type: 'editSection', key: key as 'risks', text, version: p.version }));
}

export function goalForm(p: PlanView): HTMLElement {
  const area = keepTyped(el('textarea', { id: 'goal-text', rows: '4', 'aria-label': 'Goal' }), p.goalText ?? '');
  return markdownForm(area, 'Edit the goal', 'Save goal', () => (ui.editingGoal = false), (text) => post({ type: 'editGoal', text, version: p.version }));
}

export function rejectForm(p: PlanView): HTMLElement {
  const area = el('textarea', { id: 'feedback', rows: '4', 'aria-label': 'What must change?', placeholder: 'What must change? The agent revises the plan with this feedback.' });
  area.value = ui.feedback;
  area.addEventListener('input', () => {
    ui.feedback = area.value;
    vscode.setState({ feedback: ui.feedback });
  });
  const send = button('Reject with this feedback', () => {
    if (!ui.feedback.trim()) return area.focus();
    post({ type: 'reject', feedback: ui.feedback.trim(), version: p.version });
    ui.feedback = '';
    ui.rejecting = false;
    vscode.setState({ feedback: ui.feedback });
  });
  const discard = button('Discard', () => {
    ui.feedback = '';
    ui.rejecting = false;
    vscode.setState({ feedback: ui.feedback });
    render();
  }, 'secondary');
  const form = el('div', { class: 'reject-form', role: 'form', 'aria-label': 'Reject with feedback' }, area, el('div', { class: 'actions' }, send, discard));
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') discard.click();
  });
  return form;
}
