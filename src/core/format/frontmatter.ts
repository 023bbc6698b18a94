import matter from 'gray-matter';
import * as jsyaml from 'js-yaml';
import { PlanError } from '../limits/errors';
import { LIMITS } from '../limits/limits';

/** Where the frontmatter sits in a plan's text (offsets into the text, BOM included). */
export interface FrontmatterBlock {
  /** Start of the YAML between the delimiters. */
  yamlStart: number;
  /** End of the YAML (the newline before the closing `---`). */
  yamlEnd: number;
  /** Start of the body (after the closing delimiter line). */
  bodyStart: number;
  /** The raw YAML text. */
  yaml: string;
}

function refuseEngine(language: string) {
  return () => {
    throw new PlanError(
      'INVALID_FILE',
      `frontmatter in "${language}" is never evaluated: rewrite it as YAML fields between two "---" lines`,
      { line: 1 },
    );
  };
}

/**
 * The YAML engine: plain data only (core schema, no timestamps or custom tags), no aliases
 * (so no alias bombs), duplicate keys refused, depth capped. Objects come with a null prototype,
 * so `__proto__` keys are inert data.
 */
export function parseYaml(text: string): unknown {
  if (text.length > LIMITS.frontmatterChars) {
    throw new PlanError(
      'TOO_LARGE',
      `frontmatter is ${text.length} characters, over the ${LIMITS.frontmatterChars} limit: move long text into the body`,
      { line: 1 },
    );
  }
  try {
    // Anchors are refused as soon as one is defined, before any alias can use it: no alias
    // bombs, no shared or cyclic objects. Text without "&" cannot define one.
    return jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, listener: text.includes('&') ? refuseAnchors : undefined, maxDepth: LIMITS.yamlDepth } as jsyaml.LoadOptions);
  } catch (e) {
    const err = e as { reason?: string; message?: string; mark?: { line?: number } };
    const line = typeof err.mark?.line === 'number' ? err.mark.line + 1 : undefined;
    const reason = err.reason ?? String(err.message ?? e).split('\n')[0];
    const hint = /alias|anchor/.test(reason)
      ? 'write each value out in full'
      : /duplicated mapping key/.test(reason)
        ? 'remove the duplicate key'
        : 'fix the YAML syntax';
    throw new PlanError('INVALID_FILE', `frontmatter YAML: ${reason}: ${hint}`, { line, rule: 'frontmatter-yaml' });
  }
}

/**
 * What gray-matter makes of the matter between the "---" lines: `{}` when only blanks and comment
 * lines are left (it does not parse those), else the YAML's value (`{}` for an empty document).
 * The parse comes first: a head of fields (nearly every one) is a mapping, which such a matter
 * never parses to, so it costs no regex replace; anything else (nothing, a scalar: JavaScript's
 * blanks include characters YAML reads as text, such as U+00A0) or a failure asks gray-matter's
 * question before answering.
 */
function yamlOrEmpty(matter: string): unknown {
  let data: unknown;
  try {
    data = parseYaml(matter);
  } catch (e) {
    if (commentsOnly(matter)) return {};
    throw e;
  }
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) return data;
  return commentsOnly(matter) ? {} : (data ?? {});
}

/** gray-matter's test for a matter it does not parse: nothing but blanks and comment lines. */
function commentsOnly(matter: string): boolean {
  return matter.replace(/^\s*#[^\n]+/gm, '').trim() === '';
}

/**
 * js-yaml 4 listener: throws at the first node closed after an anchor was registered (js-yaml
 * registers a collection's anchor when the collection opens, so this fires before any alias
 * that could point at it is resolved twice). Pinned to js-yaml 4's loader state; the alias-bomb
 * tests hold it.
 */
function refuseAnchors(event: string, state: { anchorMap?: object; line?: number }): void {
  if (event === 'close' && state.anchorMap && Object.keys(state.anchorMap).length > 0) {
    const e = new Error('anchors and aliases (&name, *name) are not allowed') as Error & { reason: string; mark: { line: number } };
    e.reason = 'anchors and aliases (&name, *name) are not allowed';
    e.mark = { line: state.line ?? 0 };
    throw e;
  }
}

const GRAY_MATTER_OPTIONS = {
  language: 'yaml',
  engines: {
    yaml: { parse: (s: string) => parseYaml(s) as object, stringify: refuseEngine('yaml') },
    js: refuseEngine('js'),
    javascript: refuseEngine('javascript'),
    json: refuseEngine('json'),
    coffee: refuseEngine('coffee'),
    toml: refuseEngine('toml'),
  },
};

/**
 * Where the frontmatter's head ends (just past the line break after the first "\n---" line, BOM
 * counted), found without parsing; -1 when the text does not start with a "---" line. Everything
 * `splitFrontmatter` reads lies before it, so a head seen before splits the same way again.
 */
export function frontmatterHeadEnd(text: string): number {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!text.startsWith('---', bom)) return -1;
  const firstLineEnd = text.indexOf('\n', bom);
  if (firstLineEnd === -1) return -1;
  const close = text.indexOf('\n---', firstLineEnd);
  if (close === -1) return -1;
  const nl = text.indexOf('\n', close + 1);
  return nl === -1 ? text.length : nl + 1;
}

/**
 * Splits a plan text into frontmatter and body with gray-matter, configured safe (an options
 * object always, so its shared cache is never used; code engines refused). Checks what
 * gray-matter lets through: a missing or unclosed block, a closing line that is not exactly `---`.
 * Returns the parsed (null-prototype) data and the block's offsets. `text` may start with a BOM.
 *
 * `direct`: the same split without gray-matter, for cached and index reads, which see thousands
 * of heads (gray-matter's per-call setup, a Buffer copy of its input and four property
 * definitions cost about a third of the YAML parse). The lines above already find the block;
 * what gray-matter adds is the YAML call, "{}" for a block of blanks and comments or a null, and
 * the body offset. A property test holds both ways equal on random texts (frontmatterSplit.test.ts).
 */
export function splitFrontmatter(text: string, direct = false): { data: unknown; block: FrontmatterBlock } {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const src = bom ? text.slice(1) : text;
  const firstLineEnd = src.indexOf('\n');
  const firstLine = (firstLineEnd === -1 ? src : src.slice(0, firstLineEnd)).replace(/\r$/, '');
  if (firstLine !== '---') {
    const lang = /^---\s*(\S+)/.exec(firstLine)?.[1];
    if (lang) refuseEngine(lang)();
    throw new PlanError('INVALID_FILE', 'no frontmatter: add a "---" line, the YAML fields (id, title, status, version, created_at, updated_at) and a closing "---" at the top of the file', { line: 1, rule: 'no-frontmatter' });
  }
  // gray-matter copies its whole input; give it only the frontmatter lines (through the first
  // "\n---" line, which is where it would stop too) so a long body costs nothing here.
  const close = src.indexOf('\n---', firstLineEnd);
  const headEnd = close === -1 ? src.length : src.indexOf('\n', close + 1) === -1 ? src.length : src.indexOf('\n', close + 1) + 1;
  let data: unknown;
  let matterLength: number;
  let contentStart: number;
  if (direct) {
    // What gray-matter does with a head that opens with a bare "---" line (checked above).
    const matterText = src.slice(3, close === -1 ? headEnd : close);
    data = yamlOrEmpty(matterText);
    matterLength = matterText.length;
    contentStart = close === -1 ? headEnd : close + 4;
    if (src.charCodeAt(contentStart) === 13 && contentStart < headEnd) contentStart++;
    if (src.charCodeAt(contentStart) === 10 && contentStart < headEnd) contentStart++;
  } else {
    const head = src.slice(0, headEnd);
    let file: { data: unknown; content: string; matter: string };
    try {
      file = matter(head, GRAY_MATTER_OPTIONS as never) as never;
    } catch (e) {
      if (e instanceof PlanError) throw e;
      throw new PlanError('INVALID_FILE', `frontmatter: ${(e as Error).message}`, { line: 1, rule: 'frontmatter-yaml' });
    }
    data = file.data;
    matterLength = file.matter.length;
    contentStart = head.length - file.content.length;
  }
  const yamlStart = bom + firstLineEnd + 1;
  // gray-matter's matter starts right after the opening "---" and ends before the "\n---".
  const closeAt = bom + 3 + matterLength;
  const yamlEnd = Math.max(yamlStart, text[closeAt - 1] === '\r' ? closeAt - 1 : closeAt);
  // gray-matter finds the first "\n---"; it must be a whole line, and it must exist.
  const afterClose = closeAt + 4; // "\n---"
  const closeOk =
    text.startsWith('\n---', closeAt) &&
    (afterClose === text.length || text[afterClose] === '\n' || text.startsWith('\r\n', afterClose));
  if (!closeOk) {
    const line = text.slice(0, yamlEnd).split('\n').length;
    throw new PlanError(
      'INVALID_FILE',
      'frontmatter is not closed: add a line "---" after the last YAML field',
      { line: Math.min(line, 2) },
    );
  }
  const bodyStart = bom + contentStart;
  const yaml = text.slice(yamlStart, yamlEnd);
  return { data, block: { yamlStart, yamlEnd, bodyStart, yaml } };
}

/** The values our writer puts in frontmatter. */
export type FrontmatterValue = string | number | readonly string[];

const PLAIN_SAFE = /^[A-Za-z0-9][A-Za-z0-9_.:@/+-]*$/;
/** True when `s` reads back as the same string when written plain (pi-planner reads it too). */
function plainSafe(s: string): boolean {
  if (!PLAIN_SAFE.test(s)) return false;
  try {
    return jsyaml.load(s, { schema: jsyaml.CORE_SCHEMA }) === s;
  } catch {
    return false;
  }
}

/**
 * One `key: value` entry in the YAML subset pi-planner reads: plain scalars where that reads
 * back exactly (ids, statuses, times, numbers, tool names), double-quoted strings otherwise, and
 * `  - item` lists. Serialized by js-yaml, never by hand.
 */
export function stringifyEntry(key: string, value: FrontmatterValue, eol: string): string {
  const quote = typeof value === 'string' && !plainSafe(value);
  const out = jsyaml
    .dump({ [key]: value }, { schema: jsyaml.CORE_SCHEMA, quotingType: '"', forceQuotes: quote, lineWidth: -1, noRefs: true })
    .replace(/\n$/, '');
  return eol === '\n' ? out : out.split('\n').join(eol);
}

/**
 * Rewrites a frontmatter YAML text: each key in `patch` is replaced in place (its lines only),
 * set to undefined is removed, and new keys are appended in order. Every other line, comments
 * and unknown keys included, stays byte for byte. Key positions come from js-yaml's parse events.
 */
export function patchFrontmatterYaml(
  yaml: string,
  patch: Readonly<Record<string, FrontmatterValue | undefined>>,
  eol: string,
): string {
  const entries = entriesOf(yaml);
  const pieces: string[] = [];
  const next: Entry[] = [];
  const seen = new Set<string>();
  let at = 0;
  let outLen = 0;
  const push = (text: string) => {
    pieces.push(text);
    outLen += text.length;
  };
  for (const e of entries) {
    push(yaml.slice(at, e.start));
    at = e.end;
    if (!Object.hasOwn(patch, e.key)) {
      next.push({ key: e.key, start: outLen, end: outLen + (e.end - e.start) });
      push(yaml.slice(e.start, e.end));
      continue;
    }
    seen.add(e.key);
    const v = patch[e.key];
    if (v === undefined) continue;
    const text = stringifyEntry(e.key, v, eol) + eol;
    next.push({ key: e.key, start: outLen, end: outLen + text.length });
    push(text);
  }
  push(yaml.slice(at));
  for (const [k, v] of Object.entries(patch)) {
    if (seen.has(k) || v === undefined) continue;
    const cur = pieces.join('');
    if (cur.length && !cur.endsWith('\n')) push(eol);
    const text = stringifyEntry(k, v, eol) + eol;
    next.push({ key: k, start: outLen, end: outLen + text.length });
    push(text);
  }
  // The caller adds the line break before the closing "---"; keep none at the end.
  let out = pieces.join('');
  const trail = /\r?\n$/.exec(out);
  if (trail) out = out.slice(0, out.length - trail[0].length);
  // Key starts are known from the splice; ends follow from them exactly as a fresh parse derives them.
  rememberEntries(out, withEnds(out, next.map((e) => ({ key: e.key, at: e.start }))));
  return out;
}

const entriesCache = new Map<string, Entry[]>();

/** Key ranges of a frontmatter text, cached: the re-read after our own write finds them here. */
export function entriesOf(yaml: string): Entry[] {
  const hit = entriesCache.get(yaml);
  if (hit) return hit;
  const e = topLevelEntries(yaml);
  rememberEntries(yaml, e);
  return e;
}

function rememberEntries(yaml: string, e: Entry[]): void {
  entriesCache.set(yaml, e);
  if (entriesCache.size > 64) entriesCache.delete(entriesCache.keys().next().value as string);
}

/**
 * True when a frontmatter YAML is a plain block mapping: its top-level keys start their lines at
 * column 0, unquoted and followed by their colon, and every other line is blank, a comment, or
 * indented (a value's continuation). In that shape, and only there, what `patchFrontmatterYaml` writes reads back as the old mapping
 * with the patch applied (a key appended after an indented mapping, a "..." end or a flow
 * mapping would not), so the new head's fields can be known without parsing it.
 */
export function plainMapping(yaml: string): boolean {
  let entries: Entry[];
  try {
    entries = entriesOf(yaml);
  } catch {
    return false; // not YAML at all
  }
  const starts = new Set<number>();
  for (const e of entries) {
    // The key itself, unquoted, at column 0, then its colon (a "..." end reads as an entry too).
    if (!yaml.startsWith(`${e.key}:`, e.start) || !/^[A-Za-z_]/.test(e.key)) return false;
    starts.add(e.start);
  }
  for (let pos = 0; pos < yaml.length; ) {
    let end = yaml.indexOf('\n', pos);
    if (end === -1) end = yaml.length;
    const c = yaml.charCodeAt(pos);
    const blank = yaml.slice(pos, end).trim() === '';
    if (!blank && c !== 0x23 /* # */ && c !== 0x20 && !starts.has(pos)) return false;
    pos = end + 1;
  }
  return true;
}

export interface Entry {
  key: string;
  /** Start of the key's first line. */
  start: number;
  /** Start of the next key's line (or the end of the text, past its final newline). */
  end: number;
}

/**
 * Top-level keys of a block mapping and the line ranges they own. Positions come from js-yaml's
 * parse events (its `listener`): a child of the root mapping opens at depth 1, keys and values
 * alternate.
 */
export function topLevelEntries(yaml: string): Entry[] {
  const starts: { key: string; at: number }[] = [];
  let depth = 0;
  let child = 0;
  let openedAt = 0;
  jsyaml.load(yaml, {
    schema: jsyaml.CORE_SCHEMA,
    listener(event: string, state: { position: number; result: unknown }) {
      if (event === 'open') {
        if (depth === 1) openedAt = state.position;
        depth++;
        return;
      }
      depth--;
      if (depth !== 1) return;
      if (child % 2 === 0) starts.push({ key: String(state.result), at: yaml.lastIndexOf('\n', openedAt - 1) + 1 });
      child++;
    },
  } as jsyaml.LoadOptions);
  return withEnds(yaml, starts);
}

function withEnds(yaml: string, starts: readonly { key: string; at: number }[]): Entry[] {
  return starts.map((s, i) => ({ key: s.key, start: s.at, end: ownedEnd(yaml, s.at, i + 1 < starts.length ? starts[i + 1].at : yaml.length) }));
}

/** Comment and blank lines just before the next key belong to that key, not to this one. */
function ownedEnd(yaml: string, start: number, end: number): number {
  let e = end;
  for (;;) {
    const prevLineStart = yaml.lastIndexOf('\n', e - 2) + 1;
    if (prevLineStart <= start || e <= start) return e;
    const line = yaml.slice(prevLineStart, e).trim();
    if (line !== '' && !line.startsWith('#')) return e;
    e = prevLineStart;
  }
}
