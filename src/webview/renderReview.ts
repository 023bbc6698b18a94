/** The plan editor's record of reviews: what changed since the last review, the review history and the timeline. */
import type { PlanView } from '../protocol/planEditor';
import { build, button, el, icon, section } from './dom';
import { post } from './host';
import { timeOf } from './toolbar';

/** Since the last reviewed version: how much changed, the steps removed, and that review's comments, revised or not. */
export function reviewPanel(p: PlanView): HTMLElement | undefined {
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

/** The review history: each rejection and approval, an approval no signed record names said for what it is. */
export function historySection(p: PlanView): HTMLElement | undefined {
  if (!p.history.length) return undefined;
  const h = el('ol', { class: 'history' });
  for (const r of p.history) {
    // A section titled like an approval that no signed record names is never drawn as one.
    const title = r.kind === 'rejection' ? `Rejected v${r.version}: ` : r.unsigned ? `"Approval (v${r.version})", not signed: no valid approval record has these words (they may have been written into the file): ` : `Approved v${r.version}: `;
    h.append(el('li', { class: r.unsigned ? 'approval unsigned' : r.kind }, el('strong', {}, title), build(r.body)));
  }
  return section('Review history', h);
}

/** The plan's timeline: its events, when, with their notes. */
export function timelineSection(p: PlanView): HTMLElement | undefined {
  if (!p.timeline.length) return undefined;
  const t = el('ol', { class: 'timeline' });
  for (const e of p.timeline) t.append(el('li', {}, timeOf(e.at), ` ${e.text}`, e.note ? el('span', { class: 'event-note' }, ` — ${e.note}`) : undefined));
  return section('Timeline', t);
}
