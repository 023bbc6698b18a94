/**
 * The row toolbars of the plan editor (a step's or a section's actions) and its dates. A toolbar
 * shows on hover and on keyboard focus, as VS Code's own list rows do: icon buttons with their
 * names for screen readers (aria-label) and a tooltip (title). It is one Tab stop; the arrow keys,
 * Home and End move between its buttons (the WAI-ARIA toolbar pattern, as VS Code's action bars).
 * Hidden, it stays in the page (transparent, not removed), so a screen reader finds every action.
 */

/** One action of a toolbar. `key` names it across re-renders (the focus follows it). */
export interface RowAction {
  key: string;
  /** The accessible name: what it does to what ("Edit S001", "Mark S003 done"). */
  label: string;
  /** The tooltip, short ("Edit", "Mark done"); the label when absent. */
  title?: string;
  icon: string;
  run: () => void;
}

/** A toolbar of icon buttons for one row (`name`: what it acts on, for its accessible name). */
export function rowToolbar(name: string, actions: readonly RowAction[], cls = ''): HTMLElement {
  const bar = document.createElement('div');
  bar.className = `row-actions ${cls}`.trim();
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', name);
  actions.forEach((a, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'icon-button';
    b.setAttribute('aria-label', a.label);
    b.title = a.title ?? a.label;
    b.tabIndex = i === 0 ? 0 : -1;
    b.dataset.focus = a.key;
    const glyph = document.createElement('span');
    glyph.className = `codicon codicon-${a.icon}`;
    glyph.setAttribute('aria-hidden', 'true');
    b.append(glyph);
    b.addEventListener('click', a.run);
    bar.append(b);
  });
  // The button with the focus is the toolbar's Tab stop (the one Tab returns to).
  bar.addEventListener('focusin', (e) => {
    if (!(e.target instanceof HTMLButtonElement)) return;
    for (const b of bar.querySelectorAll('button')) b.tabIndex = b === e.target ? 0 : -1;
  });
  bar.addEventListener('keydown', (e) => {
    const buttons = [...bar.querySelectorAll('button')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const to = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? (at + 1) % buttons.length : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? (at - 1 + buttons.length) % buttons.length : e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    buttons[to].focus();
  });
  return bar;
}

/** Dates and times in the reader's locale, one format everywhere in the editor. */
const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A `<time>` for an ISO time: written in the reader's locale, the exact time in its tooltip. */
export function timeOf(iso: string): HTMLTimeElement {
  const t = document.createElement('time');
  t.dateTime = iso;
  const d = new Date(iso);
  t.textContent = Number.isNaN(d.getTime()) ? iso : DATE_TIME.format(d);
  t.title = iso;
  return t;
}
