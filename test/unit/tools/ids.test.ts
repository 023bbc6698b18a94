import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, CONTEXT_KEYS, EXTENSION_ID, SETTINGS } from '../../../src/vscode/ids';
import { GATED_WHEN } from '../../../src/tools/manifest';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));

describe('ids shared with package.json', () => {
  it('the commands the code registers are exactly the ones the manifest declares', () => {
    assert.deepEqual(pkg.contributes.commands.map((c: { command: string }) => c.command).sort(), Object.values(COMMANDS).sort());
  });
  it('the settings the code reads are declared', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(declared, [SETTINGS.agentApproval, SETTINGS.gating, SETTINGS.reviewWait].map((k) => `${SETTINGS.section}.${k}`).sort());
  });
  it('the context key is the one the gated tools and the chat instructions use', () => {
    assert.ok(GATED_WHEN.includes(CONTEXT_KEYS.planWorkActive));
    assert.equal(pkg.contributes.chatInstructions[0].when, CONTEXT_KEYS.planWorkActive);
  });
  it('the extension id is publisher.name', () => {
    assert.equal(`${pkg.publisher}.${pkg.name}`, EXTENSION_ID);
  });
});
