/**
 * The plan document core: pure, no I/O, no clock, no vscode. Floor 1 of the house; everything else
 * stands on it. Six rooms, each importing only the rooms listed before it:
 *   limits/    the bounds of a plan and PlanError
 *   markdown/  the pre-scan before any Markdown parse
 *   format/    the plan file: frontmatter, schema, outline, steps, statuses, its text
 *   rules/     approval, review, checks, evidence, the step graph, attention order
 *   ops/       the operations that turn a document and an actor into the text to write; merge
 *   views/     problems, actions, the plan editor's view model (planView, imported by file)
 * See docs/architecture.md.
 */
export * from './limits';
export * from './markdown';
export * from './format';
export * from './rules';
export * from './ops';
export * from './views';
