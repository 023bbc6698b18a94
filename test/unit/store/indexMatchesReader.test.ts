// The index entry of a plan file is invalid exactly when the reader refuses the file, and then
// with the reader's code, message, line and rule: on every pathological Markdown family, on the
// corpus of plans written by other tools and by hand, on each limit the reader applies to the body
// (section caps, steps, step text, duplicate ids), and on random bodies built from their pieces.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { bodyOf, frontmatterHeadEnd, isPlanError, knownOutline, LIMITS, parsePlan, type PlanError } from '../../../src/core';
import { indexEntryFor } from '../../../src/store/planIndex';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from '../../helpers/pathologicalMarkdown';

const CORPUS = path.join(__dirname, '..', '..', 'fixtures', 'corpus');
const DEFAULT_ID = 'PLAN-0000beef';
const stat = { size: 0, mtimeMs: 0 };

/** What the reader (the store's read: a parse, then the file name's id) says of a text: undefined when it reads, else its refusal (`id` for the id check's). */
function readerRefusal(text: string, file: string): PlanError | 'id' | undefined {
  try {
    const doc = parsePlan(text);
    // A text that reads: its body starts where the index takes it to.
    assert.equal(frontmatterHeadEnd(text), doc.block.bodyStart, 'the body starts after the head\'s closing line');
    return doc.fm.id === file.slice(0, -3) ? undefined : 'id';
  } catch (e) {
    assert.ok(isPlanError(e), `not a PlanError: ${(e as Error)?.stack ?? e}`);
    return e;
  }
}

/** Holds the index entry of `text` to the reader's verdict, and to its reason when it refuses; true when refused. The entry is made first: no cache of the reader's helps it. */
function holdsToReader(text: string, what: string): boolean {
  const id = /^id: (PLAN-[0-9a-f]{8})\r?$/m.exec(text)?.[1] ?? DEFAULT_ID;
  const file = `${id}.md`;
  const entry = indexEntryFor(file, new TextEncoder().encode(text), { ...stat, size: text.length });
  const refused = readerRefusal(text, file);
  const why = refused === 'id' ? 'its id' : refused?.message;
  assert.equal(entry.valid, refused === undefined, `${what}: listed ${entry.valid ? 'valid' : `invalid (${entry.error?.message})`}, ${refused ? `refused by the reader (${why})` : 'read by the reader'}`);
  if (refused && refused !== 'id') {
    assert.deepEqual(entry.error, { code: refused.code, message: refused.message, line: refused.details.line, ...(refused.details.rule ? { rule: refused.details.rule } : {}) }, what);
  }
  return !entry.valid;
}

/** A plan text around `body`, with the test plan's head. */
function plan(body: string, eol = '\n'): string {
  return ['---', `id: ${DEFAULT_ID}`, 'title: "Limits"', 'status: draft', 'version: 1', 'created_at: 2026-01-01T00:00:00.000Z', 'updated_at: 2026-01-01T00:00:00.000Z', '---', ''].join(eol) + body;
}

/** About `chars` characters of context prose, in lines. */
const prose = (chars: number) => 'Background, as written by hand for the reviewer.\n'.repeat(Math.ceil(chars / 49));
/** A plan whose ## Context (headed by `heading`) holds `inside` and about 60 KB of prose, then a ## Goal and steps. */
const bigContext = (heading: string, inside: string) => plan(`${heading}\n${prose(30_000)}${inside}\n${prose(30_000)}\n## Goal\nG\n\n## Steps\n${steps(['S001'])}\n`);

const steps = (ids: string[], indent = '') => ids.map((id, i) => `${indent}${i + 1}. [ ] ${id} Step ${i + 1}`).join('\n');

describe('index entries agree with the reader: invalid iff the reader refuses, with its reason and line', () => {
  // Bodies under the Context cap, decided by the reader's pre-scan and the step lines.
  for (const where of ['alone', 'in a list item', 'in a quote']) {
    it(`pathological Markdown, every family ${where}: listed invalid iff the reader refuses, with its reason`, () => {
      const families = PATHOLOGICAL_FAMILIES.filter((f) => (where === 'alone' ? f.name === f.base : f.name.endsWith(`, ${where}`)));
      assert.equal(families.length, PATHOLOGICAL_FAMILIES.length / 3);
      let refused = 0;
      for (const family of families) for (const chars of [2048, 24 * 1024]) if (holdsToReader(planWithMarkdown(family.make(chars)), `${family.name}, ${chars} characters`)) refused++;
      assert.ok(refused > 10 && refused < 2 * families.length - 10, `both verdicts are met: ${refused} of ${2 * families.length} refused`);
    });
  }

  const corpus = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.md')).map((f): [string, string] => [f, fs.readFileSync(path.join(CORPUS, f), 'utf8')]);
  const refusedCases: [string, string][] = [
    ['a ## Context of 60 KB', plan(`## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n## Context\n${'context line\n'.repeat(5000)}`)],
    ['a ## Context under the cap, its blank lines past it (the parse measures them)', plan(`## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n## Context\n${'c'.repeat(45_000)}${'\n'.repeat(7000)}`)],
    ['a 60 KB ## Context with "## " lines in a fenced code block (no headings)', bigContext('## Context', '```md\n## Not a heading\n# Nor this\n```')],
    ['a 60 KB ## Context with "## " lines in a fence of a list item in it', bigContext('## Context', '- an item\n  ~~~\n  ## In the item\'s code\n  ~~~')],
    ['a 60 KB ## Context with a line like a fence that is none (a backtick in its info), then a fence', bigContext('## Context', '```a`b\n```\n## in the fence')],
    ['a 60 KB ## Context with "## " lines in an HTML block', bigContext('## Context', '<div>\n## Not a heading\n</div>')],
    ['a 60 KB ## Context with "## " lines in an HTML comment', bigContext('## Context', '<!--\n\n## Not a heading\n\n-->')],
    ['a 60 KB ## Context with a "## " line ending an HTML comment', bigContext('## Context', '<!--\n## Not a heading -->')],
    ['a 60 KB ## *Context* (emphasis in the heading)', bigContext('## *Con*text', '')],
    ['a 60 KB ## Context spelled with a character reference', bigContext('## C&#111;ntext', '')],
    ['a 60 KB ## Context with a code span in the heading', bigContext('## Con`text`', '')],
    ['a 60 KB ## [Context](x) heading', bigContext('## [Context](https://example.com/x)', '')],
    ['a 60 KB setext Context heading', bigContext('Context\n-------', '')],
    ['a 60 KB ## Context indented by three blanks', bigContext('   ## Context', '')],
    ['a 60 KB ## Context, its closing sequence', bigContext('## Context ##', '')],
    ['a ## Goal over its cap', plan(`## Goal\n${'g'.repeat(LIMITS.section + 10)}\n\n## Steps\n${steps(['S001'])}\n`)],
    ['a step id used twice', plan(`## Goal\nG\n\n## Steps\n${steps(['S001', 'S002', 'S003', 'S002'])}\n`)],
    ['a step id used twice, out of order', plan(`## Goal\nG\n\n## Steps\n${steps(['S003', 'S001', 'S003'])}\n`)],
    ['a step id twice, the items indented', plan(`## Goal\nG\n\n## Steps\n${steps(['S001', 'S001'], '   ')}\n`)],
    ['a step text over its cap', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 ${'t'.repeat(LIMITS.stepText + 1)}\n`)],
    ['steps over the cap, indented one blank (the quick count sees none)', plan(`## Goal\nG\n\n## Steps\n${Array.from({ length: LIMITS.steps + 1 }, (_, i) => ` - step ${i}`).join('\n')}\n`)],
    ['a lone CR between two items of one id (a line break to the parser)', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 One\r2. [ ] S001 Two\n`)],
    ['CRLF line ends, an id twice', plan(`## Goal\r\nG\r\n\r\n## Steps\r\n1. [ ] S001 One\r\n2. [ ] S001 Two\r\n`, '\r\n')],
    ['a NUL byte in the body', plan(`## Goal\nG\0\n\n## Steps\n${steps(['S001'])}\n`)],
    ['a merge conflict in the body', plan(`## Goal\nG\n\n## Steps\n<<<<<<< HEAD\n${steps(['S001'])}\n=======\n${steps(['S002'])}\n>>>>>>> other\n`)],
    ...corpus.filter(([f]) => f.startsWith('conflict')),
  ];
  const readCases: [string, string][] = [
    ['a ## Context under the cap in a body over it', plan(`## Context\n${'c'.repeat(40_000)}\n\n## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n## Notes\n${'n'.repeat(40_000)}\n`)],
    ['a 60 KB ## Contextual notes (another section), then the ## Context', plan(`## Contextual notes\n${prose(60_000)}\n## Context\n${prose(1000)}\n## Goal\nG\n\n## Steps\n${steps(['S001'])}\n`)],
    ['a 60 KB ## Context in a list item (not a section)', plan(`## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n## Notes\n- ## Context\n${prose(60_000).replace(/^/gm, '  ')}\n## Risks\n- none\n`)],
    ['ids as written, out of order, none twice', plan(`## Goal\nG\n\n## Steps\n${steps(['S003', 'S001', 'S002', 'S0001'])}\n`)],
    ['an id twice in a nested list of a step\'s details (not steps)', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 One\n   - [ ] S001 a detail\n   - [ ] S001 another\n2. [ ] S002 Two\n`)],
    ['ids twice outside the Steps section', plan(`## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n## Notes\n- S001 here\n- S001 there\n`)],
    ['a step text at its cap', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 ${'t'.repeat(LIMITS.stepText)}\n`)],
    ['a long line in a step\'s details (not its text)', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 One\n   ${'d'.repeat(LIMITS.stepText + 100)}\n`)],
    ['a step whose line is over the text cap with its annotation, its text under it', plan(`## Goal\nG\n\n## Steps\n1. [ ] S001 ${'t'.repeat(LIMITS.stepText - 10)} (edit: update → src/a.ts)\n`)],
    ['steps at the cap', plan(`## Goal\nG\n\n## Steps\n${Array.from({ length: LIMITS.steps }, (_, i) => `- step ${i}`).join('\n')}\n`)],
    ...corpus.filter(([f]) => !f.startsWith('conflict')),
  ];

  it('every refusal of the reader (body limits, steps, ids, text, and the corpus\'s merge conflicts) is listed invalid with its reason and line', () => {
    for (const [what, text] of refusedCases) assert.equal(holdsToReader(text, what), true, what);
  });

  it('what the reader reads is listed valid (the plans of the corpus, and the cheap checks\' false alarms, which the index parses)', () => {
    for (const [what, text] of readCases) assert.equal(holdsToReader(text, what), false, what);
  });

  it('large plans that read are listed without a Markdown parse: 1,000 steps with a Context, and a plan at the size cap', () => {
    const thousand = plan(`## Goal\nG\n\n## Context\n${prose(20_000)}\n## Steps\n${Array.from({ length: 1000 }, (_, i) => `${i + 1}. [ ] S${String(i + 1).padStart(4, '0')} Change module ${i} (edit: update → src/m${i}.ts)`).join('\n')}\n\n## Risks\nNone.\n`);
    const atCap = plan(`## Goal\n${'g'.repeat(1000)}\n\n## Steps\n${Array.from({ length: 200 }, (_, i) => `${i + 1}. [ ] S${String(i + 1).padStart(3, '0')} Step ${i} ${'y'.repeat(200)}\n   ${'z'.repeat(400)}`).join('\n')}\n\n## Context\n${'c'.repeat(40_000)}\n`);
    for (const [what, text] of [['1,000 steps', thousand], ['at the size cap', atCap]]) {
      assert.ok(text.length > LIMITS.contextBytes + 20_000 && text.length < LIMITS.fileBytes, `${what}: ${text.length}`);
      const entry = indexEntryFor('PLAN-0000beef.md', new TextEncoder().encode(text), stat);
      assert.equal(entry.valid, true, `${what}: ${entry.error?.message}`);
      // A parse would have left the body's outline in the reader's cache.
      assert.equal(knownOutline(bodyOf(text)!), undefined, `${what}: listed without a Markdown parse`);
      assert.equal(parsePlan(text).fm.id, 'PLAN-0000beef');
    }
  });

  it('random bodies over the Context cap: fences, HTML, definitions, lists and headings of every kind around a ## Context', () => {
    const heading = fc.constantFrom('## Context', '## context', '## *Context*', '## C&#111;ntext', 'Context\n---', '   ## Context', '## Goal', '## Notes', '# Top', '### Context', '#Context', '## Contexts');
    const inside = fc.constantFrom('```\n## in code\n```', '~~~~\n## in code\n~~~\n## still code\n~~~~', '```a`b\n## heading after a false fence', '<div>\n## in html\n</div>', '<!--\n\n## in a comment\n-->', '<script>\n## x\n</script>', '[ref]: /url \'\n## in a title\n\'', '- item\n  ```\n  ## item code\n  ```', '- item\n  ```\n  code\nafter the item\n```\n## in a fence the item\'s did not close', '> quote\n## after a quote', '  ```\n## maybe code\n```', '', 'Prose.\n');
    const chunk = fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 2_000, max: 25_000 }).map(prose) }, { weight: 2, arbitrary: heading }, { weight: 2, arbitrary: inside });
    const seen = { refused: 0, read: 0 };
    fc.assert(
      fc.property(heading, fc.integer({ min: 20_000, max: 50_000 }).map(prose), fc.array(chunk, { minLength: 2, maxLength: 10 }), (first, text, rest) => {
        const chunks = [first, text, ...rest];
        const body = `## Goal\nG\n\n## Steps\n${steps(['S001'])}\n\n${chunks.join('\n')}\n`;
        if (body.length <= LIMITS.contextBytes || body.length > LIMITS.fileBytes - 400) return;
        seen[holdsToReader(plan(body), JSON.stringify(chunks.map((c) => (c.length > 200 ? `<${c.length} characters>` : c)))) ? 'refused' : 'read']++;
      }),
      { numRuns: 80 },
    );
    assert.ok(seen.refused > 5 && seen.read > 5, JSON.stringify(seen));
  });

  it('random bodies of steps, headings, fences, long sections and pathological Markdown', () => {
    const id = fc.constantFrom('', 'S001 ', 'S002 ', 'S003 ', 'S0001 ', 'S01 ', 'S001');
    const stepLine = fc.record({
      indent: fc.constantFrom('', ' ', '  ', '   ', '    ', '\t'),
      marker: fc.constantFrom('1.', '2)', '-', '*', '+', '10.', '1234567890.'),
      box: fc.constantFrom('', '[ ] ', '[x] ', '[X] ', '[ ]'),
      id,
      text: fc.oneof(fc.constantFrom('Do it', '*blocked* Wait', 'Edit (edit: update → src/a.ts)'), fc.integer({ min: LIMITS.stepText - 12, max: LIMITS.stepText + 12 }).map((n) => 't'.repeat(n))),
    }).map((s) => `${s.indent}${s.marker} ${s.box}${s.id}${s.text}`);
    const heading = fc.constantFrom('## Steps', '## steps', '## Context', '## Goal', '## Risks', '# Top', '## Notes', 'Context\n---', '## *Context*', '### Steps');
    const block = fc.oneof(
      fc.integer({ min: LIMITS.section - 50, max: LIMITS.section + 50 }).map((n) => 'r'.repeat(n)),
      fc.integer({ min: 100, max: 4000 }).map((n) => `${'line of text\n'.repeat(n)}`.trimEnd()),
      fc.constantFrom(...PATHOLOGICAL_FAMILIES.map((f) => f.name)).chain((name) => fc.constantFrom(1024, 4096).map((n) => PATHOLOGICAL_FAMILIES.find((f) => f.name === name)!.make(n).trimEnd())),
    );
    const piece = fc.oneof({ weight: 6, arbitrary: stepLine }, { weight: 3, arbitrary: heading }, { weight: 2, arbitrary: fc.constantFrom('', '```', '> quoted', 'Prose.', '   - nested') }, { weight: 1, arbitrary: block });
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 40 }), fc.constantFrom('\n', '\r\n'), (pieces, eol) => {
        const body = pieces.join('\n').replace(/\n/g, eol);
        if (body.length > LIMITS.fileBytes - 400) return;
        holdsToReader(plan(body, eol), JSON.stringify(body.slice(0, 300)));
      }),
      { numRuns: 200 },
    );
  });
});
