// Several agents executing one plan at once (issue 31): 4 processes, each an MCP client of its own
// `pi-plans mcp` server on one workspace, call pi_plan_execute op=next and mark what they get
// done, on a 40-step plan of 4 waves. Every step is done exactly once, each after the steps it
// waits for, as the plan's checkpoint log (ordered by version: the order of the writes) shows.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, ensureBuilt, idIn, Sandbox, textOf } from './serverProcess';
import { personSync } from '../../helpers/person.mjs';

const sid = (n: number) => `S${String(n).padStart(3, '0')}`;

/** 4 waves of 10 steps; a step of wave w > 0 waits for two steps of wave w - 1. */
function steps(): { text: string; details: string }[] {
  return Array.from({ length: 40 }, (_, i) => {
    const wave = Math.floor(i / 10);
    const deps = wave === 0 ? [] : [sid((wave - 1) * 10 + (i % 10) + 1), sid((wave - 1) * 10 + ((i + 3) % 10) + 1)];
    return { text: `step ${i + 1} of wave ${wave + 1}`, details: `after: ${deps.join(', ') || 'none'}` };
  });
}

function runWorker(sandbox: Sandbox, id: string): Promise<{ got: string[]; waited: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'nextWorker.mjs'), CLI, sandbox.root, id], { env: sandbox.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`worker exited ${code}: ${err.slice(-2000)}`))));
  });
}

describe('pi_plan_execute op=next: 4 agents in 4 processes on one plan, through the MCP server', function () {
  this.timeout(180_000);
  let sandbox: Sandbox;
  before(ensureBuilt);
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.dispose());

  it('every step of a 40-step, 4-wave plan is done exactly once, in dependency order', async () => {
    const client = await sandbox.connect();
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', sandbox.root, ...args], { encoding: 'utf8', env: sandbox.env() });
    let id: string;
    let starter: string;
    try {
      const created = await client.callTool({ name: 'pi_plan_create', arguments: { title: 'Four waves', goal: 'Run in parallel', verification: ['all done'], steps: steps() } });
      id = idIn(textOf(created));
      await client.callTool({ name: 'pi_plan_submit', arguments: { id } });
      const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(cli('show', id).stdout)![1];
      const approved = personSync(CLI, ['--root', sandbox.root, 'approve', id, '--digest', digest], { env: sandbox.env() });
      assert.equal(approved.status, 0, approved.stderr);
      const started = textOf(await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'start' } }));
      // The session that starts is handed the first step; this one only starts the plan, so it lets the step go (back to pending, nobody's).
      starter = /^S001 is yours now \(claimed for (pi-plans-test-[0-9a-f]{8}), in progress\)\.$/m.exec(started)![1];
      assert.match(started, /Runnable now: S002, S003, .*S010\./);
      assert.match(started, /Waves \(steps that can run together\): S001 S002 S003 S004 S005 S006 S007 S008 S009 S010 \| S011 /);
      const released = await client.callTool({ name: 'pi_plan_execute', arguments: { id, op: 'mark', step: 'S001', status: 'pending' } });
      assert.notEqual(released.isError, true, textOf(released));
      assert.doesNotMatch(fs.readFileSync(sandbox.planFile(id), 'utf8'), /> Claimed:/);
    } finally {
      await client.close();
    }
    const results = await Promise.all([0, 1, 2, 3].map(() => runWorker(sandbox, id)));
    const all = results.flatMap((r) => r.got);
    assert.equal(all.length, 40, `steps given: ${JSON.stringify(results)}`);
    assert.equal(new Set(all).size, 40, 'a step was given twice');
    // More than one agent did work: the plan ran in parallel.
    assert.ok(results.filter((r) => r.got.length > 0).length >= 2, JSON.stringify(results));
    const text = fs.readFileSync(sandbox.planFile(id), 'utf8');
    assert.match(text, /^status: completed$/m);
    // The order of the writes: each step went in progress after every step it waits for was done.
    const log = fs
      .readFileSync(path.join(sandbox.root, '.pi', 'plans', 'sessions', `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; step?: string; status?: string; version: number; session?: string })
      // The workers' marks (the starter's session only took S001 and let it go).
      .filter((c) => c.type === 'step' && c.session !== starter)
      .sort((a, b) => a.version - b.version);
    const at = (step: string, status: string) => log.filter((c) => c.step === step && c.status === status).map((c) => c.version);
    steps().forEach((s, i) => {
      const me = sid(i + 1);
      assert.equal(at(me, 'in_progress').length, 1, `${me} claimed ${at(me, 'in_progress').length} times`);
      assert.equal(at(me, 'done').length, 1, `${me} done ${at(me, 'done').length} times`);
      for (const dep of /after: (.*)/.exec(s.details)![1].split(', ').filter((d) => d !== 'none')) {
        assert.ok(at(dep, 'done')[0] < at(me, 'in_progress')[0], `${me} claimed at v${at(me, 'in_progress')[0]} before ${dep} was done (v${at(dep, 'done')[0]})`);
      }
    });
  });
});
