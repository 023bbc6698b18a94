/**
 * The pre-scan that runs before any Markdown parse of plan text. remark (micromark, mdast, rehype)
 * is linear on ordinary text but super-linear on some ordinary-looking input: deep `>` quotes
 * (quadratic, then a stack overflow), emphasis and bracket runs in one paragraph (quadratic), lazy
 * continuation lines (quadratic), tables whose rows are padded to a wide header (rows x columns).
 * Its linear costs also differ a hundredfold between constructs (a list item costs what a hundred
 * characters of prose cost). This scan is a bounded counter over lines, not a parser: it counts
 * what the parser's cost grows with and refuses text over a cap, naming the line, the limit and
 * the fix. It refuses only what it can see is over a cap: where it cannot tell (is this line a
 * heading, a lazy line, a list item?) it takes the reading that counts less, and it takes a fenced
 * code block to end where its container may end (a list item, a quote), as the parser does, so
 * the paragraphs after it are always counted. The work budget bounds the rest: the scan counts
 * what the parse will cost (a weight per construct, see MARKDOWN_WEIGHTS) and refuses, at the line
 * where it goes over, text that costs more than its size allows (`workBudget`: about twice what
 * ordinary plan text of that size costs, above a floor), naming what it is mostly made of.
 */
import { LIMITS } from '../limits/limits';
import * as weights from './markdownWeights';
import type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';
import * as syntax from './markdownSyntax';
import * as ledger from './markdownScanLedger';
import * as paragraphs from './markdownParagraphs';
import * as fences from './markdownFences';
import * as sections from './markdownSections';
import * as containers from './markdownContainers';
import * as blocks from './markdownBlocks';
import type { Line } from './markdownLineReader';
import { ScanState } from './markdownScanState';

export { MARKDOWN_WEIGHTS, workBudget } from './markdownWeights';
export type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { MARKDOWN_WEIGHTS, workBudget } = weights;
const { CR } = syntax;
const { scanCaps, countLine, overBudget, refuseWork, refuse } = ledger;
const { endPara, leafAtBlank } = paragraphs;
const { inFence } = fences;
const { capSections, sectionLine, endSections } = sections;
const { quotePrefix, containersInFence, containersAtBlank, continuesContainers, listMarkers, endLists } = containers;
const { blockStart, leafLine } = blocks;

/**
 * Scans `text` (a plan body, or a piece of Markdown the plan editor renders) and returns the first
 * cap it is over, or undefined. Linear in the text, no allocation per character. With
 * `sections: true` (a plan body) the `##` sections are also held to their size caps.
 */
export function scanMarkdown(text: string, opts: ScanOptions = {}): MarkdownRefusal | undefined {
  return inspectMarkdown(text, opts).refusal;
}

/**
 * How a text is scanned: `sections` for a plan body (its sections' size caps); `work` for another
 * cap on the work budget than a plan's (the budget is `workBudget(text.length, work)`; Infinity: no
 * budget); `weights` for another cost model than MARKDOWN_WEIGHTS (bench/calibrate.ts).
 */
export interface ScanOptions {
  sections?: boolean;
  work?: number;
  weights?: MarkdownWeights;
}

/** The scan's refusal, if any, and what it counted up to where it stopped. */
export function inspectMarkdown(text: string, opts: ScanOptions = {}): { refusal?: MarkdownRefusal; counts: MarkdownCounts } {
  const limit = opts.work ?? LIMITS.markdown.work;
  const s = new ScanState(text, scanCaps(limit === Infinity ? Infinity : workBudget(text.length, limit)), opts.weights ?? MARKDOWN_WEIGHTS);
  if (opts.sections === true) capSections(s);
  const refusal = scan(s);
  return refusal ? { refusal, counts: s.counts } : { counts: s.counts };
}

/** The counts of a scan that passed (undefined when it refuses): for the benchmark and the tests. */
export function markdownCounts(text: string, opts: ScanOptions = {}): MarkdownCounts | undefined {
  const r = inspectMarkdown(text, opts);
  return r.refusal ? undefined : r.counts;
}

/**
 * One scan of a text, line by line, over one part per decision, each a module of functions over
 * the scan's state (markdownScanState.ts): the ledger (work, caps, the refusal;
 * markdownScanLedger.ts), the line's characters (markdownLineReader.ts), its containers (quotes,
 * list items, lazy lines, indented code; markdownContainers.ts), the fenced code block it may be in
 * (markdownFences.ts), the leaf block it starts or continues (markdownBlocks.ts), the open
 * paragraph and its inline counts (markdownParagraphs.ts), and the sections' caps
 * (markdownSections.ts). Here: the lines' length cap, and the order in which the parts look at a line.
 */
function scan(s: ScanState): MarkdownRefusal | undefined {
  const { text } = s;
  const n = text.length;
  for (let at = 0; at <= n && !s.refusal; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = n;
    const stop = end > at && text.charCodeAt(end - 1) === CR ? end - 1 : end;
    s.line++;
    scanLine(s, at, stop);
    if (s.ended.length) endLists(s);
    if (overBudget(s)) refuseWork(s);
    at = end + 1;
    if (end === n) break;
  }
  if (!s.refusal) endPara(s);
  if (!s.refusal) endSections(s, n);
  s.counts.lines = s.line;
  if (overBudget(s)) refuseWork(s);
  return s.refusal;
}

/** A line, part by part: its quotes, a fence or a blank line, its containers, list markers, a block start, and its leaf content. */
function scanLine(s: ScanState, at: number, stop: number): void {
  const len = stop - at;
  if (len > s.caps.lineChars) {
    return refuse(s, 'TOO_LARGE', 'markdown-line-length', `the line is ${len} characters, over the ${s.caps.lineChars}-character limit: break it into shorter lines, or move it into a file under .pi/plans/artifacts/ and link it`);
  }
  countLine(s, s.w.char * len + s.w.line);
  const l = quotePrefix(s, at, stop);
  if (!l || fencedOrBlank(s, l) || continuesContainers(s, l) || listMarkers(s, l)) return;
  const f = s.text.charCodeAt(l.c);
  if (blockStart(s, l, f)) return;
  leafLine(s, l, f);
}

/** A line in the fenced code block this scan follows, or a blank line: counted, and true (the line is done). */
function fencedOrBlank(s: ScanState, l: Line): boolean {
  const fenced = inFence(s, l);
  sectionLine(s, l.at, l.stop, l.content, l.q, l.blank, fenced);
  if (fenced) {
    containersInFence(s, l);
    return true;
  }
  if (l.blank) {
    leafAtBlank(s);
    containersAtBlank(s, l.q);
    return true;
  }
  return false;
}

/**
 * Refusals and failed parses remembered by the text they were about (a plan body, or the body a
 * worker was given): the next read of the same text is refused at once, with the same reason,
 * instead of being scanned or parsed again. Bounded in entries and characters; the newest stay.
 */
const refused = new Map<string, MarkdownRefusal>();
const REFUSED_ENTRIES = 64;
const REFUSED_CHARS = 2 * 1024 * 1024;
let refusedChars = 0;

/** Remembers that `body` was refused (by the scan, a failed parse or a parse over its time budget). */
export function rememberRefusal(body: string, refusal: MarkdownRefusal): void {
  if (refused.has(body)) refused.delete(body);
  else refusedChars += body.length;
  refused.set(body, refusal);
  while (refused.size > REFUSED_ENTRIES || (refusedChars > REFUSED_CHARS && refused.size > 1)) {
    const oldest = refused.keys().next().value as string;
    refused.delete(oldest);
    refusedChars -= oldest.length;
  }
}

/** The refusal remembered for `body`, if any. */
export function knownRefusal(body: string): MarkdownRefusal | undefined {
  return refused.get(body);
}

/** The refusal of a parse that threw (a stack overflow, running out of memory): the text is refused, never parsed again. */
export function parseFailure(e: unknown): MarkdownRefusal {
  const what = e instanceof RangeError ? 'the Markdown parser ran out of stack' : `the Markdown parser failed (${String((e as Error)?.message ?? e).slice(0, 120)})`;
  return { code: 'INVALID_FILE', rule: 'markdown-parse-failed', message: `${what}: simplify the deepest nesting, or split the plan`, line: 1 };
}
