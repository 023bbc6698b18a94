/**
 * One measurement in a process of its own (bundled by bench.ts and run with plain node), so each
 * figure comes with that process's peak memory and nothing of another measurement's heap or JIT.
 * Prints one JSON line. Modes:
 *   loaded                          nothing: the peak memory of Node with our code loaded
 *   index <root> [cacheDir|-] [worker [async]]  PlanStore.open: the cold index, or the warm start
 *                                   from cacheDir; with the worker script, its thread helps (as in
 *                                   the CLI); `async`: the extension host's ports (no synchronous I/O)
 *   setup <root> <steps> [outlines] a new approved, executing <steps>-step plan (its id printed):
 *                                   what an agent's earlier calls (another process) did
 *   update <root> <id> <runs> [outlines]  step updates on that plan, each followed by a bare write
 *                                   of the same bytes through the same file API (so both see the
 *                                   same machine), with the store opened for named plans only, as
 *                                   the CLI and the MCP server do; then 15 updates each by a store
 *                                   of its own (a process's first update, as one CLI command);
 *                                   [outlines]: their cache of outlines (without it the process
 *                                   parses the plan once)
 *   explorer <root> <cacheDir> <worker>  the explorer's index as the extension host builds it (its
 *                                   ports: no synchronous I/O, the worker reads the files, the index
 *                                   kept in cacheDir), then its attention pass over every plan an
 *                                   approval governs or that may be stalled or stale: each timed
 *   inflight <root> <id> <n> [outlines]  n step updates of that plan one after another, then n at
 *                                   once on the same store (an MCP client that does not wait for
 *                                   its answers), three rounds: the totals and each call's median
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { approve, contentDigest, markStep, startExecution } from '../src/core';
import { fileIndexCache, NodeFileSystem, nodePorts, OffThreadParser, PersistedOutlines } from '../src/node';
import { PlanStore } from '../src/store';

const [mode, root, ...rest] = process.argv.slice(2);
const plans = path.join(root, '.pi', 'plans');
const peakMb = () => process.resourceUsage().maxRSS / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const print = (o: object): void => {
  process.stdout.write(JSON.stringify({ peakMb: peakMb(), ...o }) + '\n');
};

async function main(): Promise<void> {
  if (mode === 'loaded') return print({});
  if (mode === 'index') {
    const cacheDir = rest[0] && rest[0] !== '-' ? rest[0] : undefined;
    const helper = rest[1] && rest[1] !== '-' ? new OffThreadParser(rest[1]) : undefined;
    const ports = {
      ...nodePorts(root, { indexCache: false, blocking: rest[2] !== 'async' }),
      ...(cacheDir ? { indexCache: fileIndexCache(root, cacheDir) } : {}),
      ...(helper ? { parser: helper, indexHelper: helper } : {}),
    };
    const t = performance.now();
    const store = await PlanStore.open(root, ports);
    const ms = performance.now() - t;
    helper?.dispose();
    const mem = process.memoryUsage();
    (globalThis as { gc?: () => void }).gc?.();
    const after = process.memoryUsage();
    const mb = (m: NodeJS.MemoryUsage) => ({ rss: Math.round(m.rss / 1e6), heap: Math.round(m.heapUsed / 1e6), total: Math.round(m.heapTotal / 1e6), ext: Math.round(m.external / 1e6), ab: Math.round(m.arrayBuffers / 1e6) });
    return print({ ms, plans: store.list().length, ...(process.env.BENCH_MEM ? { mem: mb(mem), afterGc: mb(after) } : {}) });
  }
  if (mode === 'explorer') {
    const [cacheDir, worker] = rest;
    const helper = new OffThreadParser(worker);
    const t = performance.now();
    const store = await PlanStore.open(root, { ...nodePorts(root, { indexCache: false, blocking: false }), indexCache: fileIndexCache(root, cacheDir), parser: helper, indexHelper: helper });
    const openMs = performance.now() - t;
    // As WorkspacePlans.computeAttention does it.
    const t2 = performance.now();
    const flagged: Record<string, number> = {};
    for (const flag of await store.attentionOfAll(store.list({ status: ['executing', 'proposed', 'approved', 'stalled', 'failed'] }))) {
      if (flag) flagged[flag] = (flagged[flag] ?? 0) + 1;
    }
    const attentionMs = performance.now() - t2;
    helper.dispose();
    return print({ openMs, attentionMs, plans: store.list().length, flagged });
  }
  const open = (outlines?: string) => PlanStore.openForPlans(root, { ...nodePorts(root, { indexCache: false }), ...(outlines ? { parser: new PersistedOutlines(outlines) } : {}) });
  if (mode === 'setup') {
    const n = Number(rest[0]);
    const store = await open(rest[1]);
    const steps = Array.from({ length: n }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: i % 3 ? 'Details of the change.' : undefined }));
    const id = (await store.create({ title: `A ${n}-step plan`, goal: 'Measure updates.', steps, verification: ['tests pass'], status: 'proposed' }, 'agent')).fm.id;
    await store.update(id, 'user', (d, c) => approve(d, { digest: contentDigest(d) }, c), { sign: true });
    await store.update(id, 'agent', (d, c) => startExecution(d, c));
    return print({ id });
  }
  if (mode === 'update') {
    const id = rest[0];
    const runs = Number(rest[1] ?? 60);
    const store = await open(rest[2]);
    const n = (await store.read(id)).steps.length;
    const bareTarget = path.join(plans, `.bench-bare-${process.pid}.txt`);
    try {
      const nfs = new NodeFileSystem();
      const statuses = ['in_progress', 'blocked'] as const;
      /** One update by `s` of a step chosen by `i` (spread over the plan; the status alternates, so every update changes the file). */
      const timed = async (s: PlanStore, i: number, spread: number, note: string) => {
        const step = `S${String(1 + ((i * spread) % n)).padStart(3, '0')}`;
        const t0 = performance.now();
        await s.update(id, 'agent', (d, c) => markStep(d, step, statuses[i % 2], c, `${note} ${i}`));
        return { whole: performance.now() - t0, locked: s.lastUpdateTimings.locked, early: s.lastUpdateTimings.earlyUsed };
      };
      const run: { whole: number; locked: number; early: boolean }[] = [];
      const bare: number[] = [];
      let scratch = Buffer.alloc(0);
      for (let i = 0; i < runs; i++) {
        run.push(await timed(store, i, 37, 'note'));
        // The bytes just written, read into one buffer kept for the run: the harness adds no
        // allocation of its own to the process's peak memory.
        const fd = fs.openSync(store.pathOf(id), 'r');
        const size = fs.fstatSync(fd).size;
        if (scratch.length < size) scratch = Buffer.allocUnsafe(2 * size);
        const bytes = scratch.subarray(0, fs.readSync(fd, scratch, 0, size, 0));
        fs.closeSync(fd);
        const t1 = performance.now();
        await nfs.writeFileAtomic(bareTarget, bytes);
        bare.push(performance.now() - t1);
      }
      // The peak of a process doing those updates (what follows opens 15 stores more).
      const runPeakMb = peakMb();
      // A process's first update of the plan (one CLI command): a store of its own each time,
      // which reads the plan before the lock instead of starting from a write of its own.
      const first: { whole: number; locked: number; early: boolean }[] = [];
      for (let i = 0; i < 15; i++) first.push(await timed(await open(rest[2]), i, 53, 'first'));
      print({
        steps: n,
        bytes: fs.statSync(store.pathOf(id)).size,
        locked: median(run.map((r) => r.locked)),
        whole: median(run.map((r) => r.whole)),
        bare: median(bare),
        firstLocked: median(first.map((r) => r.locked)),
        firstWhole: median(first.map((r) => r.whole)),
        earlyUsed: [...run, ...first].filter((r) => r.early).length,
        updates: run.length + first.length,
        peakMb: runPeakMb,
      });
    } finally {
      for (const f of [store.pathOf(id), bareTarget, path.join(plans, 'sessions', `${id}.jsonl`)]) fs.rmSync(f, { force: true });
    }
    return;
  }
  if (mode === 'inflight') {
    const id = rest[0];
    const n = Number(rest[1] ?? 100);
    const store = await open(rest[2]);
    const steps = (await store.read(id)).steps.length;
    const statuses = ['in_progress', 'blocked'] as const;
    // The status alternates and the note differs, so every update changes the file.
    const mark = (i: number, note: string) => store.update(id, 'agent', (d, c) => markStep(d, `S${String(1 + ((i * 37) % steps)).padStart(3, '0')}`, statuses[i % 2], c, `${note} ${i}`));
    const sequential: number[] = [];
    const inflight: number[] = [];
    const calls: number[] = [];
    try {
      for (let round = 0; round < 3; round++) {
        let t = performance.now();
        for (let i = 0; i < n; i++) await mark(i, 'one by one');
        sequential.push(performance.now() - t);
        t = performance.now();
        const each = await Promise.all(
          Array.from({ length: n }, async (_, i) => {
            const t0 = performance.now();
            await mark(i, 'in flight');
            return performance.now() - t0;
          }),
        );
        inflight.push(performance.now() - t);
        calls.push(median(each));
      }
      const versions = (await store.read(id)).fm.version;
      print({ n, sequential: median(sequential), inflight: median(inflight), ratio: median(inflight) / median(sequential), medianCall: median(calls), versions });
    } finally {
      for (const f of [store.pathOf(id), path.join(plans, 'sessions', `${id}.jsonl`)]) fs.rmSync(f, { force: true });
    }
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
