// Listed means readable: the index (what pi_plan_list, resources/list and `pi-plans list` show)
// applies the reader's limits, so a plan it lists as valid is one `pi_plan_get` reads, and a plan
// the reader refuses is listed invalid with the reader's own reason and line.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPlanError, LIMITS } from '../../../src/core';
import { nodePorts } from '../../../src/node';
import { PlanStore, type IndexCachePort } from '../../../src/store';
import { memoryPorts } from '../../helpers/memoryPorts';

const ID = 'PLAN-0000c0de';
const ROOT = '/ws';
const FILE = `${ROOT}/.pi/plans/${ID}.md`;

/** A hand-written plan: a draft with a goal, two steps and a ## Context of `contextChars` characters (written by hand: no tool capped it). */
function handWritten(contextChars: number): string {
  const line = 'Background for the change, pasted from the design document.\n';
  return [
    '---',
    `id: ${ID}`,
    'title: Hand-written plan',
    'status: draft',
    'version: 1',
    'created_at: 2026-01-01T00:00:00.000Z',
    'updated_at: 2026-01-01T00:00:00.000Z',
    '---',
    '',
    '## Goal',
    'Ship it.',
    '',
    '## Steps',
    '1. [ ] S001 Build it',
    '2. [ ] S002 Test it',
    '',
    '## Context',
    line.repeat(Math.ceil(contextChars / line.length)),
  ].join('\n');
}

/** The reader's refusal of a plan (what pi_plan_get and resources/read answer). */
async function refusalOf(read: Promise<unknown>) {
  try {
    await read;
  } catch (e) {
    assert.ok(isPlanError(e), String(e));
    return e;
  }
  return assert.fail('the read succeeded');
}

describe('store: listed means readable (the index applies the reader\'s limits)', () => {
  it('a hand-written plan with a 60 KB ## Context is listed invalid with the reason and line, and reads fail with the same message', async () => {
    const mp = memoryPorts();
    const text = handWritten(60 * 1024);
    mp.fs.put(FILE, text);
    const store = await PlanStore.open(ROOT, mp.ports);
    const [entry] = store.list();
    assert.equal(entry.id, ID);
    assert.equal(entry.valid, false, 'not listed as a valid draft');
    const refused = await refusalOf(store.read(ID));
    assert.match(refused.message, /^## Context is \d+ characters, over the 51200-character limit \(50 KB\): move large context into a file under \.pi\/plans\/artifacts\//);
    assert.deepEqual(entry.error, { code: refused.code, message: refused.message, line: refused.details.line, rule: 'context-too-large' });
    assert.equal(entry.error?.line, 17, 'the ## Context heading');
    // Shortened under the cap (the fix the message names), it is listed valid and reads.
    mp.advance(1000);
    mp.fs.put(FILE, handWritten(40 * 1024));
    await store.fileChanged(FILE);
    assert.equal(store.entry(ID)?.valid, true);
    assert.equal((await store.read(ID)).fm.id, ID);
  });

  it('on the real disk, as the CLI and the MCP server build the index (files read with their stats in one pass)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-listed-'));
    try {
      fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
      fs.writeFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), handWritten(60 * 1024));
      const store = await PlanStore.open(root, nodePorts(root, { indexCache: false }));
      const refused = await refusalOf(store.read(ID));
      assert.deepEqual(store.entry(ID)?.error, { code: 'TOO_LARGE', message: refused.message, line: 17, rule: 'context-too-large' });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('an index persisted before the check (which listed such a plan valid) is not trusted: the file is read again', async () => {
    const mp = memoryPorts();
    mp.fs.put(FILE, handWritten(60 * 1024));
    const st = (await mp.fs.stat(FILE))!;
    // What the previous format saved for it: a valid draft, with the file's very size and time.
    const stale = { file: `${ID}.md`, id: ID, steps: 2, stepsDone: 0, size: st.size, mtimeMs: st.mtimeMs, valid: true, title: 'Hand-written plan', status: 'draft', version: 1, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
    let saved: string | undefined = JSON.stringify({ format: 2, dir: `${ROOT}/.pi/plans`, entries: [stale] });
    const cache: IndexCachePort = { load: async () => saved, save: async (parts) => void (saved = [...parts].join('')) };
    const store = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
    assert.equal(store.entry(ID)?.valid, false);
    assert.equal(store.entry(ID)?.error?.rule, 'context-too-large');
    // The index saved now is trusted on the next start, and says the same.
    await store.saveIndexCache();
    const again = await PlanStore.open(ROOT, { ...mp.ports, indexCache: cache });
    assert.deepEqual([again.entry(ID)?.valid, again.entry(ID)?.error], [false, store.entry(ID)?.error]);
  });

  it('the Context cap is the reader\'s to the character: what reads is listed valid, one character more is listed invalid with the reader\'s message', async () => {
    // The reader measures the parsed section with its line breaks (the pre-scan, trimmed): 51,198
    // characters and the two line breaks around them are the most that reads.
    const at = (chars: number) => handWritten(0).replace(/## Context\n[^]*$/, `## Context\n${'c'.repeat(chars)}\n`);
    for (const [chars, valid] of [[LIMITS.contextBytes - 2, true], [LIMITS.contextBytes - 1, false], [LIMITS.contextBytes + 1, false]] as const) {
      const mp = memoryPorts();
      mp.fs.put(FILE, at(chars));
      const store = await PlanStore.open(ROOT, mp.ports);
      assert.equal(store.entry(ID)?.valid, valid, `${chars} characters`);
      if (valid) assert.equal((await store.read(ID)).fm.id, ID);
      else assert.equal(store.entry(ID)?.error?.message, (await refusalOf(store.read(ID))).message, `${chars} characters`);
    }
  });
});
