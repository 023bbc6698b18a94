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
import { LeafBlocks } from './markdownBlocks';
import { Containers } from './markdownContainers';
import { Fences } from './markdownFences';
import { LineReader, type Line } from './markdownLineReader';
import { Paragraphs } from './markdownParagraphs';
import { ScanLedger } from './markdownScanLedger';
import { Sections } from './markdownSections';

export { MARKDOWN_WEIGHTS, workBudget } from './markdownWeights';
export type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';

// Read once into this module's own constants (see markdownScanLedger.ts: imported names are getters under tsx).
const { MARKDOWN_WEIGHTS, workBudget } = weights;
const { CR } = syntax;

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
  const s = new Scan(text, opts.sections === true, limit === Infinity ? Infinity : workBudget(text.length, limit), opts.weights ?? MARKDOWN_WEIGHTS);
  const refusal = s.run();
  return refusal ? { refusal, counts: s.ledger.counts } : { counts: s.ledger.counts };
}

/** The counts of a scan that passed (undefined when it refuses): for the benchmark and the tests. */
export function markdownCounts(text: string, opts: ScanOptions = {}): MarkdownCounts | undefined {
  const r = inspectMarkdown(text, opts);
  return r.refusal ? undefined : r.counts;
}

/**
 * One scan of a text, line by line, over one part per decision: the ledger (work, caps, the
 * refusal; markdownScanLedger.ts), the line's characters (markdownLineReader.ts), its containers
 * (quotes, list items, lazy lines, indented code; markdownContainers.ts), the fenced code block it
 * may be in (markdownFences.ts), the leaf block it starts or continues (markdownBlocks.ts), the
 * open paragraph and its inline counts (markdownParagraphs.ts), and the sections' caps
 * (markdownSections.ts). This class holds the lines to their length cap and decides the order in
 * which the parts look at a line.
 */
class Scan {
  readonly ledger: ScanLedger;
  private readonly reader: LineReader;
  private readonly paragraphs: Paragraphs;
  private readonly fences: Fences;
  private readonly containers: Containers;
  private readonly blocks: LeafBlocks;
  private readonly sections: Sections;

  constructor(
    private readonly text: string,
    capSections: boolean,
    work: number,
    private readonly w: MarkdownWeights,
  ) {
    this.ledger = new ScanLedger(work);
    this.reader = new LineReader(text);
    this.paragraphs = new Paragraphs(text, this.ledger, w);
    this.fences = new Fences(this.reader);
    this.containers = new Containers(this.reader, this.ledger, this.paragraphs, this.fences, w);
    this.blocks = new LeafBlocks(this.reader, this.ledger, this.paragraphs, this.fences, w);
    this.sections = new Sections(text, this.ledger, this.fences, capSections);
  }

  run(): MarkdownRefusal | undefined {
    const { text, ledger } = this;
    const n = text.length;
    for (let at = 0; at <= n && !ledger.refusal; ) {
      let end = text.indexOf('\n', at);
      if (end === -1) end = n;
      const stop = end > at && text.charCodeAt(end - 1) === CR ? end - 1 : end;
      ledger.line++;
      this.scanLine(at, stop);
      this.containers.endLists();
      if (ledger.counts.work > ledger.caps.work) ledger.refuseWork();
      at = end + 1;
      if (end === n) break;
    }
    if (!ledger.refusal) this.paragraphs.end();
    if (!ledger.refusal) this.sections.end(n);
    ledger.counts.lines = ledger.line;
    if (ledger.counts.work > ledger.caps.work) ledger.refuseWork();
    return ledger.refusal;
  }

  /** A line, part by part: its quotes, a fence or a blank line, its containers, list markers, a block start, and its leaf content. */
  private scanLine(at: number, stop: number): void {
    const { ledger } = this;
    const len = stop - at;
    if (len > ledger.caps.lineChars) {
      return ledger.refuse('TOO_LARGE', 'markdown-line-length', `the line is ${len} characters, over the ${ledger.caps.lineChars}-character limit: break it into shorter lines, or move it into a file under .pi/plans/artifacts/ and link it`);
    }
    ledger.countLine(this.w.char * len + this.w.line);
    const l = this.containers.quotePrefix(at, stop);
    if (!l || this.fencedOrBlank(l) || this.containers.continues(l) || this.containers.listMarkers(l)) return;
    const f = this.text.charCodeAt(l.c);
    if (this.blocks.blockStart(l, f)) return;
    this.blocks.leafLine(l, f);
  }

  /** A line in the fenced code block this scan follows, or a blank line: counted, and true (the line is done). */
  private fencedOrBlank(l: Line): boolean {
    const inFence = this.fences.follows(l);
    this.sections.line(l.at, l.stop, l.content, l.q, l.blank, inFence);
    if (inFence) {
      this.containers.fencedLine(l);
      return true;
    }
    if (l.blank) {
      this.paragraphs.blankLine();
      this.containers.blankLine(l.q);
      return true;
    }
    return false;
  }
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
