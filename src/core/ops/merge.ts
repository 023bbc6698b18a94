import { diff3Merge } from 'node-diff3';
import { parsePlan, PlanDocument } from '../format/document';
import { PlanError } from '../limits/errors';
import { entriesOf, stringifyEntry } from '../format/frontmatter';
import { lineStartAt } from '../format/outline';
import { ensureStepIds, renumbered } from './operations';
import { recordBlockOf, noteLineOf, renameStepHeader, renderNoteLine, contentIndent, stepNumber } from '../format/steps';

/**
 * A three-way merge of plan files (git's merge driver): by frontmatter key, by section and by
 * step id instead of by line, so two branches that change different steps of one plan merge
 * cleanly although both bumped `version` and `updated_at`. Lines no side changed stay byte for
 * byte; a true conflict gets standard markers around just the step, section or field concerned.
 */

export interface MergeLabels {
  ours?: string;
  theirs?: string;
  /** Length of the conflict markers (git's `%L`): 7 unless the file itself holds such lines. */
  markerSize?: number;
}

export interface MergeConflict {
  /** `step S003`, `section Risks`, `field status`. */
  what: string;
  /** 1-based line of its `<<<<<<<` marker in the result. */
  line: number;
}

export interface PlanMerge {
  text: string;
  conflicts: MergeConflict[];
  /** Steps both sides added under the same id: theirs got the next free id. */
  renumbered: { from: string; to: string }[];
}

type Kind = 'fm' | 'pre' | 'section' | 'steps-head' | 'step' | 'steps-tail';

interface Unit {
  key: string;
  kind: Kind;
  /** The unit's text without its trailing whitespace (frontmatter entries: with their line break). */
  text: string;
  /** The whitespace after it in its own file. */
  sep: string;
  /** Steps: the bullet the text is written with (`1.`/`1)` for ordered lists: positions are given when composing). */
  bullet?: string;
}

/** A body section other than the one holding the steps, with the `depth:title` it pairs by. */
interface Titled {
  name: string;
  unit: Unit;
}

interface Split {
  doc: PlanDocument;
  fm: Unit[];
  body: Unit[];
  /** The body's sections but the steps' one, in order: what `pairSections` re-keys. */
  titled: Titled[];
  /** Whitespace at the end of the body. */
  trail: string;
  ordered: boolean;
}

const lines = (t: string): string[] => t.match(/[^\n]*\n|[^\n]+$/g) ?? [];
const trailingWs = (t: string): number => t.length - t.replace(/\s+$/, '').length;

/** A plan's text as keyed units: frontmatter entries, body sections, and the steps by id. */
function split(doc: PlanDocument, byId: boolean): Split {
  const eol = doc.eol;
  const yaml = doc.block.yaml;
  const fm: Unit[] = [];
  const entries = entriesOf(yaml);
  const withEol = (t: string) => (t.endsWith('\n') ? t : t + eol);
  const first = entries.length ? entries[0].start : yaml.length;
  if (first > 0) fm.push({ key: 'fm:<head>', kind: 'fm', text: withEol(yaml.slice(0, first)), sep: '' });
  for (const e of entries) fm.push({ key: `fm:${e.key}`, kind: 'fm', text: withEol(yaml.slice(e.start, e.end)), sep: '' });
  const last = entries.length ? entries[entries.length - 1].end : yaml.length;
  if (entries.length && last < yaml.length) fm.push({ key: 'fm:<tail>', kind: 'fm', text: withEol(yaml.slice(last)), sep: '' });

  const body = doc.body;
  const units: Unit[] = [];
  const push = (key: string, kind: Kind, raw: string, bullet?: string) => {
    const cut = raw.length - trailingWs(raw);
    units.push({ key, kind, text: raw.slice(0, cut), sep: raw.slice(cut), bullet });
  };
  const sections = doc.outline.sections;
  push('pre', 'pre', body.slice(0, sections.length ? sections[0].start : body.length));
  const seen = new Map<string, number>();
  const titled: Titled[] = [];
  const items = doc.outline.steps;
  sections.forEach((sec, i) => {
    const name = `${sec.depth}:${sec.title.toLowerCase()}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    const key = `section:${name}${n > 1 ? `#${n}` : ''}`;
    if (i !== doc.outline.stepsSection || !items.length || !byId) {
      push(key, 'section', body.slice(sec.start, sec.end));
      // The steps' section is the first `## Steps` on every side: it keeps its key.
      if (i !== doc.outline.stepsSection) titled.push({ name, unit: units[units.length - 1] });
      return;
    }
    push(`${key}:head`, 'steps-head', body.slice(sec.start, lineStartAt(body, items[0].start)));
    items.forEach((it, j) => {
      const s = doc.steps[j];
      const end = j + 1 < items.length ? lineStartAt(body, items[j + 1].start) : it.end;
      const canonical = /^\d/.test(s.bullet) ? `1${s.bullet.slice(-1)}` : s.bullet;
      push(`step:${s.id}`, 'step', renumbered(body.slice(lineStartAt(body, it.start), end), s.bullet, canonical), canonical);
    });
    push(`${key}:tail`, 'steps-tail', body.slice(items[items.length - 1].end, sec.end));
  });
  // The body's final whitespace belongs to the file, not to its last unit.
  const trail = units.length ? units[units.length - 1].sep : '';
  if (units.length) units[units.length - 1].sep = '';
  return { doc, fm, body: units, titled, trail, ordered: items.length ? items[0].ordered : true };
}

/** The words of a section's text after its heading line, counted. */
function wordsOf(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const nl = text.indexOf('\n');
  for (const w of (nl < 0 ? '' : text.slice(nl + 1)).split(/\s+/)) if (w) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** How alike two sections' texts are, 0 to 1: the share of words they have in common (Dice). */
function likeness(a: Map<string, number>, b: Map<string, number>): number {
  let size = 0;
  let common = 0;
  for (const n of a.values()) size += n;
  for (const [w, n] of b) {
    size += n;
    common += Math.min(n, a.get(w) ?? 0);
  }
  return size ? (2 * common) / size : 1;
}

/** Past this many candidate pairs (about 500 sections of one title, all different), sections pair by rank: the alignment's time and memory grow with it. */
const MAX_ALIGN_CELLS = 250_000;

/**
 * Pairs sections of `a` with sections of `b` in order (no two pairs cross): as many pairs as can
 * be, then the most alike. A rank would pair an inserted section with the one it was put in
 * front of; likeness pairs it with nothing. Returns, for each section of `b`, its partner's index
 * in `a`, or -1.
 */
function alignSections(a: readonly Titled[], b: readonly Titled[]): number[] {
  const partner = b.map(() => -1);
  // Identical sections at either end pair as they stand (no pairing does better), which leaves a
  // small middle in the usual case of one section inserted, removed or edited.
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo].unit.text === b[lo].unit.text) partner[lo] = lo++;
  let [ha, hb] = [a.length, b.length];
  while (ha > lo && hb > lo && a[ha - 1].unit.text === b[hb - 1].unit.text) partner[--hb] = --ha;
  const [ma, mb] = [a.slice(lo, ha), b.slice(lo, hb)];
  const middle = ma.length * mb.length > MAX_ALIGN_CELLS ? mb.map((_, j) => (j < ma.length ? j : -1)) : alignByLikeness(ma, mb);
  middle.forEach((i, j) => (partner[lo + j] = i < 0 ? -1 : lo + i));
  return partner;
}

/** `alignSections` for the sections between the identical ends: a dynamic program over both lists. */
function alignByLikeness(a: readonly Titled[], b: readonly Titled[]): number[] {
  const wb = b.map((x) => wordsOf(x.unit.text));
  const like = a.map((x) => {
    const wa = wordsOf(x.unit.text);
    return wb.map((w) => likeness(wa, w));
  });
  // best[i][j]: the best pairing of a[i..] with b[j..], as [pairs, summed likeness].
  type Score = [number, number];
  const better = (x: Score, y: Score) => (x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1]);
  const best: Score[][] = Array.from({ length: a.length + 1 }, () => Array.from({ length: b.length + 1 }, (): Score => [0, 0]));
  const paired = (i: number, j: number): Score => [best[i + 1][j + 1][0] + 1, best[i + 1][j + 1][1] + like[i][j]];
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      let v = paired(i, j);
      if (better(best[i + 1][j], v)) v = best[i + 1][j];
      if (better(best[i][j + 1], v)) v = best[i][j + 1];
      best[i][j] = v;
    }
  }
  // Ties go to the earliest pair: the rank pairing of old.
  const partner = b.map(() => -1);
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (!better(best[i][j], paired(i, j))) partner[j++] = i++;
    else if (!better(best[i][j], best[i + 1][j])) i++;
    else j++;
  }
  return partner;
}

/**
 * Gives the sides' sections of a title used more than once the keys they pair by: each side's
 * sections of that title are aligned with base's (`alignSections`), so one inserted in front of
 * an existing one does not shift the pairing of those behind it. A side's section with no partner
 * in base is an insertion; insertions both sides made at the same place (between the same base
 * sections of that title) pair with each other, as two insertions of a title new to the plan do.
 */
function pairSections(base: Split, ours: Split, theirs: Split): void {
  const byName = new Map<string, [Titled[], Titled[], Titled[]]>();
  [base, ours, theirs].forEach((s, side) =>
    s.titled.forEach((x) => {
      const lists = byName.get(x.name) ?? [[], [], []];
      lists[side].push(x);
      byName.set(x.name, lists);
    }),
  );
  for (const [name, [b, o, t]] of byName) {
    // A title used at most once on each side pairs by title alone, as it always did.
    if (b.length < 2 && o.length < 2 && t.length < 2) continue;
    const inserted = new Map<number, { o: Titled[]; t: Titled[] }>();
    for (const [side, which] of [[o, 'o'], [t, 't']] as const) {
      const partner = alignSections(b, side);
      // The place of an insertion: after how many of base's sections of this title.
      let gap = 0;
      side.forEach((x, j) => {
        if (partner[j] >= 0) {
          x.unit.key = b[partner[j]].unit.key;
          gap = partner[j] + 1;
          return;
        }
        const at = inserted.get(gap) ?? { o: [], t: [] };
        at[which].push(x);
        inserted.set(gap, at);
      });
    }
    // `section+` rather than `section:`: apart from every base key, whatever the title holds.
    for (const [gap, at] of inserted) {
      const key = (n: string) => `section+${gap}.${n}:${name}`;
      const partner = alignSections(at.o, at.t);
      at.o.forEach((x, i) => (x.unit.key = key(String(i))));
      at.t.forEach((x, j) => (x.unit.key = key(partner[j] >= 0 ? String(partner[j]) : `theirs${j}`)));
    }
  }
}

/** The keys in merged order: the side that reordered the common keys leads, the other's additions go after their predecessor. */
function order(b: readonly string[], o: readonly string[], t: readonly string[]): string[] {
  const bs = new Set(b);
  const os = new Set(o);
  const ts = new Set(t);
  const commonOf = (xs: readonly string[]) => xs.filter((k) => bs.has(k) && os.has(k) && ts.has(k)).join('\0');
  const base = commonOf(b);
  const [lead, other] = commonOf(o) === base && commonOf(t) !== base ? [t, o] : [o, t];
  const out = [...lead];
  const at = new Set(out);
  for (let i = 0; i < other.length; i++) {
    const k = other[i];
    if (at.has(k)) continue;
    let j = i - 1;
    while (j >= 0 && !at.has(other[j])) j--;
    out.splice(j < 0 ? 0 : out.indexOf(other[j]) + 1, 0, k);
    at.add(k);
  }
  return out;
}

type Decision = { take: Unit } | { drop: true } | { conflict: { ours?: Unit; theirs?: Unit } };

/** Two versions of a unit are the same text (steps are compared with their list number made canonical by `split`). */
const same = (a: Unit, b: Unit) => a.text === b.text;

/** One key's three versions: a side's change wins over no change, equal changes merge, different ones merge by line or conflict. */
function decide(b: Unit | undefined, o: Unit | undefined, t: Unit | undefined): Decision {
  if (!o && !t) return { drop: true };
  if (!b) {
    if (!o) return { take: t! };
    if (!t) return { take: o };
    return same(o, t) ? { take: o } : { conflict: { ours: o, theirs: t } };
  }
  if (!o) return same(t!, b) ? { drop: true } : { conflict: { theirs: t } };
  if (!t) return same(o, b) ? { drop: true } : { conflict: { ours: o } };
  if (same(o, b)) return { take: t };
  if (same(t, b) || same(o, t)) return { take: o };
  // Both changed it differently: their changes may still be to different parts (a step's status
  // here, its details there) or different lines of a section.
  const text = o.kind === 'step' ? mergeStep(b.text, o.text, t.text) : mergeLines(b.text, o.text, t.text);
  return text === undefined ? { conflict: { ours: o, theirs: t } } : { take: { ...o, text } };
}

/** A line merge (diff3): the merged text, or undefined when the sides changed the same lines. */
function mergeLines(b: string, o: string, t: string): string | undefined {
  if (o === b) return t;
  if (t === b || o === t) return o;
  const regions = diff3Merge(lines(o), lines(b), lines(t), { excludeFalseConflicts: true });
  if (regions.some((r) => r.conflict)) return undefined;
  return regions.flatMap((r) => r.ok ?? []).join('');
}

/** A step as its header line (text, status, annotation), its detail lines (quotes included) and its record lines (the store's, the last). */
function stepParts(text: string): { header: string; details: string; notes: string } {
  const [header, ...rest] = lines(text);
  let last = rest.length - 1;
  while (last >= 0 && !rest[last].trim()) last--;
  const block = recordBlockOf(text.replace(/\s+$/, ''));
  const first = block ? last - block.lines.length + 1 : last + 1;
  const details = rest.filter((_, i) => i < first || i > last);
  const notes = rest.slice(first, last + 1);
  const nl = (xs: string[]) => xs.map((l) => (l.endsWith('\n') ? l : l + '\n')).join('');
  return { header: header.replace(/\r?\n$/, ''), details: nl(details), notes: nl(notes) };
}

/** One step changed on both sides: merged part by part (header whole; details by line; notes whole), or undefined on a true conflict. */
function mergeStep(b: string, o: string, t: string): string | undefined {
  const [pb, po, pt] = [stepParts(b), stepParts(o), stepParts(t)];
  const header = mergeLines(pb.header, po.header, pt.header);
  const details = mergeLines(pb.details, po.details, pt.details);
  const notes = mergeLines(pb.notes, po.notes, pt.notes);
  if (header === undefined || details === undefined || notes === undefined || header.includes('\n')) return undefined;
  const eol = o.includes('\r\n') ? '\r\n' : '\n';
  const rest = (details + notes).replace(/\r?\n/g, eol).replace(/\s+$/, '');
  return header + (rest ? eol + rest : '');
}

/**
 * Merges three versions of a plan file. Throws PlanError when a side cannot be read as a plan
 * or the merged text would not be a valid one (the caller then merges by line).
 */
export function mergePlanTexts(baseText: string, oursText: string, theirsText: string, labels: MergeLabels = {}): PlanMerge {
  const { base, ours, theirs, eol } = splitSides(baseText, oursText, theirsText);
  const { seq, renames } = renumberTheirAdditions(base, ours, theirs, eol);
  const marks = conflictMarks(labels, eol);
  // Body first, then frontmatter: the order in which their conflicts are listed.
  const body = composeBody(mergeUnits(base.body, ours.body, theirs.body), ours, theirs, eol, marks);
  const yaml = composeFrontmatter(mergeUnits(base.fm, ours.fm, theirs.fm), ours, theirs, seq, eol, marks);
  const o = ours.doc;
  const text = o.text.slice(0, o.block.yamlStart) + yaml + o.text.slice(o.block.yamlEnd, o.block.bodyStart) + body;
  const conflicts = locateConflicts(text, marks);
  if (!conflicts.length) {
    try {
      parsePlan(text, undefined, { fresh: true });
    } catch (e) {
      throw new PlanError('INVALID_FILE', `the merge by step would not be a valid plan (${(e as Error).message}): merge it by line`);
    }
  }
  return { text, conflicts, renumbered: renames };
}

/**
 * The three sides parsed (ours first: its line ending is the result's, and the others are read
 * with it), given step ids where some side has them, split into keyed units and their sections
 * of one title paired.
 */
function splitSides(baseText: string, oursText: string, theirsText: string): { base: Split; ours: Split; theirs: Split; eol: string } {
  const oursDoc = parsePlan(oursText, 'ours');
  const eol = oursDoc.eol;
  // One line ending for the result: ours.
  const toEol = (t: string) => (eol === '\r\n' ? t.replace(/\r?\n/g, '\r\n') : t.replace(/\r\n/g, '\n'));
  let docs = [parsePlan(toEol(baseText), 'base'), oursDoc, parsePlan(toEol(theirsText), 'theirs')];
  // Steps merge by id. pi-planner writes steps without ids; the first write here gives them theirs
  // (the same ids on every branch, from the counter), so a side without them gets them first.
  // With no ids anywhere, the Steps section merges by line.
  const anyId = docs.some((d) => d.steps.some((s) => s.hasId));
  if (anyId && !docs.every((d) => d.steps.every((s) => s.hasId))) docs = docs.map(ensureStepIds);
  const [base, ours, theirs] = docs.map((d) => split(d, anyId));
  pairSections(base, ours, theirs);
  return { base, ours, theirs, eol };
}

/**
 * Steps both sides added under one id with different content: theirs gets the next free id (and
 * a note saying so), in `theirs.body`. Returns the step counter after it, which covers every id
 * issued on either side, and the renames.
 */
function renumberTheirAdditions(base: Split, ours: Split, theirs: Split, eol: string): { seq: number; renames: { from: string; to: string }[] } {
  const renames: { from: string; to: string }[] = [];
  const all = [base, ours, theirs];
  let seq = Math.max(0, ...all.map((s) => s.doc.fm.step_seq ?? 0), ...all.flatMap((s) => s.doc.steps.map((x) => stepNumber(x.id))));
  const baseKeys = new Set(base.body.map((u) => u.key));
  const ourUnits = new Map(ours.body.map((u) => [u.key, u]));
  theirs.body = theirs.body.map((u) => {
    const mine = ourUnits.get(u.key);
    if (u.kind !== 'step' || baseKeys.has(u.key) || !mine || same(mine, u)) return u;
    const from = u.key.slice('step:'.length);
    const to = `S${String(++seq).padStart(3, '0')}`;
    renames.push({ from, to });
    const [head, ...rest] = lines(u.text);
    let text = renameStepHeader(head.replace(/\r?\n$/, ''), to) + head.slice(head.replace(/\r?\n$/, '').length) + rest.join('');
    if (!noteLineOf(text.replace(/\s+$/, ''))) text += eol + renderNoteLine(`renumbered from ${from} by a merge: both branches added a step ${from}`, contentIndent(head));
    return { ...u, key: `step:${to}`, text };
  });
  return { seq, renames };
}

/** Writes conflict blocks and remembers, in order, what each is about. */
interface ConflictMarks {
  /** Length of the markers. */
  readonly size: number;
  /** What each block written so far is about (`step S003`, …), in the order written. */
  readonly whats: string[];
  /** The block for key `k`: ours, `=======`, theirs, each side written by `render`. */
  block(k: string, c: { ours?: Unit; theirs?: Unit }, render: (u: Unit) => string): string;
}

function conflictMarks(labels: MergeLabels, eol: string): ConflictMarks {
  const size = labels.markerSize && labels.markerSize >= 7 ? labels.markerSize : 7;
  const mark = (c: string, label?: string) => c.repeat(size) + (label ? ` ${label}` : '');
  const whats: string[] = [];
  const describe = (k: string) => (k.startsWith('fm:') ? `field ${k.slice(3)}` : k.startsWith('step:') ? `step ${k.slice(5)}` : k === 'pre' ? 'the text before the first section' : `section ${k.replace(/^section(\+[^:]*)?:\d:/, '').replace(/:(head|tail)$/, '')}`);
  const block = (k: string, c: { ours?: Unit; theirs?: Unit }, render: (u: Unit) => string) => {
    whats.push(describe(k));
    return `${mark('<', labels.ours ?? 'ours')}${eol}${c.ours ? render(c.ours) : ''}${mark('=')}${eol}${c.theirs ? render(c.theirs) : ''}${mark('>', labels.theirs ?? 'theirs')}`;
  };
  return { size, whats, block };
}

/** Each key of the three unit lists, in merged order, with its decision. */
function mergeUnits(b: Unit[], o: Unit[], t: Unit[]): { key: string; d: Decision }[] {
  const bm = new Map(b.map((u) => [u.key, u]));
  const om = new Map(o.map((u) => [u.key, u]));
  const tm = new Map(t.map((u) => [u.key, u]));
  const keys = order(b.map((u) => u.key), o.map((u) => u.key), t.map((u) => u.key));
  return keys.map((k) => ({ key: k, d: decide(bm.get(k), om.get(k), tm.get(k)) }));
}

/** The merged body: sections by title, steps by id, an ordered list numbered again from ours' first number. */
function composeBody(merged: { key: string; d: Decision }[], ours: Split, theirs: Split, eol: string, marks: ConflictMarks): string {
  let body = '';
  let position = 0;
  const numberOf = /^(\d+)([.)])$/.exec(ours.doc.steps[0]?.bullet ?? theirs.doc.steps[0]?.bullet ?? '1.');
  const startNum = numberOf ? Number(numberOf[1]) : 1;
  const ordered = ours.doc.steps.length ? ours.ordered : theirs.ordered;
  const placed = (u: Unit, pos: number) => (u.kind === 'step' && ordered && u.bullet && /^\d/.test(u.bullet) ? renumbered(u.text, u.bullet, `${startNum + pos}${u.bullet.slice(-1)}`) : u.text);
  type Shown = { key: string; d: Exclude<Decision, { drop: true }> };
  const shown = merged.filter((m): m is Shown => !('drop' in m.d));
  const unitOf = (d: Shown['d']): Unit => ('take' in d ? d.take : (d.conflict.ours ?? d.conflict.theirs)!);
  shown.forEach(({ key, d }, i) => {
    const next = shown[i + 1];
    const unit = unitOf(d);
    let text: string;
    if ('take' in d) text = placed(d.take, position);
    else text = marks.block(key, d.conflict, (u) => placed(u, position) + eol);
    if (unit.kind === 'step') position++;
    body += text;
    if (!next) return;
    const nextKind = unitOf(next.d).kind;
    if (unit.kind === 'step') body += nextKind === 'step' ? unit.sep || eol : '';
    else if (!unit.text) body += unit.sep;
    else body += unit.sep || (nextKind === 'step' || unit.kind === 'fm' ? eol : eol + eol);
  });
  return body + ours.trail;
}

/**
 * The merged frontmatter's YAML (without its final line break): entry by entry; the write counter
 * and the times are computed, not merged. The step counter is `seq`, which covers every id issued
 * on either side (the renumbered ones too).
 */
function composeFrontmatter(merged: { key: string; d: Decision }[], ours: Split, theirs: Split, seq: number, eol: string, marks: ConflictMarks): string {
  const of = ours.doc.fm;
  const tf = theirs.doc.fm;
  const computed: Record<string, string> = {
    'fm:version': stringifyEntry('version', Math.max(of.version, tf.version) + 1, eol) + eol,
    'fm:updated_at': stringifyEntry('updated_at', of.updated_at >= tf.updated_at ? of.updated_at : tf.updated_at, eol) + eol,
    'fm:step_seq': stringifyEntry('step_seq', seq, eol) + eol,
  };
  let yaml = '';
  for (const { key, d } of merged) {
    if ('drop' in d) continue;
    if (computed[key] && !('conflict' in d && (!d.conflict.ours || !d.conflict.theirs))) {
      yaml += computed[key];
      continue;
    }
    yaml += 'take' in d ? d.take.text : marks.block(key, d.conflict, (u) => u.text) + eol;
  }
  return yaml.replace(/\r?\n$/, '');
}

/** Each conflict written, with the 1-based line of its `<<<<<<<` marker in `text`. */
function locateConflicts(text: string, marks: ConflictMarks): MergeConflict[] {
  const starts = [...text.matchAll(new RegExp(`^${'<'.repeat(marks.size)}(?: |\\r?$)`, 'gm'))].map((m) => m.index!);
  return marks.whats.map((what, i) => ({ what, line: starts[i] === undefined ? 0 : text.slice(0, starts[i]).split('\n').length }));
}

/** A plain line merge (diff3) with standard markers, for files that are not plans or whose merge by step failed. */
export function mergeTextByLine(baseText: string, oursText: string, theirsText: string, labels: MergeLabels = {}): { text: string; conflicts: number } {
  const size = labels.markerSize && labels.markerSize >= 7 ? labels.markerSize : 7;
  const eol = oursText.includes('\r\n') ? '\r\n' : '\n';
  const withEnd = (ls: string[]) => ls.map((l) => (/\n$/.test(l) ? l : l + eol));
  let conflicts = 0;
  let text = '';
  for (const r of diff3Merge(lines(oursText), lines(baseText), lines(theirsText), { excludeFalseConflicts: true })) {
    if (r.ok) text += r.ok.join('');
    else if (r.conflict) {
      conflicts++;
      if (text && !text.endsWith('\n')) text += eol;
      text += `${'<'.repeat(size)} ${labels.ours ?? 'ours'}${eol}${withEnd(r.conflict.a).join('')}${'='.repeat(size)}${eol}${withEnd(r.conflict.b).join('')}${'>'.repeat(size)} ${labels.theirs ?? 'theirs'}${eol}`;
    }
  }
  return { text, conflicts };
}
