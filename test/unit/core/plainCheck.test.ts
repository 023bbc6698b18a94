// A step's check read with no parse (src/core/rules/checks.ts `plainCheckIn`): where it answers, it
// answers as remark's parse (`checkIn`) does, on random items full of what Markdown reads otherwise
// (code, emphasis, links, HTML, entities, escapes, quotes, lists, fences, setext underlines,
// lazy and over-indented lines, tabs, invisible characters, Windows line ends); steps as the store
// writes them take it.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { createPlanText, parsePlan } from '../../../src/core';
import { checkIn, plainCheckIn, stepCheck } from '../../../src/core/rules/checks';

const HEADERS = ['1. [ ] S001 Run the tests', '10. [x] S010 Ship it', '- [ ] S002 *blocked* Wait', '1. [ ] S003 Use `npm`', '1.  [ ] S004 Wide', '1.\t[ ] S005 Tab', '* [ ] S006 a_b_c', '1. [ ] S007 Fetch www.example.com', '2) [ ] S008 Fix <b>', '1. [ ] S009 x *', '1. [ ] S011 &amp; more'];
const COMMANDS = ['npm test', 'npm run build && npm test', 'grep -r x src | wc -l', 'echo ok > out.txt', 'npm test -- *.ts', 'run_all', '`npm test`', 'echo &amp;', 'echo \\* ok', 'open <https://x.y>', 'see [docs](https://d.e)', 'curl https://example.com/a_(b)', 'ping www.example.com', 'mail a@b.co', 'echo ok \u2067;touch x \u2066#\u2069\u2069', 'echo\u00a0ok', 'a ~~b~~ c', 'x!', 'echo "a & b"', 'test  '];
const OTHER = ['Edit src/x.ts and keep the names.', 'then look at the output', '- a sub item', '> a quote', '```', '~~~', '1. nested', '===', '---', '<!-- note -->', 'a | b', '| - |', '    indented code', '[x]: /u', 'Text with *emphasis', 'and* more', 'plain words', ''];

const line = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('verify: ', 'Verify:', 'VERIFY:  '), fc.constantFrom(...COMMANDS)).map(([k, c]) => k + c) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER.slice(0, 2), 'plain words', '') },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER) },
);
// Mostly what the store writes (a plain header, details at the item's indent), so that many items take the no-parse road.
const header = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HEADERS.slice(0, 3)) }, { weight: 1, arbitrary: fc.constantFrom(...HEADERS) });
const indent = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('   ', '    ') }, { weight: 1, arbitrary: fc.constantFrom('', ' ', '  ', '     ', '      ', '       ', '\t', '   \t') });
const item = fc
  .tuple(header, fc.array(fc.tuple(indent, line), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([h, rest, crlf]) => [h, ...rest.map(([i, l]) => (l ? i + l : ''))].join(crlf ? '\r\n' : '\n'));

describe('a step check read with no parse', function () {
  this.timeout(60_000);

  it('answers as the parse does wherever it answers, and answers for many items', () => {
    let answered = 0;
    fc.assert(
      fc.property(item, (src) => {
        const plain = plainCheckIn(src);
        if (plain === null) return;
        answered++;
        assert.equal(plain, checkIn(src), JSON.stringify(src));
      }),
      { numRuns: 5000, seed: 30 },
    );
    assert.ok(answered >= 500, `answered ${answered} of 5000`);
  });

  it('reads the checks of steps as the store writes them without a parse: a 1,000-step plan with a check per step', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i + 1}: move module ${i}`, details: `Edit src/module${i}/reader.ts: keep the names.\nverify: npm test -- module${i} && echo done | tee log.txt` }));
    const plan = parsePlan(createPlanText({ id: 'PLAN-0000c0de', title: 'Checked', goal: 'G', steps, context: 'C' }, '2026-11-22T10:00:00.000Z'));
    for (const [i, s] of plan.steps.entries()) {
      assert.equal(plainCheckIn(s.checkSource!), `npm test -- module${i} && echo done | tee log.txt`);
      assert.equal(stepCheck(s), checkIn(s.checkSource!));
    }
  });

  it('leaves to the parse what only a parse can read', () => {
    for (const src of ['1. [ ] S001 a\n   verify: `npm test`', '1. [ ] S001 a\n   verify: npm *test*', '1. [ ] S001 a\n   > verify: npm test', '1. [ ] S001 a\n       verify: npm test', '1. [ ] S001 a\n\tverify: npm test', '1. [ ] S001 a\n   verify: npm test\n   ===', '1. [ ] S001 *a\n   verify: npm test*']) {
      assert.equal(plainCheckIn(src), null, JSON.stringify(src));
    }
  });
});
