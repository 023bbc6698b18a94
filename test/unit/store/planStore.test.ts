import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import {
  approve,
  DEFAULT_CONFIG,
  editStep,
  isPlanError,
  markStep,
  PlanError,
  PlanErrorCode,
  setContent,
  startExecution,
  submit,
} from '../../../src/core';
import { IndexCachePort, PlanStore, PlansChangeEvent, StorePorts } from '../../../src/store';
import { MemoryFileSystem, memoryPorts } from '../../helpers/memoryPorts';

const ROOT = '/ws';
const DIR = '/ws/.pi/plans';
const SESSIONS = `${DIR}/sessions`;
const T0 = '2026-11-22T10:00:00.000Z';
const MIN = 60_000;

const planPath = (id: string) => `${DIR}/${id}.md`;
const snapshot = (fs: MemoryFileSystem, p: string) => {
  const b = fs.files.get(p);
  return b ? Buffer.from(b) : undefined;
};

async function rejectsWith(p: Promise<unknown>, code: PlanErrorCode, message?: string | RegExp): Promise<PlanError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `expected ${code}, but it resolved`);
  assert.ok(isPlanError(err), `expected a PlanError ${code}, got ${String(err)}`);
  assert.equal(err.code, code, `expected ${code}, got ${err.code}: ${err.message}`);
  if (typeof message === 'string') assert.equal(err.message, message);
  else if (message) assert.match(err.message, message);
  return err;
}

/** A hand-written plan file, as an outside editor or pi-planner would leave it. */
function planText(id: string, o: { status?: string; version?: number; title?: string; steps?: string[]; updated?: string } = {}): string {
  const steps = o.steps ?? ['[ ] S001 one', '[x] S002 two'];
  return [
    '---',
    `id: ${id}`,
    `title: ${o.title ?? 'Outside plan'}`,
    `status: ${o.status ?? 'proposed'}`,
    `version: ${o.version ?? 1}`,
    'created_at: 2026-01-01T00:00:00.000Z',
    `updated_at: ${o.updated ?? '2026-01-01T00:00:00.000Z'}`,
    '---',
    '',
    '## Goal',
    'Do the thing',
    '',
    '## Steps',
    ...steps.map((s, i) => `${i + 1}. ${s}`),
    '',
  ].join('\n');
}

async function setup(extra: Partial<StorePorts> = {}) {
  const mp = memoryPorts();
  const ports = { ...mp.ports, ...extra };
  const store = await PlanStore.open(ROOT, ports);
  return { ...mp, ports, store };
}

const NEW_PLAN = { title: 'Ship the feature', goal: 'Ship it', steps: [{ text: 'write code' }, { text: 'run tests', tool: 'bash', operation: 'run' }] };

async function toExecuting(store: PlanStore, id: string): Promise<void> {
  await store.update(id, 'agent', (d, ctx) => submit(d, ctx));
  await store.update(id, 'user', (d, ctx) => approve(d, seenNow(d), ctx), { sign: true });
  await store.update(id, 'agent', (d, ctx) => startExecution(d, ctx));
}

function checkpointLines(fs: MemoryFileSystem, id: string): string[] {
  return (fs.text(`${SESSIONS}/${id}.jsonl`) ?? '').split('\n').filter(Boolean);
}

describe('PlanStore (memory ports)', () => {
  describe('create and list', () => {
    it('creates a draft plan and lists it with its fields', async () => {
      const { store, fs } = await setup();
      const doc = await store.create(NEW_PLAN, 'agent');
      assert.equal(doc.fm.id, 'PLAN-00000001');
      assert.equal(doc.fm.status, 'draft');
      assert.equal(doc.fm.version, 1);
      assert.ok(fs.files.has(planPath('PLAN-00000001')));
      const rows = store.list();
      assert.equal(rows.length, 1);
      const e = rows[0];
      assert.equal(e.file, 'PLAN-00000001.md');
      assert.equal(e.id, 'PLAN-00000001');
      assert.equal(e.valid, true);
      assert.equal(e.title, 'Ship the feature');
      assert.equal(e.status, 'draft');
      assert.equal(e.version, 1);
      assert.equal(e.steps, 2);
      assert.equal(e.stepsDone, 0);
      assert.equal(e.createdAt, T0);
      assert.equal(e.updatedAt, T0);
      assert.equal(e.error, undefined);
      assert.deepEqual(store.entry('PLAN-00000001'), e);
      const read = await store.read('PLAN-00000001');
      assert.deepEqual(read.steps.map((s) => [s.id, s.status, s.text]), [
        ['S001', 'pending', 'write code'],
        ['S002', 'pending', 'run tests'],
      ]);
    });

    it('list() reflects the plan after updates (status, version, stepsDone)', async () => {
      const { store } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      let e = store.entry(fm.id)!;
      assert.deepEqual([e.status, e.version], ['proposed', 2]);
      await store.update(fm.id, 'user', (d, ctx) => approve(d, seenNow(d, 2), ctx), { sign: true });
      e = store.entry(fm.id)!;
      assert.deepEqual([e.status, e.version, e.approvedBy, e.approvedVersion], ['approved', 3, 'user', 2]);
      await store.update(fm.id, 'agent', (d, ctx) => startExecution(d, ctx));
      await store.update(fm.id, 'agent', (d, ctx) => markStep(d, 'S001', 'done', ctx));
      e = store.entry(fm.id)!;
      assert.deepEqual([e.status, e.version, e.steps, e.stepsDone], ['executing', 5, 2, 1]);
      assert.deepEqual(store.list({ status: ['executing'] }).map((x) => x.id), [fm.id]);
      assert.deepEqual(store.list({ status: ['draft'] }), []);
    });

    it('filters by status and orders oldest first', async () => {
      const { store, advance } = await setup();
      await store.create({ title: 'first' }, 'agent');
      advance(1000);
      await store.create({ title: 'second', status: 'proposed', goal: 'g', steps: [{ text: 'x' }] }, 'agent');
      assert.deepEqual(store.list().map((e) => e.title), ['first', 'second']);
      assert.deepEqual(store.list({ status: ['proposed'] }).map((e) => e.title), ['second']);
      assert.deepEqual(store.list({ status: ['draft', 'proposed'] }).map((e) => e.title), ['first', 'second']);
    });
  });

  describe('update', () => {
    it('refuses a stale expectedVersion with VERSION_CONFLICT that says the version and to read again; bytes unchanged', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await store.update(fm.id, 'agent', (d, ctx) => editStep(d, { op: 'add', text: 'third' }, ctx));
      const before = snapshot(fs, planPath(fm.id));
      const cps = checkpointLines(fs, fm.id).length;
      const err = await rejectsWith(
        store.update(fm.id, 'agent', (d, ctx) => editStep(d, { op: 'add', text: 'fourth' }, ctx), { expectedVersion: 1 }),
        'VERSION_CONFLICT',
        'PLAN-00000001 is at version 2, you sent 1: it changed since you read it; read it again and retry',
      );
      assert.equal(err.details.currentVersion, 2);
      assert.deepEqual(snapshot(fs, planPath(fm.id)), before);
      assert.equal(checkpointLines(fs, fm.id).length, cps);
      // The matching version goes through.
      const { doc } = await store.update(fm.id, 'agent', (d, ctx) => editStep(d, { op: 'add', text: 'fourth' }, ctx), { expectedVersion: 2 });
      assert.equal(doc.fm.version, 3);
    });

    it('a refused op (agent approves) changes no bytes, no index entry, no checkpoint, no event', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create({ ...NEW_PLAN, status: 'proposed' }, 'agent');
      const before = snapshot(fs, planPath(fm.id));
      const entry = structuredClone(store.entry(fm.id));
      const cps = fs.text(`${SESSIONS}/${fm.id}.jsonl`);
      const writes = fs.writes;
      const events: PlansChangeEvent[] = [];
      store.onDidChangePlans((e) => events.push(e));
      await rejectsWith(store.update(fm.id, 'agent', (d, ctx) => approve(d, seenNow(d), ctx)), 'HUMAN_ONLY');
      assert.deepEqual(snapshot(fs, planPath(fm.id)), before);
      assert.deepEqual(store.entry(fm.id), entry);
      assert.equal(fs.text(`${SESSIONS}/${fm.id}.jsonl`), cps);
      assert.equal(fs.writes, writes);
      assert.deepEqual(events, []);
      // With the user's opt-in the agent may approve, and the approval records who.
      const { doc } = await store.update(fm.id, 'agent', (d, ctx) => approve(d, seenNow(d), ctx), { agentMayApprove: true, sign: true });
      assert.deepEqual([doc.fm.status, doc.fm.approved_by, doc.fm.approved_version], ['approved', 'agent', 1]);
    });

    it('a writeGuard that throws EDIT_CONFLICT prevents the write', async () => {
      let guarded: string[] = [];
      let refuse = false;
      const { store, fs } = await setup({
        writeGuard: async (p) => {
          guarded.push(p);
          if (refuse) throw new PlanError('EDIT_CONFLICT', 'the user has unsaved edits of this plan open: ask them to save or discard');
        },
      });
      const { fm } = await store.create(NEW_PLAN, 'agent');
      refuse = true;
      guarded = [];
      const before = snapshot(fs, planPath(fm.id));
      const cps = checkpointLines(fs, fm.id).length;
      await rejectsWith(store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx)), 'EDIT_CONFLICT');
      assert.deepEqual(guarded, [planPath(fm.id)]);
      assert.deepEqual(snapshot(fs, planPath(fm.id)), before);
      assert.equal(checkpointLines(fs, fm.id).length, cps);
      assert.equal((await store.read(fm.id)).fm.version, 1);
      refuse = false;
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      assert.equal((await store.read(fm.id)).fm.status, 'proposed');
    });

    it('a refused revision of an executing plan leaves no revision plan behind', async () => {
      let refuse = false;
      const { store, fs } = await setup({
        writeGuard: async () => {
          if (refuse) throw new PlanError('EDIT_CONFLICT', 'the user has unsaved edits of this plan open: ask them to save or discard');
        },
      });
      const { fm } = await store.create({ ...NEW_PLAN, status: 'proposed' }, 'agent');
      await store.update(fm.id, 'user', (d, ctx) => approve(d, seenNow(d), ctx), { sign: true });
      await store.update(fm.id, 'agent', (d, ctx) => startExecution(d, ctx));
      const files = () => [...fs.files.keys()].filter((k) => k.startsWith(`${DIR}/PLAN-`)).sort();
      const before = files();
      refuse = true;
      await rejectsWith(
        store.update(fm.id, 'agent', (d, ctx) => setContent(d, '## Goal\nG2\n\n## Steps\n1. [ ] S001 again\n', ctx, { revisionId: 'PLAN-0000beef' })),
        'EDIT_CONFLICT',
      );
      assert.deepEqual(files(), before, 'no proposed revision was written');
      assert.equal((await store.read(fm.id)).fm.status, 'executing');
    });

    it('NOT_FOUND for a well-formed id that has no file', async () => {
      const { store } = await setup();
      await rejectsWith(store.read('PLAN-0000abcd'), 'NOT_FOUND', 'PLAN-0000abcd does not exist in .pi/plans: list the plans to find the right id');
      await rejectsWith(store.update('PLAN-0000abcd', 'agent', (d, ctx) => submit(d, ctx)), 'NOT_FOUND');
    });
  });

  describe('checkpoints', () => {
    it('appends one checkpoint per update with type, step, status, actor and version', async () => {
      const { store, advance } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      advance(MIN);
      await toExecuting(store, fm.id);
      advance(MIN);
      await store.update(fm.id, 'agent', (d, ctx) => markStep(d, 'S001', 'done', ctx, 'compiled'));
      const cps = await store.readCheckpoints(fm.id);
      const t1 = new Date(Date.parse(T0) + MIN).toISOString();
      const t2 = new Date(Date.parse(T0) + 2 * MIN).toISOString();
      assert.deepEqual(cps, [
        { type: 'created', plan: fm.id, at: T0, version: 1, status: 'draft', actor: 'agent' },
        { type: 'submitted', plan: fm.id, at: t1, version: 2, status: 'proposed', actor: 'agent' },
        { type: 'status', plan: fm.id, at: t1, version: 3, status: 'approved', actor: 'user' },
        { type: 'status', plan: fm.id, at: t1, version: 4, status: 'executing', actor: 'agent' },
        { type: 'step', plan: fm.id, at: t2, version: 5, step: 'S001', status: 'done', note: 'compiled', actor: 'agent' },
      ]);
    });

    it('a mark logs the step\'s status; the mark that completes the plan is followed by the plan\'s completion', async () => {
      const { store } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await toExecuting(store, fm.id);
      const doc = await store.read(fm.id);
      for (const s of doc.steps.slice(0, -1)) await store.update(fm.id, 'agent', (d, ctx) => markStep(d, s.id, 'skipped', ctx));
      const last = doc.steps.at(-1)!.id;
      await store.update(fm.id, 'agent', (d, ctx) => markStep(d, last, 'done', ctx));
      const tail = (await store.readCheckpoints(fm.id)).slice(-2);
      const v = (await store.read(fm.id)).fm.version;
      assert.deepEqual(tail.map((c) => [c.type, c.step, c.status, c.version]), [
        ['step', last, 'done', v],
        ['status', undefined, 'completed', v],
      ]);
    });

    it('readCheckpoints skips foreign (pi-planner) and torn lines', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      const log = `${SESSIONS}/${fm.id}.jsonl`;
      fs.put(log, fs.text(log) + '{"step":1,"status":"done"}\n{"type":"status","plan":"PLAN-000\nnot json at all\n');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      const cps = await store.readCheckpoints(fm.id);
      assert.deepEqual(cps.map((c) => [c.type, c.version, c.status]), [
        ['created', 1, 'draft'],
        ['submitted', 2, 'proposed'],
      ]);
    });

    it('a checkpoint appended after a torn last line (no line break: a crash mid-append) is still read', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      const log = `${SESSIONS}/${fm.id}.jsonl`;
      fs.put(log, fs.text(log) + '{"type":"step","plan":"PLAN-0000');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      const cps = await store.readCheckpoints(fm.id);
      assert.deepEqual(cps.map((c) => [c.type, c.version, c.status]), [
        ['created', 1, 'draft'],
        ['submitted', 2, 'proposed'],
      ]);
    });

    it('readCheckpoints of a plan without a log is empty', async () => {
      const { store } = await setup();
      assert.deepEqual(await store.readCheckpoints('PLAN-0000abcd'), []);
    });
  });

  describe('invalid files', () => {
    const cases: { name: string; file: string; text?: string; link?: boolean; code: string; message: string | RegExp; line?: number }[] = [
      {
        name: 'bad YAML',
        file: 'PLAN-0000000b.md',
        text: '---\nid: PLAN-0000000b\ntitle: Bad\nstatus: draft: extra\nversion: 1\n---\n\n## Goal\nx\n',
        code: 'INVALID_FILE',
        message: /^frontmatter YAML: .*: fix the YAML syntax$/,
        line: 4,
      },
      {
        name: 'wrong type (version: "3")',
        file: 'PLAN-0000000f.md',
        text: planText('PLAN-0000000f').replace('version: 1', 'version: "3"'),
        code: 'INVALID_FILE',
        message: 'the field "version" is invalid (Invalid input: expected number, received string): fix its value',
        line: 5,
      },
      {
        name: 'id in the file differs from the file name',
        file: 'PLAN-0000000c.md',
        text: planText('PLAN-0000000d'),
        // update and read must refuse it too, not act on a plan whose id is not its file's
        code: 'INVALID_FILE',
        message: "the id in the file (PLAN-0000000d) is not the file name's (PLAN-0000000c): make them the same",
        line: 2,
      },
      {
        name: 'file name that is not an id',
        file: 'PLAN-xyz.md',
        text: planText('PLAN-xyz'),
        code: 'INVALID_ID',
        message: 'the file name is not PLAN-<8 lowercase hex digits>.md: rename it',
      },
      {
        name: 'merge-conflict markers',
        file: 'PLAN-0000000e.md',
        text: planText('PLAN-0000000e', { steps: ['[ ] S001 one'] }).replace('1. [ ] S001 one', '<<<<<<< HEAD\n1. [ ] S001 one\n=======\n1. [ ] S001 uno\n>>>>>>> theirs'),
        code: 'INVALID_FILE',
        message: 'the file has merge-conflict markers: resolve the conflict, then save',
        line: 14,
      },
      {
        name: 'a symbolic link',
        file: 'PLAN-00000010.md',
        link: true,
        code: 'UNSAFE_PATH',
        message: 'the plan file is a symbolic link: plans are never read or written through links; replace it with the real file',
      },
    ];

    for (const c of cases) {
      it(`${c.name}: listed as invalid with message and line, never rewritten`, async () => {
        const mp = memoryPorts();
        const p = `${DIR}/${c.file}`;
        if (c.link) {
          mp.fs.dirs.add(DIR);
          mp.fs.links.set(p, '/home/user/secret.md');
        } else mp.fs.put(p, c.text!);
        const store = await PlanStore.open(ROOT, mp.ports);
        const rows = store.list();
        assert.equal(rows.length, 1);
        const e = rows[0];
        assert.equal(e.file, c.file);
        assert.equal(e.valid, false);
        assert.equal(e.error?.code, c.code);
        if (typeof c.message === 'string') assert.equal(e.error?.message, c.message);
        else assert.match(e.error!.message, c.message);
        assert.equal(e.error?.line, c.line);
        assert.equal(e.status, undefined);
        // A status filter leaves invalid files out.
        assert.deepEqual(store.list({ status: ['draft', 'proposed'] }), []);

        const before = snapshot(mp.fs, p);
        const writes = mp.fs.writes;
        const id = c.file.replace(/\.md$/, '');
        const expected: PlanErrorCode = c.code === 'INVALID_ID' ? 'INVALID_ID' : c.link ? 'UNSAFE_PATH' : 'INVALID_FILE';
        // An op that would succeed on a valid proposed plan.
        const err = await rejectsWith(store.update(id, 'user', (d, ctx) => approve(d, seenNow(d), ctx)), expected);
        if (expected === 'INVALID_FILE') {
          assert.equal(err.details.file, `.pi/plans/${c.file}`);
          assert.equal(err.details.line, c.line);
        }
        assert.deepEqual(snapshot(mp.fs, p), before);
        assert.equal(mp.fs.writes, writes);
        assert.equal(mp.fs.links.get(p), c.link ? '/home/user/secret.md' : undefined);
        assert.equal(mp.fs.files.has(`${SESSIONS}/${id}.jsonl`), false);
        await rejectsWith(store.read(id), expected);
      });
    }
  });

  describe('change events', () => {
    it('fires for an outside edit reported by fileChanged(path), and the index follows', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      const events: PlansChangeEvent[] = [];
      store.onDidChangePlans((e) => events.push(e));
      fs.put(planPath(fm.id), planText(fm.id, { title: 'Edited outside', version: 7, status: 'draft' }));
      await store.fileChanged(planPath(fm.id));
      assert.deepEqual(events, [{ added: [], changed: [`${fm.id}.md`], removed: [], outside: [`${fm.id}.md`] }]);
      assert.deepEqual([store.entry(fm.id)?.title, store.entry(fm.id)?.version, store.entry(fm.id)?.stepsDone], ['Edited outside', 7, 1]);
      // Paths outside the plans folder or not plan files are ignored.
      await store.fileChanged(`${DIR}/notes.md`);
      await store.fileChanged(`/elsewhere/.pi/plans/${fm.id}.md`);
      assert.equal(events.length, 1);
    });

    it('fires for outside creates and deletes reported by fileChanged', async () => {
      const { store, fs } = await setup();
      const events: PlansChangeEvent[] = [];
      store.onDidChangePlans((e) => events.push(e));
      fs.put(planPath('PLAN-0000aaaa'), planText('PLAN-0000aaaa'));
      await store.fileChanged(planPath('PLAN-0000aaaa'));
      fs.files.delete(planPath('PLAN-0000aaaa'));
      await store.fileChanged(planPath('PLAN-0000aaaa'));
      assert.deepEqual(events, [
        { added: ['PLAN-0000aaaa.md'], changed: [], removed: [], outside: ['PLAN-0000aaaa.md'] },
        { added: [], changed: [], removed: ['PLAN-0000aaaa.md'], outside: [] },
      ]);
      assert.deepEqual(store.list(), []);
    });

    it('does not fire when fileChanged echoes our own write', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      const events: PlansChangeEvent[] = [];
      store.onDidChangePlans((e) => events.push(e));
      await store.fileChanged(planPath(fm.id));
      // The same bytes touched again (a watcher reporting our write late, new mtime): still our echo.
      fs.put(planPath(fm.id), snapshot(fs, planPath(fm.id))!);
      await store.fileChanged(planPath(fm.id));
      await store.fileChanged(planPath(fm.id));
      assert.deepEqual(events, []);
    });

    it('an outside revert to the bytes of our earlier write is not mistaken for an echo', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await store.update(fm.id, 'agent', (d, ctx) => submit(d, ctx));
      const ours = snapshot(fs, planPath(fm.id))!;
      fs.put(planPath(fm.id), planText(fm.id, { title: 'Changed outside', version: 9, status: 'draft' }));
      await store.fileChanged(planPath(fm.id));
      assert.equal(store.entry(fm.id)?.version, 9);
      // e.g. `git checkout` of the file: our bytes again.
      fs.put(planPath(fm.id), ours);
      await store.fileChanged(planPath(fm.id));
      const e = store.entry(fm.id)!;
      assert.deepEqual([e.title, e.status, e.version], ['Ship the feature', 'proposed', 2]);
    });

    it('rescan() reconciles a missed delete and create and fires one event', async () => {
      const { store, fs } = await setup();
      const a = await store.create({ title: 'A' }, 'agent');
      const b = await store.create({ title: 'B' }, 'agent');
      const events: PlansChangeEvent[] = [];
      store.onDidChangePlans((e) => events.push(e));
      fs.files.delete(planPath(a.fm.id));
      fs.put(planPath('PLAN-0000cccc'), planText('PLAN-0000cccc', { title: 'C' }));
      fs.put(planPath(b.fm.id), planText(b.fm.id, { title: 'B edited', version: 4 }));
      const ev = await store.rescan();
      const expected = { added: ['PLAN-0000cccc.md'], changed: [`${b.fm.id}.md`], removed: [`${a.fm.id}.md`], outside: ['PLAN-0000cccc.md', `${b.fm.id}.md`] };
      assert.deepEqual(ev, expected);
      assert.deepEqual(events, [expected]);
      assert.deepEqual(store.list().map((e) => [e.id, e.title, e.version]).sort(), [
        ['PLAN-00000002', 'B edited', 4],
        ['PLAN-0000cccc', 'C', 1],
      ]);
      // Nothing changed since: a second rescan is quiet.
      assert.deepEqual(await store.rescan(), { added: [], changed: [], removed: [] });
      assert.equal(events.length, 1);
    });

    it('a disposed listener gets no more events', async () => {
      const { store, fs } = await setup();
      const events: PlansChangeEvent[] = [];
      const sub = store.onDidChangePlans((e) => events.push(e));
      sub.dispose();
      fs.put(planPath('PLAN-0000aaaa'), planText('PLAN-0000aaaa'));
      await store.rescan();
      assert.deepEqual(events, []);
    });
  });

  describe('ids and paths', () => {
    const bad = ['../x', 'PLAN-../../etc', 'PLAN-1234567', 'PLAN-123456789', 'PLAN-1234567\0', 'PLAN-\u00001234567', 'PLAN-ABCDEF12', 'plan-abcdef12', 'PLAN-abcdef12/../x', '/etc/passwd', ''];
    for (const id of bad) {
      it(`refuses ${JSON.stringify(id)} with INVALID_ID before any I/O`, async () => {
        const mp = memoryPorts();
        let calls: string[] = [];
        const fs = new Proxy(mp.fs, {
          get(target, prop, recv) {
            const v = Reflect.get(target, prop, recv);
            if (typeof v !== 'function') return v;
            return (...args: unknown[]) => {
              calls.push(String(prop));
              return (v as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
        const store = await PlanStore.open(ROOT, { ...mp.ports, fs });
        calls = [];
        assert.throws(() => store.pathOf(id), (e: unknown) => isPlanError(e, 'INVALID_ID') && /is not a plan id: ids are PLAN- and 8 lowercase hex digits/.test(e.message));
        await rejectsWith(store.read(id), 'INVALID_ID');
        await rejectsWith(store.update(id, 'user', (d, ctx) => submit(d, ctx)), 'INVALID_ID');
        await rejectsWith(store.readCheckpoints(id), 'INVALID_ID');
        await rejectsWith(store.clone(id, 'user'), 'INVALID_ID');
        assert.deepEqual(calls, []);
      });
    }

    it('pathOf builds the path inside .pi/plans for a good id', async () => {
      const { store } = await setup();
      assert.equal(store.pathOf('PLAN-1a2b3c4d'), '/ws/.pi/plans/PLAN-1a2b3c4d.md');
    });

    it('.pi/plans as a symbolic link: open, read, update and create are refused with UNSAFE_PATH', async () => {
      const { store, fs } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      // The folder is replaced by a link (e.g. a checkout that links it elsewhere).
      const files = new Map(fs.files);
      fs.links.set(DIR, '/home/user/elsewhere');
      const writes = fs.writes;
      await rejectsWith(store.read(fm.id), 'UNSAFE_PATH', /^\.pi\/plans is a symbolic link/);
      await rejectsWith(store.update(fm.id, 'user', (d, ctx) => submit(d, ctx)), 'UNSAFE_PATH');
      await rejectsWith(store.create(NEW_PLAN, 'agent'), 'UNSAFE_PATH');
      await rejectsWith(store.clone(fm.id, 'user'), 'UNSAFE_PATH');
      assert.equal(fs.writes, writes);
      assert.deepEqual(fs.files, files);
      await rejectsWith(PlanStore.open(ROOT, memoryPortsWith(fs)), 'UNSAFE_PATH');
    });

    it('.pi as a symbolic link is refused too', async () => {
      const mp = memoryPorts();
      mp.fs.links.set('/ws/.pi', '/tmp/other');
      await rejectsWith(PlanStore.open(ROOT, mp.ports), 'UNSAFE_PATH', /^\.pi is a symbolic link/);
    });
  });

  describe('stall detection', () => {
    it('an executing plan with no checkpoint for over executor_timeout_minutes becomes stalled; a busy one does not', async () => {
      const mp = memoryPorts();
      const s1 = await PlanStore.open(ROOT, mp.ports);
      const idle = (await s1.create(NEW_PLAN, 'agent')).fm.id;
      const busy = (await s1.create(NEW_PLAN, 'agent')).fm.id;
      const draft = (await s1.create(NEW_PLAN, 'agent')).fm.id;
      await toExecuting(s1, idle);
      await toExecuting(s1, busy);
      // A fresh store (as after a restart) sees both executing.
      const store = await PlanStore.open(ROOT, mp.ports);
      mp.advance(20 * MIN);
      await store.checkpoint(busy, { type: 'heartbeat', actor: 'agent' });
      mp.advance(5 * MIN);
      assert.deepEqual(await store.detectStalled(), []);
      mp.advance(6 * MIN); // idle: 31 min since its last checkpoint; busy: 11 min
      assert.deepEqual(await store.detectStalled(), [idle]);
      assert.equal((await store.read(idle)).fm.status, 'stalled');
      assert.equal((await store.read(idle)).fm.version, 5);
      assert.equal((await store.read(busy)).fm.status, 'executing');
      assert.equal((await store.read(draft)).fm.status, 'draft');
      const last = (await store.readCheckpoints(idle)).at(-1);
      assert.deepEqual(last, { type: 'status', plan: idle, at: new Date(Date.parse(T0) + 31 * MIN).toISOString(), version: 5, status: 'stalled', note: 'no activity', actor: 'cli' });
      assert.deepEqual(await store.detectStalled(), []);
    });

    it('a stall found by the same store that started the plan shows in list()', async () => {
      const { store, advance } = await setup();
      const { fm } = await store.create(NEW_PLAN, 'agent');
      await toExecuting(store, fm.id);
      advance(31 * MIN);
      assert.deepEqual(await store.detectStalled(), [fm.id]);
      assert.equal(store.entry(fm.id)?.status, 'stalled');
    });
  });

  describe('config (.pi/plans.json)', () => {
    it('invalid JSON: configError set, defaults used', async () => {
      const mp = memoryPorts();
      mp.fs.put('/ws/.pi/plans.json', '{ "stale_after_days": ');
      const store = await PlanStore.open(ROOT, mp.ports);
      assert.equal(store.configError?.code, 'INVALID_FILE');
      assert.match(store.configError!.message, /^\.pi\/plans\.json is not valid JSON \(.+\): fix it \(defaults are used until then\)$/);
      assert.equal(store.configError?.details.file, '.pi/plans.json');
      assert.deepEqual(store.config, DEFAULT_CONFIG);
    });

    it('a wrong type: configError names the key, defaults used', async () => {
      const mp = memoryPorts();
      mp.fs.put('/ws/.pi/plans.json', '{ "stale_after_days": "7", "executor_timeout_minutes": 5 }');
      const store = await PlanStore.open(ROOT, mp.ports);
      assert.equal(store.configError?.code, 'INVALID_FILE');
      assert.equal(store.configError?.message, '.pi/plans.json: "stale_after_days" Invalid input: expected number, received string: fix it (defaults are used until then)');
      assert.deepEqual(store.config, DEFAULT_CONFIG);
      assert.equal(store.config.executor_timeout_minutes, 30);
    });

    it('valid values are applied (stale_after_days, executor_timeout_minutes, required_sections)', async () => {
      const mp = memoryPorts();
      mp.fs.put('/ws/.pi/plans.json', JSON.stringify({ stale_after_days: 7, executor_timeout_minutes: 5, required_sections: ['Goal', 'Risks'], guardedTools: ['bash'], other: 1 }));
      const store = await PlanStore.open(ROOT, mp.ports);
      assert.equal(store.configError, undefined);
      assert.deepEqual(store.config, { guardedTools: ['bash'], stale_after_days: 7, executor_timeout_minutes: 5, required_sections: ['Goal', 'Risks'] });
      const a = (await store.create(NEW_PLAN, 'agent')).fm.id;
      const err = await rejectsWith(store.update(a, 'agent', (d, ctx) => submit(d, ctx)), 'VALIDATION_FAILED');
      assert.deepEqual(err.details.problems, ['add a "## Risks" section']);
      const b = (await store.create({ ...NEW_PLAN, risks: ['none'] }, 'agent')).fm.id;
      await toExecuting(store, b);
      // A fresh store on the same folder (the stall test above covers the same-store index).
      const again = await PlanStore.open(ROOT, mp.ports);
      assert.equal(again.config.executor_timeout_minutes, 5);
      mp.advance(4 * MIN);
      assert.deepEqual(await again.detectStalled(), []);
      mp.advance(2 * MIN);
      assert.deepEqual(await again.detectStalled(), [b]);
      assert.equal((await again.read(b)).fm.status, 'stalled');
    });

    it('no config file: defaults, no error', async () => {
      const { store } = await setup();
      assert.equal(store.configError, undefined);
      assert.deepEqual(store.config, DEFAULT_CONFIG);
    });
  });

  describe('warm start (index cache)', () => {
    it('reuses cached entries when size and mtime match, and re-reads changed files', async () => {
      const mp = memoryPorts();
      let saved: string | undefined;
      const cache: IndexCachePort = { load: async () => saved, save: async (parts) => void (saved = [...parts].join('')) };
      const s1 = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await s1.create({ ...NEW_PLAN, title: `plan ${i}` }, 'agent')).fm.id);
      await s1.saveIndexCache();
      assert.ok(saved);

      const reads: string[] = [];
      const orig = mp.fs.readFile.bind(mp.fs);
      mp.fs.readFile = async (p: string) => {
        reads.push(p);
        return orig(p);
      };
      const s2 = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
      assert.deepEqual(reads.filter((p) => p.endsWith('.md')), []);
      assert.deepEqual(s2.list().map((e) => [e.id, e.title, e.status, e.steps]), ids.map((id, i) => [id, `plan ${i}`, 'draft', 2]));

      // One file changes outside (new size and mtime): only it is read again.
      mp.fs.put(planPath(ids[1]), planText(ids[1], { title: 'changed', status: 'draft', version: 2 }));
      reads.length = 0;
      const s3 = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
      assert.deepEqual(reads.filter((p) => p.endsWith('.md')), [planPath(ids[1])]);
      assert.deepEqual(ids.map((id) => s3.entry(id)?.title), ['plan 0', 'changed', 'plan 2']);

      // A cache for another folder, or garbage, is ignored: everything is read.
      reads.length = 0;
      const s4 = await PlanStore.open('/other', { ...mp.ports, indexCache: cache });
      assert.deepEqual(s4.list(), []);
      saved = 'not json';
      const s5 = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
      assert.equal(reads.filter((p) => p.endsWith('.md')).length, 3);
      assert.equal(s5.list().length, 3);
    });
  });
});

function memoryPortsWith(fs: MemoryFileSystem): StorePorts {
  const mp = memoryPorts();
  return { ...mp.ports, fs };
}
