// A shell word as the shell makes it: its text after quote removal and tilde expansion, the words a
// brace expansion makes, its unquoted glob; or computed (an expansion in it), which nothing can read.
import braces from 'braces';
import { parse, type Word, type WordPart } from 'unbash';

/** A brace expansion to more words than this is not expanded: unknown. */
const MAX_BRACES = 64;

const EXPANSIONS = new Set(['SimpleExpansion', 'ParameterExpansion', 'CommandExpansion', 'ArithmeticExpansion', 'ProcessSubstitution']);
/** The parts of a word that are an unquoted glob. */
export const GLOBS: ReadonlySet<string> = new Set(['Glob', 'ExtendedGlob']);

/** Whether a part (or a part inside it) is expanded by the shell at run time. */
function computedPart(p: WordPart): boolean {
  if (EXPANSIONS.has(p.type)) return true;
  if (p.type === 'DoubleQuoted' || p.type === 'LocaleString') return p.parts.some((c) => EXPANSIONS.has(c.type));
  return false;
}

/** A word as text after quote removal, with its tilde expanded; undefined when it is computed (an expansion in it). */
export function literal(w: Word | undefined, home: string): string | undefined {
  if (!w) return undefined;
  if (w.parts?.some(computedPart)) return undefined;
  const unquotedTilde = !w.parts || w.parts[0]?.type === 'Literal';
  if (unquotedTilde && (w.value === '~' || w.value.startsWith('~/'))) return home + w.value.slice(1);
  return w.value;
}

const globChars = /[*?[\]\\{}()!+@]/g;
/** A word with an unquoted glob: its pattern, with the quoted parts escaped. */
function globOf(w: Word, home: string): string | undefined {
  if (!w.parts?.some((p) => GLOBS.has(p.type))) return undefined;
  const text = w.parts
    .map((p, i) => {
      if (GLOBS.has(p.type)) return p.text;
      const v = 'value' in p && typeof p.value === 'string' ? p.value : p.text;
      const lit = i === 0 && p.type === 'Literal' && (v === '~' || v.startsWith('~/')) ? home + v.slice(1) : v;
      return lit.replace(globChars, '\\$&');
    })
    .join('');
  return text;
}

/**
 * An upper bound of the words a brace expansion makes, read off its text before expanding (a
 * product of lists grows past any limit long before `braces` would stop): each `{…}` counts its
 * commas plus one, a `{a..b}` range its length.
 */
function braceBound(text: string): number {
  let bound = 1;
  const stack: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{') stack.push(1);
    else if (c === ',' && stack.length) stack[stack.length - 1]++;
    else if (c === '}' && stack.length) {
      let n = stack.pop()!;
      const range = /^\{(-?\w+)\.\.(-?\w+)(?:\.\.-?\d+)?$/.exec(text.slice(text.lastIndexOf('{', i), i + 1));
      if (range) n = Math.abs((Number(range[2]) || range[2].charCodeAt(0)) - (Number(range[1]) || range[1].charCodeAt(0))) + 1;
      bound *= n;
      if (bound > MAX_BRACES) return bound;
    }
  }
  return bound;
}

/** The words a word becomes: several for a brace expansion, none when computed (then `undefined`). */
export function expand(w: Word, home: string): { text: string; glob?: string }[] | undefined {
  if (w.parts?.some((p) => p.type === 'BraceExpansion')) {
    if (w.parts.some(computedPart) || braceBound(w.text) > MAX_BRACES) return undefined;
    const words = braces(w.text, { expand: true, rangeLimit: MAX_BRACES });
    if (words.length > MAX_BRACES) return undefined;
    // Each expanded word is read again as a word (its quotes and globs as the shell would).
    const out: { text: string; glob?: string }[] = [];
    for (const text of words) {
      const again = firstWord(text);
      const lit = literal(again, home);
      if (!again || lit === undefined) return undefined;
      out.push({ text: lit, glob: globOf(again, home) });
    }
    return out;
  }
  const lit = literal(w, home);
  if (lit === undefined) return undefined;
  return [{ text: lit, glob: globOf(w, home) }];
}

function firstWord(text: string): Word | undefined {
  const s = parse(text).commands[0]?.command;
  return s?.type === 'Command' ? s.name : undefined;
}

/** The last component of a path (a program's name). */
export const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The text of a word's quoted and plain parts (what it holds as written, not what its substitutions will print). */
export function writtenText(w: Word): string {
  if (!w.parts) return w.value;
  const of = (p: WordPart): string => {
    if (p.type === 'Literal' || p.type === 'SingleQuoted' || p.type === 'AnsiCQuoted') return p.value;
    if (p.type === 'DoubleQuoted' || p.type === 'LocaleString') return p.parts.map((c) => (c.type === 'Literal' ? c.value : '')).join('');
    return '';
  };
  return w.parts.map(of).join('');
}
