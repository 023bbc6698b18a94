// Counts read as words: "1 plan", "2 plans", never "plan(s)". The tools' answers say it in plain
// code; the VS Code face through vscode.l10n.t with a message for one and a message for several
// (a translator can then give each language its own forms). A scan of every string in src/ keeps
// a "(s)" from coming back.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { PlanStore } from '../../../src/store';
import { ALL_TOOLS, PlanTool, ToolContext } from '../../../src/tools';
import { memoryPorts } from '../../helpers/memoryPorts';

const SRC = path.resolve(__dirname, '../../../src');

/** Every string a source file holds (literals and the literal parts of templates), with its line. */
function stringsOf(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      out.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('plurals: counts read as words, never "(s)"', () => {
  it('no string in src/ writes a plural as "(s)" or "(es)"', () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      for (const s of stringsOf(file)) if (/[A-Za-z]\((?:s|es)\)/.test(s.text)) found.push(`${path.relative(SRC, file)}:${s.line}: ${JSON.stringify(s.text)}`);
    }
    assert.deepEqual(found, []);
  });

  it('pi_plan_list says "1 plan:" and "2 plans:"', async () => {
    const m = memoryPorts();
    const store = await PlanStore.open('/work/ws', m.ports);
    const ctx = {
      stores: { folders: () => [{ name: 'ws', store }] },
      active: { list: () => [], set: () => undefined, clear: () => undefined },
      settings: { agentMayApprove: false, gating: 'always', waitForReview: false },
      review: { awaitDecision: () => new Promise<never>(() => undefined) },
    } as unknown as ToolContext;
    const list = ALL_TOOLS.find((t) => t.name === 'pi_plan_list') as PlanTool;
    const run = () => list.run(list.schema.parse({}) as never, ctx);
    await store.create({ title: 'One', goal: 'G' }, 'agent');
    assert.match(await run(), /^1 plan:\n- PLAN-/);
    await store.create({ title: 'Two', goal: 'G' }, 'agent');
    assert.match(await run(), /^2 plans:\n- PLAN-/);
  });
});
