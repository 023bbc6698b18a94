/** DOM building for the plan editor's webview: elements, icons, the sanitized tree, links, buttons, sections. */
import type { ViewNode } from '../protocol/planEditor';
import { RowAction, rowToolbar } from './toolbar';

export function icon(name: string | undefined, cls = ''): HTMLSpanElement | undefined {
  return name ? el('span', { class: `codicon codicon-${name} ${cls}`.trim(), 'aria-hidden': 'true' }) : undefined;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string | undefined)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== undefined) e.append(c);
  return e;
}

/** DOM from the sanitized tree: only the tags and attributes the host's sanitizer let through. */
export function build(nodes: readonly ViewNode[] | undefined): DocumentFragment {
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
export function link(e: HTMLElement, target: string): void {
  e.dataset.href = target;
  e.setAttribute('role', 'link');
  e.setAttribute('tabindex', '0');
  // The target always shows on hover, a title beside it: a title never stands in for where a link goes.
  e.title = e.title && e.title !== target ? `${e.title} (${target})` : target;
}

/** A button with its label (its accessible name) and an icon before it. */
export function button(label: string, onClick: () => void, cls = '', iconName?: string): HTMLButtonElement {
  const b = el('button', { type: 'button', class: cls }, icon(iconName), label);
  b.addEventListener('click', onClick);
  return b;
}

export function section(title: string, ...body: (Node | undefined)[]): HTMLElement {
  return el('section', { 'aria-label': title }, el('h2', {}, title), ...body);
}

/** A section's actions: a toolbar at the right of its heading, shown on hover and focus. */
export function sectionActions(sec: HTMLElement, title: string, actions: readonly RowAction[]): void {
  if (!actions.length) return;
  const h2 = sec.querySelector('h2')!;
  const head = el('div', { class: 'section-head' });
  h2.replaceWith(head);
  head.append(h2, rowToolbar(`${title} actions`, actions));
}
