// What each step changed, recorded by the use case that marks steps (src/service markPlanStep) with
// the Node evidence port on a real repository (a temporary folder, the machine's git); the plans
// themselves in the memory ports.
import { seenIn } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evidenceFlag, readChangedLine } from '../../../src/core';
import { NodeEvidence } from '../../../src/node';
import { approvePlan, markPlanStep, startPlan, submitPlan } from '../../../src/service';
import { PlanStore } from '../../../src/store';
import { memoryPorts } from '../../helpers/memoryPorts';
import { newRepo, repoTools } from '../../helpers/gitRepo';

describe('step evidence: what each step changed (markPlanStep, real repositories)', function () {
  this.timeout(30_000);
  let dir: string;
  const { git, write } = repoTools(() => dir);

  beforeEach(() => {
    dir = newRepo('pi-plans-step-evidence-');
    write('src/health.ts', 'export const ok = true;\n');
    write('old.ts', 'a\nb\nc\nd\n');
    write('gone.md', 'bye\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
  });
  /** The ports made by a test: their pins are written before its folder is removed. */
  const ports: NodeEvidence[] = [];
  afterEach(async () => {
    await Promise.all(ports.splice(0).map((p) => p.settled()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An executing plan of three steps in memory, the evidence port on `root`. */
  async function executing(root: string) {
    const { ports: memory, advance } = memoryPorts();
    const evidence = new NodeEvidence(root);
    ports.push(evidence);
    const store = await PlanStore.open('/ws', { ...memory, evidence });
    const place = { store };
    const doc = await store.create({ title: 'Evidence', goal: 'G', steps: [{ text: 'One' }, { text: 'Two' }, { text: 'Three' }] }, 'agent');
    const id = doc.fm.id;
    await submitPlan(place, id, { actor: 'agent' });
    await approvePlan(place, id, { actor: 'user', seen: await seenIn(store, id, 2) });
    await startPlan(place, id, { actor: 'agent' });
    const mark = (step: string, status: 'in_progress' | 'done' | 'blocked', note?: string) => markPlanStep(place, id, step, status, note, { actor: 'agent' });
    return { store, id, mark, memory, advance };
  }

  it('attributes to the step a file a terminal command edited, with its line counts and trees', async () => {
    const { mark, store, id } = await executing(dir);
    await mark('S001', 'in_progress');
    // A command in a terminal (a child process of its own), not an edit tool.
    const sh = spawnSync('sh', ['-c', 'printf "export const ready = 1;\\nexport const live = 2;\\n" >> src/health.ts'], { cwd: dir });
    assert.equal(sh.status, 0);
    const r = await mark('S001', 'done');
    assert.match(r.evidence!.changed!, /^src\/health\.ts \(\+2 −0\) · 1 file \+2 −0 · tree [0-9a-f]{10}\.\.[0-9a-f]{10}$/);
    assert.equal(r.evidence!.flag, 'changed');
    const step = (await store.read(id)).steps[0];
    assert.equal(step.record?.Changed, r.evidence!.changed);
    const facts = readChangedLine(step.record!.Changed!);
    assert.equal(git('cat-file', '-t', facts.after!).trim(), 'tree', 'the after tree is in the repository');
    assert.equal(git('show', `${facts.after}:src/health.ts`), 'export const ok = true;\nexport const ready = 1;\nexport const live = 2;\n');
  });

  it('records a rename, a binary file, a deletion and an untracked new file; the user index, stash and refs stay', async () => {
    const seen = () => [git('status', '--porcelain=v1', '-uall'), git('stash', 'list'), git('for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/tags', 'refs/stash'), git('ls-files', '-s')];
    const { mark } = await executing(dir);
    await mark('S001', 'in_progress');
    fs.renameSync(path.join(dir, 'old.ts'), path.join(dir, 'new.ts'));
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    fs.rmSync(path.join(dir, 'gone.md'));
    write('notes/todo.txt', 'one\ntwo\n');
    const before = seen();
    const r = await mark('S001', 'blocked');
    assert.deepEqual(seen(), before);
    const c = r.evidence!.changed!;
    for (const part of ['old.ts → new.ts (+0 −0)', 'logo.png (new, binary)', 'gone.md (deleted, +0 −1)', 'notes/todo.txt (new, +2 −0)', '4 files +2 −1']) assert.ok(c.includes(part), `${part} in ${c}`);
    assert.deepEqual(readChangedLine(c).shown.map((s) => s.path).sort(), ['gone.md', 'logo.png', 'new.ts', 'notes/todo.txt']);
  });

  it('a step done with nothing changed is flagged "no evidence" until a note says why; one never started counts from the last mark', async () => {
    const { mark, store, id } = await executing(dir);
    await mark('S001', 'in_progress');
    const r = await mark('S001', 'done');
    assert.match(r.evidence!.changed!, /^nothing · tree ([0-9a-f]{10})\.\.\1$/);
    assert.equal(r.evidence!.flag, 'no evidence');
    const explained = await mark('S001', 'done', 'The health check already existed.');
    assert.equal(explained.evidence!.flag, 'no change, explained');
    assert.equal(explained.evidence!.changed, r.evidence!.changed, 're-marking keeps the recorded change');
    const skipped = await mark('S002', 'done');
    assert.match(skipped.evidence!.changed!, /^nothing · tree ([0-9a-f]{10})\.\.\1$/, 'nothing changed since S001 ended');
    assert.equal(evidenceFlag((await store.read(id)).steps[1]), 'no evidence');
  });

  it('the shortest path (each step marked done straight from pending, as "Next:" says) records each step\'s own files', async () => {
    const { mark, store, id } = await executing(dir);
    write('src/one.ts', 'export const one = 1;\n');
    assert.match((await mark('S001', 'done')).evidence!.changed!, /^src\/one\.ts \(new, \+1 −0\) · 1 file \+1 −0 · tree /, 'counted from the plan\'s start');
    write('src/two.ts', 'export const two = 2;\n');
    fs.appendFileSync(path.join(dir, 'src', 'one.ts'), 'export const also = 1;\n');
    const two = (await mark('S002', 'done')).evidence!.changed!;
    assert.deepEqual(readChangedLine(two).shown.map((f) => f.path).sort(), ['src/one.ts', 'src/two.ts'], 'only what changed since S001 was marked');
    assert.match(two, /src\/one\.ts \(\+1 −0\)/);
    write('README.md', 'hi\n');
    const three = (await mark('S003', 'done')).evidence!.changed!;
    assert.deepEqual(readChangedLine(three).shown.map((f) => f.path), ['README.md']);
    const doc = await store.read(id);
    assert.deepEqual(doc.steps.map((s) => evidenceFlag(s)), ['changed', 'changed', 'changed']);
    // The trees chain: each step starts where the one before ended.
    const trees = doc.steps.map((s) => readChangedLine(s.record!.Changed!));
    assert.equal(trees[1].before, trees[0].after);
    assert.equal(trees[2].before, trees[1].after);
  });

  it('two sessions at once: a step\'s line names the steps another session worked on while it ran (their files may be among its own); a step that ran alone names none', async () => {
    const { store, id, advance } = await executing(dir);
    const as = (session: string) => async (step: string, status: 'in_progress' | 'done') => {
      advance(1000);
      return (await markPlanStep({ store }, id, step, status, undefined, { actor: 'agent' }, { session })).evidence?.changed;
    };
    const [a, b] = [as('agent-a'), as('agent-b')];
    await a('S001', 'in_progress');
    await b('S002', 'in_progress');
    write('a.ts', 'by a\n');
    write('b.ts', 'by b\n');
    // Both files are in both snapshots' difference: without hooks, the line says which other step ran meanwhile.
    const one = readChangedLine((await a('S001', 'done'))!);
    assert.deepEqual([one.shown.map((f) => f.path).sort(), one.alongside], [['a.ts', 'b.ts'], ['S002']]);
    const two = readChangedLine((await b('S002', 'done'))!);
    assert.deepEqual([two.shown.map((f) => f.path).sort(), two.alongside], [['a.ts', 'b.ts'], ['S001']], 'S001 was done while S002 ran');
    // S003 starts after both ended: it ran alone.
    await a('S003', 'in_progress');
    write('c.ts', 'by a\n');
    const three = readChangedLine((await a('S003', 'done'))!);
    assert.deepEqual([three.shown.map((f) => f.path), three.alongside], [['c.ts'], []]);
    // Readers say it: the plan's evidence note names the step that ran alongside.
    const doc = await store.read(id);
    assert.match(doc.steps[0].record!.Changed!, / · ran alongside: S002$/);
    assert.deepEqual(doc.steps.map((s) => evidenceFlag(s)), ['changed', 'changed', 'changed']);
  });

  it('a step marked done straight from pending in another process counts from the last mark\'s pinned tree', async () => {
    const { mark, id, store } = await executing(dir);
    write('a.ts', 'a\n');
    await mark('S001', 'done');
    await Promise.all(ports.map((p) => p.settled()));
    // A second process (the CLI, another window) on the same repository: no memory of the first one's marks.
    const other = new NodeEvidence(dir);
    ports.push(other);
    write('b.ts', 'b\n');
    const r = await other.endSinceLastMark(id, 'S002');
    assert.ok(r.recorded, JSON.stringify(r));
    assert.deepEqual(r.recorded && r.files.map((f) => f.path), ['b.ts']);
    void store;
  });

  it('a "> Changed:" line written by hand whose trees are not the pinned snapshots reads as not recorded, never as "nothing changed"', async () => {
    const { mark, store, id, memory } = await executing(dir);
    await mark('S001', 'in_progress');
    write('src/health.ts', 'export const ok = false;\n');
    const real = (await mark('S001', 'done')).evidence!.changed!;
    await Promise.all(ports.map((p) => p.settled()));
    const facts = readChangedLine(real);
    assert.equal((await store.withEvidenceChecked(await store.read(id))).steps[0].record!.Changed, real, 'the recorded line holds');
    // The agent rewrites its line by hand: "nothing", between the tree before and itself.
    const file = `/ws/.pi/plans/${id}.md`;
    memory.fs.put(file, memory.fs.text(file)!.replace(real, `nothing · tree ${facts.before}..${facts.before}`));
    await store.rescan();
    const forged = await store.read(id);
    assert.match(forged.steps[0].record!.Changed!, /^nothing · tree /);
    const seen = await store.withEvidenceChecked(forged);
    assert.equal(seen.steps[0].record!.Changed, 'not recorded (the line does not match the snapshot)');
    assert.equal(evidenceFlag(seen.steps[0]), 'no evidence');
  });

  it('a folder outside any repository records "not recorded (not a git repository)"', async () => {
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-plain-'));
    try {
      const { mark } = await executing(plain);
      await mark('S001', 'in_progress');
      fs.writeFileSync(path.join(plain, 'x.ts'), 'x\n');
      const r = await mark('S001', 'done');
      assert.equal(r.evidence!.changed, 'not recorded (not a git repository)');
      assert.equal(r.evidence!.flag, 'no evidence');
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
  });
});
