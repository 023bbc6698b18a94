/** The plan document core: pure, no I/O, no clock. */
export * from './errors';
export * from './limits';
export * from './schema';
export * from './frontmatter';
export * from './outline';
export * from './steps';
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
export * from './merge';
