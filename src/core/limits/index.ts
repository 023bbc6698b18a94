/**
 * The bounds of a plan (sizes, counts, the Markdown scan's budget) and the error that refuses what
 * breaks them or anything else: `PlanError`, with a code and a message that names the fix.
 * The ground floor of the core: it imports nothing of the core.
 */
export * from './errors';
export * from './limits';
