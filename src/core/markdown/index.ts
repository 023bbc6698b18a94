/**
 * The pre-scan before any Markdown parse: `inspectMarkdown` reads a body line by line, estimates
 * the parse's work and refuses what would run too long; `markdownShown` says how a link is shown.
 * Stands on limits/; the format parses only what this room accepts.
 */
export * from './markdownGuard';
