/**
 * The operations: a document and an actor in, the next text (and its edits) out, for content,
 * review, execution, claims and checks (`operations` gathers them over `opsShared`); and the merge
 * driver, which merges two plan files by step id and frontmatter key.
 */
export * from './operations';
export * from './merge';
export * from './claims';
