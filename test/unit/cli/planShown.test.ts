// The plan a person reads at a terminal before approving, a screen at a time (src/cli/planShown).
import { strict as assert } from 'node:assert';
import { paged, printable } from '../../../src/cli/planShown';

describe('the approval reading at a terminal: paged, and shown as written', () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
  async function read(rows: number | undefined, answers: string[]): Promise<{ out: string; asked: string[] }> {
    let out = '';
    const asked: string[] = [];
    await paged(lines, (s) => (out += s), async (q) => (asked.push(q), answers.shift() ?? ''), rows);
    return { out, asked };
  }

  it('fits, or no terminal height: everything at once, nothing asked', async () => {
    for (const rows of [undefined, 0, 80]) {
      const r = await read(rows, []);
      assert.equal(r.out, lines.join('\n') + '\n');
      assert.deepEqual(r.asked, []);
    }
  });

  it('longer than the terminal: a screen, then Enter for the next, "a" for the rest, "s" straight to the question', async () => {
    const enter = await read(22, ['', '', '']);
    assert.equal(enter.out, lines.join('\n') + '\n', 'every line, in order');
    assert.deepEqual(enter.asked, ['-- 30 more lines: Enter for the next page, a for all, s to skip to the question -- ', '-- 10 more lines: Enter for the next page, a for all, s to skip to the question -- ']);
    const all = await read(22, ['a']);
    assert.equal(all.out, lines.join('\n') + '\n');
    assert.equal(all.asked.length, 1);
    const skip = await read(22, ['s']);
    assert.equal(skip.out, lines.slice(0, 20).join('\n') + '\n');
  });

  it('control characters and bidirectional controls are written out, not obeyed by the terminal', () => {
    assert.equal(printable('a\u001b[2Kb\rc\u202Ed\n'), 'a\\x1b[2Kb\\x0dc\\u{202e}d\n');
  });
});
