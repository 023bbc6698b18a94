import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyEdits, bodyOf, createPlanText, inspectMarkdown, isPlanError, knownRefusal, LIMITS, parsePlan, PlanError, rememberOutline, scanMarkdown, shiftOutline, workBudget } from '../../../src/core';
import { renderMarkdown } from '../../../src/core/views/planView';
import { PATHOLOGICAL_FAMILIES, planWithMarkdown } from '../../helpers/pathologicalMarkdown';

const AT = '2026-11-22T10:00:00.000Z';
/** The largest body a plan under the file cap can have, with the test plan's head and sections around it. */
const NEAR_CAP = LIMITS.fileBytes - 2048;

/** parsePlan's outcome: the document, or the refusal (anything else thrown fails the test). */
function readOrRefusal(text: string): { ok: true } | { ok: false; error: PlanError } {
  try {
    parsePlan(text);
    return { ok: true };
  } catch (e) {
    assert.ok(isPlanError(e), `not a PlanError: ${(e as Error)?.stack ?? e}`);
    return { ok: false, error: e };
  }
}

/** The 1-based line of the first line of `text`'s body. */
function bodyLine(text: string): number {
  return text.slice(0, text.length - bodyOf(text)!.length).split('\n').length;
}

describe('pathological Markdown: every plan under the size cap is parsed or refused by the pre-scan, never hangs or overflows the stack', function () {
  this.timeout(60_000);

  for (const family of PATHOLOGICAL_FAMILIES) {
    it(`${family.name}: parsed, or refused with its rule and a line in the body; the refusal is remembered`, () => {
      for (const chars of [2048, NEAR_CAP]) {
        const text = planWithMarkdown(family.make(chars));
        assert.ok(text.length <= LIMITS.fileBytes, `${text.length} characters`);
        const first = readOrRefusal(text);
        if (first.ok) continue;
        const { error } = first;
        const rule = error.details.rule ?? '';
        assert.ok([...family.rules, 'markdown-complexity'].includes(rule), `${chars} characters: refused by ${rule}: ${error.message}`);
        assert.equal(error.code, 'TOO_LARGE');
        assert.ok(error.details.line! >= bodyLine(text), `line ${error.details.line} is in the body`);
        assert.ok(error.details.line! <= text.split('\n').length);
        assert.match(error.message, /: (split|shorten|flatten|break|indent|write|move|remove|escape|simplify|join|use)/, 'the message names the fix');
        // The same text again: the same refusal, from what was remembered (no scan, no parse).
        assert.ok(knownRefusal(bodyOf(text)!));
        const again = readOrRefusal(text);
        assert.ok(!again.ok && again.error.details.rule === rule && again.error.details.line === error.details.line && again.error.message === error.message);
      }
    });
  }

  it('the plan editor renders each family, or shows it as plain text with the reason (never a parse over its budget)', () => {
    for (const family of PATHOLOGICAL_FAMILIES) {
      const md = family.make(16 * 1024);
      const nodes = renderMarkdown(md);
      assert.ok(nodes.length > 0, family.name);
      const refused = scanMarkdown(md, { work: LIMITS.markdown.renderWork });
      if (refused) {
        assert.deepEqual(nodes[1], { t: 'pre', c: [{ t: 'code', c: [md] }] }, `${family.name}: the whole text, as text`);
        assert.match(JSON.stringify(nodes[0]), /Shown as plain text/);
      }
    }
  });

  it('real plans read: the sample workspace, the corpus, a 1,000-step plan (with and without details) and the benchmark\'s plan at the size limit', () => {
    const texts: [string, string][] = [];
    for (const dir of ['examples/.pi/plans', 'test/fixtures/corpus']) {
      for (const f of fs.readdirSync(dir)) if (f.endsWith('.md') && !f.startsWith('conflict')) texts.push([f, fs.readFileSync(path.join(dir, f), 'utf8')]);
    }
    texts.push(['1,000 steps', createPlanText({ id: 'PLAN-00001000', title: 'Big', goal: 'g', steps: Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i + 1}: change module ${i}`, tool: 'edit', operation: 'update', target: `src/m${i}.ts` })) }, AT)]);
    texts.push([
      '1,000 steps with details',
      createPlanText({
        id: 'PLAN-00001001',
        title: 'Big',
        goal: 'Goal with *emphasis* and `code`.',
        context: 'Some context. '.repeat(200),
        steps: Array.from({ length: 1000 }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })),
      }, AT),
    ]);
    texts.push(['at the limit', createPlanText({ id: 'PLAN-00001002', title: 'At the limit', goal: 'x'.repeat(1000), steps: Array.from({ length: 200 }, (_, i) => ({ text: `Step ${i} ${'y'.repeat(200)}`, details: 'z'.repeat(400) })), context: 'c'.repeat(40_000) }, AT)]);
    assert.ok(texts.length >= 12);
    for (const [name, text] of texts) {
      const r = readOrRefusal(text);
      assert.ok(r.ok, `${name}: ${r.ok ? '' : r.error.message}`);
    }
  });

  it('text that costs far more per character than an ordinary plan is refused at any size above a floor, naming what it is mostly made of and the fix', () => {
    const cases: [string, string, RegExp][] = [
      // The audit's: accepted before at many times an ordinary plan's cost per character.
      ['19 KB of empty list items', '-\n'.repeat(9700), /mostly list items\): write fewer, longer list items/],
      ['a 20 KB table of 100 columns', `|${'a|'.repeat(100)}\n|${'-|'.repeat(100)}\n${`|${'b|'.repeat(100)}\n`.repeat(97)}`, /mostly table cells\): split the table or make it narrower/],
      ['90 KB of headings', '# a\n'.repeat(23_000), /mostly headings\): use fewer headings/],
      // Quadratic in the parser: every setext heading, every quote or list that ends moves what came before.
      ['16 KB of setext headings', 'a\n-\n'.repeat(4100), /mostly headings\)/],
      ['16 KB of quotes in list items', '- > a\n'.repeat(2700), /mostly quotes and nested lists\): flatten the quotes and lists/],
      ['16 KB of quotes apart', '> a\n\n'.repeat(3300), /mostly quotes and nested lists\)/],
    ];
    for (const [what, md, fix] of cases) {
      const text = planWithMarkdown(md);
      const r = readOrRefusal(text);
      assert.ok(!r.ok, `${what}: read`);
      assert.equal(r.error.details.rule, 'markdown-complexity', `${what}: ${r.error.message}`);
      assert.match(r.error.message, /^the Markdown costs far more to parse than ordinary plan text of its size: by this line it is over what \d+ KB of text may cost \(\d+ lines, /, what);
      assert.match(r.error.message, fix, what);
      assert.match(r.error.message, /or move it into a file under \.pi\/plans\/artifacts\/ and link it$/, what);
      assert.ok(r.error.details.line! >= bodyLine(text) && r.error.details.line! <= text.split('\n').length, `${what}: line ${r.error.details.line}`);
    }
    // Below the floor, what an ordinary 4 KB plan costs, the same constructs read: a short list, a small table, a few headings.
    for (const md of ['-\n'.repeat(300), `| a | b |\n| - | - |\n${'| 1 | 2 |\n'.repeat(60)}`, '# a\n\ntext\n\n'.repeat(100), 'a\n-\n'.repeat(100), '- > a\n'.repeat(100)]) {
      assert.ok(readOrRefusal(planWithMarkdown(md)).ok, JSON.stringify(md.slice(0, 20)));
    }
  });

  it('the budget follows the text\'s size: an ordinary plan of any size stays within it with a margin', () => {
    for (const steps of [5, 50, 200, 500, 1000]) {
      const body = bodyOf(createPlanText({ id: 'PLAN-00001001', title: 'Big', goal: 'g', steps: Array.from({ length: steps }, (_, i) => ({ text: `Step ${i} change the *module* in \`src/m${i}.ts\``, tool: 'edit', operation: 'update', target: `src/m${i}.ts`, details: `Why: module ${i} needs a change.\n\n- check [the docs](https://x.y/${i})\n- run \`npm test\`` })) }, AT))!;
      const { counts, refusal } = inspectMarkdown(body, { sections: true });
      assert.equal(refusal, undefined, `${steps} steps`);
      assert.ok(counts.work <= workBudget(body.length) / 1.25, `${steps} steps: ${counts.work} of ${workBudget(body.length)}`);
    }
    assert.equal(workBudget(0), LIMITS.markdown.workFloor);
    assert.equal(workBudget(1024 * 1024), LIMITS.markdown.work);
    assert.equal(workBudget(10_000, LIMITS.markdown.renderWork), Math.max(LIMITS.markdown.workFloor, LIMITS.markdown.workPerChar * 10_000));
  });

  it('a refusal names the line in the file, the limit and the fix', () => {
    const md = `Intro.\n\n${'> '.repeat(40)}deep\n`;
    const text = planWithMarkdown(md);
    const r = readOrRefusal(text);
    assert.ok(!r.ok);
    assert.equal(r.error.details.rule, 'markdown-quote-depth');
    assert.equal(r.error.details.line, text.split('\n').findIndex((l) => l.startsWith('> > >')) + 1);
    assert.match(r.error.message, /more than 32 block quotes \(33 so far\), the limit: split the quote or shorten the line/);
    // The located form editors and CI link to.
    const located = (() => {
      try {
        parsePlan(text, '.pi/plans/PLAN-0000beef.md');
      } catch (e) {
        return (e as PlanError).toLocatedString();
      }
    })();
    assert.match(located!, new RegExp(`^\\.pi/plans/PLAN-0000beef\\.md:${r.error.details.line}: the line nests more than 32 block quotes`));
  });

  it('sections over their caps are refused on the raw text, at their heading; the same text in a code block, or under Steps, is not', () => {
    const goal = `${'A goal sentence that goes on. '.repeat(800)}`;
    const big = `---\nid: PLAN-0000cafe\ntitle: "Big goal"\nstatus: draft\nversion: 1\ncreated_at: ${AT}\nupdated_at: ${AT}\n---\n\n## Goal\n${goal}\n\n## Steps\n1. [ ] S001 One\n`;
    const r = readOrRefusal(big);
    assert.ok(!r.ok);
    assert.equal(r.error.details.rule, 'section-too-large');
    assert.equal(r.error.details.line, 10);
    assert.match(r.error.message, /^## Goal is \d+ characters, over the 20480-character limit: shorten it/);
    // Inside a fenced block of a step, a "## Goal" line is code: the Steps section has no cap.
    const fenced = `---\nid: PLAN-0000cafe\ntitle: "Fenced"\nstatus: draft\nversion: 1\ncreated_at: ${AT}\nupdated_at: ${AT}\n---\n\n## Goal\nShort.\n\n## Steps\n1. [ ] S001 One\n   \`\`\`md\n## Goal\n${goal}\n   \`\`\`\n`;
    assert.ok(readOrRefusal(fenced).ok);
    // Context: 50 KB, its own rule.
    const context = `---\nid: PLAN-0000cafe\ntitle: "Context"\nstatus: draft\nversion: 1\ncreated_at: ${AT}\nupdated_at: ${AT}\n---\n\n## Goal\nShort.\n\n## Context\n${'Background that matters. '.repeat(2200)}\n`;
    const c = readOrRefusal(context);
    assert.ok(!c.ok && c.error.details.rule === 'context-too-large' && c.error.details.line === 13, !c.ok ? c.error.message : '');
  });

  it('the scan is not fooled: an indented "fence" that is no fence, a lazy line that is no list item, a code block that ends with its list item', () => {
    const emphasis = `${'*a'.repeat(1200)}\n`;
    for (const md of [
      // Indented four columns at the top level: indented code, then a paragraph the parser reads.
      `    \`\`\`\n${emphasis}`,
      // A fence in a list item ends with the item: the line after it is a paragraph.
      `- \`\`\`\n${emphasis}`,
      // "2." cannot interrupt a paragraph: these lines continue the quote's paragraph lazily.
      `> a\n${'2. b\n'.repeat(300)}`,
      // A fence in a quote ends with the quote.
      `> \`\`\`\n${emphasis}`,
    ]) {
      const r = scanMarkdown(md);
      assert.ok(r, `refused: ${JSON.stringify(md.slice(0, 20))}`);
    }
    // And code is not counted as emphasis: a long C block of pointers reads.
    const code = `\`\`\`c\n${'int **p = *q * *r; /* [a] */\n'.repeat(2000)}\`\`\`\n`;
    assert.equal(scanMarkdown(code), undefined);
    assert.equal(inspectMarkdown(code).counts.maxDelimiters, 0);
    const indented = `Code:\n\n${'    int **p = *q * *r; /* [a] */\n'.repeat(2000)}`;
    assert.equal(scanMarkdown(indented), undefined);
    assert.equal(inspectMarkdown(indented).counts.maxDelimiters, 0);
  });

  it('a lone-CR or NUL text is refused before the Markdown is looked at', () => {
    const lf = planWithMarkdown('Fine.\n');
    const cr = lf.replace(/\n/g, '\r');
    const r = readOrRefusal(cr);
    assert.ok(!r.ok);
    assert.equal(r.error.details.rule, 'lone-cr');
    assert.equal(r.error.message, 'the file uses lone CR line ends: convert them to LF or CRLF');
    // CRLF reads, as ever.
    assert.ok(readOrRefusal(lf.replace(/\n/g, '\r\n')).ok);
    const nul = lf.replace('Fine.', 'Fi\0ne.');
    const n = readOrRefusal(nul);
    assert.ok(!n.ok);
    assert.equal(n.error.details.rule, 'nul-byte');
    assert.equal(n.error.details.line, nul.split('\n').findIndex((l) => l.includes('\0')) + 1);
    assert.match(n.error.message, /^the file contains a NUL byte \(line \d+\): remove it; plans are text$/);
    // In the frontmatter too.
    const inHead = lf.replace('title: "Pathological"', 'title: "Patho\0logical"');
    const h = readOrRefusal(inHead);
    assert.ok(!h.ok && h.error.details.rule === 'nul-byte' && h.error.details.line === 3);
  });

  it('a step update (its outline shifted, not parsed) keeps the verdict only when the edited step passes the scan alone', () => {
    const doc = parsePlan(createPlanText({ id: 'PLAN-00002000', title: 'Updates', goal: 'g', steps: Array.from({ length: 50 }, (_, i) => ({ text: `Step ${i + 1}` })) }, AT));
    const withNote = (note: string) => {
      const it = doc.outline.steps[7];
      const edits = [{ start: it.lineEnd, end: it.lineEnd, text: `\n   > Note: ${note}` }];
      const { text, body } = applyEdits(doc, {}, edits);
      rememberOutline(body, shiftOutline(doc.outline, edits, body), doc.outline);
      return text;
    };
    assert.equal(parsePlan(withNote('fine, *done*')).steps[7].note, 'fine, *done*');
    // A note that is a paragraph over the emphasis cap on its own: the whole body is scanned, and refused.
    const text = withNote('*a'.repeat(LIMITS.markdown.delimiters + 10));
    const r = readOrRefusal(text);
    assert.ok(!r.ok && r.error.details.rule === 'markdown-emphasis', r.ok ? 'read' : r.error.message);
    assert.equal(r.error.details.line, text.split('\n').findIndex((l) => l.includes('> Note: *a*a')) + 1);
  });
});
