// The plan-syntax injection grammar (syntaxes/pi-plans.injection.tmLanguage.json), tokenized the way
// the editor does it: vscode-textmate and Oniguruma with VS Code's own Markdown and YAML grammars,
// read from the code-server that `npm run setup:vscode` installs. Checks the scopes of each part of
// the plan syntax, that ordinary Markdown gets none, that the step patterns agree with the parser,
// and that the default themes already colour every scope the grammar uses.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';
import { PLAN_STATUSES, PlanStatus } from '../../../src/core/format/schema';
import { parseStepItem } from '../../../src/core/format/steps';

const ROOT = path.resolve(__dirname, '../../..');
const EXTENSIONS = path.join(ROOT, '.tools/code-server/node_modules/code-server/lib/vscode/extensions');
const INJECTION_FILE = path.join(ROOT, 'syntaxes/pi-plans.injection.tmLanguage.json');
const INJECTION = 'markdown.pi-plans.injection';
const MARKDOWN = 'text.html.markdown';

const ID = 'constant.numeric.step-id.pi-plans';
const PLAN_ID = 'constant.numeric.plan-id.pi-plans';
const TEXT = 'meta.step.text.pi-plans';
const TOOL = 'entity.name.function.tool.pi-plans';
const OPERATION = 'variable.parameter.operation.pi-plans';
const ARROW = 'keyword.operator.arrow.pi-plans';
const TARGET = 'string.unquoted.target.pi-plans';
const MARKERS = {
  'in progress': 'markup.changed.step-status.in-progress.pi-plans',
  blocked: 'keyword.control.step-status.blocked.pi-plans',
  failed: 'invalid.illegal.step-status.failed.pi-plans',
  skipped: 'comment.step-status.skipped.pi-plans',
} as const;
const REVIEW = 'keyword.control.plan-status.review.pi-plans';
const RUNNING = 'markup.changed.plan-status.running.pi-plans';
const FINISHED = 'comment.plan-status.finished.pi-plans';
const FAILED = 'invalid.illegal.plan-status.failed.pi-plans';
/** Every plan status's group, written out: a new status must be given a colour on purpose. */
const STATUS_SCOPE: Record<PlanStatus, string> = {
  draft: REVIEW,
  proposed: REVIEW,
  needs_review: REVIEW,
  approved: RUNNING,
  executing: RUNNING,
  completed: FINISHED,
  cancelled: FINISHED,
  superseded: FINISHED,
  failed: FAILED,
  stalled: FAILED,
  rejected: FAILED,
};

interface Token {
  text: string;
  scopes: string[];
}

let registry: vsctm.Registry;
let grammar: vsctm.IGrammar;

/** scopeName → grammar file, from the `contributes.grammars` of VS Code's built-in extensions. */
function builtInGrammars(): Map<string, string> {
  const files = new Map<string, string>();
  for (const ext of ['markdown-basics', 'yaml']) {
    const manifest = path.join(EXTENSIONS, ext, 'package.json');
    if (!fs.existsSync(manifest)) {
      throw new Error(
        `VS Code's ${ext} grammar is missing (${manifest}): run \`npm run setup:vscode\` to install code-server into .tools/`,
      );
    }
    const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    for (const g of pkg.contributes.grammars as { scopeName: string; path: string }[]) {
      files.set(g.scopeName, path.join(EXTENSIONS, ext, g.path));
    }
  }
  if (!files.has(MARKDOWN) || !fs.existsSync(files.get(MARKDOWN)!)) {
    throw new Error(`VS Code's Markdown grammar was not found under ${EXTENSIONS}: run \`npm run setup:vscode\``);
  }
  files.set(INJECTION, INJECTION_FILE);
  return files;
}

function tokenize(doc: string): Token[][] {
  let state = vsctm.INITIAL;
  return doc.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

/** The tokens of the line of `doc` that contains `needle`. */
function lineWith(doc: string, needle: string): Token[] {
  const lines = doc.split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `no line contains ${JSON.stringify(needle)}`);
  return tokenize(doc)[i];
}

/** The scopes of the token that is exactly `text` (so its boundaries are checked too). */
function scopesOf(tokens: Token[], text: string): string[] {
  const t = tokens.find((x) => x.text === text);
  assert.ok(t, `no token ${JSON.stringify(text)} in ${JSON.stringify(tokens.map((x) => x.text))}`);
  return t.scopes;
}

function innermost(tokens: Token[], text: string): string {
  const s = scopesOf(tokens, text);
  return s[s.length - 1];
}

/** Every scope of ours in the tokens. */
function planScopes(lines: Token[] | Token[][]): string[] {
  const all = (lines as (Token | Token[])[]).flat().flatMap((t) => t.scopes);
  return [...new Set(all.filter((s) => s.endsWith('.pi-plans')))];
}

function frontmatter(...lines: string[]): string {
  return ['---', ...lines, '---', '', '## Goal', 'x', ''].join('\n');
}

describe('plan syntax grammar (injection into VS Code Markdown)', () => {
  before(async () => {
    const files = builtInGrammars();
    const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
    registry = new vsctm.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
        createOnigString: (s) => new oniguruma.OnigString(s),
      }),
      // Only the Markdown, YAML and our grammar: the languages Markdown embeds in fenced code stay unloaded.
      loadGrammar: async (scopeName) => {
        const file = files.get(scopeName);
        return file ? vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null;
      },
      // As `"injectTo": ["text.html.markdown"]` in package.json makes VS Code do.
      getInjections: (scopeName) => (scopeName === MARKDOWN ? [INJECTION] : undefined),
    });
    const g = await registry.loadGrammar(MARKDOWN);
    assert.ok(g, 'the Markdown grammar did not load');
    grammar = g;
    const injection = JSON.parse(fs.readFileSync(INJECTION_FILE, 'utf8'));
    assert.equal(injection.scopeName, INJECTION);
  });

  it('a step line: checkbox, id, text and each part of the annotation get their scopes; the list stays a list', () => {
    const line = lineWith(
      '## Steps\n\n1. [ ] S001 Add a token-bucket limiter module (edit: create → src/limits/bucket.ts)\n',
      'S001',
    );
    assert.equal(innermost(line, '1.'), 'punctuation.definition.list.begin.markdown');
    assert.ok(scopesOf(line, '1.').includes('markup.list.numbered.markdown'));
    assert.equal(innermost(line, '['), 'punctuation.definition.checkbox.begin.pi-plans');
    assert.equal(innermost(line, 'S001'), ID);
    assert.ok(scopesOf(line, 'S001').includes('meta.paragraph.markdown'), 'inside the Markdown list paragraph');
    assert.equal(innermost(line, 'Add a token-bucket limiter module'), TEXT);
    assert.equal(innermost(line, 'edit'), TOOL);
    assert.equal(innermost(line, 'create'), OPERATION);
    assert.equal(innermost(line, '→'), ARROW);
    assert.equal(innermost(line, 'src/limits/bucket.ts'), TARGET);
    assert.equal(innermost(line, ')'), 'punctuation.definition.annotation.end.pi-plans');
  });

  it('each status marker gets its own scope, with bullets, [x] and four-digit ids too', () => {
    const doc = [
      '3. [ ] S003 *in progress* Return 429 (edit: update → src/errors.ts)',
      '- [ ] S0012 *blocked* Waiting for the API key',
      '* [ ] S013 *failed* Deploy (terminal: run)',
      '10) [x] S014 *skipped*',
    ].join('\n');
    const lines = tokenize(doc);
    for (const [i, word] of (['in progress', 'blocked', 'failed', 'skipped'] as const).entries()) {
      assert.equal(innermost(lines[i], word), MARKERS[word], word);
      const stars = lines[i].filter((t) => t.text === '*' && t.scopes.includes('meta.step.pi-plans'));
      assert.equal(stars.length, 2);
      for (const t of stars) assert.ok(t.scopes.includes(MARKERS[word]), `the asterisks of *${word}*`);
    }
    assert.equal(innermost(lines[1], 'S0012'), ID);
    assert.equal(innermost(lines[3], 'S014'), ID);
    assert.equal(innermost(lines[2], 'terminal'), TOOL, 'an annotation without a target');
    assert.equal(innermost(lines[2], 'run'), OPERATION);
    assert.equal(new Set(Object.values(MARKERS)).size, 4);
  });

  it("pi-planner's numbered step line without checkbox and id gets its annotation scoped", () => {
    const line = lineWith(
      '## Steps\n1. Query overdue invoices for Acme Corp (odoo-toolbox: search → account.move)\n',
      'odoo',
    );
    assert.equal(innermost(line, 'Query overdue invoices for Acme Corp'), TEXT);
    assert.equal(innermost(line, 'odoo-toolbox'), TOOL);
    assert.equal(innermost(line, 'search'), OPERATION);
    assert.equal(innermost(line, 'account.move'), TARGET);
    assert.ok(!planScopes(line).includes(ID));
  });

  it('Markdown inside the step text keeps its own scopes; details and the note line stay plain Markdown', () => {
    const doc = [
      '2. [x] S002 Use `bucket.take()` and **fail fast** (edit: update → src/server.ts)',
      '   Details stay on indented lines under the step.',
      '   > Note: the latest note on the step',
    ].join('\n');
    const [step, details, note] = tokenize(doc);
    assert.equal(innermost(step, 'bucket.take()'), 'markup.inline.raw.string.markdown');
    assert.ok(scopesOf(step, 'bucket.take()').includes(TEXT));
    assert.equal(innermost(step, 'fail fast'), 'markup.bold.markdown');
    assert.equal(innermost(step, 'src/server.ts'), TARGET);
    assert.deepEqual(planScopes([details, note]), []);
    assert.ok(scopesOf(note, 'Note: the latest note on the step').includes('markup.quote.markdown'));
  });

  it('frontmatter: every plan status gets its group scope, the plan id its own; keys stay YAML', () => {
    assert.deepEqual(Object.keys(STATUS_SCOPE).sort(), [...PLAN_STATUSES].sort());
    for (const status of PLAN_STATUSES) {
      const doc = frontmatter('id: PLAN-1a2b3c4d', 'title: "Add rate limiting"', `status: ${status}`, 'version: 3');
      const line = lineWith(doc, 'status:');
      assert.equal(innermost(line, status), STATUS_SCOPE[status], status);
      assert.ok(scopesOf(line, status).includes('meta.embedded.block.frontmatter'));
      assert.equal(innermost(line, 'status'), 'entity.name.tag.yaml');
    }
    const lines = tokenize(
      frontmatter('id: PLAN-1a2b3c4d', 'status: executing # started by the agent', 'supersedes: PLAN-0000abcd'),
    );
    assert.equal(innermost(lines[1], 'PLAN-1a2b3c4d'), PLAN_ID);
    assert.equal(innermost(lines[2], 'executing'), RUNNING, 'a trailing comment');
    assert.equal(innermost(lines[3], 'PLAN-0000abcd'), PLAN_ID);
    assert.equal(new Set(Object.values(STATUS_SCOPE)).size, 4);
  });

  it('ordinary Markdown and YAML get no plan scopes', () => {
    const doc = [
      '---',
      'status: foo',
      'title: draft',
      'state: draft',
      'status: drafty',
      'meta:',
      '  status: draft',
      'id: PLAN-XYZ',
      'id: PLAN-1a2b3c4d5',
      '---',
      '',
      '# Shopping',
      '',
      '- [ ] Buy milk (see: a → b)',
      '1. [ ] Buy bread (see: a → b)',
      '- Buy eggs (see: a → b)',
      '1. Call the bank (phone: tomorrow)',
      '- [ ] S01 too short an id',
      '- [ ] S00123 too long an id',
      '- [ ] S001x not an id',
      '- [] S001 not a checkbox',
      '',
      'S001 in a paragraph (edit: create → src/a.ts) *blocked*',
      '[ ] S002 not a list item',
      'status: draft',
      '',
      '> - [ ] S003 in a quote',
      '',
      '    1. [ ] S004 indented code',
      '',
      '```',
      '1. [ ] S005 in a fence (edit: create → x)',
      '```',
      '',
      '```text',
      '- [ ] S006 in a fence',
      '```',
      '',
      '```yaml',
      'status: draft',
      '```',
    ].join('\n');
    const lines = tokenize(doc);
    lines.forEach((tokens, i) => assert.deepEqual(planScopes(tokens), [], `line ${i + 1}: ${doc.split('\n')[i]}`));
    // The Markdown grammar itself still works around them.
    assert.equal(innermost(lineWith(doc, 'Buy milk'), '-'), 'punctuation.definition.list.begin.markdown');
  });

  it('escaped markers and annotations (as the writer escapes text) are not scoped', () => {
    const line = lineWith('- [ ] S001 \\*blocked* by \\(edit: create → src/a.ts)\n', 'S001');
    assert.equal(innermost(line, 'S001'), ID);
    assert.deepEqual(planScopes(line).sort(), [
      'meta.checkbox.pi-plans',
      ID,
      'meta.step.pi-plans',
      TEXT,
      'punctuation.definition.checkbox.begin.pi-plans',
      'punctuation.definition.checkbox.end.pi-plans',
    ].sort());
  });

  it('agrees with the step parser (src/core/format/steps.ts) on id, text, tool, operation and target', () => {
    const cases = [
      '1. [ ] S001 Add a limiter (edit: create → src/limits/bucket.ts)',
      '2. [x] S002 *skipped* Wire it (edit: update → src/server.ts)',
      '3. [ ] S003 *in progress*   Return 429   (edit: update → src/errors.ts)  ',
      '- [X] S1234 Call (odoo-toolbox: write → account.move(42))',
      '- [ ] S005 Two (a: b) annotations (c: d → e f)',
      '- [ ] S006 Not at the end (a: b → c) then text',
      '- [ ] S007 (edit: create → first.ts)',
      '- [ ] S008 *blocked*x (edit: create)',
      '- [ ] S009',
      '7. Query invoices (odoo-toolbox: search → account.move)',
      '8. Nested (t: o → a (b) c)',
    ];
    for (const src of cases) {
      const step = parseStepItem(src, 0);
      const tokens = tokenize(src)[0];
      const joined = (scope: string) => {
        const parts = tokens.filter((t) => t.scopes.includes(scope)).map((t) => t.text);
        return parts.length ? parts.join('') : undefined;
      };
      assert.equal(joined(ID), step.hasId ? step.id : undefined, `id of ${src}`);
      assert.equal(joined(TEXT) ?? '', step.text, `text of ${src}`);
      assert.equal(joined(TOOL), step.tool, `tool of ${src}`);
      assert.equal(joined(OPERATION), step.operation, `operation of ${src}`);
      assert.equal(joined(TARGET), step.target, `target of ${src}`);
    }
  });

  it('the default themes already colour every plan scope, markers and status groups apart', () => {
    const themes = ['2026-dark', '2026-light', 'dark_modern', 'light_modern'];
    const doc = [
      frontmatter('id: PLAN-1a2b3c4d', 'status: draft'),
      '1. [ ] S001 *in progress* Text (edit: create → src/a.ts)',
      '2. [ ] S002 *blocked* Text',
      '3. [ ] S003 *failed* Text',
      '4. [x] S004 *skipped* Text',
    ].join('\n');
    const statusDocs = Object.fromEntries(
      ['draft', 'executing', 'completed', 'failed'].map((s) => [s, frontmatter('id: PLAN-1a2b3c4d', `status: ${s}`)]),
    );
    for (const name of themes) {
      const theme = loadTheme(path.join(EXTENSIONS, 'theme-defaults/themes', `${name}.json`));
      registry.setTheme(theme);
      const colours = registry.getColorMap();
      /** The foreground of the token at the first `needle` of the line containing it. */
      const colourOf = (text: string, lineNeedle: string, needle: string) => {
        const lines = text.split('\n');
        const i = lines.findIndex((l) => l.includes(lineNeedle));
        let state = vsctm.INITIAL;
        for (let k = 0; k < i; k++) state = grammar.tokenizeLine2(lines[k], state).ruleStack;
        const { tokens } = grammar.tokenizeLine2(lines[i], state);
        const at = lines[i].indexOf(needle, lines[i].indexOf(lineNeedle));
        let meta = tokens[1];
        for (let t = 0; t < tokens.length; t += 2) if (tokens[t] <= at) meta = tokens[t + 1];
        return colours[(meta & 0x00ff8000) >>> 15].toUpperCase();
      };
      const plain = colourOf(doc, 'S001', 'Text');
      const parts: Record<string, string> = {
        'step id': colourOf(doc, 'S001', 'S001'),
        tool: colourOf(doc, 'S001', 'edit'),
        operation: colourOf(doc, 'S001', 'create'),
        target: colourOf(doc, 'S001', 'src/a.ts'),
        'plan id': colourOf(doc, 'id:', 'PLAN-'),
      };
      const markers = ['in progress', 'blocked', 'failed', 'skipped'].map((m) => colourOf(doc, `*${m}*`, m));
      const statuses = Object.entries(statusDocs).map(([s, d]) => colourOf(d, 'status:', s));
      for (const [part, c] of Object.entries(parts)) assert.notEqual(c, plain, `${name}: ${part} has no colour`);
      for (const c of [...markers, ...statuses]) assert.notEqual(c, plain, `${name}: a status has no colour`);
      assert.equal(new Set(markers).size, 4, `${name}: step markers ${markers.join(' ')}`);
      assert.equal(new Set(statuses).size, 4, `${name}: status groups ${statuses.join(' ')}`);
    }
  });
});

/** A VS Code colour theme file (with its `include` chain) as a TextMate theme. */
function loadTheme(file: string): vsctm.IRawTheme {
  const settings: vsctm.IRawTheme['settings'][number][] = [];
  let foreground: string | undefined;
  const read = (f: string) => {
    const t = JSON.parse(fs.readFileSync(f, 'utf8'));
    if (t.include) read(path.join(path.dirname(f), t.include));
    foreground = t.colors?.['editor.foreground'] ?? foreground;
    settings.push(...(t.tokenColors ?? []));
  };
  read(file);
  return { settings: [{ settings: { foreground: foreground ?? '#000000' } }, ...settings] };
}
