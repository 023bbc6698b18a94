/**
 * The plan editor's webview: builds the document from the state the host sends (a sanitized tree,
 * never HTML), keeps what the person is writing (the feedback text), the focus and the scroll
 * position across re-renders, and sends the person's commands back as validated messages.
 */
import { InvalidView, PlanView, ToWebviewSchema } from '../protocol/planEditor';
import { post } from './host';
import { renderInvalid, renderPlan } from './renderPlan';
import { setRenderer, ui } from './state';

performance.mark('pi-plans-script-start');

const root = document.getElementById('root')!;
setRenderer(render);

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
  if (!ui.current) return;
  const active = document.activeElement as HTMLElement | null;
  const key = focusKeyOf(active) ?? (document.hasFocus() ? undefined : lastFocus);
  const selection = active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : undefined;
  const y = window.scrollY;
  root.replaceChildren(ui.current.kind === 'plan' ? renderPlan(ui.current) : renderInvalid(ui.current));
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
  announce(ui.current, m.data.state);
  ui.current = m.data.state;
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
