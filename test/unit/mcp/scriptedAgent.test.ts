// Agents that follow the hints (issue 39): scripted agents over MCP (the SDK's client, the built
// server) that make only the calls the results name, on a git workspace where each step writes its
// own file; a person decides at a terminal meanwhile. They count calls, characters read back,
// refusals and polls that returned nothing, and check every step's evidence.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parsePlan, readChangedLine } from '../../../src/core';
import { counted, followNext, newTally, Tally, ToolCaller } from '../../helpers/scriptedAgent';
import { digestIn, personSync } from '../../helpers/person.mjs';
import { CLI, ensureBuilt, idIn, Sandbox, textOf } from './serverProcess';

const fileOf = (step: string) => `work/${step.toLowerCase()}.txt`;

/** Resolves once `file` matches `re`, woken by its folder's changes (a generous deadline fails it). */
function fileSays(file: string, re: RegExp, ms = 60_000): Promise<void> {
  const says = () => re.test(fs.readFileSync(file, 'utf8'));
  return new Promise((resolve, reject) => {
    const watcher = fs.watch(path.dirname(file), () => says() && done());
    const timer = setTimeout(() => done(new Error(`${path.basename(file)} did not come to match ${re} within ${ms} ms`)), ms);
    const done = (e?: Error) => {
      watcher.close();
      clearTimeout(timer);
      if (e) reject(e);
      else resolve();
    };
    if (says()) done();
  });
}

describe('scripted agents that follow every "Next:" over MCP (a git workspace, a person at a terminal)', function () {
  this.timeout(120_000);
  let sandbox: Sandbox;
  const clients: Client[] = [];
  before(ensureBuilt);
  beforeEach(() => {
    sandbox = new Sandbox();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: sandbox.root, stdio: 'ignore' });
    git('init', '-q');
    fs.writeFileSync(path.join(sandbox.root, 'README.md'), 'base\n');
    git('add', '-A');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'base');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    sandbox.dispose();
  });

  /** An agent: its own server process (its own session), the review wait on. */
  async function agent(tally: Tally, who: string): Promise<ToolCaller> {
    const client = await sandbox.connect(['--review-wait', '60']);
    clients.push(client);
    return counted(async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      return { text: textOf(r), refused: r.isError === true };
    }, tally, who);
  }

  /** The step's work: its own file, written into the workspace. */
  const work = (step: string) => {
    fs.mkdirSync(path.join(sandbox.root, 'work'), { recursive: true });
    fs.writeFileSync(path.join(sandbox.root, fileOf(step)), `${step}\n`);
  };

  /**
   * The person: each time the plan is proposed at a new version, decides at a terminal; `decide`
   * says what (the first decision is for the first proposal). Stops when `stop` is called.
   */
  function person(id: () => string | undefined, decide: (n: number) => { approve: true } | { reject: string }): { stop: () => void; decisions: () => number } {
    let seen = -1;
    let n = 0;
    const timer = setInterval(() => {
      const plan = id();
      if (!plan || !fs.existsSync(sandbox.planFile(plan))) return;
      const doc = parsePlan(fs.readFileSync(sandbox.planFile(plan), 'utf8'));
      if (doc.fm.status !== 'proposed' || doc.fm.version === seen) return;
      seen = doc.fm.version;
      const d = decide(n++);
      if ('approve' in d) {
        const shown = spawnSync(process.execPath, [CLI, '--root', sandbox.root, 'show', plan], { encoding: 'utf8', env: sandbox.env() }).stdout;
        const r = personSync(CLI, ['--root', sandbox.root, 'approve', plan, '--digest', digestIn(shown)], { env: sandbox.env() });
        assert.equal(r.status, 0, r.stdout);
      } else {
        const r = spawnSync(process.execPath, [CLI, '--root', sandbox.root, 'reject', plan, '--feedback', d.reject, '--seen-version', String(doc.fm.version)], { encoding: 'utf8', env: sandbox.env() });
        assert.equal(r.status, 0, r.stderr);
      }
    }, 100);
    return { stop: () => clearInterval(timer), decisions: () => n };
  }

  /** Every step's `> Changed:` line names its own file; a file of another step only on a line that names that step as run alongside. */
  function evidenceIsEachSteps(id: string): void {
    const doc = parsePlan(fs.readFileSync(sandbox.planFile(id), 'utf8'));
    for (const s of doc.steps) {
      const c = readChangedLine(s.record?.Changed ?? '');
      assert.ok(c.recorded, `${s.id}: ${s.record?.Changed}`);
      const files = c.shown.map((f) => f.path);
      assert.ok(files.includes(fileOf(s.id)), `${s.id} names its own file: ${s.record?.Changed}`);
      for (const f of files.filter((x) => x !== fileOf(s.id))) {
        const owner = doc.steps.find((o) => fileOf(o.id) === f)!.id;
        assert.ok(c.alongside.includes(owner), `${s.id} names ${f} (${owner}'s) without saying ${owner} ran alongside: ${s.record?.Changed}`);
      }
    }
  }

  it('the shortest path: a 5-step plan from create to completed in 8 calls and under 3,500 characters, with every step\'s own file as its evidence', async () => {
    const tally = newTally();
    const call = await agent(tally, 'A');
    let id: string | undefined;
    const reviewer = person(() => id, () => ({ approve: true }));
    try {
      const created = await call('pi_plan_create', { title: 'Five files', goal: 'Write five files', verification: ['they exist'], steps: [1, 2, 3, 4, 5].map((i) => ({ text: `Write work/s00${i}.txt` })) });
      id = idIn(created.text);
      const last = await followNext(call, created.text, id, { work });
      assert.match(last, /status: completed/);
    } finally {
      reviewer.stop();
    }
    assert.deepEqual(tally.refused, []);
    assert.ok(tally.calls <= 8, `${tally.calls} calls:\n${tally.log.join('\n')}`);
    assert.ok(tally.chars <= 3500, `${tally.chars} characters`);
    evidenceIsEachSteps(id);
    console.log(`      5-step lifecycle: ${tally.calls} calls, ${tally.chars} characters`);
  });

  it('a rejection round: the feedback is acted on, the plan resubmitted, approved and run, with no refused call', async () => {
    const tally = newTally();
    const call = await agent(tally, 'A');
    let id: string | undefined;
    const reviewer = person(() => id, (n) => (n === 0 ? { reject: 'Add a step that writes work/s004.txt' } : { approve: true }));
    try {
      const created = await call('pi_plan_create', { title: 'Three files', goal: 'Write files', verification: ['they exist'], steps: [1, 2, 3].map((i) => ({ text: `Write work/s00${i}.txt` })) });
      id = idIn(created.text);
      const plan = id;
      const last = await followNext(call, created.text, plan, {
        work,
        // The script reads the feedback in the result and does what it asks.
        revise: (text) => (/Add a step that writes work\/s004\.txt/.test(text) ? [{ name: 'pi_plan_step', args: { id: plan, op: 'add', text: 'Write work/s004.txt' } }] : []),
      });
      assert.match(last, /status: completed/);
    } finally {
      reviewer.stop();
    }
    assert.equal(reviewer.decisions(), 2);
    assert.deepEqual(tally.refused, []);
    const doc = parsePlan(fs.readFileSync(sandbox.planFile(id), 'utf8'));
    assert.deepEqual(doc.steps.map((s) => s.id), ['S001', 'S002', 'S003', 'S004']);
    evidenceIsEachSteps(id);
    console.log(`      rejection round: ${tally.calls} calls, ${tally.chars} characters`);
  });

  it('two agents on a 2-wave, 6-step plan: at most 16 calls in all, none refused, no poll that returned nothing; each step\'s evidence is its own or says which step ran alongside', async () => {
    const tally = newTally();
    const [a, b] = [await agent(tally, 'A'), await agent(tally, 'B')];
    let id: string | undefined;
    const reviewer = person(() => id, () => ({ approve: true }));
    try {
      const steps = [1, 2, 3, 4, 5, 6].map((i) => ({ text: `Write work/s00${i}.txt`, depends_on: i <= 3 ? 'none' : `S00${i - 3}` }));
      const created = await a('pi_plan_create', { title: 'Two waves', goal: 'Six files', verification: ['they exist'], steps });
      id = idIn(created.text);
      const plan = id;
      // A plans, submits and starts, then works; B is told the plan's id and asks for a step (waiting until one can start).
      const runA = followNext(a, created.text, plan, { work });
      const runB = (async () => {
        await fileSays(sandbox.planFile(plan), /^status: executing$/m);
        const first = await b('pi_plan_execute', { id: plan, op: 'next', wait: true });
        return followNext(b, first.text, plan, { work });
      })();
      await Promise.all([runA, runB]);
    } finally {
      reviewer.stop();
    }
    assert.match(fs.readFileSync(sandbox.planFile(id), 'utf8'), /^status: completed$/m);
    assert.deepEqual(tally.refused, []);
    assert.equal(tally.emptyPolls, 0, tally.log.join('\n'));
    assert.ok(tally.calls <= 16, `${tally.calls} calls:\n${tally.log.join('\n')}`);
    evidenceIsEachSteps(id);
    // Both agents worked: the claims name two sessions.
    const holders = new Set([...fs.readFileSync(sandbox.planFile(id), 'utf8').matchAll(/> Claimed: (\S+) at /g)].map((m) => m[1]));
    assert.equal(holders.size, 2, [...holders].join(', '));
    console.log(`      two agents: ${tally.calls} calls, ${tally.chars} characters`);
  });
});
