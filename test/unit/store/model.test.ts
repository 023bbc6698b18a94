import { seenNow } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  approve,
  editStep,
  finishExecution,
  isPlanError,
  markStep,
  OpContext,
  OpResult,
  PlanDocument,
  PlanErrorCode,
  PlanStatus,
  reject,
  startExecution,
  submit,
  changeStatus,
  Actor,
} from '../../../src/core';
import { PlanStore } from '../../../src/store';
import { memoryPorts } from '../../helpers/memoryPorts';

/** What a plan should be, as the model sees it. */
interface ModelPlan {
  status: PlanStatus;
  version: number;
  steps: { id: string; done: boolean }[];
  seq: number;
  rejections: number;
  approvedBy?: Actor;
  approvedVersion?: number;
}
interface Model {
  plans: Map<string, ModelPlan>;
  created: number;
}
interface Real {
  store: PlanStore;
  bytes(id: string): string | undefined;
}

const EDITABLE: PlanStatus[] = ['draft', 'proposed', 'rejected', 'approved'];
const CANCELLABLE: PlanStatus[] = ['draft', 'proposed', 'needs_review', 'approved', 'executing', 'failed', 'stalled'];

const pickId = (m: Model, pick: number) => {
  const ids = [...m.plans.keys()].sort();
  return ids[pick % ids.length];
};

/** Runs an update that the model expects to be refused with `code`; nothing may change on disk. */
async function refused(r: Real, id: string, code: PlanErrorCode, actor: Actor, op: (d: PlanDocument, ctx: OpContext) => OpResult, opts = {}): Promise<void> {
  const before = r.bytes(id);
  let err: unknown;
  try {
    await r.store.update(id, actor, op, opts);
  } catch (e) {
    err = e;
  }
  assert.ok(isPlanError(err), `expected ${code} from ${id}, got ${err === undefined ? 'success' : String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(r.bytes(id), before, 'a refused update changed the file');
}

/** After every command: read() and list() agree with the model. */
async function agree(m: Model, r: Real): Promise<void> {
  for (const [id, p] of m.plans) {
    const doc = await r.store.read(id);
    assert.equal(doc.fm.status, p.status, `${id} status (read)`);
    assert.equal(doc.fm.version, p.version, `${id} version (read)`);
    assert.deepEqual(doc.steps.map((s) => [s.id, s.status === 'done']), p.steps.map((s) => [s.id, s.done]), `${id} steps (read)`);
    assert.equal(doc.rejections.length, p.rejections, `${id} rejections (read)`);
    assert.equal(doc.fm.approved_by, p.approvedBy, `${id} approved_by (read)`);
    assert.equal(doc.fm.approved_version, p.approvedVersion, `${id} approved_version (read)`);
  }
  const rows = r.store.list();
  assert.deepEqual(rows.map((e) => e.id).sort(), [...m.plans.keys()].sort(), 'list() ids');
  for (const e of rows) {
    const p = m.plans.get(e.id)!;
    assert.equal(e.valid, true);
    assert.deepEqual(
      { status: e.status, version: e.version, steps: e.steps, stepsDone: e.stepsDone, approvedBy: e.approvedBy },
      { status: p.status, version: p.version, steps: p.steps.length, stepsDone: p.steps.filter((s) => s.done).length, approvedBy: p.approvedBy },
      `${e.id} (list)`,
    );
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;

class Create implements Cmd {
  constructor(readonly nSteps: number) {}
  // Few plans, so that commands chain on the same plan and reach the later statuses.
  check = (m: Readonly<Model>) => m.plans.size < 3;
  async run(m: Model, r: Real) {
    const doc = await r.store.create({ title: `plan ${m.created}`, goal: 'reach the goal', steps: Array.from({ length: this.nSteps }, (_, i) => ({ text: `step ${i + 1}` })) }, 'agent');
    m.created++;
    assert.equal(doc.fm.id, `PLAN-${m.created.toString(16).padStart(8, '0')}`);
    m.plans.set(doc.fm.id, {
      status: 'draft',
      version: 1,
      seq: this.nSteps,
      rejections: 0,
      steps: Array.from({ length: this.nSteps }, (_, i) => ({ id: `S${String(i + 1).padStart(3, '0')}`, done: false })),
    });
    await agree(m, r);
  }
  toString = () => `create(${this.nSteps})`;
}

/** A command on one existing plan. */
abstract class OnPlan implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.plans.size > 0;
  abstract apply(m: Model, r: Real, id: string, p: ModelPlan): Promise<void>;
  async run(m: Model, r: Real) {
    const id = pickId(m, this.pick);
    await this.apply(m, r, id, m.plans.get(id)!);
    await agree(m, r);
  }
  toString = () => `${this.constructor.name}(${this.pick})`;
}

function edited(p: ModelPlan): void {
  p.version++;
  if (p.status === 'rejected') p.status = 'draft';
  if (p.status === 'approved') p.status = 'proposed';
  p.approvedBy = undefined;
  p.approvedVersion = undefined;
}

class AddStep extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => editStep(d, { op: 'add', text: 'another step' }, ctx);
    if (!EDITABLE.includes(p.status)) return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    const { result } = await r.store.update(id, 'agent', op);
    p.seq++;
    const sid = `S${String(p.seq).padStart(3, '0')}`;
    assert.equal(result.step, sid);
    p.steps.push({ id: sid, done: false });
    edited(p);
  }
}

class RemoveStep extends OnPlan {
  constructor(
    pick: number,
    readonly stepPick: number,
  ) {
    super(pick);
  }
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const sid = p.steps.length ? p.steps[this.stepPick % p.steps.length].id : 'S999';
    const op = (d: PlanDocument, ctx: OpContext) => editStep(d, { op: 'remove', id: sid }, ctx);
    if (!EDITABLE.includes(p.status)) return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    if (!p.steps.length) return refused(r, id, 'NOT_FOUND', 'agent', op);
    await r.store.update(id, 'agent', op);
    p.steps = p.steps.filter((s) => s.id !== sid);
    edited(p);
  }
  override toString = () => `RemoveStep(${this.pick}, ${this.stepPick})`;
}

class Submit extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => submit(d, ctx);
    if (p.status !== 'draft') return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    await r.store.update(id, 'agent', op);
    p.status = p.steps.length ? 'proposed' : 'cancelled';
    p.version++;
  }
}

class Approve extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => approve(d, seenNow(d), ctx);
    if (p.status !== 'proposed') return refused(r, id, 'INVALID_TRANSITION', 'user', op);
    await r.store.update(id, 'user', op, { expectedVersion: p.version, sign: true });
    p.approvedBy = 'user';
    p.approvedVersion = p.version;
    p.status = 'approved';
    p.version++;
  }
}

class Reject extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => reject(d, 'needs more detail', ctx, d.fm.version);
    if (p.status !== 'proposed') return refused(r, id, 'INVALID_TRANSITION', 'user', op);
    await r.store.update(id, 'user', op);
    p.rejections++;
    p.status = p.rejections >= 3 ? 'needs_review' : 'rejected';
    p.version++;
  }
}

class Start extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => startExecution(d, ctx);
    if (p.status !== 'approved') return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    await r.store.update(id, 'agent', op);
    p.status = 'executing';
    p.version++;
  }
}

class MarkStep extends OnPlan {
  constructor(
    pick: number,
    readonly stepPick: number,
  ) {
    super(pick);
  }
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const sid = p.steps.length ? p.steps[this.stepPick % p.steps.length].id : 'S999';
    const op = (d: PlanDocument, ctx: OpContext) => markStep(d, sid, 'done', ctx);
    if (p.status !== 'executing') return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    if (!p.steps.length) return refused(r, id, 'NOT_FOUND', 'agent', op);
    const { result } = await r.store.update(id, 'agent', op);
    p.steps.find((s) => s.id === sid)!.done = true;
    p.version++;
    if (p.steps.every((s) => s.done)) p.status = 'completed';
    assert.equal(result.autoCompleted, p.status === 'completed');
  }
  override toString = () => `MarkStep(${this.pick}, ${this.stepPick})`;
}

class Complete extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => finishExecution(d, 'complete', 'done', ctx);
    if (p.status !== 'executing') return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    // An agent completes only finished work (its last mark completes the plan by itself).
    if (p.steps.some((s) => !s.done)) return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    await r.store.update(id, 'agent', op);
    p.status = 'completed';
    p.version++;
  }
}

class Cancel extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    const op = (d: PlanDocument, ctx: OpContext) => changeStatus(d, 'cancel', ctx, 'not needed');
    if (!CANCELLABLE.includes(p.status)) return refused(r, id, 'INVALID_TRANSITION', 'agent', op);
    await r.store.update(id, 'agent', op);
    p.status = 'cancelled';
    p.version++;
  }
}

class StaleUpdate extends OnPlan {
  async apply(_m: Model, r: Real, id: string, p: ModelPlan) {
    // Whatever the op, a version the plan is not at is a conflict (checked before the op runs).
    const stale = p.version > 1 ? p.version - 1 : p.version + 1;
    await refused(r, id, 'VERSION_CONFLICT', 'agent', (d, ctx) => changeStatus(d, 'cancel', ctx), { expectedVersion: stale });
  }
}

class AgentApprove extends OnPlan {
  async apply(_m: Model, r: Real, id: string) {
    await refused(r, id, 'HUMAN_ONLY', 'agent', (d, ctx) => approve(d, seenNow(d), ctx));
  }
}

const pick = fc.nat({ max: 2 });
const commands = [
  fc.integer({ min: 0, max: 3 }).map((n) => new Create(n)),
  // The lifecycle path twice as likely as the rest.
  pick.map((p) => new Submit(p)),
  pick.map((p) => new Approve(p)),
  pick.map((p) => new Reject(p)),
  pick.map((p) => new Start(p)),
  fc.tuple(pick, fc.nat({ max: 5 })).map(([p, s]) => new MarkStep(p, s)),
  pick.map((p) => new AddStep(p)),
  fc.tuple(pick, fc.nat({ max: 5 })).map(([p, s]) => new RemoveStep(p, s)),
  pick.map((p) => new Submit(p)),
  pick.map((p) => new Approve(p)),
  pick.map((p) => new Reject(p)),
  pick.map((p) => new Start(p)),
  fc.tuple(pick, fc.nat({ max: 5 })).map(([p, s]) => new MarkStep(p, s)),
  pick.map((p) => new Complete(p)),
  pick.map((p) => new Cancel(p)),
  pick.map((p) => new StaleUpdate(p)),
  pick.map((p) => new AgentApprove(p)),
];

describe('PlanStore model-based (fast-check, memory ports)', function () {
  this.timeout(120_000);
  it('read() and list() agree with a simple model after every command', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 60, size: 'max' }), async (cmds) => {
        const { ports, fs } = memoryPorts();
        const store = await PlanStore.open('/ws', ports);
        const real: Real = { store, bytes: (id) => fs.text(store.pathOf(id)) };
        await fc.asyncModelRun(() => ({ model: { plans: new Map(), created: 0 }, real }), cmds);
      }),
      { numRuns: 50 },
    );
  });
});
