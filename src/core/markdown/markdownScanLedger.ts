/**
 * The Markdown pre-scan's ledger: what the parse will cost, by kind of construct, against the caps,
 * and the first refusal (which line, which rule, the fix). Every other part of the scan counts here.
 */
import { LIMITS } from '../limits/limits';
import * as weights from './markdownWeights';
import type { MarkdownCounts, MarkdownRefusal } from './markdownWeights';

// Read once into this module's own constants: where each file runs as CommonJS (tsx, in the tests
// and the benchmark) an imported name is a getter on its module read at every use, and the scan
// reads these per line and per character (twice the scan's time); a bundle has no such cost.
const { KINDS, TEXT } = weights;

/** The caps a scan holds the text to: `LIMITS.markdown`, with the work budget of this text. */
export type ScanCaps = { [K in keyof typeof LIMITS.markdown]: number };

/** The scan's counts, its work by kind, the line it is on, and its refusal. */
export class ScanLedger {
  readonly counts: MarkdownCounts = { work: 0, lines: 0, maxDepth: 0, maxDelimiters: 0, maxBrackets: 0, maxLazy: 0, maxColumns: 0, tableCells: 0, definitions: 0 };
  readonly caps: ScanCaps;
  /** The 1-based line being scanned. */
  line = 0;
  refusal: MarkdownRefusal | undefined;
  /** The work by what it was spent on (KINDS). */
  private readonly spent = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  /** The current line's own cost (characters and line), spent on short lines until the line is found to be something else. */
  private lineCost = 0;

  constructor(work: number) {
    this.caps = { ...LIMITS.markdown, work };
  }

  /** A new line's own `cost` (its characters and itself): spent on short lines until `lineIs` says otherwise. */
  countLine(cost: number): void {
    this.lineCost = cost;
    this.add(TEXT, cost);
  }

  /** The current line is a `kind` (the first call for a line counts): its own cost is spent on that. */
  lineIs(kind: number): void {
    this.spent[TEXT] -= this.lineCost;
    this.spent[kind] += this.lineCost;
    this.lineCost = 0;
  }

  /** Adds `units` of work spent on `kind`. */
  add(kind: number, units: number): void {
    this.counts.work += units;
    this.spent[kind] += units;
  }

  /** Refuses the text as over its work budget, by this line: naming what the work went to most, and its fix. */
  refuseWork(): void {
    let most = 0;
    for (let k = 1; k < KINDS.length; k++) if (this.spent[k] > this.spent[most]) most = k;
    const kb = Math.max(1, Math.round(this.caps.work / LIMITS.markdown.workPerChar / 1024));
    this.refuse(
      'TOO_LARGE',
      'markdown-complexity',
      `the Markdown costs far more to parse than ordinary plan text of its size: by this line it is over what ${kb} KB of text may cost (${this.line} lines, mostly ${KINDS[most][0]}): ${KINDS[most][1]}, or move it into a file under .pi/plans/artifacts/ and link it`,
    );
  }

  /** Refuses the text (the first refusal stays). */
  refuse(code: MarkdownRefusal['code'], rule: string, message: string, line = this.line): void {
    this.refusal ??= { code, rule, message, line };
  }

  /** Refuses a line with `n` quote markers, over the cap (counting stops there). */
  refuseQuotes(n: number): void {
    this.refuse('TOO_LARGE', 'markdown-quote-depth', `the line nests more than ${this.caps.quoteDepth} block quotes (${n} so far), the limit: split the quote or shorten the line (remove the extra ">" markers)`);
  }

  /** Refuses a line nested `depth` levels deep, over the cap (counting stops there). */
  refuseNesting(depth: number): void {
    this.refuse('TOO_LARGE', 'markdown-nesting', `the line is nested more than ${this.caps.nesting} levels deep in quotes and lists (${depth} so far), the limit: flatten the list or the quote`);
  }
}
