/**
 * Size caps. Every input that can grow without bound has one, so a hostile or broken file is
 * refused fast (the bench prints the worst case: tens of milliseconds) instead of hanging a
 * process; what passes them costs what an ordinary plan of that size costs to parse.
 */
export const LIMITS = {
  /** Whole plan file, bytes. */
  fileBytes: 256 * 1024,
  /** Frontmatter block, characters. */
  frontmatterChars: 16 * 1024,
  /** Steps in one plan. */
  steps: 1000,
  title: 200,
  stepText: 500,
  stepDetails: 2000,
  note: 1000,
  /** Inline `## Context`, bytes (the vision doc's 50 KB; larger context goes to artifacts/). */
  contextBytes: 50 * 1024,
  section: 20 * 1024,
  feedback: 4000,
  resultSummary: 4000,
  listItems: 50,
  shortField: 200,
  yamlDepth: 10,
  /**
   * Markdown a plan may hold, checked by a scan of the raw text before any Markdown parse
   * (markdownGuard.ts). Each cap is far above what a real plan holds and far below where the
   * parser's cost grows out of bounds; the figures behind them are in the report of bench/bench.ts.
   */
  markdown: {
    /** Characters in one line. */
    lineChars: 64 * 1024,
    /** `>` markers on one line (each nests a quote in the ones before: quadratic, then a stack overflow). */
    quoteDepth: 32,
    /** Quotes and list items a line is nested in. */
    nesting: 32,
    /** Runs of `*`, `_`, `~` that can open or close emphasis, in one paragraph (quadratic). */
    delimiters: 250,
    /** `[` and `]` in one paragraph (quadratic). */
    brackets: 400,
    /** Lazy continuation lines of one paragraph in a quote or list item (quadratic). */
    lazyLines: 200,
    /** Columns of one table (every row is padded to its header's width). */
    tableColumns: 100,
    /** Cells of all tables. */
    tableCells: 10_000,
    /** Link reference and footnote definitions. */
    definitions: 500,
    /**
     * The scan's estimate of the parse's work (markdownGuard's MARKDOWN_WEIGHTS, fitted by
     * bench/calibrate.ts): a character of an ordinary plan (steps with details) counts about 3 to
     * 4 units. A text may cost `workPerChar` per character (about twice an ordinary plan's), at
     * least `workFloor` (about twice what a 4 KB plan costs), at most `work`.
     */
    workPerChar: 6.5,
    workFloor: 30_000,
    /** At most, for a plan body: what the largest plan (the file cap) may cost. */
    work: 1_700_000,
    /** At most, for one piece of Markdown the plan editor renders (a section, a step's details) on the extension host's thread. */
    renderWork: 300_000,
  },
} as const;
