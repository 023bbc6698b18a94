/**
 * The planning strategies (seed 003): one planning section whose mindset text changes with the
 * strategy, never its tool references or their order. The default renders the ReAct text. One
 * module: the MCP prompts use it, and the chat features will.
 */

export const PLANNING_STRATEGIES = ['react', 'plan-act-reflect', 'goal-decompose-route-synthesise'] as const;
export type PlanningStrategy = (typeof PLANNING_STRATEGIES)[number];

/** What each strategy is called where a person picks one. */
export const STRATEGY_TITLES: Record<PlanningStrategy, string> = {
  react: 'ReAct: reason, act, observe, repeat',
  'plan-act-reflect': 'Plan, act, reflect',
  'goal-decompose-route-synthesise': 'Goal framing, decomposition, tool routing, synthesis',
};

/** The mindset each strategy nudges toward: the only text that differs between them. */
const MINDSET: Record<PlanningStrategy, string[]> = {
  react: [
    'Alternate short bursts of reasoning with one tool call at a time, then look at what the call returned before the next step.',
    'Record what you observe as a step note (pi_plan_execute with "note") so the plan keeps it.',
  ],
  'plan-act-reflect': [
    'Outline the whole plan first: every step, before you execute any of them.',
    'Execute the steps in order; after each tool call or finished step, reflect in one or two sentences.',
    'Append each reflection as a step note or a short status update.',
  ],
  'goal-decompose-route-synthesise': [
    'Start by restating the goal in your own words.',
    'Break the goal into concrete sub-problems, then assign a tool to each one (the step annotation: tool, operation, target).',
    'Close by synthesising the results into one coherent answer for the user.',
  ],
};

/** The tool references, in their fixed order: the same for every strategy. */
const TOOL_USE = [
  'Plan when the task takes several steps, touches several files or needs the user\'s review; answer directly when it does not.',
  'Create the plan with pi_plan_create (title, goal, steps), add or change steps with pi_plan_step, and the sections with pi_plan_update.',
  'Steps that do not depend on each other can run in parallel: give each step depends_on (pi_plan_step: the step ids it waits for, or "none"); a step without it waits for the step before it.',
  'Submit it with pi_plan_submit and wait for the user\'s decision; on a rejection, revise with the feedback and the comments, then submit again.',
  'Once approved, start with pi_plan_execute {"op":"start"} and mark each step as you go (in_progress, done, blocked, skipped) with a note; with several runnable steps, pi_plan_execute {"op":"next"} claims one for you, and independent runnable steps can go to subagents, each told its step id.',
  'After a context loss, read the plan again with pi_plan_get: the file, not the chat, is the plan.',
];

/** The planning section for a strategy (ASCII, one heading, ordered lists; the default is ReAct). */
export function renderPlanningSection(strategy: PlanningStrategy = 'react'): string {
  const ordered = (lines: readonly string[]) => lines.map((l, i) => `${i + 1}. ${l}`).join('\n');
  return ['## Planning', '', 'How to work:', '', ordered(MINDSET[strategy]), '', 'How to use the plan tools:', '', ordered(TOOL_USE), ''].join('\n');
}
