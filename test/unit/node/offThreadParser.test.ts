import { sealedByUser } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { bodyOf, computeOutline, hasOutline, isPlanError, knownRefusal, markStep, parsePlan, PlanError, setContentBodies } from '../../../src/core';
import { revisePlan } from '../../../src/service';
import { nodePorts, OffThreadParser } from '../../../src/node';
import { PlanStore } from '../../../src/store';

/** A plan of about `kb` KB with hostile Markdown in its step details (fences, nested lists, HTML). */
function bigPlan(id: string, kb: number, salt = ''): string {
  let body = `\n## Goal\nStay responsive ${salt}\n\n## Steps\n`;
  for (let i = 1; body.length < kb * 1024; i++) {
    const n = String(i).padStart(3, '0');
    body += `${i}. [ ] S${n} Step ${i} with \`code\` and *emphasis* (edit: change → src/f${i}.ts)\n   - nested ${i}\n\n     indented under it\n   <div>html ${i}</div>\n\n   ${'Details that explain the step at length. '.repeat(4)}\n`;
    if (i % 50 === 0) body += '   ```\n   a fence that is closed\n   ```\n';
  }
  return `---\nid: ${id}\ntitle: "Large"\nstatus: executing\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n${body}`;
}

describe('OffThreadParser: Markdown parses of large plans on a worker thread', function () {
  this.timeout(60_000);
  let dir: string;
  let script: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-parser-'));
    script = path.join(dir, 'outlineWorker.js');
    // The same entry point the extension ships as dist/outlineWorker.js.
    await esbuild.build({ entryPoints: ['src/node/ports/outlineWorker.ts'], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'error' });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prepare computes the outline on the worker: it equals a parse here, and the parse that follows finds it cached', async () => {
    const parser = new OffThreadParser(script);
    try {
      const text = bigPlan('PLAN-0000aaaa', 40, 'a');
      const body = bodyOf(text)!;
      assert.equal(hasOutline(body), false);
      await parser.prepare(text);
      assert.equal(hasOutline(body), true, 'the worker\'s outline is cached on this thread');
      assert.deepEqual(parsePlan(text).outline, computeOutline(body));
      assert.ok(parsePlan(text).steps.length > 100);
    } finally {
      parser.dispose();
    }
  });

  it('small plans and texts without frontmatter are left to the caller; a broken worker changes nothing but speed', async () => {
    const parser = new OffThreadParser(script, 4096);
    const small = bigPlan('PLAN-0000bbbb', 1, 'b');
    await parser.prepare(small);
    assert.equal(hasOutline(bodyOf(small)!), false);
    await parser.prepare('no frontmatter '.repeat(1000));
    parser.dispose();
    const broken = new OffThreadParser(path.join(dir, 'missing.js'));
    const text = bigPlan('PLAN-0000cccc', 20, 'c');
    await broken.prepare(text); // resolves: the worker failed to start
    assert.equal(hasOutline(bodyOf(text)!), false);
    assert.ok(parsePlan(text).steps.length > 50, 'the parse on this thread still works');
    broken.dispose();
  });

  it('an idle worker ends (its memory is given back) and the next request starts another; requests in time keep it', async () => {
    // Kept: requests one after the other, well within the idle time, go to one worker.
    const keeping = new OffThreadParser(script, 2048, undefined, 60_000);
    try {
      await keeping.prepare(bigPlan('PLAN-0000eeee', 20, 'e1'));
      await keeping.prepare(bigPlan('PLAN-0000eeee', 20, 'e2'));
      assert.deepEqual([keeping.running, keeping.started], [true, 1]);
    } finally {
      keeping.dispose();
    }
    assert.equal(keeping.running, false);
    // Ended: with a short idle time the worker goes, and the next request starts another, whose
    // answer arrives (the old worker's exit settles nothing of the new one's).
    const parser = new OffThreadParser(script, 2048, undefined, 50);
    try {
      await parser.prepare(bigPlan('PLAN-0000eeee', 20, 'e3'));
      await parser.idleEnd(); // the test's timeout is the deadline
      assert.equal(parser.running, false, 'ended once idle');
      const b = bigPlan('PLAN-0000eeee', 20, 'e4');
      await parser.prepare(b);
      assert.equal(hasOutline(bodyOf(b)!), true);
      assert.equal(parser.started, 2);
    } finally {
      parser.dispose();
    }
  });

  it('a store with the parser port (no synchronous I/O) reads and updates a large plan exactly as one without it', async () => {
    const root = path.join(dir, 'ws');
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    const id = 'PLAN-0000dddd';
    // Executing on a person's approval: the record this test's person signs for it.
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${id}.md`), await sealedByUser(bigPlan(id, 60, 'd'), root));
    const parser = new OffThreadParser(script);
    try {
      const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false, blocking: false }), parser });
      const doc = await store.read(id);
      assert.deepEqual(doc.outline, computeOutline(doc.body));
      const { doc: after } = await store.update(id, 'agent', (d, c) => markStep(d, 'S007', 'done', c, 'ok'));
      const fresh = parsePlan(fs.readFileSync(path.join(root, '.pi', 'plans', `${id}.md`), 'utf8'), undefined, { fresh: true });
      assert.deepEqual(after.steps.map((s) => [s.id, s.status]), fresh.steps.map((s) => [s.id, s.status]));
      assert.equal(fresh.steps[6].status, 'done');
      assert.equal(fresh.steps[6].note, 'ok');
      // A whole-Markdown replacement of the executing plan: its revision's body is parsed on the worker.
      const md = after.body.replace('Stay responsive d', 'Stay responsive, revised');
      assert.ok(setContentBodies(after, md)[0].length > 2048);
      const { revision } = await revisePlan({ store }, id, md, {}, { actor: 'agent' });
      assert.ok(revision);
      assert.deepEqual(revision.outline, computeOutline(revision.body));
      assert.equal(revision.steps[6].status, 'done', 'the done step carried over');
      assert.match(revision.body, /Stay responsive, revised/);
    } finally {
      parser.dispose();
    }
  });

  describe('refusals and the time budget: the thread that asked never parses a body the worker refused, failed on or overran', () => {
    /** A stand-in worker: bodies with HANG never finish, CRASH ends the thread, others get an empty outline. */
    let stub: string;
    before(() => {
      stub = path.join(dir, 'stubWorker.js');
      fs.writeFileSync(
        stub,
        `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.index) return parentPort.postMessage({ id: m.id, entries: [] });
  parentPort.postMessage({ id: m.id, begun: true });
  if (m.body.includes('HANG')) for (;;) {}
  if (m.body.includes('CRASH')) process.exit(3);
  parentPort.postMessage({ id: m.id, outline: { sections: [], stepsSection: -1, steps: [] } });
});
`,
      );
    });

    /** The refusal parsePlan throws for `text`. */
    const refusalOf = (text: string): PlanError => {
      try {
        parsePlan(text);
      } catch (e) {
        assert.ok(isPlanError(e));
        return e;
      }
      assert.fail('parsePlan read it');
    };

    it('a body the worker\'s scan refuses is remembered as refused before any parse here; the parse throws it at once, with its line in the file', async () => {
      const parser = new OffThreadParser(script);
      try {
        const text = bigPlan('PLAN-0000f001', 8, 'f1').replace('## Steps', `Deep:\n\n${'> '.repeat(50)}x\n\n## Steps`);
        const body = bodyOf(text)!;
        await parser.prepare(text);
        assert.equal(hasOutline(body), false);
        assert.equal(knownRefusal(body)?.rule, 'markdown-quote-depth', 'the worker\'s refusal, remembered on this thread');
        const e = refusalOf(text);
        assert.equal(e.details.rule, 'markdown-quote-depth');
        assert.equal(e.details.line, text.split('\n').findIndex((l) => l.startsWith('> > >')) + 1);
        // Asked again: nothing is sent (the refusal is known).
        await parser.prepare(text);
        assert.equal(parser.started, 1);
      } finally {
        parser.dispose();
      }
    });

    it('a parse over the deadline ends the worker: the body is refused (markdown-timeout), a request queued behind it goes to a new worker', async () => {
      const failures: Error[] = [];
      const parser = new OffThreadParser(stub, 2048, (e) => failures.push(e), 60_000, 200);
      try {
        const hang = bigPlan('PLAN-0000f002', 20, 'HANG');
        const next = bigPlan('PLAN-0000f003', 20, 'f3');
        await Promise.all([parser.prepare(hang), parser.prepare(next)]);
        const e = refusalOf(hang);
        assert.equal(e.details.rule, 'markdown-timeout');
        assert.equal(e.code, 'TOO_LARGE');
        assert.match(e.message, /took over 0\.2 s to parse and was stopped: split the plan/);
        assert.equal(hasOutline(bodyOf(hang)!), false, 'never parsed here');
        assert.equal(hasOutline(bodyOf(next)!), true, 'answered by the next worker');
        assert.equal(parser.started, 2);
        assert.ok(failures.some((f) => /took over 200 ms/.test(f.message)));
        // The refused text again: refused at once, nothing sent.
        await parser.prepare(hang);
        assert.equal(parser.started, 2);
        assert.equal(refusalOf(hang).details.rule, 'markdown-timeout');
      } finally {
        parser.dispose();
      }
    });

    it('a worker that dies on a body: that body is refused, never parsed here; the worker is replaced', async () => {
      const parser = new OffThreadParser(stub, 2048, () => undefined, 60_000, 5_000);
      try {
        const crash = bigPlan('PLAN-0000f004', 20, 'CRASH');
        const after = bigPlan('PLAN-0000f005', 20, 'f5');
        await Promise.all([parser.prepare(crash), parser.prepare(after)]);
        assert.equal(refusalOf(crash).details.rule, 'markdown-parse-failed');
        assert.equal(hasOutline(bodyOf(after)!), true);
        assert.equal(parser.started, 2);
      } finally {
        parser.dispose();
      }
    });

    it('a store with the parser port refuses the read of a plan the worker overran, with the reason, and reads others', async () => {
      const root = path.join(dir, 'ws-refused');
      fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
      fs.writeFileSync(path.join(root, '.pi', 'plans', 'PLAN-0000f006.md'), bigPlan('PLAN-0000f006', 20, 'HANG again').replace('status: executing', 'status: draft'));
      fs.writeFileSync(path.join(root, '.pi', 'plans', 'PLAN-0000f007.md'), bigPlan('PLAN-0000f007', 1, 'small').replace('status: executing', 'status: draft'));
      const parser = new OffThreadParser(stub, 2048, () => undefined, 60_000, 200);
      try {
        const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false, blocking: false }), parser });
        await assert.rejects(store.read('PLAN-0000f006'), (e: unknown) => isPlanError(e) && e.details.rule === 'markdown-timeout' && e.details.file === '.pi/plans/PLAN-0000f006.md');
        // Again: the same refusal, at once (the worker is not asked again).
        await assert.rejects(store.read('PLAN-0000f006'), (e: unknown) => isPlanError(e) && e.details.rule === 'markdown-timeout');
        assert.equal(parser.started, 1);
        assert.equal((await store.read('PLAN-0000f007')).fm.id, 'PLAN-0000f007');
      } finally {
        parser.dispose();
      }
    });
  });
});
