// A multi-root workspace in the real VS Code: one store per folder; a plan is found by its id in
// any folder; creation asks which folder when there are several.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { nodePorts } from '../../src/node';
import { PlanStore } from '../../src/store';
import { api, say, until } from './helpers';

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

/** Applies a workspace-folder change and waits for VS Code to have done it (it must not be called again before). */
async function changeFolders(start: number, deleteCount: number, ...add: { uri: vscode.Uri }[]): Promise<void> {
  const done = new Promise<void>((r) => {
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      sub.dispose();
      r();
    });
  });
  assert.ok(vscode.workspace.updateWorkspaceFolders(start, deleteCount, ...add), 'VS Code accepted the folder change');
  await done;
}

describe('a large folder: the extension host reads and summarizes its plans on its worker thread', function () {
  this.timeout(120_000);

  it('indexes a folder of 1,100 plans added to the window: every entry as a store on one thread makes it, all read on the worker', async () => {
    const a = await api();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-large-'));
    const plans = path.join(dir, '.pi', 'plans');
    fs.mkdirSync(plans, { recursive: true });
    const statuses = ['draft', 'proposed', 'approved', 'executing', 'completed'];
    for (let i = 1; i <= 1100; i++) {
      const id = `PLAN-${(0xb0000000 + i).toString(16)}`;
      fs.writeFileSync(
        path.join(plans, `${id}.md`),
        `---\nid: ${id}\ntitle: "Large ${i} →"\nstatus: ${statuses[i % 5]}\nversion: ${i}\ncreated_at: 2026-11-22T10:00:00.000Z\nupdated_at: 2026-11-22T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [x] S001 one\n2. [ ] S002 two\n`,
      );
    }
    fs.writeFileSync(path.join(plans, 'PLAN-badbad01.md'), '---\nid: PLAN-badbad01\ntitle: [unclosed\n---\n');
    const uri = vscode.Uri.file(dir);
    const index = vscode.workspace.workspaceFolders!.length;
    await changeFolders(index, 0, { uri });
    try {
      const load = await until('the large folder loaded', () => a._firstLoad(uri), 60_000);
      assert.deepEqual({ plans: load.plans, reads: load.reads, helped: load.helped }, { plans: 1101, reads: 1101, helped: 1101 });
      const store = a._storeFor(uri)!;
      const alone = await PlanStore.open(dir, nodePorts(dir, { indexCache: false }));
      const plain = (s: PlanStore) => s.list().map((e) => ({ ...e }));
      assert.deepEqual(plain(store), plain(alone));
      assert.equal(store.entry('PLAN-badbad01')?.valid, false);
      assert.deepEqual([store.entry('PLAN-b0000003')?.status, store.entry('PLAN-b0000003')?.stepsDone], ['executing', 1]);
      say(`1,101 plans indexed in ${load.ms} ms, ${load.helped} read on the worker thread`);
    } finally {
      await changeFolders(index, 1);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a folder added to the window: no plan written around its store start is missed', function () {
  this.timeout(300_000);

  const PLAN = (id: string) =>
    `---\nid: ${id}\ntitle: "Written by another process"\nstatus: proposed\nversion: 1\ncreated_at: 2026-11-22T10:00:00.000Z\nupdated_at: 2026-11-22T10:00:00.000Z\n---\n\n## Goal\nG\n\n## Steps\n1. [ ] S001 first\n`;

  /** A writer process started ahead: on "go" it waits `delay` ms, writes the file, prints when. */
  function writer(file: string, text: string, delay: number) {
    const script = `process.stdin.once('data',()=>setTimeout(()=>{require('fs').writeFileSync(${JSON.stringify(file)},${JSON.stringify(text)});process.stdout.write(String(Date.now()));process.exit(0)},${delay}))`;
    const proc = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    const spawned = new Promise((r) => proc.once('spawn', r));
    const wrote = new Promise<number>((resolve, reject) => proc.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`writer exited ${code}`)))));
    return { proc, spawned, wrote };
  }

  it('sees every plan written 0, 10, 50, 100 and 500 ms after the folder is added (3 times each)', async () => {
    const a = await api();
    const latencies: string[] = [];
    for (const delay of [0, 10, 50, 100, 500]) {
      for (let round = 0; round < 3; round++) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-added-'));
        fs.mkdirSync(path.join(dir, '.pi', 'plans'), { recursive: true });
        const id = `PLAN-a0${delay.toString(16).padStart(4, '0')}${round.toString(16).padStart(2, '0')}`;
        const w = writer(path.join(dir, '.pi', 'plans', `${id}.md`), PLAN(id), delay);
        await w.spawned;
        const uri = vscode.Uri.file(dir);
        const index = vscode.workspace.workspaceFolders!.length;
        w.proc.stdin!.write('go\n');
        await changeFolders(index, 0, { uri });
        try {
          const wroteAt = await w.wrote;
          await until(`${id} (written ${delay} ms after the folder was added) in the index`, () =>
            a.listPlans().find((e) => e.id === id && e.folder.toString() === uri.toString()),
          );
          latencies.push(`${delay}:${Date.now() - wroteAt}`);
        } finally {
          await changeFolders(index, 1);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    say(`written-to-indexed (delay:ms) ${latencies.join(' ')}`);
  });
});
