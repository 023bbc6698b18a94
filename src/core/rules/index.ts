/**
 * What a plan's text means for the people and agents around it: its approval and digest, reviews
 * and their notes, a step's checks and evidence, the step graph (waves, dependencies) and the order
 * of what needs attention. Judgments only: nothing here changes a plan (that is ops/).
 */
export * from './evidence';
export * from './attentionOrder';
export * from './approval';
export * from './review';
export { quickRejectionComments } from './reviewNotes';
export * from './graph';
export * from './checks';
