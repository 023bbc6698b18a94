/**
 * The Markdown pre-scan's whole output on a fixed set of texts, one JSON line per case, for the
 * golden test (test/unit/core/markdownScanGolden.test.ts): every pathological family (base, in a
 * list item, in a quote) at four sizes, alone and as a plan body, with the plan's budget, the
 * editor's and none; each family's work per weight (one weight at 1, the others 0); ordinary
 * plans (LF and CRLF); section caps; and seeded random soups of tricky lines. A change to the scan
 * that changes any refusal, line, message or count changes a line here.
 *   npx tsx test/helpers/markdownScanGolden.ts --write    rewrites the golden file (only when a change is meant)
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bodyOf, createPlanText, inspectMarkdown, LIMITS, MARKDOWN_WEIGHTS, type MarkdownWeights, type ScanOptions } from '../../src/core';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from './pathologicalMarkdown';

/** Where the golden output lives. */
export const GOLDEN_FILE = path.resolve(__dirname, '..', 'fixtures', 'markdownScan.golden.jsonl');

const AT = '2026-11-22T10:00:00.000Z';
const SIZES = [2048, 16 * 1024, LIMITS.fileBytes - 2048];
const WEIGHT_KEYS = Object.keys(MARKDOWN_WEIGHTS) as (keyof MarkdownWeights)[];
const ZERO = Object.fromEntries(WEIGHT_KEYS.map((k) => [k, 0])) as MarkdownWeights;

/** A short digest of a case's text: a line whose digest changed has another input, not another scan. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * One case's lines: what it is, and everything the scan returns for it with each of `opts` (an
 * output the same as the one before it on the same text is written `"= <its name>"`).
 */
function lines(what: string, text: string, opts: [string, ScanOptions][]): string[] {
  const out: string[] = [];
  let before: [string, string] | undefined;
  for (const [name, o] of opts) {
    const json = JSON.stringify(inspectMarkdown(text, o));
    out.push(JSON.stringify([what, text.length, digest(text), name, before?.[1] === json ? `= ${before[0]}` : JSON.parse(json)]));
    before = [name, json];
  }
  return out;
}

/** The work of `text` counted with each weight alone, no budget (in WEIGHT_KEYS' order): which construct is counted where, and how often. */
function perWeight(what: string, text: string): string {
  return JSON.stringify([what, text.length, digest(text), 'per weight', WEIGHT_KEYS.map((k) => inspectMarkdown(text, { work: Infinity, weights: { ...ZERO, [k]: 1 } }).counts.work)]);
}

const PLAN: [string, ScanOptions][] = [['plan body', { sections: true }]];
const EDITOR: [string, ScanOptions][] = [
  ['render', { work: LIMITS.markdown.renderWork }],
  ['no budget', { work: Infinity }],
];
const BODY: [string, ScanOptions][] = [
  ['plan body', { sections: true }],
  ['sections, no budget', { sections: true, work: Infinity }],
];

/** A small seeded generator (mulberry32): the same soups every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Line heads: the containers and indentation a soup line may start with. */
const HEADS = ['', '', '', ' ', '  ', '   ', '    ', '\t', '> ', '>', '> > ', '- ', '* ', '+ ', '1. ', '2) ', '- > ', '> - ', '  - ', '    - ', '   > ', '1. - ', '-\t'];
/** Line bodies: each construct the scan decides on, and its near misses. */
const BODIES = [
  '',
  'text',
  'plain words of a paragraph',
  '*a* _b_ **c** __d__ ~e~ ~~f~~',
  '*a*b*c* a_b_c snake_case_name',
  '[a](b) [c][d] ![e](f) [^1]',
  '[[[ ]]]',
  '\\* \\[ &amp; &#42; <b>x</b>',
  '`a` ``b`` ```c``` `unclosed',
  // Code span runs at the edge of the lengths the scan remembers (up to 30), each twice.
  `${'`'.repeat(29)}a${'`'.repeat(30)} ${'`'.repeat(31)}b${'`'.repeat(30)}`,
  '```',
  '```js',
  '``` a ` b',
  '~~~',
  '~~~~ md',
  '````',
  '# heading',
  '## Goal',
  '## Context',
  '## Steps',
  '## Risks ##',
  '## *Goal*',
  '#nospace',
  '###### six',
  '=',
  '===',
  '-',
  '---',
  '- - -',
  '***',
  '_ _ _',
  '| a | b |',
  '| --- | :-: |',
  '|-|-|-|',
  'a | b',
  '--- | ---',
  '[d]: /url',
  '[^f]: note',
  '[d]: /url "title"',
  '<div>',
  '</div>',
  '<!-- comment',
  '-->',
  '<script>',
  '</script>',
  '<?php',
  '?>',
  '<!DOCTYPE html>',
  '<![CDATA[',
  ']]>',
  '<http://a.co>',
  '<b>inline</b> tag',
  'a\\',
  'line with trailing spaces  ',
  '1.',
  '10) ten',
  '1234567890. too long',
  '- [ ] task',
  '\ttabbed',
];

/** A soup: `n` lines of random heads and bodies, some CRLF. */
function soup(seed: number, n: number): string {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const crlf = r() < 0.2;
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.15 ? '' : pick(HEADS) + (r() < 0.3 ? pick(HEADS) : '') + pick(BODIES));
  return out.join(crlf ? '\r\n' : '\n') + (r() < 0.5 ? '\n' : '');
}

/** Ordinary plans: the sample workspace, the corpus, generated plans of several sizes; each also with CRLF line ends. */
function ordinaryPlans(): [string, string][] {
  const root = path.resolve(__dirname, '..', '..');
  const plans: [string, string][] = [];
  for (const dir of ['examples/.pi/plans', 'test/fixtures/corpus']) {
    for (const f of fs.readdirSync(path.join(root, dir)).sort()) if (f.endsWith('.md')) plans.push([`${dir}/${f}`, fs.readFileSync(path.join(root, dir, f), 'utf8')]);
  }
  for (const steps of [10, 200, 1000]) {
    plans.push([`${steps} steps`, createPlanText({ id: 'PLAN-00001000', title: 'Big', goal: 'g', steps: Array.from({ length: steps }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` })) }, AT)]);
    plans.push([
      `${steps} steps with details`,
      createPlanText({
        id: 'PLAN-00001001',
        title: 'Big',
        goal: 'Goal with *emphasis* and `code`.',
        context: 'Some context. '.repeat(200),
        steps: Array.from({ length: steps }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })),
      }, AT),
    ]);
  }
  return [...plans, ...plans.map(([n, t]): [string, string] => [`${n}, CRLF`, t.replace(/\r?\n/g, '\r\n')])];
}

/** Bodies at and over the sections' caps, and headings that are not surely headings. */
function sectionCases(): [string, string][] {
  const goal = 'A goal sentence that goes on. '.repeat(800);
  const context = 'Background that matters. '.repeat(2200);
  return [
    ['Goal over its cap', `## Goal\n${goal}\n\n## Steps\n1. [ ] S001 One\n`],
    ['Goal over its cap, setext', `Goal\n----\n${goal}\n`],
    ['Goal over its cap, indented heading', `   ## Goal\n${goal}\n`],
    ['Goal over its cap, quoted heading', `> ## Goal\n${goal}\n`],
    ['Goal over its cap, heading with inline syntax', `## *Goal*\n${goal}\n`],
    ['Goal over its cap, closing hashes', `## Goal ##\n${goal}\n`],
    ['Goal over its cap, after an open fence', `\`\`\`\n## Goal\n${goal}\n`],
    ['Goal over its cap, in a fenced step', `## Goal\nShort.\n\n## Steps\n1. [ ] S001 One\n   \`\`\`md\n## Goal\n${goal}\n   \`\`\`\n`],
    ['Goal over its cap, after an HTML block', `<div>\n## Goal\n${goal}\n`],
    ['Goal over its cap, after a comment', `<!-- a\n## Goal\n${goal}\n`],
    ['Goal over its cap, after a closed comment', `<!-- a -->\n\n## Goal\n${goal}\n`],
    ['Context over its cap', `## Goal\nShort.\n\n## Context\n${context}\n`],
    ['Context at its cap', `## Context\n${'c'.repeat(LIMITS.contextBytes)}\n`],
    ['Risks over its cap, then Steps', `## Risks\n${goal}\n## Steps\n- a\n`],
    // A line that may be a heading ends the piece before it (the Goal here), surely one or not.
    ['Goal, then an indented heading', `## Goal\nShort.\n   ## Steps\n${goal}\n`],
    ['Goal, then a heading indented four', `## Goal\nShort.\n    ## Steps\n${goal}\n`],
    ['Goal, then a quoted heading', `## Goal\nShort.\n> ## Steps\n${goal}\n`],
    ['Goal, then a setext heading', `## Goal\nShort.\nSteps\n-----\n${goal}\n`],
    ['Goal, then a heading with inline syntax', `## Goal\nShort.\n## *Steps*\n${goal}\n`],
    ['Goal, then a heading in a fence', `## Goal\nShort.\n\`\`\`\n## Steps\n\`\`\`\n${goal}\n`],
    ['Goal, then a heading after an HTML block', `## Goal\nShort.\n<div>\n## Steps\n${goal}\n`],
    ['Goal, then a heading after a script block', `## Goal\nShort.\n<script>\n## Steps\n</script>\n${goal}\n`],
    ['every capped section', ['Goal', 'Assumptions', 'Risks', 'Verification', 'Files', 'Context', 'Notes'].map((t) => `## ${t}\n${'x'.repeat(LIMITS.section + 10)}\n`).join('\n')],
  ];
}

/** A paragraph longer than a capped section may be. */
const LONG_PARAGRAPH = `${'A goal sentence that goes on. '.repeat(720)}\n`;

/** The golden output: one JSON line per case, in a fixed order. */
export function scanGolden(): string {
  const out: string[] = [JSON.stringify(['case', 'characters', 'sha-256 of the text (12 hex)', 'options', 'inspectMarkdown(text, options), or per weight: the work with each weight alone, in this order', WEIGHT_KEYS])];
  for (const family of PATHOLOGICAL_FAMILIES) {
    for (const chars of SIZES) {
      const md = family.make(chars);
      const what = `${family.name} @${chars}`;
      out.push(...lines(what, bodyOf(planWithMarkdown(md))!, PLAN), ...lines(what, md, EDITOR));
    }
    out.push(perWeight(`${family.name} @2048`, family.make(2048)));
  }
  for (const [name, text] of ordinaryPlans()) {
    const body = bodyOf(text) ?? text;
    out.push(...lines(name, body, BODY), perWeight(name, body));
  }
  for (const [name, body] of sectionCases()) out.push(...lines(name, body, BODY));
  for (let seed = 1; seed <= 400; seed++) {
    const text = soup(seed, 10 + (seed % 7) * 12);
    out.push(...lines(`soup ${seed}`, text, BODY), perWeight(`soup ${seed}`, text));
    // The soup in a capped section with a long paragraph after it: whether a soup line ends the section shows.
    out.push(...lines(`soup ${seed} in ## Goal`, `## Goal\n${text}\n\n${LONG_PARAGRAPH}`, PLAN));
  }
  return out.join('\n') + '\n';
}

if (process.argv.includes('--write') && /markdownScanGolden\.ts$/.test(process.argv[1] ?? '')) {
  fs.writeFileSync(GOLDEN_FILE, scanGolden());
  console.log(`wrote ${path.relative(process.cwd(), GOLDEN_FILE)}`);
}
