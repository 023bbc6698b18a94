import { isFinished } from './policy';
import type { StepStatus } from './schema';

/** A step as the file says it. */
export interface Step {
  /** `S001`; for a pi-planner step written without one, a provisional id by position. */
  id: string;
  /** False when the file does not carry the id yet (pi-planner's form); the next write adds it. */
  hasId: boolean;
  status: StepStatus;
  text: string;
  tool?: string;
  operation?: string;
  target?: string;
  /** Continuation lines that are not the note, unindented (`>` quotes included: they are the author's text). */
  details?: string;
  /** The latest note: the store's own `> Note: …` line (see `recordBlockOf`); the same as `record.Note`. */
  note?: string;
  /** The store's record lines under the step (execution state, see `recordBlockOf`), by key. */
  record?: StepRecord;
  /**
   * The item's source before its record lines, kept only when a line of it starts with `verify:`:
   * what `stepCheck` (core/checks.ts) reads with Markdown's structure, which `details` has lost.
   */
  checkSource?: string;
}

/**
 * The keys of the record lines the store writes under a step while it is executed, in the order
 * it writes them: who holds the step (`Claimed`), what it changed (`Changed`), its check's result
 * (`Check`), and the executor's note (`Note`).
 */
export const RECORD_KEYS = ['Claimed', 'Changed', 'Check', 'Note'] as const;
export type RecordKey = (typeof RECORD_KEYS)[number];
export type StepRecord = Partial<Record<RecordKey, string>>;

/** The visible marker after the id, for statuses a checkbox alone cannot show. */
const MARKERS: Partial<Record<StepStatus, string>> = {
  in_progress: '*in progress*',
  blocked: '*blocked*',
  failed: '*failed*',
  skipped: '*skipped*',
};
const MARKER_TO_STATUS: Record<string, StepStatus> = {
  'in progress': 'in_progress',
  blocked: 'blocked',
  failed: 'failed',
  skipped: 'skipped',
};

// `1. [ ] S001 *blocked* text (tool: operation → target)`; everything after the list marker is optional but the text.
const HEADER =
  /^(?<bullet>\d{1,9}[.)]|[-*+])(?<sp>[ \t]+)(?:\[(?<check>[ xX])\][ \t]+)?(?:(?<id>S\d{3,4})(?:[ \t]+|$))?(?:\*(?<marker>in progress|blocked|failed|skipped)\*(?:[ \t]+|$))?(?<rest>.*)$/s;
// pi-planner's annotation: one-word tool and operation, optional target, at the end of the line.
// The text is greedy, so the annotation is the last "(tool: operation ...)" of the line.
// A target may hold balanced parentheses (`account.move(42)`), nothing unbalanced.
const ANNOTATION = /^(?<text>.*)[ \t]+\((?<tool>[^\s():]+):[ \t]+(?<op>[^\s()]+?)(?:[ \t]+\u2192[ \t]+(?<target>(?:[^()]|\([^()]*\))+?))?\)$/s;
/** Text that would read back as a marker or an annotation gets one backslash (Markdown's own escape). */
const MARKER_START = /^\*(in progress|blocked|failed|skipped)\*/;
const ESCAPED_MARKER_START = /^\\(\*(?:in progress|blocked|failed|skipped)\*)/;
const ESCAPED_ANNOTATION_END = /[ \t]\\(\([^\s():]+:[ \t]+[^\s()]+?(?:[ \t]+\u2192[ \t]+(?:[^()]|\([^()]*\))+?)?\))$/s;

function escapeText(text: string, annotated: boolean): string {
  let t = text;
  if (MARKER_START.test(t)) t = `\\${t}`;
  if (!annotated) {
    const a = ANNOTATION.exec(t)?.groups;
    if (a) t = `${a.text} \\${t.slice(a.text.length).trimStart()}`;
  }
  return t;
}

function unescapeText(text: string): string {
  return text.replace(ESCAPED_MARKER_START, '$1').replace(ESCAPED_ANNOTATION_END, ' $1');
}

/** A details line that may name the step's check (core/checks.ts decides, from the item's Markdown). */
const MAY_BE_CHECK = /^verify:/i;

/** Parses one step item's source (its first line and continuation lines). */
export function parseStepItem(src: string, position: number): Step & { bullet: string } {
  const lines = src.split(/\r?\n/);
  const m = HEADER.exec(lines[0]);
  const g = m?.groups ?? { bullet: '-', rest: lines[0] };
  const checked = g.check === 'x' || g.check === 'X';
  const marker = g.marker ? MARKER_TO_STATUS[g.marker] : undefined;
  let status: StepStatus = checked ? 'done' : 'pending';
  if (marker === 'skipped') status = checked ? 'skipped' : 'pending';
  else if (marker && !checked) status = marker;
  const rest = (g.rest ?? '').trimEnd();
  const a = ANNOTATION.exec(rest)?.groups;
  const step: Step & { bullet: string } = {
    bullet: g.bullet,
    id: g.id ?? provisionalId(position),
    hasId: !!g.id,
    status,
    text: unescapeText(a ? a.text.trim() : rest.trim()),
  };
  if (a) {
    step.tool = a.tool;
    step.operation = a.op;
    if (a.target) step.target = a.target;
  }
  // The record lines are the store's, the item's last; every other line, quotes included, is detail.
  const block = recordBlockOf(src);
  const below = block ? src.slice(0, block.sep).split(/\r?\n/).slice(1) : lines.slice(1);
  const details = below.map((l) => l.trim()).filter(Boolean);
  if (details.length) step.details = details.join('\n');
  if (details.some((l) => MAY_BE_CHECK.test(l))) step.checkSource = block ? src.slice(0, block.sep) : src;
  if (block) {
    step.record = recordOf(block.lines);
    if (step.record.Note !== undefined) step.note = step.record.Note;
  }
  return step;
}

/** `S001` for position 0. */
export function provisionalId(position: number): string {
  return `S${String(position + 1).padStart(3, '0')}`;
}

/** The number in a step id. */
export function stepNumber(id: string): number {
  return Number(id.slice(1));
}

// The header line again, with every separator captured, so a rewrite can keep what it does not change.
const HEADER_PARTS =
  /^(?<lead>(?<bullet>\d{1,9}[.)]|[-*+])(?<sp>[ \t]+))(?:\[(?<check>[ xX])\](?<sp2>[ \t]+|$))?(?:(?<id>S\d{3,4})(?<sp3>[ \t]+|$))?(?:\*(?<marker>in progress|blocked|failed|skipped)\*(?<sp4>[ \t]+|$))?(?<rest>.*)$/s;

/**
 * A step's header line (its first line, without the line break) with a new status and, when
 * given, an id where it had none. The bullet, the text, the annotation and every separator that
 * stays stay as written: only the checkbox, the id and the status marker change.
 */
export function rewriteHeader(line: string, status: StepStatus, id?: string): string {
  const g = HEADER_PARTS.exec(line)?.groups;
  if (!g) return line;
  const checked = isFinished(status);
  const check = checked ? (g.check === 'X' ? '[X]' : '[x]') : '[ ]';
  const marker = MARKERS[status];
  const rest = g.rest ?? '';
  // A separator that was the end of the line ($) becomes a space when something now follows it.
  const sep = (s: string | undefined, more: boolean) => (s ? s : more ? ' ' : '');
  const stepId = g.id ?? id;
  let out = g.lead + check + sep(g.sp2, !!(stepId || marker || rest));
  if (stepId) out += stepId + sep(g.sp3, !!(marker || rest));
  if (marker) out += marker + sep(g.sp4, !!rest);
  return out + rest;
}

/** A step's header line with its id replaced by `id` (a merge's renumbering); a line without an id is returned as it is. */
export function renameStepHeader(line: string, id: string): string {
  const g = HEADER_PARTS.exec(line)?.groups;
  if (!g?.id) return line;
  const before = g.lead + (g.check !== undefined ? `[${g.check}]${g.sp2 ?? ''}` : '');
  return before + id + line.slice(before.length + g.id.length);
}

/** How far a step's continuation lines are indented: the width of its bullet and the space after it. */
export function contentIndent(line: string): number {
  return HEADER_PARTS.exec(line)?.groups?.lead.length ?? 2;
}

/**
 * A step's record lines are execution state: the store writes them while the step is worked on
 * (its claim, what it changed, its check's result, its note), and the approval digest leaves them
 * out. So each is one exact line and nothing else: `> <Key>: <text>`, indented to the step's
 * content, `<Key>` one of `RECORD_KEYS`, `<text>` one line with no blank at either end (what
 * `renderRecordLine` writes), together the item's last lines. Every other line under a step, any
 * `>` quote included, is the author's text, which a person approves and the digest covers. No text
 * in this form can be part of what a person approves: the tools refuse it in every field, and an
 * approval refuses a plan that carries one on a step not yet worked on (see core/reviewOps.ts), so
 * a line in this form is only ever written during execution.
 */
const RECORD_LINE = /^> (Claimed|Changed|Check|Note): /;

/** One record line's key and text if `line` (one line, no line break) is exactly a store record line for content indented `indent`. */
export function recordLineOf(line: string, indent: number): { key: RecordKey; text: string } | undefined {
  // Trailing blanks are no change anywhere in the digest, here neither.
  const l = line.replace(/[ \t\r]+$/, '');
  for (let i = 0; i < indent; i++) if (l.charCodeAt(i) !== 0x20) return undefined;
  const m = RECORD_LINE.exec(l.slice(indent));
  if (!m) return undefined;
  const text = l.slice(indent + m[0].length);
  return text && oneLine(text) === text ? { key: m[1] as RecordKey, text } : undefined;
}

/** The note's text if `line` is exactly a store note line for content indented `indent`. */
export function storeNoteOf(line: string, indent: number): string | undefined {
  const r = recordLineOf(line, indent);
  return r?.key === 'Note' ? r.text : undefined;
}

/** A record block's lines as a record (a key written twice: its last line counts). */
export function recordOf(lines: readonly { key: RecordKey; text: string }[]): StepRecord {
  const out: StepRecord = {};
  for (const l of lines) out[l.key] = l.text;
  return out;
}

/**
 * The store's record lines of a step item (its source: the header line and continuation lines, no
 * trailing line break), if it ends with any: where the first of them starts in `src`, where the
 * line break before it starts, and each line's key and text, in the file's order.
 */
export function recordBlockOf(src: string): { sep: number; start: number; lines: { key: RecordKey; text: string }[] } | undefined {
  const first = src.indexOf('\n');
  if (first === -1) return undefined;
  const header = src.slice(0, src[first - 1] === '\r' ? first - 1 : first);
  const indent = contentIndent(header);
  let end = src.endsWith('\n') ? src.length - 1 : src.length;
  const lines: { key: RecordKey; text: string }[] = [];
  let start = -1;
  while (end > first) {
    const nl = src.lastIndexOf('\n', end - 1);
    const r = recordLineOf(src.slice(nl + 1, end), indent);
    if (!r) break;
    lines.unshift(r);
    start = nl + 1;
    end = nl;
  }
  if (start === -1) return undefined;
  const nl = start - 1;
  return { sep: src[nl - 1] === '\r' ? nl - 1 : nl, start, lines };
}

/** The store's note line of a step item, if its record lines hold one: as `recordBlockOf`, with the note's text. */
export function noteLineOf(src: string): { sep: number; start: number; text: string } | undefined {
  const block = recordBlockOf(src);
  const note = block ? recordOf(block.lines).Note : undefined;
  return block && note !== undefined ? { sep: block.sep, start: block.start, text: note } : undefined;
}

/** True for a line an author sends (a step's details) that would read as a store record line: `> Note:` (or another key) once trimmed. */
export function inRecordForm(line: string): boolean {
  return /^>[ \t]*(?:Claimed|Changed|Check|Note):/.test(line.trim());
}

/** @deprecated the note is one of the record lines: `inRecordForm`. */
export const inNoteForm = inRecordForm;

/** A record line (without a line break). */
export function renderRecordLine(key: RecordKey, text: string, indent: number): string {
  return `${' '.repeat(indent)}> ${key}: ${oneLine(text)}`;
}

/** The note line of a step (without a line break). */
export function renderNoteLine(note: string, indent: number): string {
  return renderRecordLine('Note', note, indent);
}

/** A record's lines in the order the store writes them (empty texts left out). */
export function renderRecordLines(record: StepRecord, indent: number): string[] {
  return RECORD_KEYS.filter((k) => record[k] && oneLine(record[k]!)).map((k) => renderRecordLine(k, record[k]!, indent));
}

/** Renders a step item (without a trailing line break). `bullet` is `1.`, `-`, ... */
export function renderStepItem(step: Omit<Step, 'hasId'>, bullet: string, eol: string): string {
  const check = isFinished(step.status) ? '[x]' : '[ ]';
  const marker = MARKERS[step.status];
  const annotated = !!(step.tool && step.operation);
  let head = `${bullet} ${check} ${step.id}${marker ? ` ${marker}` : ''} ${escapeText(oneLine(step.text), annotated)}`;
  if (annotated) {
    head += ` (${step.tool}: ${step.operation}${step.target ? ` → ${oneLine(step.target)}` : ''})`;
  }
  const indent = ' '.repeat(bullet.length + 1);
  const lines = [head];
  if (step.details) {
    for (const l of step.details.split(/\r?\n/)) if (l.trim()) lines.push(indent + l.trim());
  }
  lines.push(...renderRecordLines({ ...step.record, ...(step.note ? { Note: step.note } : {}) }, indent.length));
  return lines.join(eol);
}

/** Collapses line breaks so a value stays on its one line. */
export function oneLine(s: string): string {
  // Every line terminator JavaScript and Markdown know, and other control characters, become spaces.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return s.replace(/\s*[\r\n\u2028\u2029\u0085\v\f]+\s*/g, ' ').replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, ' ').trim();
}

/**
 * Counts the steps of a body without a Markdown parse, for the index: top-level list lines
 * under `## Steps` until the next `#`/`##` heading. Exact for the files our writer produces and
 * pi-planner's; the full parse (remark) is the authority when a plan is opened.
 */
export function quickStepCounts(body: string): { total: number; done: number } {
  let total = 0;
  let done = 0;
  scanStepLines(body, (pos, end, box) => {
    total++;
    // A checkbox counts within the line's first 16 characters.
    if (box + 3 <= Math.min(end, pos + 16) && body.charCodeAt(box) === 0x5b && (body.charCodeAt(box + 1) | 0x20) === 0x78 && body.charCodeAt(box + 2) === 0x5d) done++;
  });
  return { total, done };
}

/**
 * The steps of a body without a Markdown parse (the same top-level item lines `quickStepCounts`
 * counts, each with the lines below it up to the next item), read as `parseStepItem` reads an
 * item. For a process that needs one plan's steps and must not load the Markdown stack (the agent
 * hook); the full parse stays the authority when a plan is opened or written.
 */
export function quickSteps(body: string): Step[] {
  const starts: number[] = [];
  const sectionEnd = scanStepLines(body, (pos) => starts.push(pos));
  return starts.map((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1] : sectionEnd;
    // The item's lines: its header, then blank or indented lines; an unindented line after them
    // (a paragraph below the list) is not the item's.
    const lines = body.slice(start, end).split('\n');
    let n = 1;
    while (n < lines.length && (lines[n].trim() === '' || lines[n][0] === ' ' || lines[n][0] === '\t')) n++;
    const src = lines.slice(0, n).join('\n').replace(/(?:\r?\n[ \t\r]*)+$/, '');
    const { bullet: _bullet, ...step } = parseStepItem(src, i);
    return step;
  });
}

/**
 * Calls `item` for each top-level list line under `## Steps` (its start, its end, where the text
 * after its marker starts), outside fences, until the next `#`/`##` heading; returns where the
 * section ends. Reads in place: no copy of a line, no match array (a 1,000-step plan made 150 KB
 * of them per count).
 */
function scanStepLines(body: string, item: (pos: number, end: number, box: number) => void): number {
  const at = STEPS_HEADING.exec(body);
  if (!at) return body.length;
  let pos = body.indexOf('\n', at.index) + 1;
  if (pos === 0) return body.length;
  let inFence = false;
  while (pos < body.length) {
    let end = body.indexOf('\n', pos);
    if (end === -1) end = body.length;
    const c = body.charCodeAt(pos);
    if (c === 0x60 /* ` */ || c === 0x7e /* ~ */ || c === 0x20) {
      if (fenceAt(body, pos)) inFence = !inFence;
    } else if (!inFence) {
      if (c === 0x23 /* # */ && SECTION_HEADING.test(body.slice(pos, Math.min(end, pos + 3)))) return pos;
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2a || c === 0x2b) {
        const box = afterItemMarker(body, pos);
        if (box !== -1) item(pos, end, box);
      }
    }
    pos = end + 1;
  }
  return body.length;
}

/** True when a fence (three backticks or tildes after at most three spaces) opens or closes at `pos`. */
export function fenceAt(s: string, pos: number): boolean {
  let i = pos;
  while (i < pos + 3 && s.charCodeAt(i) === 0x20) i++;
  const c = s.charCodeAt(i);
  return (c === 0x60 || c === 0x7e) && s.charCodeAt(i + 1) === c && s.charCodeAt(i + 2) === c;
}

/**
 * Where the text after a list item's marker and its blanks starts (`1. `, `1) `, `- `, `* `, `+ `,
 * at most nine digits), or -1 when the line at `pos` does not start with one.
 */
function afterItemMarker(s: string, pos: number): number {
  let i = pos;
  const c = s.charCodeAt(i);
  if (c === 0x2d || c === 0x2a || c === 0x2b) i++;
  else {
    while (i < pos + 9 && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
    const d = s.charCodeAt(i);
    if (i === pos || (d !== 0x2e && d !== 0x29)) return -1;
    i++;
  }
  const blank = i;
  while (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09) i++;
  return i === blank ? -1 : i;
}

const STEPS_HEADING = /^##[ \t]+Steps[ \t]*\r?$/im;
const SECTION_HEADING = /^#{1,2}[ \t\r]|^#{1,2}$/;
