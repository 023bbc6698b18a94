/**
 * The Markdown pre-scan's state: one object whose fields are grouped by the part of the scan that
 * decides them (each part is a module of functions over it, named beside its fields).
 */
import type { LIMITS } from '../limits/limits';
import type { MarkdownCounts, MarkdownRefusal, MarkdownWeights } from './markdownWeights';

/** The caps a scan holds the text to: `LIMITS.markdown`, with the work budget of this text. */
export type ScanCaps = { [K in keyof typeof LIMITS.markdown]: number };

/** A paragraph (or a heading, a table cell): the inline content whose counts grow together. */
export interface Para {
  delimiters: number;
  brackets: number;
  lazy: number;
  chars: number;
  /** Backtick run lengths seen (bit n-1 for length n up to 30); longer runs each count as new. */
  tickLengths: number;
  tickScans: number;
  /** Quote level and content column where it started (lines with less are lazy). */
  q: number;
  col: number;
  /** Started inside a list item (then marker lines of that list start siblings, never continue it). */
  inList: boolean;
}

/** An open list item: its content column, quote level and marker column. */
export interface Item {
  col: number;
  q: number;
  mcol: number;
  nested: boolean;
}

/** A `##` section's piece of text, from its heading line to the next line that may be a heading. */
export interface Piece {
  title: string;
  line: number;
  contentStart: number;
  cap: number;
}

/**
 * One scan's state. One object, not one per part: a scan runs once per text, often before V8 has
 * optimized it (a CLI or hook process, or after a garbage collection has dropped its optimized
 * code), and there each object a line goes through costs (a scan delegating to one object per part
 * took about 1.5 times as long to refuse the benchmark's pathological files, each in a fresh process).
 */
export class ScanState {
  // The ledger (markdownScanLedger.ts): the work, the counts, the caps, the line, the first refusal.
  readonly counts: MarkdownCounts = { work: 0, lines: 0, maxDepth: 0, maxDelimiters: 0, maxBrackets: 0, maxLazy: 0, maxColumns: 0, tableCells: 0, definitions: 0 };
  /** The 1-based line being scanned. */
  line = 0;
  refusal: MarkdownRefusal | undefined;
  /** The work by what it was spent on (KINDS). */
  readonly spent = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  /** The current line's own cost (characters and line), spent on short lines until the line is found to be something else. */
  lineCost = 0;

  // The line reader (markdownLineReader.ts): the column blanks reached; a line's tail of one break character.
  blankCol = 0;
  tailLineEnd = -1;
  tailStart = 0;
  tailChar = -1;

  // The open leaf (markdownParagraphs.ts): the paragraph, the table, a run of definitions.
  para: Para | undefined;
  /** The open table: its columns and quote level (rows follow until a blank line). */
  table: { cols: number; q: number } | undefined;
  /** The previous line was a link reference definition (the next may be one too). */
  afterDefinition = false;
  /** The next inline character at or after `nextInlineFrom` (the text's length when none). */
  nextInline = -1;
  nextInlineFrom = 0;

  // The fenced code block (markdownFences.ts).
  /** An open fenced code block as this scan follows it (closed early when its container seems to end). */
  fence: { ch: number; len: number; q: number; col: number } | undefined;
  /** The same fence, closed only by a closing fence line: while it is open, no `#` line is surely a heading. */
  stickyFence: { ch: number; len: number } | undefined;

  // The containers (markdownContainers.ts).
  /** Open list items: content column and quote level. */
  readonly items: Item[] = [];
  /** The list items the current line ended (a sibling it starts takes its predecessor off: its list goes on). */
  readonly ended: Item[] = [];
  /** Quotes the previous line (not a lazy one) was in. */
  prevQ = 0;
  /** The previous line was blank (or none): an indented line after it is code. */
  prevBlank = true;
  /** The previous line was indented code: so is the next as indented. */
  indentedCode = false;

  // The sections' caps (markdownSections.ts).
  /** The piece the scan is in; none when the text is not a plan body (no caps). */
  piece: Piece | undefined;
  /** Where the current run of non-blank top-level lines started (a setext heading's text starts there at the earliest). */
  runStart = 0;
  runLine = 1;
  /** A possible HTML block at the top level (its end: a blank line, or a terminator). */
  html: string | undefined;

  constructor(
    readonly text: string,
    readonly caps: ScanCaps,
    readonly w: MarkdownWeights,
  ) {}
}
