import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, CONTEXT_KEYS, EXTENSION_ID, SETTINGS, VIEWS, COMMENT_IDS } from '../../../src/vscode/common/ids';
import { GATED_WHEN } from '../../../src/tools/manifest';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));

describe('ids shared with package.json', () => {
  it('the commands the code registers are exactly the ones the manifest declares', () => {
    assert.deepEqual(pkg.contributes.commands.map((c: { command: string }) => c.command).sort(), Object.values(COMMANDS).sort());
  });
  it('the settings the code reads are declared', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(declared, Object.entries(SETTINGS).filter(([k]) => k !== 'section').map(([, v]) => `${SETTINGS.section}.${v}`).sort());
  });
  it('the hook settings VS Code writes for pi-plans hook are declared as user (application) settings, with the hook\'s choices and defaults', () => {
    for (const key of ['piPlans.hooks.otherFiles', 'piPlans.hooks.planningTerminal']) {
      const p = pkg.contributes.configuration.properties[key];
      assert.deepEqual(p.enum, ['ask', 'deny', 'allow'], key);
      assert.equal(p.default, 'ask', key);
      assert.equal(p.scope, 'application', `${key}: a workspace cannot set it (the hook takes a workspace's only when stricter)`);
    }
  });
  it('the context key is the one the gated tools and the chat instructions use', () => {
    assert.ok(GATED_WHEN.includes(CONTEXT_KEYS.planWorkActive));
    assert.equal(pkg.contributes.chatInstructions[0].when, CONTEXT_KEYS.planWorkActive);
  });
  it('the views the code creates are the ones the manifest declares, in their own activity-bar container', () => {
    assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id), [VIEWS.container]);
    assert.deepEqual(pkg.contributes.views[VIEWS.container].map((v: { id: string }) => v.id), [VIEWS.explorer]);
  });
  it('every menu and palette entry names a declared command, and context keys the code sets', () => {
    const declared = new Set(Object.values(COMMANDS));
    for (const [where, entries] of Object.entries(pkg.contributes.menus as Record<string, { command: string; when?: string }[]>)) {
      for (const e of entries) {
        assert.ok(declared.has(e.command as never), `${where}: ${e.command}`);
        for (const key of (e.when ?? '').match(/piPlans\.[a-zA-Z]+/g) ?? []) {
          if (key.startsWith('piPlans.plan') || key.startsWith('piPlans.step') || key === 'piPlans.explorer') continue;
          if ((Object.values(COMMENT_IDS) as string[]).some((v) => v.startsWith(key))) continue;
          assert.ok((Object.values(CONTEXT_KEYS) as string[]).includes(key), `${where}: ${e.command} uses ${key}`);
        }
      }
    }
  });
  it('the extension id is publisher.name', () => {
    assert.equal(`${pkg.publisher}.${pkg.name}`, EXTENSION_ID);
  });
});
