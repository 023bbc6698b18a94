/**
 * The Markdown pre-scan's ledger: what the parse will cost, by kind of construct, against the caps,
 * and the first refusal (which line, which rule, the fix). Every other part of the scan counts here.
 */
import { LIMITS } from '../limits/limits';
import * as weights from './markdownWeights';
import type { MarkdownRefusal } from './markdownWeights';
import type { ScanCaps, ScanState } from './markdownScanState';

// Read once into this module's own constants: where each file runs as CommonJS (tsx, in the tests
// and the benchmark) an imported name is a getter on its module read at every use, and the scan
// reads these per line and per character (twice the scan's time); a bundle has no such cost.
const { KINDS, TEXT } = weights;

/** The caps of a scan whose work budget is `work`. */
export function scanCaps(work: number): ScanCaps {
  return { ...LIMITS.markdown, work };
}

/** A new line's own `cost` (its characters and itself): spent on short lines until `lineIs` says otherwise. */
export function countLine(s: ScanState, cost: number): void {
  s.lineCost = cost;
  s.counts.work += cost;
  s.spent[TEXT] += cost;
}

/** The current line is a `kind` (the first call for a line counts): its own cost is spent on that. */
export function lineIs(s: ScanState, kind: number): void {
  s.spent[TEXT] -= s.lineCost;
  s.spent[kind] += s.lineCost;
  s.lineCost = 0;
}

/** Adds `units` of work spent on `kind`. */
export function add(s: ScanState, kind: number, units: number): void {
  s.counts.work += units;
  s.spent[kind] += units;
}

/** Whether the work is over the budget. */
export function overBudget(s: ScanState): boolean {
  return s.counts.work > s.caps.work;
}

/** Refuses the text as over its work budget, by this line: naming what the work went to most, and its fix. */
export function refuseWork(s: ScanState): void {
  let most = 0;
  for (let k = 1; k < KINDS.length; k++) if (s.spent[k] > s.spent[most]) most = k;
  const kb = Math.max(1, Math.round(s.caps.work / LIMITS.markdown.workPerChar / 1024));
  refuse(
    s,
    'TOO_LARGE',
    'markdown-complexity',
    `the Markdown costs far more to parse than ordinary plan text of its size: by this line it is over what ${kb} KB of text may cost (${s.line} lines, mostly ${KINDS[most][0]}): ${KINDS[most][1]}, or move it into a file under .pi/plans/artifacts/ and link it`,
  );
}

/** Refuses the text (the first refusal stays). */
export function refuse(s: ScanState, code: MarkdownRefusal['code'], rule: string, message: string, line = s.line): void {
  s.refusal ??= { code, rule, message, line };
}

/** Refuses a line with `n` quote markers, over the cap (counting stops there). */
export function refuseQuotes(s: ScanState, n: number): void {
  refuse(s, 'TOO_LARGE', 'markdown-quote-depth', `the line nests more than ${s.caps.quoteDepth} block quotes (${n} so far), the limit: split the quote or shorten the line (remove the extra ">" markers)`);
}

/** Refuses a line nested `depth` levels deep, over the cap (counting stops there). */
export function refuseNesting(s: ScanState, depth: number): void {
  refuse(s, 'TOO_LARGE', 'markdown-nesting', `the line is nested more than ${s.caps.nesting} levels deep in quotes and lists (${depth} so far), the limit: flatten the list or the quote`);
}
