/**
 * The plan document core: pure, no I/O, no clock, no vscode. Floor 1 of the house; everything else
 * stands on it. Its rooms: the format (schema, frontmatter, outline, steps, document, planText,
 * limits, markdownGuard), the operations that turn a document and an actor into the text to write
 * (operations re-exports contentOps, reviewOps, executionOps over opsShared), the rules faces share
 * (lifecycle, policy, planActions, approval, review, analyze, attentionOrder), the merge driver
 * (merge) and what the plan editor draws (planView -> planViewModel; the webview protocol carries
 * the view model). See docs/architecture.md.
 */
export * from './errors';
export * from './limits';
export * from './schema';
export * from './frontmatter';
export * from './outline';
export * from './markdownGuard';
export * from './steps';
export * from './evidence';
export * from './document';
export * from './lifecycle';
export * from './operations';
export * from './textEdits';
export * from './analyze';
export * from './attentionOrder';
export * from './approval';
export * from './policy';
export * from './planActions';
export * from './review';
export { quickRejectionComments } from './reviewNotes';
export * from './merge';
export * from './graph';
export * from './claims';
export * from './checks';
