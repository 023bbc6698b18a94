/** The plan editor's steps: each step's row (reused while unchanged), its actions, dragging to reorder. */
import type { PlanView, StepView, Words } from '../protocol/planEditor';
import { build, button, el, icon, link, section } from './dom';
import { post } from './host';
import { stepForm } from './renderForms';
import { openStepEditor, shownVersion, ui } from './state';
import { RowAction, rowToolbar, timeOf } from './toolbar';

const MARK_LABEL: Record<string, string> = { in_progress: 'in progress', done: 'done', blocked: 'blocked', skipped: 'skipped' };
/** Codicons (the icon font VS Code draws with) by step status and mark. */
const STEP_ICON: Record<string, string> = { pending: 'circle-large-outline', in_progress: 'sync', blocked: 'circle-slash', done: 'pass', failed: 'error', skipped: 'debug-step-over' };
const MARK_ICON: Record<string, string> = { in_progress: 'sync', done: 'check', blocked: 'circle-slash', skipped: 'debug-step-over' };

/**
 * Step elements by id, reused while what they show is unchanged: an outside change of one step
 * rebuilds one element, not the list (the edit box a person is typing in survives as well).
 */
const stepCache = new Map<string, { key: string; li: HTMLLIElement }>();
function cachedStep(p: PlanView, s: StepView, i: number): HTMLLIElement {
  const key = JSON.stringify([s, p.editable, p.readOnly, ui.editing === s.id, i === 0, i === p.steps.length - 1]);
  const hit = stepCache.get(s.id);
  if (hit?.key === key) return hit.li;
  const li = stepItem(p, s);
  stepCache.set(s.id, { key, li });
  return li;
}

/** The step being dragged by its handle (reordering with the mouse; Move up / Move down do it from the keyboard). */
let dragged: string | undefined;

/** Drop on a step: the dragged one goes above or below it (by the half of the row under the pointer), as one move. */
function dropTarget(li: HTMLLIElement, id: string): void {
  const below = (e: DragEvent) => e.clientY > li.getBoundingClientRect().top + li.getBoundingClientRect().height / 2;
  const clear = () => li.classList.remove('drop-above', 'drop-below');
  li.addEventListener('dragover', (e) => {
    if (!dragged || dragged === id) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'move';
    li.classList.toggle('drop-below', below(e));
    li.classList.toggle('drop-above', !below(e));
  });
  li.addEventListener('dragleave', clear);
  li.addEventListener('drop', (e) => {
    clear();
    if (!dragged || dragged === id || ui.current?.kind !== 'plan') return;
    e.preventDefault();
    const order = ui.current.steps.map((x) => x.id).filter((x) => x !== dragged);
    const at = order.indexOf(id);
    const after = below(e) ? id : (order[at - 1] ?? 'start');
    post({ type: 'editStep', op: 'move', step: dragged, after, version: shownVersion() });
    dragged = undefined;
  });
}

function stepItem(p: PlanView, s: StepView): HTMLLIElement {
  const li = el('li', { class: `step ${s.status}`, 'data-step': s.id });
  // A handle to drag the step by (the row itself stays selectable text).
  const handle = p.editable && ui.editing !== s.id ? el('span', { class: 'codicon codicon-gripper drag-handle', draggable: 'true', title: `Drag to move ${s.id}`, 'aria-hidden': 'true' }) : undefined;
  if (handle) {
    handle.addEventListener('dragstart', (e) => {
      dragged = s.id;
      e.dataTransfer?.setData('text/plain', s.id);
      if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
      li.classList.add('dragging');
    });
    handle.addEventListener('dragend', () => {
      dragged = undefined;
      li.classList.remove('dragging');
    });
  }
  if (p.editable) dropTarget(li, s.id);
  const head = el('div', { class: 'step-head' }, handle, icon(STEP_ICON[s.status] ?? STEP_ICON.pending, 'step-icon'), el('span', { class: 'step-id' }, s.id), el('span', { class: 'step-text' }, build(s.text)));
  // The badges in one column at the row's end, the same on every row: what else is said of the step
  // (new, runnable, its evidence flag, comments), then its status in a slot of its own (empty while pending).
  const others = el('span', { class: 'step-marks' });
  if (s.since) others.append(el('span', { class: `badge since ${s.since}`, title: `${s.since} since the reviewed version` }, s.since === 'added' ? 'new' : s.since));
  if (s.runnable && p.status === 'executing') others.append(el('span', { class: 'badge runnable', title: 'Every step it waits for is done: it can start now' }, 'runnable'));
  const flag = s.evidence?.flag;
  if (flag === 'no evidence' || flag === 'no change, explained') {
    const title = flag === 'no evidence' ? 'Marked done with no recorded change and no note saying why' : 'No recorded change; the note says why';
    others.append(el('span', { class: `badge evidence-flag ${flag === 'no evidence' ? 'no-evidence' : 'explained'}`, title }, flag));
  }
  if (s.threads) others.append(threadCount(s.threads));
  const status = el('span', { class: 'step-status-slot' }, s.status !== 'pending' ? el('span', { class: `badge step-status ${s.status}` }, s.status.replace('_', ' ')) : undefined);
  head.append(el('span', { class: 'step-badges' }, others, status));
  li.append(head);
  if (s.waitsFor) li.append(el('div', { class: 'waits-for' }, s.waitsFor.length ? `Waits for ${s.waitsFor.join(', ')}` : 'Waits for nothing'));
  if (s.tool) {
    const target = s.target ? el(s.targetIsFile ? 'a' : 'span', { class: 'target' }, s.target) : undefined;
    if (target && s.targetIsFile) link(target, s.target!);
    li.append(el('div', { class: 'annotation' }, el('span', { class: 'tool' }, s.tool), s.operation ? `: ${s.operation}` : '', target ? ' → ' : '', target));
  }
  if (s.details?.length) li.append(el('div', { class: 'details' }, build(s.details)));
  // What was recorded of the step (who held it, what it changed, its note, its check), in one quiet style.
  for (const r of s.record ?? []) if (!(r.key === 'Changed' && s.evidence)) li.append(el('div', { class: `record record-${r.key.toLowerCase()}`, title: `${r.key}: ${r.text}` }, ...(r.words ? said(r.words) : [`${r.key}: ${r.text}`])));
  if (s.evidence) li.append(evidenceBlock(s, s.evidence));
  if (s.note) li.append(el('div', { class: 'record note' }, 'Note: ', el('span', { class: 'note-text' }, s.note)));
  if (s.check) li.append(checkLine(s.check));
  // Text between this step and the next: not a step, but the agent reads it, so it is drawn here.
  if (s.after?.length) li.append(el('div', { class: 'loose', title: 'Text between the steps (the agent reads it too)' }, build(s.after)));
  if (ui.editing === s.id && p.editable) li.append(stepForm(p, s));
  else {
    const actions = stepActions(p, s);
    if (actions.length) {
      // The head keeps room for the toolbar, which shows there on hover and focus (by a class: the
      // page carries no style attribute, which the hostile-text check holds to none).
      head.classList.add('has-actions');
      head.append(rowToolbar(`${s.id} actions`, actions));
    }
  }
  li.setAttribute('aria-label', `${s.id}, ${s.status.replace('_', ' ')}`);
  return li;
}

/** What the step changed: its files (as its `> Changed:` line names them) and View changes. */
function evidenceBlock(s: StepView, e: NonNullable<StepView['evidence']>): HTMLElement {
  const box = el('div', { class: 'record record-changed evidence' });
  if (!e.recorded) box.append(`Changed: ${e.why ?? 'not recorded'}`);
  else if (!e.count) box.append('Changed: nothing');
  else {
    box.append(`Changed: ${e.count} file${e.count === 1 ? '' : 's'} +${e.added} −${e.removed}`);
    const more = e.count - e.files.length;
    box.append(el('ul', { class: 'changed-files' }, ...e.files.map((f) => el('li', {}, f)), more > 0 ? el('li', { class: 'more' }, `and ${more} more file${more === 1 ? '' : 's'}`) : undefined));
    if (e.notBySession?.length) box.append(el('div', { class: 'not-by-session' }, `Changed by another process while the step ran: ${e.notBySession.join(', ')}`));
    if (e.alongside?.length) box.append(el('div', { class: 'not-by-session' }, `Another session worked on ${e.alongside.join(', ')} while this step ran: some of these files may be ${e.alongside.length === 1 ? "that step's" : "those steps'"}.`));
  }
  if (e.canView) box.append(button('View changes', () => post({ type: 'viewChanges', step: s.id }), 'secondary small view-changes', 'diff-multiple'));
  return box;
}

/** A record line's words: text, and times in the reader's locale (the ISO time in a tooltip). */
function said(words: Words): (string | HTMLElement)[] {
  return words.map((w) => (typeof w === 'string' ? w : timeOf(w.at)));
}

/** A step's actions: the marks while its plan executes, the edits of a draft or proposal, and a comment. */
function stepActions(p: PlanView, s: StepView): RowAction[] {
  const actions: RowAction[] = s.marks.map((m) => ({
    key: `${s.id}:mark:${m}`,
    label: `Mark ${s.id} ${MARK_LABEL[m] ?? m}`,
    title: `Mark ${MARK_LABEL[m] ?? m}`,
    icon: MARK_ICON[m] ?? 'circle-large-outline',
    run: () => post({ type: 'mark', step: s.id, status: m as 'done', version: shownVersion() }),
  }));
  if (p.editable) {
    const i = p.steps.indexOf(s);
    // The element outlives this state (it is reused while the step is unchanged): a click reads
    // the order and version on screen when it happens.
    const neighbour = (d: number) => {
      const steps = ui.current?.kind === 'plan' ? ui.current.steps : [];
      const at = steps.findIndex((x) => x.id === s.id);
      return steps[at + d]?.id;
    };
    actions.push({ key: `${s.id}:edit`, label: `Edit ${s.id}`, title: 'Edit', icon: 'edit', run: () => openStepEditor(s.id) });
    if (i > 0) actions.push({ key: `${s.id}:up`, label: `Move ${s.id} up`, title: 'Move up', icon: 'arrow-up', run: () => post({ type: 'editStep', op: 'move', step: s.id, after: neighbour(-2) ?? 'start', version: shownVersion() }) });
    if (i < p.steps.length - 1) actions.push({ key: `${s.id}:down`, label: `Move ${s.id} down`, title: 'Move down', icon: 'arrow-down', run: () => post({ type: 'editStep', op: 'move', step: s.id, after: neighbour(1) ?? 'start', version: shownVersion() }) });
    actions.push({ key: `${s.id}:remove`, label: `Remove ${s.id}`, title: 'Remove', icon: 'trash', run: () => post({ type: 'editStep', op: 'remove', step: s.id, version: shownVersion() }) });
  }
  // Its approved check, run by the person in a terminal they see (the host refuses it when the approval does not hold).
  if (s.check && p.commands.includes('runChecks')) {
    actions.push({ key: `${s.id}:check`, label: `Run the check of ${s.id}`, title: 'Run check', icon: 'beaker', run: () => post({ type: 'command', command: 'runChecks', step: s.id, version: shownVersion() }) });
  }
  if (!p.readOnly) actions.push(commentAction(s.id));
  return actions;
}

/** What a step's check says: its command, how its last result reads on the files now, its record and last output lines. */
function checkLine(c: NonNullable<StepView['check']>): HTMLElement {
  const words = c.reading === 'not run' ? 'check not run' : `check ${c.reading}`;
  const line = el(
    'div',
    { class: `check ${c.reading.replace(' ', '-')}${c.unverified ? ' unverified' : ''}`, role: 'status' },
    icon(c.reading === 'passed' ? 'pass' : c.reading === 'failed' ? 'error' : c.reading === 'stale' ? 'history' : 'beaker'),
    ` ${words}${c.unverified ? ' · unverified' : ''}: `,
    el('code', {}, c.command),
  );
  // The record line itself (exit code, duration, tree, time) is drawn with the step's other record lines.
  if (c.tail?.length) line.append(el('details', {}, el('summary', {}, 'Last output'), el('pre', {}, c.tail.join('\n'))));
  return line;
}

/** Comment on a step or a section: the text editor opens there with a new comment thread. */
export function commentAction(anchor: string): RowAction {
  return { key: `${anchor}:comment`, label: `Comment on ${anchor}`, title: 'Comment', icon: 'comment', run: () => post({ type: 'comment', anchor }) };
}

/** How many draft comment threads a step or section has. */
export function threadCount(n: number): HTMLElement {
  const said = n === 1 ? '1 draft comment thread' : `${n} draft comment threads`;
  return el('span', { class: 'threads', title: said, 'aria-label': said }, icon('comment-discussion'), String(n));
}

/** The Steps section: the text before the steps, the rows (reused while unchanged), and Add step or its form. */
export function stepsSection(p: PlanView): HTMLElement {
  // Every row keeps room for the largest toolbar of the list, so the badges line up in one column.
  const room = Math.min(6, Math.max(0, ...p.steps.map((s) => (ui.editing === s.id && p.editable ? 0 : stepActions(p, s).length))));
  const list = el('ol', { class: `steps toolbar-${room}` });
  p.steps.forEach((s, i) => list.append(cachedStep(p, s, i)));
  const shown = new Set(p.steps.map((s) => s.id));
  for (const id of stepCache.keys()) if (!shown.has(id)) stepCache.delete(id);
  const steps = section('Steps', p.stepsIntro?.length ? el('div', { class: 'loose' }, build(p.stepsIntro)) : undefined, wavesView(p), p.steps.length ? list : el('p', { class: 'empty' }, 'No steps yet.'));
  if (p.editable) steps.append(ui.editing === 'new' ? stepForm(p, undefined) : button('Add step', () => openStepEditor('new'), 'secondary', 'add'));
  return steps;
}

/** The waves of a plan that uses `after:` lines: one row per wave, the steps that can run together. */
function wavesView(p: PlanView): HTMLElement | undefined {
  if (!p.waves?.length) return undefined;
  const status = new Map(p.steps.map((s) => [s.id, s.status]));
  return el(
    'div',
    { class: 'waves', role: 'list', 'aria-label': 'Waves: steps that can run together' },
    ...p.waves.map((w, i) =>
      el('div', { class: 'wave', role: 'listitem', 'data-wave': String(i + 1) }, el('span', { class: 'wave-label' }, `Wave ${i + 1}`), ...w.map((id) => el('span', { class: `wave-step ${status.get(id) ?? 'pending'}` }, id))),
    ),
  );
}
