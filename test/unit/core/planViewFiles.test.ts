import { strict as assert } from 'node:assert';
import { createPlanText } from '../../../src/core';
import { planView } from '../../../src/core/views/planView';
import type { PlanView, ViewNode } from '../../../src/protocol/planEditor';

/** The links (href and text) in a rendered tree, in order. */
function links(nodes: readonly ViewNode[], out: { href: string; text: string }[] = []) {
  const text = (ns: readonly ViewNode[]): string => ns.map((n) => (typeof n === 'string' ? n : text(n.c ?? []))).join('');
  for (const n of nodes) {
    if (typeof n === 'string') continue;
    if (n.t === 'a') out.push({ href: n.a?.href ?? '', text: text(n.c ?? []) });
    else links(n.c ?? [], out);
  }
  return out;
}

describe('plan editor: the Files section links the workspace files it names', () => {
  const files = '- src/server.ts: the handler\n- `docs/api.md`\n- src/missing.ts\n- a sentence about src/server.ts\n- [x](https://example.com)';
  const text = createPlanText({ id: 'PLAN-0000f11e', title: 'Files', goal: 'G', steps: [{ text: 'a' }], files }, '2026-11-24T10:00:00.000Z');
  const existing = new Set(['src/server.ts', 'docs/api.md']);
  const filesOf = (v: PlanView) => v.sections.find((s) => s.title === 'Files')!.body;

  it('an item that starts with a file of the workspace (plain or as code) links it; others stay as written', () => {
    const asked: string[] = [];
    const v = planView(text, { isFile: (p) => (asked.push(p), existing.has(p)) }) as PlanView;
    assert.deepEqual(links(filesOf(v)), [
      { href: 'src/server.ts', text: 'src/server.ts' },
      { href: 'docs/api.md', text: 'docs/api.md' },
      { href: 'https://example.com', text: 'x' },
    ]);
    // The rest of an item stays its text; a path inside a sentence is not a link.
    assert.match(JSON.stringify(filesOf(v)), /": the handler"/);
    assert.ok(asked.includes('src/missing.ts'), 'a path not known as a file is asked about (the host finds out and renders again)');
    assert.ok(!asked.includes('a'), 'a word that is no path is not asked about');
  });

  it('without a way to tell files, or for other sections, nothing becomes a link', () => {
    const v = planView(text) as PlanView;
    assert.deepEqual(links(filesOf(v)), [{ href: 'https://example.com', text: 'x' }]);
    const risks = createPlanText({ id: 'PLAN-0000f11f', title: 'R', goal: 'G', steps: [{ text: 'a' }], risks: ['src/server.ts may break'] }, '2026-11-24T10:00:00.000Z');
    const r = planView(risks, { isFile: () => true }) as PlanView;
    assert.deepEqual(links(r.sections.find((s) => s.title === 'Risks')!.body), []);
  });

  it('leaves the shared rendered nodes as they were (a later view without files shows no links)', () => {
    planView(text, { isFile: (p) => existing.has(p) });
    assert.equal(links(filesOf(planView(text) as PlanView)).length, 1);
  });
});
