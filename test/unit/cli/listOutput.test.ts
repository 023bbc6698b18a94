// `pi-plans list --json` writes its rows a slice at a time (issue 40: the list of 10,000 plans as
// one 3.6 MB string, and its bytes on their way out, were a tenth of the command's peak memory),
// and what it writes is byte for byte what one JSON.stringify of the rows wrote.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { outJsonArray } from '../../../src/cli/cliContext';
import { runCli } from '../../../src/cli/main';

describe('pi-plans list --json writes its rows a slice at a time', function () {
  this.timeout(60_000);

  it('the same text as one JSON.stringify(rows, null, 2), in pieces of at most a slice of rows', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ id: `PLAN-${i}`, title: `A "quoted"\ntitle ${i}`, nested: { steps: [i, { done: i % 2 === 0 }] }, none: undefined, ...(i % 3 ? { attention: 'stale' } : {}) }));
    for (const [items, slice] of [[rows, 256], [rows.slice(0, 1), 256], [rows.slice(0, 256), 256], [rows.slice(0, 257), 256], [rows, 7], [[], 256]] as const) {
      const pieces: string[] = [];
      outJsonArray({ out: (s) => pieces.push(s), err: () => undefined }, items, (x) => x, slice);
      assert.equal(pieces.join(''), `${JSON.stringify(items, null, 2)}\n`, `${items.length} rows by ${slice}`);
      if (items.length > slice) assert.ok(pieces.length > items.length / slice, `${items.length} rows by ${slice}: ${pieces.length} pieces`);
    }
  });

  it('the list of a folder: the rows with their flags, as before, in several pieces', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-list-out-'));
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-list-out-cache-'));
    const saved = process.env.PI_PLANS_CACHE_DIR;
    process.env.PI_PLANS_CACHE_DIR = cache;
    try {
      const plans = path.join(root, '.pi', 'plans');
      fs.mkdirSync(plans, { recursive: true });
      for (let i = 0; i < 600; i++) {
        const id = `PLAN-${i.toString(16).padStart(8, '0')}`;
        const status = i % 2 ? 'approved' : 'proposed';
        fs.writeFileSync(path.join(plans, `${id}.md`), ['---', `id: ${id}`, `title: Plan ${i}`, `status: ${status}`, 'version: 2', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-02T00:00:00.000Z', '---', '', '## Goal', 'Make it work', '', '## Steps', '1. [ ] S001 first', ''].join('\n'));
      }
      const pieces: string[] = [];
      const code = await runCli(['--root', root, 'list', '--json'], { out: (s) => pieces.push(s), err: () => undefined });
      assert.equal(code, 0);
      const rows = JSON.parse(pieces.join('')) as { id: string; status: string; attention?: string }[];
      assert.equal(rows.length, 600);
      assert.equal(pieces.join(''), `${JSON.stringify(rows, null, 2)}\n`);
      assert.deepEqual(new Set(rows.map((r) => `${r.status}:${r.attention}`)), new Set(['proposed:stale', 'approved:unapproved']));
      assert.ok(pieces.length > 2, `${pieces.length} pieces`);
      assert.ok(Math.max(...pieces.map((p) => p.length)) < JSON.stringify(rows, null, 2).length / 2, 'no piece holds the whole list');
    } finally {
      if (saved === undefined) delete process.env.PI_PLANS_CACHE_DIR;
      else process.env.PI_PLANS_CACHE_DIR = saved;
      process.exitCode = 0;
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
