// A scripted agent that does only what the tools tell it (issue 39): it reads the "Next:" line of
// each result (or, for op=next, its first line), makes the call that line names with the arguments
// it names, and does a step's work when a line hands it a step. It has no plan of its own: a result
// that names no call ends it. The same script drives the tools over MCP and through VS Code's
// vscode.lm.invokeTool; what it counts (calls, characters read back, refusals, polls that returned
// nothing) is what the issue measures.

/** One tool call as a face makes it: the result's text, and whether it was a refusal. */
export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<{ text: string; refused: boolean }>;

/** What an agent (or several) did. */
export interface Tally {
  calls: number;
  /** Characters of every result read back. */
  chars: number;
  /** The refusals, as the agent read them. */
  refused: string[];
  /** op=next calls that claimed nothing and did not end the plan. */
  emptyPolls: number;
  /** Each call, one line: who, the tool, its arguments. */
  log: string[];
}

export const newTally = (): Tally => ({ calls: 0, chars: 0, refused: [], emptyPolls: 0, log: [] });

/** A caller that counts into `tally` as `who`. */
export function counted(call: ToolCaller, tally: Tally, who = 'agent'): ToolCaller {
  return async (name, args) => {
    tally.calls++;
    tally.log.push(`${who} ${name} ${JSON.stringify(args)}`);
    const r = await call(name, args);
    tally.chars += r.text.length;
    if (r.refused) tally.refused.push(`${who} ${name}: ${r.text.split('\n')[0]}`);
    if (name === 'pi_plan_execute' && args.op === 'next' && /^No step is runnable now/.test(r.text)) tally.emptyPolls++;
    return r;
  };
}

/** The line a result says to act on: its "Next:" line, else (op=next) its first line. */
export function instructionOf(text: string): string {
  return text.split('\n').find((l) => l.startsWith('Next:')) ?? text.split('\n')[0];
}

/** The call a line names (`pi_plan_x {...}`, JSON arguments), the first one, with "..." placeholders filled in. */
export function callNamedIn(line: string, fill: Record<string, string> = {}): { name: string; args: Record<string, unknown> } | undefined {
  const at = line.search(/pi_plan_\w+ \{/);
  if (at < 0) return undefined;
  const name = /^pi_plan_\w+/.exec(line.slice(at))![0];
  // The JSON object that follows: its balanced braces (strings in it may hold anything).
  const start = at + name.length + 1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < line.length; i++) {
    const ch = line[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) {
      const args = JSON.parse(line.slice(start, i + 1)) as Record<string, unknown>;
      for (const [k, v] of Object.entries(args)) if (v === '...' || (typeof v === 'string' && /^<.*>$/.test(v))) args[k] = fill[k] ?? 'done';
      return { name, args };
    }
  }
  return undefined;
}

/** The step a result hands the agent: "S002 is yours now", "S002 is yours (claimed by …)", or "Next: do step S002". */
export function stepHandedIn(text: string): string | undefined {
  return /^(S\d{3,4}) is yours\b/m.exec(text)?.[1] ?? /^Next: do step (S\d{3,4})\b/m.exec(text)?.[1];
}

export interface FollowOptions {
  /** Does a step's work (writes its files) before the call that marks it. */
  work?: (step: string) => void | Promise<void>;
  /** "Next: revise it using the feedback…": the edits the script makes from the result (the feedback in it) before the call the line names. */
  revise?: (text: string) => { name: string; args: Record<string, unknown> }[];
  /** At most this many calls (a loop that never ends fails instead). */
  maxCalls?: number;
}

/**
 * Follows the results from `first` on: each result's line names the next call, made as named; a
 * step handed to the agent is worked on first (once). "Next: wait for the user…" waits again
 * (pi_plan_submit on the proposed plan). Ends when a result names no call. Returns the last result.
 */
export async function followNext(call: ToolCaller, first: string, id: string, opts: FollowOptions = {}): Promise<string> {
  let text = first;
  const worked = new Set<string>();
  for (let n = 0; n < (opts.maxCalls ?? 50); n++) {
    const step = stepHandedIn(text);
    if (step && !worked.has(step)) {
      worked.add(step);
      await opts.work?.(step);
    }
    const line = instructionOf(text);
    if (/^Next: revise/.test(line)) for (const edit of opts.revise?.(text) ?? []) await call(edit.name, edit.args);
    const named = callNamedIn(line) ?? (/^Next: wait for the user/.test(line) ? { name: 'pi_plan_submit', args: { id } } : undefined);
    if (!named) return text;
    text = (await call(named.name, named.args)).text;
  }
  throw new Error(`still going after ${opts.maxCalls ?? 50} calls; last result:\n${text}`);
}
