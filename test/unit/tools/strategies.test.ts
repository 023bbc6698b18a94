import { strict as assert } from 'node:assert';
import { PLANNING_STRATEGIES, renderPlanningSection } from '../../../src/tools/strategies';

describe('planning strategies (seed 003 rendering rules)', () => {
  it('the default renders the ReAct text', () => {
    assert.equal(renderPlanningSection(), renderPlanningSection('react'));
    assert.match(renderPlanningSection(), /Alternate short bursts of reasoning/);
  });

  it('one heading and ordered lists, ASCII apart from nothing; a strategy swaps only the mindset, never the tool references or their order', () => {
    const tools = (t: string) => t.slice(t.indexOf('How to use the plan tools:'));
    const base = tools(renderPlanningSection('react'));
    for (const s of PLANNING_STRATEGIES) {
      const text = renderPlanningSection(s);
      assert.equal((text.match(/^#/gm) ?? []).length, 1, s);
      assert.match(text, /^## Planning\n/);
      assert.ok(/^[\x20-\x7e\n]*$/.test(text), `${s} is ASCII`);
      assert.equal(tools(text), base, `${s} keeps the tool references`);
      for (const line of text.split('\n').filter((l) => l && !l.startsWith('#') && !l.endsWith(':'))) assert.match(line, /^\d+\. /, `${s}: "${line}" is an ordered-list item`);
    }
    assert.equal(new Set(PLANNING_STRATEGIES.map((s) => renderPlanningSection(s))).size, PLANNING_STRATEGIES.length, 'each strategy has its own mindset');
  });
});
