import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chatContributions, chatFiles, PLANNER_TOOLS } from '../../../src/tools/chatFiles';
import { PLANNING_STRATEGIES, renderPlanningSection } from '../../../src/tools/strategies';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('chat files: the Planner agent and the planning prompt files', () => {
  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist/chat/planner.agent.md'))) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });

  it('the built files are exactly what the strategy module renders', () => {
    for (const f of chatFiles()) assert.equal(fs.readFileSync(path.join(ROOT, 'dist/chat', f.path), 'utf8'), f.text, f.path);
    // Nothing else in the folder.
    const listed = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listed(path.join(dir, e.name)).map((x) => `${e.name}/${x}`) : [e.name]));
    assert.deepEqual(listed(path.join(ROOT, 'dist/chat')).sort(), chatFiles().map((f) => f.path).sort());
  });

  it('the manifest contributes each file once, the /plan prompts under the strategy setting\'s values', () => {
    const want = chatContributions();
    assert.deepEqual(pkg.contributes.chatAgents, want.chatAgents);
    assert.deepEqual(pkg.contributes.chatPromptFiles, want.chatPromptFiles);
    const setting = pkg.contributes.configuration.properties['piPlans.planning.strategy'];
    assert.deepEqual(setting.enum, [...PLANNING_STRATEGIES]);
    for (const s of PLANNING_STRATEGIES) assert.ok(want.chatPromptFiles.some((c) => c.when === `config.piPlans.planning.strategy == '${s}'`), s);
    for (const c of [...want.chatAgents, ...want.chatPromptFiles]) assert.ok(fs.existsSync(path.join(ROOT, c.path)), c.path);
  });

  it('each prompt swaps only the strategy\'s mindset text: the tool guidance is the same in all', () => {
    for (const s of PLANNING_STRATEGIES) {
      const text = chatFiles().find((f) => f.path === `plan-${s}.prompt.md`)!.text;
      assert.ok(text.includes(renderPlanningSection(s).trimEnd()), s);
      assert.match(text, /^name: plan-/m);
    }
    const tools = (t: string) => t.slice(t.indexOf('How to use the plan tools:'));
    const all = PLANNING_STRATEGIES.map((s) => tools(chatFiles().find((f) => f.path === `${s}/plan.prompt.md`)!.text));
    assert.equal(new Set(all).size, 1);
  });

  it('the Planner lists read-only tools and the plan tools by their qualified names, each a tool the manifest declares', () => {
    const refs = new Set(pkg.contributes.languageModelTools.map((t: { toolReferenceName: string }) => `pi-plans.pi-plans/${t.toolReferenceName}`));
    assert.equal(`${pkg.publisher}.${pkg.name}`, 'pi-plans.pi-plans');
    for (const t of PLANNER_TOOLS.filter((x) => x.startsWith('pi-plans.pi-plans/'))) assert.ok(refs.has(t), t);
    // No edit, terminal or deciding tools.
    for (const t of PLANNER_TOOLS) assert.doesNotMatch(t, /edit|execute|terminal|Approve|Execute|Cancel/i, t);
  });
});
