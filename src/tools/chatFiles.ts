/**
 * The chat files the extension contributes to VS Code (`chatAgents`, `chatPromptFiles`), made from
 * the one strategy module at build time (scripts/build.mjs writes them to dist/chat/; a test holds
 * the files equal to this module and the manifest's entries to the files).
 */
import { PLANNING_STRATEGIES, renderPlanningSection, STRATEGY_TITLES, type PlanningStrategy } from './strategies';

/** The extension's id, which qualifies its tools in agent files (`pi-plans.pi-plans/planGet`). */
export const EXTENSION_ID = 'pi-plans.pi-plans';

/** The plan tools a planner may use, by their tool reference names: drafting, reading and submitting for review. */
const PLANNER_PLAN_TOOLS = ['planCreate', 'planStep', 'planUpdate', 'planSetContent', 'planGet', 'planList', 'planSubmit'];

/**
 * Read-only tools VS Code 1.139 knows without any other extension: the `read` tool set (Copilot
 * adds its file readers to it), code usages, and the todo list. No edit, no terminal commands.
 */
const READ_ONLY_TOOLS = ['read', 'vscodeGeneral/usages', 'todo'];

export const PLANNER_TOOLS: readonly string[] = [...READ_ONLY_TOOLS, ...PLANNER_PLAN_TOOLS.map((t) => `${EXTENSION_ID}/${t}`)];

/** What the "Execute the plan" hand-off sends to agent mode. */
export const EXECUTE_HANDOFF_PROMPT =
  'Execute the plan I approved with the Pi Plans tools: start it with #planExecute, which hands you its first step; do it, then mark it done with #planExecute (with a one-line note, or blocked with the reason), which hands you the next; read it again with #planGet whenever you lose track. ' +
  'When #planExecute names several runnable steps (a wave), hand each independent one to a subagent, telling it the plan id and its step id, to mark that step in progress, do it, and mark it done; wait for the wave, then go on with the next runnable steps.';

const yamlString = (s: string) => JSON.stringify(s);

/** The Planner custom agent: plan with read-only tools and the plan tools, then hand off to agent mode. */
export function plannerAgentFile(strategy: PlanningStrategy = 'react'): string {
  return [
    '---',
    'name: Planner',
    `description: ${yamlString('Plans a task as a reviewable plan in .pi/plans, with read-only tools and the Pi Plans tools (no edits, no terminal); hands the approved plan to agent mode.')}`,
    `tools: [${PLANNER_TOOLS.map((t) => `'${t}'`).join(', ')}]`,
    'handoffs:',
    '  - label: Execute the plan',
    '    agent: agent',
    `    prompt: ${yamlString(EXECUTE_HANDOFF_PROMPT)}`,
    '    send: false',
    '---',
    '',
    'You are the Planner. You plan; you do not change the workspace. Read what you need with the read-only tools, then write the plan with the Pi Plans tools and submit it for the user\'s review. The plan file in .pi/plans, not this chat, is the plan.',
    '',
    renderPlanningSection(strategy).trimEnd(),
    '',
    'Where steps do not depend on each other, say so with depends_on, so they run in waves: independent runnable steps are handed to subagents, each told its step id.',
    '',
    'When the user approves the plan, tell them to use "Execute the plan" to hand it to agent mode.',
    '',
    'Collect mode is the other way to plan: in agent mode, the plan is created with collect: true and each file edit or terminal command the agent then tries is recorded as a step instead of run (where pi-plans hooks run). You have no edit tools, so it is not yours: when the user wants it, tell them to run /plan-collect with their task (or @plans /collect).',
    '',
  ].join('\n');
}

/** What collect mode asks of agent mode (the `/plan-collect` prompt file, `@plans /collect`), before the task. */
export const COLLECT_PROMPT =
  'Plan this task in collect mode: call #planCreate with collect: true, a title and the goal; then go about the task as if doing it: each file edit and terminal command you try is not run but recorded as a step of the draft (the denial names the step). Read what you need as usual. When the plan is complete, call #planSubmit for my review (a draft with no step is cancelled). Task: ';

/** The `/plan-collect` prompt file: collect mode in agent mode, for the task the person types. */
export function collectPromptFile(): string {
  return [
    '---',
    'name: plan-collect',
    `description: ${yamlString('Plan a task in collect mode: the edits and commands the agent tries become the steps of a plan for your review (needs pi-plans hooks)')}`,
    'agent: agent',
    `argument-hint: ${yamlString('the task to plan')}`,
    '---',
    '',
    `${COLLECT_PROMPT}\${input:task}`,
    '',
  ].join('\n');
}

/** A planning prompt file: the strategy's planning section, then the task the person types. */
export function planPromptFile(strategy: PlanningStrategy, name: string): string {
  return [
    '---',
    `name: ${name}`,
    `description: ${yamlString(`Plan a task with Pi Plans (${STRATEGY_TITLES[strategy]}): a plan in .pi/plans for your review`)}`,
    'agent: agent',
    `argument-hint: ${yamlString('the task to plan')}`,
    '---',
    '',
    renderPlanningSection(strategy).trimEnd(),
    '',
    'Plan this task with the Pi Plans tools, then submit the plan for my review: ${input:task}',
    '',
  ].join('\n');
}

/** One generated file: where it goes under dist/chat/ and its text. */
export interface ChatFile {
  path: string;
  text: string;
}

/**
 * Every generated chat file: the Planner agent, the `/plan-collect` prompt, one `/plan-<strategy>` prompt per strategy, and
 * a `/plan` prompt per strategy of which the `piPlans.planning.strategy` setting shows one.
 */
export function chatFiles(): ChatFile[] {
  return [
    { path: 'planner.agent.md', text: plannerAgentFile() },
    { path: 'plan-collect.prompt.md', text: collectPromptFile() },
    ...PLANNING_STRATEGIES.map((s) => ({ path: `plan-${s}.prompt.md`, text: planPromptFile(s, `plan-${s}`) })),
    ...PLANNING_STRATEGIES.map((s) => ({ path: `${s}/plan.prompt.md`, text: planPromptFile(s, 'plan') })),
  ];
}

/** The manifest entries for the files (package.json `chatAgents` and `chatPromptFiles`). */
export function chatContributions(): { chatAgents: { path: string }[]; chatPromptFiles: { path: string; when?: string }[] } {
  return {
    chatAgents: [{ path: './dist/chat/planner.agent.md' }],
    chatPromptFiles: [
      { path: './dist/chat/plan-collect.prompt.md' },
      ...PLANNING_STRATEGIES.map((s) => ({ path: `./dist/chat/plan-${s}.prompt.md` })),
      ...PLANNING_STRATEGIES.map((s) => ({ path: `./dist/chat/${s}/plan.prompt.md`, when: `config.piPlans.planning.strategy == '${s}'` })),
    ],
  };
}
