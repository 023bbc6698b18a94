/**
 * The plan editor's webview: builds the document from the state the host sends (a sanitized tree,
 * never HTML), keeps what the person is writing (the feedback text), the focus and the scroll
 * position across re-renders, and sends the person's commands back as validated messages.
 */
import { COMMAND_LABELS, FromWebview, InvalidView, PlanView, StepView, ToWebviewSchema, ViewNode } from '../protocol/planEditor';
import { RowAction, rowToolbar, timeOf } from './toolbar';

performance.mark('pi-plans-script-start');
declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);

const root = document.getElementById('root')!;
let current: PlanView | InvalidView | undefined;
/** The feedback being written: it outlives every re-render until it is sent or discarded. */
let feedback = (vscode.getState() as { feedback?: string } | undefined)?.feedback ?? '';
let rejecting = feedback.length > 0;
/** The step being edited ('new' for a step being added) and the goal's edit box. */
let editing: string | undefined;
let editingGoal = false;
/** The section whose Markdown is being edited (by its key). */
let editingSection: string | undefined;
/**
 * What the person has typed into an edit box, by the box's id: an outside change rebuilds the
 * forms, and the text must outlive that until it is saved or the edit is cancelled.
 */
const typed = new Map<string, string>();
const STEP_FIELDS = ['step-text', 'step-tool', 'step-operation', 'step-target'];

/** An edit box showing what was typed into it before a re-render, or `initial`. */
function keepTyped<T extends HTMLInputElement | HTMLTextAreaElement>(box: T, initial: string): T {
  box.value = typed.get(box.id) ?? initial;
  box.addEventListener('input', () => typed.set(box.id, box.value));
  return box;
}

function forgetTyped(ids: readonly string[]): void {
  for (const id of ids) typed.delete(id);
}

const PRIMARY = new Set(['approve', 'execute', 'resume', 'saveToApprove', 'confirm']);
/** What each mark says on its badge. */
const MARK_TEXT: Record<string, string> = { changed: 'changed since approval', unapproved: 'approval not valid', foreign: 'approved elsewhere' };
const MARK_LABEL: Record<string, string> = { in_progress: 'in progress', done: 'done', blocked: 'blocked', skipped: 'skipped' };
/** Codicons (the icon font VS Code draws with) by step status, mark and command. */
const STEP_ICON: Record<string, string> = { pending: 'circle-large-outline', in_progress: 'sync', blocked: 'circle-slash', done: 'pass', failed: 'error', skipped: 'debug-step-over' };
const MARK_ICON: Record<string, string> = { in_progress: 'sync', done: 'check', blocked: 'circle-slash', skipped: 'debug-step-over' };
const COMMAND_ICON: Record<string, string> = {
  approve: 'check',
  saveToApprove: 'save',
  reject: 'close',
  confirm: 'verified',
  withdraw: 'discard',
  startWork: 'target',
  execute: 'play',
  retry: 'refresh',
  resume: 'debug-continue',
  reopen: 'edit',
  clone: 'copy',
  cancel: 'circle-slash',
  archive: 'archive',
};

function icon(name: string | undefined, cls = ''): HTMLSpanElement | undefined {
  return name ? el('span', { class: `codicon codicon-${name} ${cls}`.trim(), 'aria-hidden': 'true' }) : undefined;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string | undefined)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined) e.append(c);
  return e;
}

/** DOM from the sanitized tree: only the tags and attributes the host's sanitizer let through. */
function build(nodes: readonly ViewNode[] | undefined): DocumentFragment {
  const f = document.createDocumentFragment();
  for (const n of nodes ?? []) {
    if (typeof n === 'string') {
      f.append(n);
      continue;
    }
    const e = document.createElement(n.t);
    for (const [k, v] of Object.entries(n.a ?? {})) {
      if (k === 'title' || k === 'class' || k === 'start' || k === 'type' || k === 'checked' || k === 'disabled' || k === 'align') e.setAttribute(k, v);
    }
    // After the title: the link's hover text says where it goes, whatever its title says.
    if (n.a?.href !== undefined) link(e, n.a.href);
    e.append(build(n.c));
    f.append(e);
  }
  return f;
}

/**
 * A link that never navigates: its target is data, not an `href` (VS Code's webview frame opens
 * every `href` clicked in it through its own opener, whatever the page does with the click). A
 * click or Enter asks the host, which opens workspace files and asks before opening a web page.
 */
function link(e: HTMLElement, target: string): void {
  e.dataset.href = target;
  e.setAttribute('role', 'link');
  e.setAttribute('tabindex', '0');
  // The target always shows on hover, a title beside it: a title never stands in for where a link goes.
  e.title = e.title && e.title !== target ? `${e.title} (${target})` : target;
}

/** A button with its label (its accessible name) and an icon before it. */
function button(label: string, onClick: () => void, cls = '', iconName?: string): HTMLButtonElement {
  const b = el('button', { type: 'button', class: cls }, icon(iconName), label);
  b.addEventListener('click', onClick);
  return b;
}

function section(title: string, ...body: (Node | undefined)[]): HTMLElement {
  return el('section', { 'aria-label': title }, el('h2', {}, title), ...body);
}

/** A section's actions: a toolbar at the right of its heading, shown on hover and focus. */
function sectionActions(sec: HTMLElement, title: string, actions: readonly RowAction[]): void {
  if (!actions.length) return;
  const h2 = sec.querySelector('h2')!;
  const head = el('div', { class: 'section-head' });
  h2.replaceWith(head);
  head.append(h2, rowToolbar(`${title} actions`, actions));
}

/** The version on screen now (an element reused across states reads it when it is clicked). */
function shownVersion(): number {
  return current?.kind === 'plan' ? current.version : 0;
}

/**
 * Step elements by id, reused while what they show is unchanged: an outside change of one step
 * rebuilds one element, not the list (the edit box a person is typing in survives as well).
 */
const stepCache = new Map<string, { key: string; li: HTMLLIElement }>();
function cachedStep(p: PlanView, s: StepView, i: number): HTMLLIElement {
  const key = JSON.stringify([s, p.editable, p.readOnly, editing === s.id, i === 0, i === p.steps.length - 1]);
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
    if (!dragged || dragged === id || current?.kind !== 'plan') return;
    e.preventDefault();
    const order = current.steps.map((x) => x.id).filter((x) => x !== dragged);
    const at = order.indexOf(id);
    const after = below(e) ? id : (order[at - 1] ?? 'start');
    post({ type: 'editStep', op: 'move', step: dragged, after, version: shownVersion() });
    dragged = undefined;
  });
}

function stepItem(p: PlanView, s: StepView): HTMLLIElement {
  const li = el('li', { class: `step ${s.status}`, 'data-step': s.id });
  // A handle to drag the step by (the row itself stays selectable text).
  const handle = p.editable && editing !== s.id ? el('span', { class: 'codicon codicon-gripper drag-handle', draggable: 'true', title: `Drag to move ${s.id}`, 'aria-hidden': 'true' }) : undefined;
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
  if (s.status !== 'pending') head.append(el('span', { class: `badge step-status ${s.status}` }, s.status.replace('_', ' ')));
  if (s.since) head.append(el('span', { class: `badge since ${s.since}`, title: `${s.since} since the reviewed version` }, s.since === 'added' ? 'new' : s.since));
  if (s.threads) head.append(threadCount(s.threads));
  li.append(head);
  if (s.tool) {
    const target = s.target ? el(s.targetIsFile ? 'a' : 'span', { class: 'target' }, s.target) : undefined;
    if (target && s.targetIsFile) link(target, s.target!);
    li.append(el('div', { class: 'annotation' }, el('span', { class: 'tool' }, s.tool), s.operation ? `: ${s.operation}` : '', target ? ' → ' : '', target));
  }
  if (s.details?.length) li.append(el('div', { class: 'details' }, build(s.details)));
  if (s.note) li.append(el('div', { class: 'note' }, `Note: ${s.note}`));
  // Text between this step and the next: not a step, but the agent reads it, so it is drawn here.
  if (s.after?.length) li.append(el('div', { class: 'loose', title: 'Text between the steps (the agent reads it too)' }, build(s.after)));
  if (editing === s.id && p.editable) li.append(stepForm(p, s));
  else {
    const actions = stepActions(p, s);
    if (actions.length) {
      // The head keeps room for the toolbar, which shows there on hover and focus (by a class: the
      // page carries no style attribute, which the hostile-text check holds to none).
      head.classList.add('has-actions', `actions-${Math.min(actions.length, 6)}`);
      head.append(rowToolbar(`${s.id} actions`, actions));
    }
  }
  li.setAttribute('aria-label', `${s.id}, ${s.status.replace('_', ' ')}`);
  return li;
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
      const steps = current?.kind === 'plan' ? current.steps : [];
      const at = steps.findIndex((x) => x.id === s.id);
      return steps[at + d]?.id;
    };
    actions.push({ key: `${s.id}:edit`, label: `Edit ${s.id}`, title: 'Edit', icon: 'edit', run: () => open(s.id) });
    if (i > 0) actions.push({ key: `${s.id}:up`, label: `Move ${s.id} up`, title: 'Move up', icon: 'arrow-up', run: () => post({ type: 'editStep', op: 'move', step: s.id, after: neighbour(-2) ?? 'start', version: shownVersion() }) });
    if (i < p.steps.length - 1) actions.push({ key: `${s.id}:down`, label: `Move ${s.id} down`, title: 'Move down', icon: 'arrow-down', run: () => post({ type: 'editStep', op: 'move', step: s.id, after: neighbour(1) ?? 'start', version: shownVersion() }) });
    actions.push({ key: `${s.id}:remove`, label: `Remove ${s.id}`, title: 'Remove', icon: 'trash', run: () => post({ type: 'editStep', op: 'remove', step: s.id, version: shownVersion() }) });
  }
  if (!p.readOnly) actions.push(commentAction(s.id));
  return actions;
}

/** Comment on a step or a section: the text editor opens there with a new comment thread. */
function commentAction(anchor: string): RowAction {
  return { key: `${anchor}:comment`, label: `Comment on ${anchor}`, title: 'Comment', icon: 'comment', run: () => post({ type: 'comment', anchor }) };
}

/** How many draft comment threads a step or section has. */
function threadCount(n: number): HTMLElement {
  const said = n === 1 ? '1 draft comment thread' : `${n} draft comment threads`;
  return el('span', { class: 'threads', title: said, 'aria-label': said }, icon('comment-discussion'), String(n));
}

/** Since the last reviewed version: how much changed, the steps removed, and that review's comments, revised or not. */
function reviewPanel(p: PlanView): HTMLElement | undefined {
  const r = p.review;
  if (!r) return undefined;
  const head = el('p', { class: 'since-summary' }, `${r.changes ? `${r.changes} change${r.changes === 1 ? '' : 's'}` : 'No change'} since v${r.fromVersion}, the version last reviewed. `);
  head.append(button(`Compare with v${r.fromVersion}`, () => post({ type: 'compare' }), 'secondary small', 'diff'));
  const body = el('div', {}, head);
  if (r.removed.length) {
    const ul = el('ul', { class: 'removed' });
    for (const x of r.removed) ul.append(el('li', {}, el('span', { class: 'step-id' }, x.id), ` ${x.text}`));
    body.append(el('p', {}, 'Removed since:'), ul);
  }
  if (r.comments.length) {
    const ul = el('ul', { class: 'review-comments' });
    for (const c of r.comments) {
      ul.append(
        el(
          'li',
          { class: c.addressed ? 'addressed' : 'unaddressed', 'data-anchor': c.anchor },
          icon(c.addressed ? 'pass' : 'circle-large-outline'),
          el('strong', {}, ` ${c.anchor}: `),
          c.body,
          el('span', { class: `badge ${c.addressed ? 'revised' : 'untouched'}` }, c.addressed ? 'revised' : 'not changed'),
        ),
      );
    }
    body.append(el('p', {}, `Comments of the v${r.fromVersion} review:`), ul);
  }
  return section('Since the last review', body);
}

function open(step: string | undefined): void {
  if (step !== editing) forgetTyped(STEP_FIELDS);
  editing = step;
  render();
  (document.getElementById('step-text') as HTMLInputElement | null)?.focus();
}

function input(id: string, label: string, value: string, max: number): HTMLLabelElement {
  const i = keepTyped(el('input', { id, type: 'text', maxlength: String(max) }), value);
  return el('label', { class: 'field' }, el('span', {}, label), i);
}

/** The form that edits a step (or adds one): Enter saves, Escape cancels; one edit of the document. */
function stepForm(p: PlanView, s: StepView | undefined): HTMLElement {
  const form = el('form', { class: 'step-form', 'aria-label': s ? `Edit ${s.id}` : 'Add a step' });
  form.append(input('step-text', 'Step', s?.source ?? '', 500), el('div', { class: 'annotation-fields' }, input('step-tool', 'Tool', s?.tool ?? '', 60), input('step-operation', 'Operation', s?.operation ?? '', 60), input('step-target', 'Target', s?.target ?? '', 200)));
  const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value.trim();
  const cancel = button('Cancel', () => open(undefined), 'secondary');
  form.append(el('div', { class: 'actions' }, el('button', { type: 'submit' }, s ? 'Save step' : 'Add step'), cancel));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = value('step-text');
    if (!text) return (document.getElementById('step-text') as HTMLInputElement).focus();
    const annotation = { tool: value('step-tool') || undefined, operation: value('step-operation') || undefined, target: value('step-target') || undefined };
    post(s ? { type: 'editStep', op: 'update', step: s.id, text, ...annotation, version: shownVersion() } : { type: 'editStep', op: 'add', text, ...annotation, version: shownVersion() });
    editing = undefined;
    forgetTyped(STEP_FIELDS);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') cancel.click();
  });
  return form;
}

/** A section's Markdown in a box: saved as one edit of the document (the core replaces the section whole). */
function sectionForm(p: PlanView, title: string, key: string, source: string): HTMLElement {
  const area = keepTyped(el('textarea', { id: 'section-text', rows: String(Math.min(12, Math.max(4, source.split('\n').length + 1))), 'aria-label': title }), source);
  const form = el('form', { class: 'goal-form', 'aria-label': `Edit ${title}` }, area);
  const cancel = button('Cancel', () => {
    editingSection = undefined;
    forgetTyped(['section-text']);
    render();
  }, 'secondary');
  form.append(el('div', { class: 'actions' }, el('button', { type: 'submit' }, `Save ${title.toLowerCase()}`), cancel));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    post({ type: 'editSection', key: key as 'risks', text: area.value, version: p.version });
    editingSection = undefined;
    forgetTyped(['section-text']);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') cancel.click();
  });
  return form;
}

function goalForm(p: PlanView): HTMLElement {
  const area = keepTyped(el('textarea', { id: 'goal-text', rows: '4', 'aria-label': 'Goal' }), p.goalText ?? '');
  const form = el('form', { class: 'goal-form', 'aria-label': 'Edit the goal' }, area);
  const cancel = button('Cancel', () => {
    editingGoal = false;
    forgetTyped(['goal-text']);
    render();
  }, 'secondary');
  form.append(el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Save goal'), cancel));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    post({ type: 'editGoal', text: area.value, version: p.version });
    editingGoal = false;
    forgetTyped(['goal-text']);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') cancel.click();
  });
  return form;
}

function rejectForm(p: PlanView): HTMLElement {
  const area = el('textarea', { id: 'feedback', rows: '4', 'aria-label': 'What must change?', placeholder: 'What must change? The agent revises the plan with this feedback.' });
  area.value = feedback;
  area.addEventListener('input', () => {
    feedback = area.value;
    vscode.setState({ feedback });
  });
  const send = button('Reject with this feedback', () => {
    if (!feedback.trim()) return area.focus();
    post({ type: 'reject', feedback: feedback.trim(), version: p.version });
    feedback = '';
    rejecting = false;
    vscode.setState({ feedback });
  });
  const discard = button('Discard', () => {
    feedback = '';
    rejecting = false;
    vscode.setState({ feedback });
    render();
  }, 'secondary');
  const form = el('div', { class: 'reject-form', role: 'form', 'aria-label': 'Reject with feedback' }, area, el('div', { class: 'actions' }, send, discard));
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') discard.click();
  });
  return form;
}

function renderPlan(p: PlanView): HTMLElement {
  const doc = el('article', { class: 'plan' });
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
  const facts: string[] = [];
  if (p.plannerModel) facts.push(`planned by ${p.plannerModel}`);
  if (p.executorModel) facts.push(`executed by ${p.executorModel}`);
  if (p.toolsRequired.length) facts.push(`tools: ${p.toolsRequired.join(', ')}`);
  if (p.approvedBy) facts.push(`approved by ${p.approvedBy} at v${p.approvedVersion ?? '?'}`);
  if (facts.length) header.append(el('div', { class: 'facts' }, facts.join(' · ')));
  const progress = el('progress', { max: String(Math.max(p.total, 1)), value: String(p.done), 'aria-label': `${p.done} of ${p.total} steps done` });
  header.append(progress);
  doc.append(header);

  // A group, not a toolbar: each button is its own Tab stop (a toolbar would owe arrow-key movement).
  const bar = el('div', { class: 'actions', role: 'group', 'aria-label': 'Plan actions' });
  for (const c of p.commands) {
    if (c === 'reject') {
      bar.append(button(COMMAND_LABELS.reject, () => {
        rejecting = true;
        render();
        document.getElementById('feedback')?.focus();
      }, 'secondary', COMMAND_ICON.reject));
      continue;
    }
    // Approve names the text on screen by its digest: what is approved is exactly what was drawn.
    bar.append(button(c === 'approve' ? `Approve v${p.version}` : COMMAND_LABELS[c], () => post({ type: 'command', command: c, version: p.version, digest: p.digest }), PRIMARY.has(c) ? '' : 'secondary', COMMAND_ICON[c]));
  }
  bar.append(button('Open as Text', () => post({ type: 'openAsText' }), 'secondary', 'go-to-file'));
  doc.append(bar);
  if (rejecting && p.commands.includes('reject')) doc.append(rejectForm(p));
  const since = reviewPanel(p);
  if (since) doc.append(since);
  if (p.resultSummary) doc.append(section('Result', el('p', {}, p.resultSummary)));
  // Text before the first heading: the agent reads it, so it is drawn first, marked for what it is.
  if (p.preamble?.length) doc.append(el('section', { 'aria-label': 'Before the goal', class: 'preamble' }, el('h2', {}, 'Before the goal'), build(p.preamble)));
  if (p.editable && editingGoal) doc.append(section('Goal', goalForm(p)));
  else if (p.goal || p.editable) {
    const goal = section('Goal', p.goal ? build(p.goal) : el('p', { class: 'empty' }, 'No goal yet.'));
    const edit = () => {
      editingGoal = true;
      render();
      document.getElementById('goal-text')?.focus();
    };
    if (p.editable) sectionActions(goal, 'Goal', [{ key: 'section:goal', label: 'Edit goal', title: 'Edit', icon: 'edit', run: edit }]);
    doc.append(goal);
  }
  const list = el('ol', { class: 'steps' });
  p.steps.forEach((s, i) => list.append(cachedStep(p, s, i)));
  const shown = new Set(p.steps.map((s) => s.id));
  for (const id of stepCache.keys()) if (!shown.has(id)) stepCache.delete(id);
  const steps = section('Steps', p.stepsIntro?.length ? el('div', { class: 'loose' }, build(p.stepsIntro)) : undefined, p.steps.length ? list : el('p', { class: 'empty' }, 'No steps yet.'));
  if (p.editable) steps.append(editing === 'new' ? stepForm(p, undefined) : button('Add step', () => open('new'), 'secondary', 'add'));
  doc.append(steps);
  for (const s of p.sections) {
    if (p.editable && s.key && editingSection === s.key) {
      doc.append(section(s.title, sectionForm(p, s.title, s.key, s.source ?? '')));
      continue;
    }
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
          if (editingSection !== key) forgetTyped(['section-text']);
          editingSection = key;
          render();
          document.getElementById('section-text')?.focus();
        },
      });
    }
    sectionActions(sec, s.title, actions);
    doc.append(sec);
  }
  if (p.history.length) {
    const h = el('ol', { class: 'history' });
    for (const r of p.history) {
      // A section titled like an approval that no signed record names is never drawn as one.
      const title = r.kind === 'rejection' ? `Rejected v${r.version}: ` : r.unsigned ? `"Approval (v${r.version})", not signed: no valid approval record has these words (they may have been written into the file): ` : `Approved v${r.version}: `;
      h.append(el('li', { class: r.unsigned ? 'approval unsigned' : r.kind }, el('strong', {}, title), build(r.body)));
    }
    doc.append(section('Review history', h));
  }
  if (p.timeline.length) {
    const t = el('ol', { class: 'timeline' });
    for (const e of p.timeline) t.append(el('li', {}, timeOf(e.at), ` ${e.text}`, e.note ? el('span', { class: 'event-note' }, ` — ${e.note}`) : undefined));
    doc.append(section('Timeline', t));
  }
  return doc;
}

function renderInvalid(v: InvalidView): HTMLElement {
  return el(
    'div',
    { class: 'invalid', role: 'alert' },
    el('h1', {}, 'This plan cannot be read'),
    el('p', {}, v.line ? `Line ${v.line}: ${v.message}` : v.message),
    button('Open as Text', () => post({ type: 'openAsText' })),
  );
}

/**
 * What names a focused control across re-renders: a link by its target and its place among the
 * links to that target; any other control by its focus key, id or label.
 */
type FocusKey = { href: string; nth: number } | { label: string };
function focusKeyOf(e: Element | null): FocusKey | undefined {
  if (!(e instanceof HTMLElement) || e === document.body) return undefined;
  if (e.dataset.href !== undefined) {
    const same = [...root.querySelectorAll<HTMLElement>('[data-href]')].filter((a) => a.dataset.href === e.dataset.href);
    return { href: e.dataset.href, nth: same.indexOf(e) };
  }
  const label = e.dataset.focus || e.id || e.textContent || '';
  return label ? { label } : undefined;
}
function elementOf(key: FocusKey): HTMLElement | undefined {
  if ('href' in key) return [...root.querySelectorAll<HTMLElement>('[data-href]')].filter((a) => a.dataset.href === key.href)[key.nth];
  const buttons = [...root.querySelectorAll<HTMLElement>('button')];
  return document.getElementById(key.label) ?? buttons.find((b) => b.dataset.focus === key.label) ?? buttons.find((b) => b.textContent === key.label) ?? undefined;
}

/** Re-renders in place: the scroll position and the focused control survive. */
function render(): void {
  if (!current) return;
  const active = document.activeElement as HTMLElement | null;
  const key = focusKeyOf(active) ?? (document.hasFocus() ? undefined : lastFocus);
  const selection = active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : undefined;
  const y = window.scrollY;
  root.replaceChildren(current.kind === 'plan' ? renderPlan(current) : renderInvalid(current));
  if (busyLinks.size) markBusyLinks();
  window.scrollTo(0, y);
  const again = key && elementOf(key);
  if (again && document.hasFocus()) again.focus();
  if (again instanceof HTMLTextAreaElement && selection) again.setSelectionRange(selection[0], selection[1]);
}

// The control that last had the focus: when the view gets the focus back (after a question VS Code
// asked in a dialog, or from another part of the window) and nothing in it has the focus, the
// focus goes back to that control, as in VS Code's own views; a keyboard user keeps their place.
let lastFocus: FocusKey | undefined;
document.addEventListener('focusin', (e) => {
  lastFocus = focusKeyOf(e.target as Element) ?? lastFocus;
});
window.addEventListener('focus', () => {
  if (document.activeElement && document.activeElement !== document.body) return;
  if (lastFocus) elementOf(lastFocus)?.focus();
});

// Links never navigate (they have no href): the host opens workspace files, and asks before opening a web page.
const busyLinks = new Set<string>();
/** Marks the links whose opening is under way (a re-render keeps the mark). */
function markBusyLinks(): void {
  for (const a of root.querySelectorAll<HTMLElement>('[data-href]')) {
    if (busyLinks.has(a.dataset.href!)) a.setAttribute('aria-busy', 'true');
    else a.removeAttribute('aria-busy');
  }
}
// A link stays busy (aria-busy) until the host says it is dealt with: a web page's question is
// answered, and the focus is back in the view.
const followLink = (e: Event) => {
  const a = (e.target as HTMLElement).closest<HTMLElement>('[data-href]');
  if (!a) return;
  e.preventDefault();
  busyLinks.add(a.dataset.href!);
  markBusyLinks();
  post({ type: 'openLink', href: a.dataset.href! });
};
root.addEventListener('click', followLink);
root.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') followLink(e);
});

/** Tells a screen reader that the plan changed (the page itself is re-rendered silently). */
const status = document.getElementById('status');
function announce(prev: PlanView | InvalidView | undefined, next: PlanView | InvalidView): void {
  if (!status || !prev) return;
  if (next.kind === 'invalid') {
    if (prev.kind !== 'invalid') status.textContent = 'The plan cannot be read now.';
  } else if (prev.kind !== 'plan' || prev.version !== next.version || prev.status !== next.status) {
    status.textContent = `Plan ${next.id} is now version ${next.version}, ${next.status.replace('_', ' ')}.`;
  }
}

let first = true;
/** The last states' times (epoch ms): the host saw the change, posted it, it arrived, it was on screen. The bench reads them. */
const timings: { changed: number; sent: number; received: number; shown: number }[] = [];
(window as unknown as { piPlansTimings: typeof timings }).piPlansTimings = timings;
window.addEventListener('message', (e) => {
  const received = Date.now();
  const m = ToWebviewSchema.safeParse(e.data);
  if (!m.success) {
    console.warn(`pi-plans: a message from the extension was dropped: ${m.error.issues[0]?.message ?? 'invalid'}`);
    return;
  }
  if (m.data.type === 'linkDone') {
    busyLinks.delete(m.data.href);
    markBusyLinks();
    return;
  }
  announce(current, m.data.state);
  current = m.data.state;
  render();
  if (m.data.at) {
    timings.push({ ...m.data.at, received, shown: Date.now() });
    if (timings.length > 50) timings.shift();
  }
  if (first) {
    first = false;
    // The bench reads these marks: from the script's start to the first plan on screen.
    performance.mark('pi-plans-first-render');
    post({ type: 'rendered', ms: performance.now() });
  }
});
post({ type: 'ready' });
