/**
 * `pi-plans hook` for a PreToolUse, as an agent host runs it before every tool call: the built bin
 * (dist/bin.js, which sends `hook` to dist/hook.js) in a process of its own, a payload on stdin, in
 * the bench's big workspace, with the session bound to an executing plan (it reads the binding and
 * that one plan). Against a bare `node -e 0` started the same way; the two are interleaved so
 * both see the same machine. Prints p50 and p95 of each and the ratio of the p95s (target <= 1.5x).
 * The executing plan carries a person's signed approval (keys in a temporary configuration folder),
 * so the hook's approval check passes: the first call after the plan's text changes runs the
 * store's check (printed apart), every measured call reads its verdict from the cache.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parsePlan } from '../src/core';
import { NodeApprovalKeys } from '../src/node';
import { sealApproval } from '../test/helpers/approvals';

export interface HookFigures {
  runs: number;
  hook: { p50: number; p95: number };
  /** A shell command's PreToolUse (`npm test`): the command read by the shell parser as well. */
  command: { p50: number; p95: number };
  bareNode: { p50: number; p95: number };
  ratio: number;
  commandRatio: number;
  target: number;
  /** What the measured hook answered (it must be the policy's answer, not a failure). */
  answer: string;
  /** The first call after the plan's text changed: the store's approval check, then cached. */
  firstCallMs: number;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** Measures in `root` (a workspace with .pi/plans) on the executing plan `plan`, whose steps target src/m0.ts. */
export async function hookFigures(root: string, plan: string, runs = 60): Promise<HookFigures> {
  const repo = path.resolve(__dirname, '..');
  const bin = path.join(repo, 'dist', 'bin.js');
  if (!fs.existsSync(path.join(repo, 'dist', 'hook.js'))) execFileSync(process.execPath, [path.join(repo, 'scripts', 'build.mjs')], { cwd: repo, stdio: 'ignore' });
  const session = 'bench-hook-session';
  const base = { session_id: session, transcript_path: '/tmp/t.jsonl', cwd: root, permission_mode: 'default', tool_use_id: 'toolu_bench' };
  const bind = JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'mcp__pi-plans__pi_plan_get', tool_input: { id: plan }, tool_response: 'ok' });
  // Each call its own tool_use_id, as a host sends them (the same id twice is one call reaching the hook twice: answered again from its record).
  const pre = (n: number) => JSON.stringify({ ...base, tool_use_id: `toolu_bench_${n}`, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(root, 'src', 'm0.ts'), old_string: 'a', new_string: 'b' } });
  const bash = (n: number) => JSON.stringify({ ...base, tool_use_id: `toolu_bench_bash_${n}`, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test -- --grep health && git status --short' } });
  // The person's keys and the verdict cache in temporary folders; the plan sealed with their approval (restored after).
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-hook-'));
  // The sessions' bindings go to the state folder: a temporary one too.
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), PI_PLANS_CACHE_DIR: path.join(home, 'cache'), PI_PLANS_STATE_DIR: path.join(home, 'state') };
  const planFile = path.join(root, '.pi', 'plans', `${plan}.md`);
  const original = fs.readFileSync(planFile, 'utf8');
  fs.writeFileSync(planFile, sealApproval(parsePlan(original), await new NodeApprovalKeys(path.join(home, 'config', 'pi-plans'), () => [root], true).signer()).text);
  const run = (argv: string[], input: string) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, argv, { input, encoding: 'utf8', cwd: root, env });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, out: r.stdout };
  };
  run([bin, 'hook'], bind);
  const first = run([bin, 'hook'], pre(0));
  const answer = first.out.trim();
  const commandAnswer = run([bin, 'hook'], bash(0)).out.trim();
  if (commandAnswer) throw new Error(`the hook did not allow a plain command while executing: ${commandAnswer}`);
  const hook: number[] = [];
  const command: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) run(['-e', '0'], '');
  for (let i = 0; i < runs; i++) {
    bare.push(run(['-e', '0'], pre(i + 1)).ms);
    hook.push(run([bin, 'hook'], pre(i + 1)).ms);
    command.push(run([bin, 'hook'], bash(i + 1)).ms);
  }
  fs.writeFileSync(planFile, original);
  fs.rmSync(home, { recursive: true, force: true });
  const h = { p50: percentile(hook, 50), p95: percentile(hook, 95) };
  const c = { p50: percentile(command, 50), p95: percentile(command, 95) };
  const b = { p50: percentile(bare, 50), p95: percentile(bare, 95) };
  return { runs, hook: h, command: c, bareNode: b, ratio: h.p95 / b.p95, commandRatio: c.p95 / b.p95, target: 1.5, answer, firstCallMs: first.ms };
}

/** The figures as the bench prints its others. */
export function printHook(f: HookFigures, plans: number): void {
  console.log('');
  console.log(`pi-plans hook, a PreToolUse (Claude Edit of a step target) in the ${plans}-plan folder, ${f.runs} processes each, interleaved:`);
  console.log(`  hook       p50 ${f.hook.p50.toFixed(1)} ms, p95 ${f.hook.p95.toFixed(1)} ms (an edit of a step target)`);
  console.log(`  hook       p50 ${f.command.p50.toFixed(1)} ms, p95 ${f.command.p95.toFixed(1)} ms (a shell command, parsed: npm test … && git status)`);
  console.log(`  node -e 0  p50 ${f.bareNode.p50.toFixed(1)} ms, p95 ${f.bareNode.p95.toFixed(1)} ms`);
  console.log(`  first call after the plan changed (the store's approval check, then cached): ${f.firstCallMs.toFixed(0)} ms`);
  console.log(`  p95 ratio  ${f.ratio.toFixed(2)}x edit, ${f.commandRatio.toFixed(2)}x command (target <= ${f.target}x) ${Math.max(f.ratio, f.commandRatio) <= f.target ? 'met' : 'NOT met'}; it answered ${f.answer || '(an empty allow)'}`);
}
