/** The plan editor's page: a plan drawn from its view (header, actions, goal, steps, sections, reviews), or why it cannot be read. */
import { COMMAND_LABELS, evidenceSummaryWords, InvalidView, PlanView } from '../protocol/planEditor';
import { build, button, el, icon, section, sectionActions } from './dom';
import { post } from './host';
import { goalForm, rejectForm, sectionForm } from './renderForms';
import { historySection, reviewPanel, timelineSection } from './renderReview';
import { commentAction, stepsSection, threadCount } from './renderSteps';
import { forgetTyped, render, ui } from './state';
import { RowAction, timeOf } from './toolbar';

/** What each mark says on its badge. */
const MARK_TEXT: Record<string, string> = { changed: 'changed since approval', unapproved: 'approval not valid', foreign: 'approved elsewhere', drifted: 'drifted', unverified: 'unverified' };
/** Codicons (the icon font VS Code draws with) by command. */
const COMMAND_ICON: Record<string, string> = {
  approve: 'check',
  saveToApprove: 'save',
  reject: 'close',
  confirm: 'verified',
  withdraw: 'discard',
  startWork: 'target',
  endWork: 'stop-circle',
  execute: 'play',
  retry: 'refresh',
  resume: 'debug-continue',
  reopen: 'edit',
  clone: 'copy',
  cancel: 'circle-slash',
  archive: 'archive',
  runChecks: 'beaker',
  acknowledgeDrift: 'warning',
};

/** A finished plan's evidence in plain words: the files and lines its steps changed, the steps done with no evidence. */
function evidenceSummaryLine(p: PlanView): HTMLElement | undefined {
  const e = p.evidenceSummary;
  return e ? el('p', { class: 'evidence-summary' }, evidenceSummaryWords(e).join(' ')) : undefined;
}

export function renderPlan(p: PlanView): HTMLElement {
  const doc = el('article', { class: 'plan' });
  doc.append(planHeader(p));
  doc.append(actionBar(p));
  if (ui.rejecting && p.commands.includes('reject')) doc.append(rejectForm(p));
  const since = reviewPanel(p);
  if (since) doc.append(since);
  if (p.resultSummary || p.evidenceSummary) doc.append(section('Result', p.resultSummary ? el('p', {}, p.resultSummary) : undefined, evidenceSummaryLine(p)));
  // Text before the first heading: the agent reads it, so it is drawn first, marked for what it is.
  if (p.preamble?.length) doc.append(el('section', { 'aria-label': 'Before the goal', class: 'preamble' }, el('h2', {}, 'Before the goal'), build(p.preamble)));
  const goal = goalSection(p);
  if (goal) doc.append(goal);
  doc.append(stepsSection(p));
  for (const s of p.sections) doc.append(planSection(p, s));
  const history = historySection(p);
  if (history) doc.append(history);
  const timeline = timelineSection(p);
  if (timeline) doc.append(timeline);
  return doc;
}

/** The header: title, status and marks, the text's digest, whether the approval holds, who did what, progress. */
function planHeader(p: PlanView): HTMLElement {
  // The text's digest, as `pi-plans show` prints it: what an approval here names.
  const meta = el('span', {}, `${p.id} · v${p.version} · ${p.done}/${p.total} steps · updated `, timeOf(p.updatedAt), ' · created ', timeOf(p.createdAt), ` · text ${p.digest.slice(0, 19)}`);
  const header = el(
    'header',
    {},
    el('h1', {}, p.title),
    el('div', { class: 'meta' }, el('span', { class: `badge status ${p.status}` }, p.status.replace('_', ' ')), ...p.marks.map((m) => el('span', { class: `badge mark ${m}` }, MARK_TEXT[m] ?? m)), meta),
  );
  // Whether the approval holds, in words: an approval that does not is said at the top, not hidden in a badge.
  if (p.approval && p.approval.state !== 'valid') header.append(el('p', { class: `approval ${p.approval.state}`, role: 'status' }, icon(p.approval.state === 'foreign' ? 'info' : 'error'), ` ${p.approval.text}.`));
  // Files the steps target that changed since approval by something else: said at the top, with what to do.
  if (p.drifted) header.append(el('p', { class: 'approval drifted', role: 'status' }, icon('warning'), ` ${p.drifted[0].toUpperCase()}${p.drifted.slice(1)}. Re-read them; acknowledge the drift or send the plan back to review.`));
  const facts: string[] = [];
  if (p.plannerModel) facts.push(`planned by ${p.plannerModel}`);
  if (p.executorModel) facts.push(`executed by ${p.executorModel}`);
  if (p.toolsRequired.length) facts.push(`tools: ${p.toolsRequired.join(', ')}`);
  if (p.approvedBy) facts.push(`approved by ${p.approvedBy} at v${p.approvedVersion ?? '?'}`);
  if (facts.length) header.append(el('div', { class: 'facts' }, facts.join(' · ')));
  const progress = el('progress', { max: String(Math.max(p.total, 1)), value: String(p.done), 'aria-label': `${p.done} of ${p.total} steps done` });
  header.append(progress);
  return header;
}

/** The plan's commands, and Open as Text: only the one the core calls primary is drawn so (none while an agent is at work). */
function actionBar(p: PlanView): HTMLElement {
  // A group, not a toolbar: each button is its own Tab stop (a toolbar would owe arrow-key movement).
  const bar = el('div', { class: 'actions', role: 'group', 'aria-label': 'Plan actions' });
  for (const c of p.commands) {
    if (c === 'reject') {
      bar.append(button(COMMAND_LABELS.reject, () => {
        ui.rejecting = true;
        render();
        document.getElementById('feedback')?.focus();
      }, 'secondary', COMMAND_ICON.reject));
      continue;
    }
    // Approve names the text on screen by its digest: what is approved is exactly what was drawn.
    bar.append(button(c === 'approve' ? `Approve v${p.version}` : COMMAND_LABELS[c], () => post({ type: 'command', command: c, version: p.version, digest: p.digest }), c === p.primary ? 'primary' : 'secondary', COMMAND_ICON[c]));
  }
  bar.append(button('Open as Text', () => post({ type: 'openAsText' }), 'secondary', 'go-to-file'));
  return bar;
}

/** The goal, its edit box, or nothing (no goal, and not editable). */
function goalSection(p: PlanView): HTMLElement | undefined {
  if (p.editable && ui.editingGoal) return section('Goal', goalForm(p));
  if (!(p.goal || p.editable)) return undefined;
  const goal = section('Goal', p.goal ? build(p.goal) : el('p', { class: 'empty' }, 'No goal yet.'));
  const edit = () => {
    ui.editingGoal = true;
    render();
    document.getElementById('goal-text')?.focus();
  };
  if (p.editable) sectionActions(goal, 'Goal', [{ key: 'section:goal', label: 'Edit goal', title: 'Edit', icon: 'edit', run: edit }]);
  return goal;
}

/** A section of the plan (risks, files, …), with its marks and actions, or its edit box. */
function planSection(p: PlanView, s: PlanView['sections'][number]): HTMLElement {
  if (p.editable && s.key && ui.editingSection === s.key) return section(s.title, sectionForm(p, s.title, s.key, s.source ?? ''));
  const sec = section(s.title, build(s.body));
  const h2 = sec.querySelector('h2')!;
  if (s.since) h2.append(' ', el('span', { class: `badge since ${s.since}` }, s.since === 'added' ? 'new' : s.since));
  if (s.threads) h2.append(' ', threadCount(s.threads));
  const actions: RowAction[] = p.readOnly ? [] : [commentAction(s.title)];
  const key = s.key;
  if (p.editable && key) {
    actions.push({
      key: `section:${key}`,
      label: `Edit ${s.title.toLowerCase()}`,
      title: 'Edit',
      icon: 'edit',
      run: () => {
        if (ui.editingSection !== key) forgetTyped(['section-text']);
        ui.editingSection = key;
        render();
        document.getElementById('section-text')?.focus();
      },
    });
  }
  sectionActions(sec, s.title, actions);
  return sec;
}

export function renderInvalid(v: InvalidView): HTMLElement {
  return el(
    'div',
    { class: 'invalid', role: 'alert' },
    el('h1', {}, 'This plan cannot be read'),
    el('p', {}, v.line ? `Line ${v.line}: ${v.message}` : v.message),
    button('Open as Text', () => post({ type: 'openAsText' })),
  );
}
