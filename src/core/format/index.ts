/**
 * The plan file: its frontmatter and schema, its sections and steps (the outline, from the one
 * Markdown parse), the statuses it may have and what each allows, reading and writing its text.
 * Stands on limits/ and markdown/; the rules, operations and views stand on it.
 */
export * from './schema';
export * from './frontmatter';
export * from './outline';
export * from './steps';
export * from './document';
export * from './lifecycle';
export * from './textEdits';
export * from './policy';
