/**
 * Size caps. Every input that can grow without bound has one, so a hostile or broken file is
 * refused in well under 100 ms instead of hanging the extension host.
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
} as const;
