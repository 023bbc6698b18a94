// The places a bound session's tools and commands must not change by themselves, and whether a
// path (or a glob a shell would expand) names one. Pure: the real-path resolution is passed in
// (the hook resolves links on the disk; tests give a table).
import picomatch from 'picomatch';

/** A place the policy guards, as a real absolute path (POSIX separators). */
export interface Protected {
  path: string;
  /** deny: no agent ever changes it (Pi Plans' own folders in the home); ask: the person decides (the plan folder, the hosts' hook files). */
  level: 'deny' | 'ask';
  /** What it is, for the reason: "the plan folder (.pi/)". */
  what: string;
}

/**
 * Resolves `rel` against the real folder `base` as the kernel would: each existing component's
 * links followed before the next `..` applies. Missing components are kept as written.
 */
export type Resolve = (base: string, rel: string) => string;

const segments = (p: string) => p.split('/').filter(Boolean);

/** Whether a word is a glob the shell would expand: an unquoted `*`, `?` or `[` (the caller says which characters were unquoted). */
export interface PathWord {
  /** The word as the shell sees it after quote removal (tilde expanded). */
  text: string;
  /** The word as a glob (quoted glob characters escaped), when it has unquoted glob characters. */
  glob?: string;
}

/** How a path word relates to a protected place: it is the place or inside it (`names`), or a folder that holds it (`holds`). */
export type Relation = 'names' | 'holds' | undefined;

/** Matches the segments of a path word (the literal prefix resolved, the glob segments as patterns) against a protected path's. */
function relate(wordSegs: readonly (string | RegExp)[], target: readonly string[]): Relation {
  const n = Math.min(wordSegs.length, target.length);
  for (let i = 0; i < n; i++) {
    const w = wordSegs[i];
    if (typeof w === 'string' ? w !== target[i] : !w.test(target[i])) return undefined;
  }
  return wordSegs.length >= target.length ? 'names' : 'holds';
}

/**
 * The protected places a path word reaches from each folder it may be run in: `names` when it is
 * the place or inside it, `holds` when it is a folder above it. A glob reaches every place its
 * segments could match (`.p?` matches `.pi`; `*` does not match a leading dot, as in bash).
 */
export function reach(word: PathWord, cwds: readonly string[], places: readonly Protected[], resolve: Resolve): { place: Protected; relation: Exclude<Relation, undefined> }[] {
  const out: { place: Protected; relation: Exclude<Relation, undefined> }[] = [];
  if (!word.text) return out;
  const bases = word.text.startsWith('/') ? ['/'] : cwds;
  for (const base of bases) {
    let segs: (string | RegExp)[];
    if (word.glob) {
      // The literal folders before the first glob segment resolve on the disk; the rest are patterns.
      const raw = segments(word.glob);
      const first = raw.findIndex((s) => picomatch.scan(s).isGlob);
      const head = raw.slice(0, first < 0 ? raw.length : first).map((s) => s.replace(/\\(.)/g, '$1'));
      const resolved = segments(resolve(base, head.join('/') || '.'));
      segs = [...resolved, ...raw.slice(first < 0 ? raw.length : first).map((s) => picomatch.makeRe(s, { dot: false, nobrace: true }))];
    } else {
      segs = segments(resolve(base, word.text));
    }
    for (const place of places) {
      const relation = relate(segs, segments(place.path));
      if (relation && !out.some((o) => o.place === place && o.relation === relation)) out.push({ place, relation });
    }
  }
  return out;
}
