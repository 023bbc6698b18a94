// A plan pi-planner proposed has no `## Goal` (its `## Steps` and `## Context` only). Until this
// project's submit puts a plan up for review, a missing Goal is a warning: `pi-plans validate`
// (the built CLI, as a process) exits 0, also after an edit through the tools gave the steps
// their ids. A plan submitted here is held to the rules: the submit refuses it without a Goal,
// and a Goal removed after the submit is an error again.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLI, ensureBuilt, idIn, Sandbox, type Text, textOf } from '../mcp/serverProcess';

const FIXTURE = path.resolve(__dirname, '../../fixtures/corpus/pi-planner-proposed.md');
const ID = 'PLAN-3f9a1c2e';

describe('pi-planner plans without a Goal: a warning until submitted here (the built CLI and MCP server)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let client: Client | undefined;
  const call = async (name: string, args: Record<string, unknown>) => (await client!.callTool({ name, arguments: args })) as Text;
  /** `pi-plans validate` as CI runs it: a process of its own. */
  const validate = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', sandbox.root, 'validate', ...args], { env: sandbox.env(), encoding: 'utf8' });
  const file = () => sandbox.planFile(ID);

  before(ensureBuilt);
  beforeEach(() => {
    sandbox = new Sandbox();
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.copyFileSync(FIXTURE, file());
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    sandbox.dispose();
  });

  it('as pi-planner wrote it: validate warns about the Goal and exits 0', () => {
    assert.doesNotMatch(fs.readFileSync(file(), 'utf8'), /## Goal/);
    const r = validate();
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(
      r.stdout,
      `.pi/plans/${ID}.md:3: warning: add a "## Goal" section saying what the plan achieves (another tool proposed this plan; a plan submitted through Pi Plans needs it)\n1 plan file checked, 0 problems, 1 warning.\n`,
    );
  });

  it('after pi_plan_step update through the tools (which gives every step its id): still a warning, exit 0', async () => {
    client = await sandbox.connect();
    const r = await call('pi_plan_step', { id: ID, op: 'update', step: 'S002', text: 'Send the payment reminder email' });
    assert.ok(!r.isError, textOf(r));
    const text = fs.readFileSync(file(), 'utf8');
    assert.match(text, /^status: proposed$/m, 'still proposed: an edit is not a submit');
    assert.match(text, /^1\. \[ \] S001 /m, 'the steps have their ids now');
    assert.match(text, /^2\. \[ \] S002 Send the payment reminder email/m);
    const v = validate('--json');
    assert.equal(v.status, 0, v.stdout + v.stderr);
    const j = JSON.parse(v.stdout) as { errors: number; warnings: number; problems: { severity: string; code: string }[] };
    assert.deepEqual([j.errors, j.warnings], [0, 1]);
    assert.deepEqual(j.problems.map((p) => [p.severity, p.code]), [['warning', 'missing-section']]);
    // pi_plan_get reports it the same way.
    assert.match(textOf(await call('pi_plan_get', { id: ID })), /Problems: line 3: add a "## Goal" section .*another tool proposed this plan/);
  });

  it('a plan submitted through the tools without a Goal is refused at submit; a Goal removed after the submit is an error (exit 1)', async () => {
    client = await sandbox.connect();
    const id = idIn(textOf(await call('pi_plan_create', { title: 'No goal yet', steps: [{ text: 'a' }] })));
    let r = await call('pi_plan_submit', { id });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /is not ready for review; it stays a draft\. Fix: add a "## Goal" section/);
    assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), /^status: draft$/m);
    // With a Goal it goes through; then someone deletes the Goal by hand.
    await call('pi_plan_update', { id, goal: 'Ship it' });
    r = await call('pi_plan_submit', { id });
    assert.ok(!r.isError, textOf(r));
    fs.writeFileSync(sandbox.planFile(id), fs.readFileSync(sandbox.planFile(id), 'utf8').replace('## Goal\nShip it\n\n', ''));
    fs.rmSync(file()); // the pi-planner plan: this test is about ours
    const v = validate();
    assert.equal(v.status, 1, v.stdout + v.stderr);
    assert.equal(v.stdout, `.pi/plans/${id}.md:3: add a "## Goal" section saying what the plan achieves\n1 plan file checked, 1 problem.\n`);
  });
});
