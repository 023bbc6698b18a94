/**
 * Adding and removing Pi Plans' entries in an agent host's configuration file, keeping everything
 * else as it was: JSON and JSONC through jsonc-parser (edits at a path, comments and formatting
 * kept), TOML through @decimalturn/toml-patch (a patch of the parsed document, comments and
 * formatting kept). Pure: text in, text out. An entry is ours by its place and, for hooks, by its
 * command (OUR_HOOK); a setting's list item by its value, a setting's plain value by being the value
 * setup sets. A removal takes out only ours, then the containers it left empty, and a file left
 * with nothing but what setup put there is deleted (undefined).
 */
import { TomlFormat, parse as parseToml, patch as patchToml } from '@decimalturn/toml-patch';
import { applyEdits, createScanner, findNodeAtLocation, format, FormattingOptions, getNodeValue, modify, Node, ParseError, parseTree, printParseErrorCode, JSONPath } from 'jsonc-parser';

/** Where an entry goes: the path of its list (hooks) or of the entry itself (a named MCP server). */
export type JsonPlace = readonly string[];

/** What setup wants in one file. */
export interface EntryEdit {
  /**
   * hookList: a list of hook commands per event; hookGroups: a list of { matcher?, hooks: [...] };
   * named: one keyed entry; settings: values at paths, where a list's items are merged with the
   * person's (ours appended, only ours removed; in JSON) and a plain value is set (removed only
   * while it still holds ours; in TOML every value is a plain one, a table too).
   */
  shape: 'hookList' | 'hookGroups' | 'named' | 'settings';
  /** `byPlace` (TOML settings): ours by its place alone, a table named for Pi Plans, taken out whatever it holds. */
  entries: { place: JsonPlace; value: unknown; byPlace?: boolean }[];
  /** Keys a file of ours needs at the top (set when missing, never changed). */
  top?: Record<string, unknown>;
  /** What the entries are, for the report ("hooks", "MCP server"). */
  what: string;
}

/** The new text (undefined: delete the file) and what changed; no changes: the file is left as it is. */
export interface EditOutcome {
  text: string | undefined;
  changes: string[];
}

/** A file setup will not edit (does not parse, or a key it needs holds something else); the message says where. */
export class ConfigFileError extends Error {}

/** A hook command is ours when it runs `… hook --agent …` or `… hook --event …` (the shared Copilot file has no --agent). */
export const OUR_HOOK = / hook --(agent|event) /;

/** Equal as JSON values, whatever the order of keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameValue(v, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Adds (or updates) setup's entries, or removes them. */
export function editConfig(format: 'json' | 'toml', text: string | undefined, edit: EntryEdit, remove: boolean): EditOutcome {
  return format === 'toml' ? editToml(text, edit, remove) : editJson(text, edit, remove);
}

// ---------------------------------------------------------------- JSON and JSONC

/** The file's own indentation and line ends, for what setup inserts. */
function formatOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** The root object of a JSON(C) text, or the reason it is not one. */
function jsonRoot(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0];
    throw new ConfigFileError(`it does not parse as JSON (line ${lineOf(text, e.offset)}: ${printParseErrorCode(e.error)})`);
  }
  if (!root || root.type !== 'object') throw new ConfigFileError('it holds no JSON object at the top');
  return root;
}

class JsonDoc {
  readonly fmt: FormattingOptions;
  constructor(public text: string) {
    this.fmt = formatOf(text);
    jsonRoot(text);
  }
  node(p: JSONPath): Node | undefined {
    return findNodeAtLocation(jsonRoot(this.text), p as JSONPath);
  }
  /**
   * Sets (undefined: removes) the value at `p`. What is inserted is laid out in the file's style,
   * and only it: jsonc-parser's own formatting of an edit reaches back to the start of its line,
   * which would re-lay a person's one-line entry just before ours.
   */
  set(p: JSONPath, value: unknown, opts: { insert?: boolean; first?: boolean } = {}): void {
    const edits = modify(this.text, p, value, { isArrayInsertion: opts.insert, getInsertionIndex: opts.first ? () => 0 : undefined });
    this.text = applyEdits(this.text, edits);
    if (value === undefined || edits.length !== 1) return;
    const [{ offset, content }] = edits;
    const end = offset + content.length;
    this.text = applyEdits(this.text, format(this.text, { offset, length: content.length }, this.fmt).filter((e) => e.offset >= offset && e.offset + e.length <= end));
  }
  /** Lays out the whole text (a file setup creates). */
  formatAll(): void {
    this.text = applyEdits(this.text, format(this.text, undefined, this.fmt));
  }
  /**
   * Removes the value at `p` (a property with its key) and the comma that parted it from its
   * neighbour, and nothing else: a comment beside it stays. Between it and the one before there is
   * only a comma and space (as when setup appended it), that space goes too: the exact inverse of
   * the append. jsonc-parser's own removal would take a comment before the property with it.
   */
  remove(p: JSONPath): void {
    const value = this.node(p);
    const item = value?.parent?.type === 'property' ? value.parent : value;
    const siblings = item?.parent?.children;
    if (!item || !siblings) return;
    const i = siblings.indexOf(item);
    const cut = (ranges: [number, number][]) => {
      for (const [from, to] of ranges.sort((a, b) => b[0] - a[0])) this.text = this.text.slice(0, from) + this.text.slice(to);
    };
    const end = (n: Node) => n.offset + n.length;
    const only = (from: number, to: number) => /^\s*,\s*$/.test(this.text.slice(from, to));
    if (siblings.length === 1) return cut([[item.offset, end(item)]]);
    if (i > 0) {
      const prev = siblings[i - 1];
      return cut(only(end(prev), item.offset) ? [[end(prev), end(item)]] : [this.commaIn(end(prev), item.offset), [item.offset, end(item)]]);
    }
    const next = siblings[1];
    cut(only(end(item), next.offset) ? [[item.offset, next.offset]] : [[item.offset, end(item)], this.commaIn(end(item), next.offset)]);
  }
  /** The comma between two values (the scanner skips the comments around it). */
  private commaIn(from: number, to: number): [number, number] {
    const scanner = createScanner(this.text.slice(from, to), false);
    // A token of no length is the end (SyntaxKind is a const enum, which isolated modules cannot read).
    for (scanner.scan(); scanner.getTokenLength() > 0; scanner.scan()) {
      if (this.text[from + scanner.getTokenOffset()] === ',' && scanner.getTokenLength() === 1) return [from + scanner.getTokenOffset(), from + scanner.getTokenOffset() + 1];
    }
    return [from, from];
  }
  /** Removes the value at `p`, then each container above it (up to `stop` levels) it leaves empty. */
  removeUp(p: JSONPath, stop: number): void {
    this.remove(p);
    for (let up = p.slice(0, -1); up.length >= stop && up.length > 0; up = up.slice(0, -1)) {
      const n = this.node(up);
      if (!n || (n.children?.length ?? 0) > 0) return;
      this.remove(up);
    }
  }
}

/** The container at `place` must be what the shape needs (or absent): a list for hooks (and a setting's list), an object above. */
function checkShape(doc: JsonDoc, place: JsonPlace, shape: EntryEdit['shape'], value?: unknown): void {
  const list = shape === 'hookList' || shape === 'hookGroups' || (shape === 'settings' && Array.isArray(value));
  for (let i = 1; i <= place.length; i++) {
    const n = doc.node(place.slice(0, i) as JSONPath);
    if (!n) return;
    const wanted = i === place.length ? (list ? 'array' : undefined) : 'object';
    if (wanted && n.type !== wanted) throw new ConfigFileError(`"${place.slice(0, i).join('.')}" holds ${n.type === 'array' ? 'a list' : `a${n.type === 'object' ? 'n' : ''} ${n.type}`}, not ${wanted === 'array' ? 'a list' : 'an object'}`);
  }
}

/** A hook entry is ours when one of its commands (command; bash or powershell in Copilot's files) is. */
function isOurHook(v: unknown): boolean {
  return typeof v === 'object' && v !== null && ['command', 'bash', 'powershell'].some((k) => typeof (v as Record<string, unknown>)[k] === 'string' && OUR_HOOK.test((v as Record<string, string>)[k]));
}

/**
 * Whether a host's hook file (JSON or JSONC) holds a hook of ours for any event, in either shape
 * setup writes: `hooks.<event>` a list of commands (Copilot) or of `{ matcher?, hooks: [...] }`
 * groups (Claude Code, Codex). A file that does not parse holds none.
 */
export function hasOurHooks(text: string): boolean {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || root?.type !== 'object') return false;
  const hooks = getNodeValue(root).hooks as unknown;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return false;
  return Object.values(hooks).some(
    (list) => Array.isArray(list) && list.some((item) => isOurHook(item) || (Array.isArray((item as { hooks?: unknown } | null)?.hooks) && ((item as { hooks: unknown[] }).hooks).some(isOurHook))),
  );
}

/** The paths of our hook commands in the list at `place`. */
function ourHooks(doc: JsonDoc, place: JsonPlace, shape: EntryEdit['shape']): JSONPath[] {
  const list = doc.node(place as JSONPath);
  const found: JSONPath[] = [];
  (list?.children ?? []).forEach((item, i) => {
    if (shape === 'hookList') {
      if (isOurHook(getNodeValue(item))) found.push([...place, i]);
      return;
    }
    const hooks = (getNodeValue(item) as { hooks?: unknown } | null)?.hooks;
    if (Array.isArray(hooks)) hooks.forEach((h, j) => isOurHook(h) && found.push([...place, i, 'hooks', j]));
  });
  return found;
}

/** Puts one hook entry in: kept when it is there as wanted, replaced when ours differs, else appended. */
function putHook(doc: JsonDoc, place: JsonPlace, value: unknown, shape: EntryEdit['shape']): 'added' | 'updated' | undefined {
  const wanted = shape === 'hookGroups' ? (value as { hooks: unknown[] }).hooks[0] : value;
  const ours = ourHooks(doc, place, shape);
  if (ours.length === 1 && sameValue(getNodeValue(doc.node(ours[0])!), wanted)) return undefined;
  if (!ours.length) {
    if (doc.node(place as JSONPath)) doc.set([...place, -1], value, { insert: true });
    else doc.set(place as JSONPath, [value]);
    return 'added';
  }
  for (const p of ours.slice(1).reverse()) doc.removeUp(p, place.length + 1);
  doc.set(ours[0], wanted);
  return 'updated';
}

/** Puts one setting in: a list's missing items appended (the person's kept), a plain value set. */
function putSetting(doc: JsonDoc, place: JsonPlace, value: unknown): 'added' | 'updated' | undefined {
  const n = doc.node(place as JSONPath);
  if (!Array.isArray(value)) {
    if (n && sameValue(getNodeValue(n), value)) return undefined;
    doc.set(place as JSONPath, value);
    return n ? 'updated' : 'added';
  }
  if (!n) {
    doc.set(place as JSONPath, value);
    return 'added';
  }
  const have = getNodeValue(n) as unknown[];
  const missing = value.filter((v) => !have.some((h) => sameValue(h, v)));
  for (const v of missing) doc.set([...place, -1], v, { insert: true });
  return missing.length ? 'updated' : undefined;
}

/** Takes one setting out: a list's items of ours (the person's stay), a plain value only while it is ours. Whether anything went. */
function removeSetting(doc: JsonDoc, place: JsonPlace, value: unknown): boolean {
  const n = doc.node(place as JSONPath);
  if (!n) return false;
  if (!Array.isArray(value)) {
    if (!sameValue(getNodeValue(n), value)) return false;
    doc.removeUp(place as JSONPath, 1);
    return true;
  }
  const ours = (n.children ?? []).map((c, i) => (value.some((v) => sameValue(getNodeValue(c), v)) ? i : -1)).filter((i) => i >= 0);
  // Last first: the indexes before it stay right.
  for (const i of ours.reverse()) doc.removeUp([...place, i], 1);
  return ours.length > 0;
}

function addJson(doc: JsonDoc, edit: EntryEdit): string[] {
  const changed: Record<'added' | 'updated', string[]> = { added: [], updated: [] };
  for (const [key, v] of Object.entries(edit.top ?? {})) if (!doc.node([key])) doc.set([key], v, { first: true });
  for (const { place, value } of edit.entries) {
    checkShape(doc, place, edit.shape, value);
    const name = edit.shape === 'settings' ? place.join('.') : place[place.length - 1];
    if (edit.shape === 'settings') {
      const r = putSetting(doc, place, value);
      if (r) changed[r].push(name);
      continue;
    }
    if (edit.shape !== 'named') {
      const r = putHook(doc, place, value, edit.shape);
      if (r) changed[r].push(name);
      continue;
    }
    const n = doc.node(place as JSONPath);
    if (n && sameValue(getNodeValue(n), value)) continue;
    doc.set(place as JSONPath, value);
    changed[n ? 'updated' : 'added'].push(name);
  }
  return [...(changed.added.length ? [`added ${edit.what} ${changed.added.join(', ')}`] : []), ...(changed.updated.length ? [`updated ${edit.what} ${changed.updated.join(', ')}`] : [])];
}

function removeJson(doc: JsonDoc, edit: EntryEdit): string[] {
  const removed: string[] = [];
  for (const { place, value } of edit.entries) {
    checkShape(doc, place, edit.shape, value);
    if (edit.shape === 'settings') {
      if (removeSetting(doc, place, value)) removed.push(place.join('.'));
      continue;
    }
    const paths = edit.shape === 'named' ? (doc.node(place as JSONPath) ? [place as JSONPath] : []) : ourHooks(doc, place, edit.shape);
    // Last first: the paths before it stay right.
    for (const p of [...paths].reverse()) doc.removeUp(p, 1);
    if (paths.length) removed.push(place[place.length - 1]);
  }
  return removed.length ? [`removed ${edit.what} ${removed.join(', ')}`] : [];
}

function editJson(text: string | undefined, edit: EntryEdit, remove: boolean): EditOutcome {
  const fresh = text === undefined || !text.trim();
  if (fresh && remove) return { text, changes: [] };
  const doc = new JsonDoc(fresh ? '{}' : text);
  const changes = remove ? removeJson(doc, edit) : addJson(doc, edit);
  if (!changes.length) return { text, changes };
  if (fresh) {
    doc.formatAll();
    return { text: doc.text + doc.fmt.eol, changes };
  }
  // Nothing left but what a file of ours starts with (and no comment): the file goes.
  if (remove && doc.text.replace(/\s+/g, '') === JSON.stringify(edit.top ?? {})) return { text: undefined, changes };
  return { text: doc.text, changes };
}

// ---------------------------------------------------------------- TOML

function readToml(text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigFileError(`it does not parse as TOML (${String((e as Error).message).split('\n')[0]})`);
  }
}

/** A TOML file keeps its own style; a new table is written as a [section], not inline. */
function tomlFormat(text: string): TomlFormat {
  const fmt = TomlFormat.autoDetectFormat(text.trim() ? text : 'a = 1\n');
  fmt.inlineTableStart = 3;
  return fmt;
}

/** A TOML table (an inline one too), as @decimalturn/toml-patch parses it: not a value, a list or a date. */
function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The table that holds `place`'s last key (the tables on the way made when `make`), or undefined; ConfigFileError where a key on the way holds a value. */
function tomlTableOf(doc: Record<string, unknown>, place: JsonPlace, make: boolean): Record<string, unknown> | undefined {
  let t = doc;
  for (let i = 0; i < place.length - 1; i++) {
    const v = t[place[i]];
    if (v === undefined) {
      if (!make) return undefined;
      t[place[i]] = {};
    } else if (!isTable(v)) {
      throw new ConfigFileError(`"${place.slice(0, i + 1).join('.')}" holds a value, not a table`);
    }
    t = t[place[i]] as Record<string, unknown>;
  }
  return t;
}

/** Named entries: `[key.name]` put in whole (replaced when it differs), taken out by its name. */
function namedToml(doc: Record<string, unknown>, edit: EntryEdit, remove: boolean): string[] {
  const changes: string[] = [];
  for (const { place, value } of edit.entries) {
    const [key, name] = place;
    const table = doc[key];
    if (table !== undefined && !isTable(table)) throw new ConfigFileError(`"${key}" holds a value, not a table`);
    const t = (table ?? {}) as Record<string, unknown>;
    if (remove) {
      if (!(name in t)) continue;
      delete t[name];
      if (!Object.keys(t).length) delete doc[key];
      changes.push(`removed ${edit.what} ${name}`);
    } else {
      if (sameValue(t[name], value)) continue;
      changes.push(`${name in t ? 'updated' : 'added'} ${edit.what} ${name}`);
      t[name] = value;
      doc[key] = t;
    }
  }
  return changes;
}

/**
 * Settings: a value (a table too) set at its place, and taken out only while it still holds what
 * setup set, with the tables it leaves empty; the person's keys beside it are left as they are.
 */
function settingsToml(doc: Record<string, unknown>, edit: EntryEdit, remove: boolean): string[] {
  const changed: Record<'added' | 'updated' | 'removed', string[]> = { added: [], updated: [], removed: [] };
  for (const { place, value, byPlace } of edit.entries) {
    const key = place[place.length - 1];
    const t = tomlTableOf(doc, place, !remove);
    if (remove) {
      if (!t || !(key in t) || !(byPlace || sameValue(t[key], value))) continue;
      delete t[key];
      // The tables it leaves empty go too, innermost first.
      for (let up = place.length - 1; up > 0; up--) {
        const parent = tomlTableOf(doc, place.slice(0, up), false);
        const name = place[up - 1];
        if (!parent || !isTable(parent[name]) || Object.keys(parent[name] as object).length) break;
        delete parent[name];
      }
      changed.removed.push(place.join('.'));
      continue;
    }
    if (sameValue(t![key], value)) continue;
    changed[key in t! ? 'updated' : 'added'].push(place.join('.'));
    t![key] = value;
  }
  return (['added', 'updated', 'removed'] as const).filter((k) => changed[k].length).map((k) => `${k} ${edit.what} ${changed[k].join(', ')}`);
}

function editToml(text: string | undefined, edit: EntryEdit, remove: boolean): EditOutcome {
  if (edit.shape !== 'named' && edit.shape !== 'settings') throw new Error('TOML files take named entries and settings only');
  const before = text ?? '';
  const doc = readToml(before);
  const changes = edit.shape === 'named' ? namedToml(doc, edit, remove) : settingsToml(doc, edit, remove);
  if (!changes.length) return { text, changes };
  const after = patchToml(before, doc, tomlFormat(before));
  if (remove && !after.trim()) return { text: undefined, changes };
  return { text: !before.trim() && !after.endsWith('\n') ? `${after}\n` : after, changes };
}
