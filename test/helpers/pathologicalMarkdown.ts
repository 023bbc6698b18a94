/**
 * Ordinary-looking Markdown that costs remark far more than its size: the families a review
 * reproduced (deep `>` quotes, emphasis runs, wide tables, link definition floods), those an audit
 * found accepted at many times an ordinary plan's cost per character (empty list items, 100-column
 * tables, headings), and the others the pre-scan (src/core/markdown/markdownGuard.ts) was measured against
 * (list items of every kind, code spans, autolinks, HTML, fences, ...), each also nested in a list
 * item and in a quote. Used by test/unit/core/pathological.test.ts (parsed or refused, never a hang or
 * a stack overflow) and by `npm run bench` (the worst case per family).
 */

/** A family: Markdown of about `chars` characters, and the rules that may refuse it (besides the work budget). */
export interface PathologicalFamily {
  name: string;
  /** The family it nests (its own name for a family that nests nothing). */
  base: string;
  make: (chars: number) => string;
  /** Rules of markdownGuard that may refuse it; `markdown-complexity` (the work budget) always may. */
  rules: readonly string[];
}

/** `unit` repeated to about `chars` characters. */
function fill(unit: string, chars: number): string {
  return unit.repeat(Math.max(1, Math.floor(chars / unit.length)));
}

/** Lines made by `line(i)` until about `chars` characters. */
function lines(chars: number, line: (i: number) => string): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const l = line(i);
    out.push(l);
    n += l.length + 1;
  }
  return out.join('\n') + '\n';
}

const base: Omit<PathologicalFamily, 'base'>[] = [
  { name: 'quote depth, one line', make: (n) => `${'>'.repeat(n)} x\n`, rules: ['markdown-quote-depth', 'markdown-line-length'] },
  { name: 'quote depth, many lines', make: (n) => lines(n, (i) => `${'> '.repeat(1 + (i % 40))}x`), rules: ['markdown-quote-depth', 'markdown-nesting'] },
  { name: 'emphasis *a', make: (n) => `${fill('*a', n)}\n`, rules: ['markdown-emphasis', 'markdown-line-length'] },
  { name: 'emphasis _a_ (words)', make: (n) => `${fill('_a_ ', n)}\n`, rules: ['markdown-emphasis', 'markdown-line-length'] },
  { name: 'emphasis *_ mixed', make: (n) => `${fill('*_', n)}a\n`, rules: ['markdown-emphasis', 'markdown-line-length'] },
  { name: 'emphasis, lines of one paragraph', make: (n) => lines(n, () => fill('*a', 80)), rules: ['markdown-emphasis'] },
  { name: 'emphasis, many paragraphs', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('*a* ', 160))), rules: [] },
  { name: 'strikethrough ~a', make: (n) => `${fill('~a', n)}\n`, rules: ['markdown-emphasis', 'markdown-line-length'] },
  { name: 'brackets [[[', make: (n) => `${'['.repeat(n)}\n`, rules: ['markdown-brackets', 'markdown-line-length'] },
  { name: 'brackets [[[ ]]]', make: (n) => `${'['.repeat(n / 2)}${']'.repeat(n / 2)}\n`, rules: ['markdown-brackets', 'markdown-line-length'] },
  { name: 'brackets [a][a]', make: (n) => `${fill('[a]', n)}\n`, rules: ['markdown-brackets', 'markdown-line-length'] },
  { name: 'links nested [a[a](b)](b)', make: (n) => `${'[a'.repeat(n / 6)}${'](b)'.repeat(n / 6)}\n`, rules: ['markdown-brackets', 'markdown-line-length'] },
  { name: 'links, lines of one paragraph', make: (n) => lines(n, () => fill('[a](b) ', 70)), rules: ['markdown-brackets'] },
  { name: 'table, wide', make: (n) => `|${fill('a|', n / 3)}\n|${fill('-|', n / 3)}\n|${fill('b|', n / 3)}\n`, rules: ['markdown-table-width', 'markdown-line-length'] },
  { name: 'table, 100 columns, many rows', make: (n) => `|${'a|'.repeat(100)}\n|${'-|'.repeat(100)}\n${lines(n, () => `|${'b|'.repeat(100)}`)}`, rules: ['markdown-table-cells'] },
  { name: 'table, wide header, short rows', make: (n) => `${'a|'.repeat(100)}\n${'-|'.repeat(100)}\n${lines(n, () => 'b')}`, rules: ['markdown-table-cells'] },
  { name: 'link reference definitions', make: (n) => lines(n, (i) => `[d${i}]: https://example.com/${i}`), rules: ['markdown-definitions'] },
  { name: 'link definitions, then uses', make: (n) => `${lines(n / 2, (i) => `[d${i}]: /u${i}`)}\n${fill('[d1] ', n / 2)}\n`, rules: ['markdown-definitions', 'markdown-brackets', 'markdown-line-length'] },
  { name: 'footnote definitions', make: (n) => lines(n, (i) => `[^f${i}]: note ${i}`), rules: ['markdown-definitions'] },
  { name: 'list nesting, one line', make: (n) => `${fill('- ', n)}x\n`, rules: ['markdown-nesting', 'markdown-line-length'] },
  { name: 'ordered list nesting, one line', make: (n) => `${fill('1. ', n)}x\n`, rules: ['markdown-nesting', 'markdown-line-length'] },
  { name: 'list nesting by indentation', make: (n) => lines(n, (i) => `${'  '.repeat(i)}- x`), rules: ['markdown-nesting', 'markdown-line-length'] },
  { name: 'lists in quotes, one line', make: (n) => `${fill('> - ', n)}x\n`, rules: ['markdown-quote-depth', 'markdown-nesting', 'markdown-line-length'] },
  { name: 'lazy lines in a quote', make: (n) => `> a\n${lines(n, () => 'b')}`, rules: ['markdown-lazy-lines'] },
  { name: 'lazy lines in a list item', make: (n) => `- a\n${lines(n, () => 'b')}`, rules: ['markdown-lazy-lines'] },
  { name: 'lazy lines, nested', make: (n) => `> > > - a\n${lines(n, () => 'b')}`, rules: ['markdown-lazy-lines'] },
  { name: 'backtick runs', make: (n) => lines(n, (i) => `${'`'.repeat(1 + (i % 300))}a`).replace(/\n/g, ' ') + '\n', rules: ['markdown-line-length'] },
  { name: 'inline HTML', make: (n) => `${fill('<a ', n)}\n`, rules: ['markdown-line-length'] },
  { name: 'entities and escapes', make: (n) => lines(n, () => fill('&amp; \\* ', 80)), rules: [] },
  { name: 'headings', make: (n) => lines(n, () => '# a'), rules: [] },
  { name: 'empty list items', make: (n) => lines(n, () => '-'), rules: [] },
  { name: 'block quote paragraphs', make: (n) => lines(n, (i) => (i % 2 ? '>' : '> a')), rules: [] },
  { name: 'one long line', make: (n) => `${fill('word ', n)}\n`, rules: ['markdown-line-length'] },
  { name: 'lines of one paragraph', make: (n) => lines(n, () => 'b'), rules: [] },
  // Constructs each cheap in the parser's eyes but many times an ordinary plan's cost per character.
  { name: 'empty ordered list items', make: (n) => lines(n, () => '1.'), rules: [] },
  { name: 'short list items', make: (n) => lines(n, () => '- a'), rules: [] },
  { name: 'task list items', make: (n) => lines(n, () => '- [ ] a'), rules: [] },
  { name: 'list items 30 deep, many', make: (n) => lines(n, (i) => `${'  '.repeat(i % 30)}- a`), rules: ['markdown-nesting'] },
  { name: 'quotes 30 deep, many lines', make: (n) => lines(n, () => `${'> '.repeat(30)}a`), rules: ['markdown-nesting'] },
  { name: 'setext headings', make: (n) => lines(n, (i) => (i % 2 ? '-' : 'a')), rules: [] },
  { name: 'thematic breaks', make: (n) => lines(n, () => '***'), rules: [] },
  { name: 'code spans, many paragraphs', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('`a` ', 160))), rules: [] },
  { name: 'autolink literals (www.)', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('www.a.co ', 160))), rules: [] },
  { name: 'autolink literals (URLs, e-mail)', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('https://a.co/b a@b.co ', 160))), rules: [] },
  { name: 'autolinks <http://…>', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('<http://a.co> ', 160))), rules: [] },
  { name: 'HTML blocks', make: (n) => lines(n, (i) => (i % 2 ? '' : '<div>a</div>')), rules: [] },
  { name: 'HTML comments', make: (n) => lines(n, (i) => (i % 2 ? '' : '<!-- a -->')), rules: [] },
  { name: 'inline HTML tags, closed', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('<b>a</b> ', 160))), rules: [] },
  { name: 'empty fenced code blocks', make: (n) => lines(n, () => '```'), rules: [] },
  { name: 'table, narrow, many rows', make: (n) => `| a | b |\n| --- | --- |\n${lines(n, () => '| 1 | 2 |')}`, rules: ['markdown-table-cells'] },
  { name: 'tables, many small', make: (n) => lines(n, (i) => ['| a |', '| - |', '| 1 |', ''][i % 4]), rules: ['markdown-table-cells'] },
  { name: 'hard line breaks', make: (n) => lines(n, (i) => (i % 40 === 39 ? '' : 'a\\')), rules: [] },
  { name: 'blank quote lines', make: (n) => lines(n, () => '>'), rules: [] },
  { name: 'images, many paragraphs', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('![a](b) ', 160))), rules: ['markdown-brackets'] },
  { name: 'undefined link references', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('[a] ', 160))), rules: ['markdown-brackets'] },
  { name: 'footnote references', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('a[^1] ', 160))), rules: ['markdown-brackets'] },
  // Quadratic in micromark: each container that ends, and each setext heading, moves the events before it.
  { name: 'setext headings (===), apart', make: (n) => lines(n, (i) => ['a', '===', ''][i % 3]), rules: [] },
  { name: 'block quotes, apart', make: (n) => lines(n, (i) => (i % 2 ? '' : '> a')), rules: [] },
  { name: 'nested lists, each ending', make: (n) => lines(n, (i) => (i % 2 ? '  - b' : '- a')), rules: ['markdown-nesting'] },
  { name: 'lists between paragraphs', make: (n) => lines(n, (i) => ['- a', '', 'b', ''][i % 4]), rules: [] },
  { name: 'quotes in list items', make: (n) => lines(n, () => '- > a'), rules: ['markdown-nesting'] },
  { name: 'strikethrough words, many paragraphs', make: (n) => lines(n, (i) => (i % 2 ? '' : fill('~~a~~ ', 160))), rules: [] },
];

/** Every line of `md` inside a list item. */
function inList(md: string): string {
  return md
    .split('\n')
    .map((l, i) => (i === 0 ? `- ${l}` : l ? `  ${l}` : l))
    .join('\n');
}

/** Every line of `md` inside a block quote. */
function inQuote(md: string): string {
  return md
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

/** `make` held to at most `chars` characters: made smaller when it overshoots, then cut at a line end. */
function fit(make: (chars: number) => string, chars: number): string {
  let md = make(chars);
  if (md.length > chars) md = make(Math.floor((chars * chars) / md.length));
  if (md.length > chars) md = md.slice(0, Math.max(md.lastIndexOf('\n', chars - 1) + 1, 1));
  return md;
}

const nested = (f: Omit<PathologicalFamily, 'base'>, where: string, wrap: (md: string) => string): PathologicalFamily => ({
  name: `${f.name}, ${where}`,
  base: f.name,
  make: (n: number) => wrap(f.make(n)),
  rules: [...f.rules, 'markdown-nesting', 'markdown-quote-depth', 'markdown-lazy-lines'],
});

/** Each base family, plus the same nested in a list item and in a quote; each at most the characters asked for. */
export const PATHOLOGICAL_FAMILIES: readonly PathologicalFamily[] = [...base.map((f) => ({ ...f, base: f.name })), ...base.map((f) => nested(f, 'in a list item', inList)), ...base.map((f) => nested(f, 'in a quote', inQuote))].map((f) => ({
  ...f,
  make: (n: number) => fit(f.make, n),
}));

/** A plan file whose body is `markdown` (under `## Notes`, a section without a size cap, after a Goal and one step). */
export function planWithMarkdown(markdown: string, id = 'PLAN-0000beef'): string {
  return `---\nid: ${id}\ntitle: "Pathological"\nstatus: draft\nversion: 1\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-01T00:00:00.000Z\n---\n\n## Goal\nRead or refuse fast.\n\n## Steps\n1. [ ] S001 One step\n\n## Notes\n${markdown}`;
}
