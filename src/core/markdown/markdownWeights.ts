/**
 * The Markdown pre-scan's cost model and public types (markdownGuard.ts runs the scan): the
 * refusal it returns, the weights per construct, the work budget, and the kinds of work a refusal
 * names.
 */
import { LIMITS } from '../limits/limits';

/** Why a text is refused before its Markdown parse: a stable rule name, the message (what to do) and the line. */
export interface MarkdownRefusal {
  code: 'TOO_LARGE' | 'INVALID_FILE';
  /** Stable name, e.g. `markdown-quote-depth`. */
  rule: string;
  message: string;
  /** 1-based line in the scanned text. */
  line: number;
}

/**
 * What the parser's cost grows with, in work units: the weights are the parse's measured cost per
 * construct (bench/calibrate.ts fits them to remark's parse time: each pathological family's cost
 * per character against an ordinary plan's of its size, leaning to over-estimates; then rounded,
 * and a few set by hand where the fit lacked cases, see the comments). A character of an ordinary
 * plan (steps with details) counts about 3 to 4 units (more as it grows: its nested lists end);
 * the budget (`workBudget`) allows `LIMITS.markdown.workPerChar` per character, above a floor.
 * The quadratic terms are micromark's: a setext underline, and a quote or a list that ends (not a
 * list item followed by a sibling), each move the events before them (cost times the line).
 */
export const MARKDOWN_WEIGHTS = {
  char: 1.9,
  line: 14,
  /**
   * Per open container (quote or list item) a line continues. Set by hand above the fit (2, which
   * had no nested cases): short quoted lines nested in a list item or a quote took about 4 x an
   * ordinary plan's time per KB, and over 2 MB per KB, at the cap.
   */
  container: 6,
  listItem: 20,
  /**
   * Per list item, times the lines before it and its depth: the fit found a list item followed by
   * a sibling linear (0); what is quadratic is a list that ends (endShift). Kept for the calibration.
   */
  itemShift: 0,
  /** Per quote or list that ends (a list item not followed by a sibling: its exit moves the events before it), times the lines before it. */
  endShift: 0.09,
  heading: 29,
  /** A setext heading's underline (it turns the paragraph before it into a heading), and the same times the lines before it. */
  setext: 0,
  setextShift: 0.06,
  thematic: 3,
  fence: 5,
  tableCell: 22,
  /** Definitions, set by hand (the fit had no case under their cap): measured at 4 KB, about 0.9 x and 1.9 x plan text. */
  definition: 40,
  footnoteDefinition: 120,
  /** Set by hand below the fit (11): emphasis in many paragraphs measured about 1.1 x plan text. */
  delimiter: 6,
  bracket: 12,
  /** An image's `![` on top of its brackets, set by hand: paragraphs of images measured about 2 x plan text per KB at the cap with brackets alone. */
  image: 16,
  html: 5,
  entity: 7,
  escape: 9,
  /** Set by hand above the fit (8): paragraphs of code spans measured about 1.8 x plan text per KB at the cap. */
  backtickRun: 12,
  /** Quadratic terms: per paragraph, times the square of the count (set by hand: their caps bound them). */
  delimiterPairs: 0.05,
  bracketPairs: 0.05,
  lazyPairs: 0.08,
  /** Per quote or list marker on one line, times the count squared (each opens a container inside the others). */
  nestingPairs: 0.06,
  /** A code span opener of a length not seen before in the paragraph scans the rest of it. */
  backtickScan: 0.025,
} as const;
/** The weights of the scan's cost model (see MARKDOWN_WEIGHTS). */
export type MarkdownWeights = { [K in keyof typeof MARKDOWN_WEIGHTS]: number };

/**
 * The work a text of `chars` characters may cost: what that many characters of ordinary plan text
 * cost with a margin (`workPerChar` each), at least `workFloor` (what a small plan costs), at most
 * `limit` (a plan's `LIMITS.markdown.work`, or the plan editor's `renderWork`).
 */
export function workBudget(chars: number, limit: number = LIMITS.markdown.work): number {
  return Math.min(limit, Math.max(LIMITS.markdown.workFloor, LIMITS.markdown.workPerChar * chars));
}

/** What the work is spent on, for the refusal's message: what the text is mostly made of, and the fix. */
export const KINDS = [
  ['short lines', 'join short lines into longer ones'],
  ['list items', 'write fewer, longer list items'],
  ['quotes and nested lists', 'flatten the quotes and lists'],
  ['headings', 'use fewer headings'],
  ['thematic breaks and code blocks', 'use fewer thematic breaks and code blocks'],
  ['table cells', 'split the table or make it narrower'],
  ['link definitions', 'write the links inline'],
  ['emphasis and code spans', 'write fewer emphasis markers and code spans'],
  ['links and brackets', 'write fewer links and brackets'],
  ['HTML, entities and escapes', 'write fewer HTML tags, entities and escapes'],
  ['lazy lines', 'indent the lines that continue a quote or a list item'],
] as const;
export const TEXT = 0;
export const LIST = 1;
export const NESTED = 2;
export const HEADINGS = 3;
export const BLOCKS = 4;
export const TABLE = 5;
export const DEFS = 6;
export const EMPHASIS = 7;
export const LINKS = 8;
export const HTML = 9;
export const LAZY = 10;

/** The counts a scan found (for the benchmark and tests); `work` is what the budget caps. */
export interface MarkdownCounts {
  work: number;
  lines: number;
  maxDepth: number;
  maxDelimiters: number;
  maxBrackets: number;
  maxLazy: number;
  maxColumns: number;
  tableCells: number;
  definitions: number;
}
