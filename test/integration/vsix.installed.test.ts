// The extension as a user installs it: from the .vsix that `npm run package` builds.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { api, EXTENSION_ID, say } from './helpers';

describe('Pi Plans installed from its .vsix', function () {
  this.timeout(60_000);

  it('is installed (not in development mode) and activates on the workspace', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'installed');
    assert.match(ext.extensionPath, /extensions/, ext.extensionPath);
    const a = await api();
    assert.equal(ext.isActive, true);
    assert.equal(a.listPlans().length, 6);
    say(`activation (vsix): ${a.activationMs.toFixed(1)} ms`);
  });

  it('ships only the bundle: no src/, test/ or node_modules/ in the installed folder', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const entries = await vscode.workspace.fs.readDirectory(ext.extensionUri);
    const names = entries.map(([n]) => n).sort();
    for (const n of ['src', 'test', 'node_modules', '.tools', 'bench']) assert.ok(!names.includes(n), `${n} shipped: ${names.join(', ')}`);
    assert.ok(names.includes('dist') && names.includes('package.json'), names.join(', '));
    // The worker thread's script (large parses, a cold index of many plans) ships beside the bundle.
    const dist = (await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(ext.extensionUri, 'dist'))).map(([n]) => n);
    assert.ok(dist.includes('extension.js') && dist.includes('outlineWorker.js'), dist.join(', '));
  });
});
