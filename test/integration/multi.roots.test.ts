// A multi-root workspace in the real VS Code: one store per folder; a plan is found by its id in
// any folder; creation asks which folder when there are several.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, say } from './helpers';

async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('Pi Plans in a multi-root workspace', function () {
  this.timeout(60_000);

  it('indexes every folder and finds a plan by id in any of them', async () => {
    const folders = vscode.workspace.workspaceFolders!;
    assert.deepEqual(folders.map((f) => f.name), ['api', 'web']);
    const a = await api();
    assert.equal(a.listPlans().filter((e) => e.folder.toString() === folders[0].uri.toString()).length, 6);
    assert.equal(a.listPlans().filter((e) => e.folder.toString() === folders[1].uri.toString()).length, 0);
    assert.match(await invoke('pi_plan_get', { id: 'PLAN-3f9a1c2e' }), /Add rate limiting to the public API/);
  });

  it('creation needs a folder when there are several, and lands in the one named', async () => {
    await assert.rejects(invoke('pi_plan_create', { title: 'Where?' }), /Several workspace folders are open \(api, web\): pass "folder"/);
    const r = await invoke('pi_plan_create', { title: 'Web plan', goal: 'G', folder: 'web' });
    const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(r)![1];
    const web = vscode.workspace.workspaceFolders![1].uri.fsPath;
    assert.ok(fs.existsSync(path.join(web, '.pi', 'plans', `${id}.md`)));
    assert.match(await invoke('pi_plan_list', {}), new RegExp(`- ${id} \\(active\\) · draft · v1 · 0/0 steps · "Web plan" · web`));
    say(`created ${id} in web`);
  });
});
