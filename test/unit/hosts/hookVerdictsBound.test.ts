// The hook's verdict cache stays within HOOK_VERDICTS_KEPT files (src/hosts/hook/verdict.ts): when a
// new plan's verdict is written past the bound, the verdicts written longest ago go, down to 1,800 (a cache: a
// verdict gone is checked again); a verdict rewritten adds no file and removes none; only its own
// names go, and a link planted in it is removed itself, never its target.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HOOK_VERDICTS_KEPT, hookVerdictName, verdictCache } from '../../../src/hosts/hook/verdict';

describe('the hook verdict cache is bounded', function () {
  this.timeout(60_000);
  let home: string;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  const root = '/ws/bounded';
  beforeEach(() => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verdicts-bound-')));
    env = { ...process.env, PI_PLANS_CACHE_DIR: path.join(home, 'cache'), XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_STATE_DIR: path.join(home, 'state') };
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'approval-key.pem'), 'a key file');
    dir = path.join(home, 'cache', 'hook-verdicts');
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  const id = (i: number) => `PLAN-${i.toString(16).padStart(8, '0')}`;

  it(`keeps the newest ${HOOK_VERDICTS_KEPT} when new plans' verdicts come; a rewrite adds nothing`, () => {
    const cache = verdictCache(root, env);
    assert.ok(typeof cache === 'object', String(cache));
    for (let i = 0; i < HOOK_VERDICTS_KEPT; i++) cache.put(id(i), 'a'.repeat(64), { state: 'changed' });
    // Written one after another within milliseconds: their ages set apart, the first the oldest.
    for (let i = 0; i < HOOK_VERDICTS_KEPT; i++) {
      const t = new Date(Date.now() - (HOOK_VERDICTS_KEPT - i) * 1000);
      fs.utimesSync(path.join(dir, hookVerdictName(root, id(i))), t, t);
    }
    const outside = path.join(home, 'precious.json');
    fs.writeFileSync(outside, 'keep me');
    const planted = path.join(dir, 'f'.repeat(40) + '.json');
    fs.symlinkSync(outside, planted);
    const old = new Date(Date.now() - 10 * 86_400_000);
    fs.lutimesSync(planted, old, old);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a verdict');
    cache.put(id(5), 'b'.repeat(64), { state: 'invalid' }); // a rewrite: no file added, none removed
    assert.equal(fs.readdirSync(dir).length, HOOK_VERDICTS_KEPT + 2);
    const own = () => fs.readdirSync(dir).filter((n) => /^[0-9a-f]{40}\.json$/.test(n));
    for (let i = HOOK_VERDICTS_KEPT; i < HOOK_VERDICTS_KEPT + 50; i++) {
      cache.put(id(i), 'a'.repeat(64), { state: 'changed' });
      assert.ok(own().length <= HOOK_VERDICTS_KEPT, `${own().length} verdict files after ${id(i)}`);
    }
    const names = new Set(fs.readdirSync(dir));
    // The first new one went past the bound: the oldest went, down to 1,800; the other 49 came after.
    assert.equal(own().length, 1800 + 49);
    assert.ok(!names.has(path.basename(planted)), 'the oldest entry, a planted link, went first (the link itself)');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'keep me');
    assert.ok(names.has('notes.txt'), 'not its name: left');
    // 202 went (the link, then ids 0 to 201 but the rewritten 5, newer now); the rest and every new one stayed.
    for (const i of [0, 1, 4, 6, 201, 202]) assert.equal(names.has(hookVerdictName(root, id(i))), i === 202, id(i));
    for (const i of [5, 203, HOOK_VERDICTS_KEPT - 1, HOOK_VERDICTS_KEPT, HOOK_VERDICTS_KEPT + 49]) assert.ok(names.has(hookVerdictName(root, id(i))), `${id(i)} should stay`);
    assert.deepEqual(cache.get(id(HOOK_VERDICTS_KEPT + 49), 'a'.repeat(64)), { state: 'changed' });
  });
});
