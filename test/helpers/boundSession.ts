/**
 * A Claude Code session's calls to the real built hook, for the tests that attack a bound session:
 * each call as a new one (its own tool_use_id: the same id twice is one call, decided once), its
 * decision read, and the plan moved along its life as a person and the service would move it.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openNodeStore } from '../../src/node';
import { startPlan } from '../../src/service';
import { sealedByUser } from './approvals';
import { ensureBuilt, fixture, freshStatePerTest, Json, planText, runHook, tempWorkspace } from './hookContract';

export type Decided = { decision: string | undefined; reason: string; code: number | null; raw: string };

export function claudeSession(rootOf: () => string, plan: string) {
  let calls = 0;
  const claude = (name: string, change?: (p: Json) => void) => fixture(rootOf(), 'claude', name, change);
  /** Claude Code's decision on a payload, as a new call. */
  const decide = (p: Json, args: string[] = [], env: Record<string, string> = {}): Decided => {
    const n = ++calls;
    const r = runHook(rootOf(), { ...p, ...(typeof p.tool_use_id === 'string' ? { tool_use_id: `${p.tool_use_id}-${n}` } : {}) }, args, env);
    const o = r.out?.hookSpecificOutput ?? r.out ?? {};
    return { decision: o.permissionDecision as string | undefined, reason: (o.permissionDecisionReason ?? '') as string, code: r.code, raw: r.stdout + r.stderr };
  };
  const planFile = (id: string) => path.join(rootOf(), '.pi', 'plans', `${id}.md`);
  return {
    claude,
    decide,
    /** A plan tool call naming the plan: binds the session (allowed, silently). */
    bind: (id = plan) => assert.equal(runHook(rootOf(), claude('PreToolUse.mcp', (p) => (p.tool_input = { id }))).stdout, ''),
    bash: (command: string, change?: (p: Json) => void) => claude('PreToolUse.bash', (p) => ((p.tool_input = { command }), change?.(p))),
    edit: (file: string, change?: (p: Json) => void) => claude('PreToolUse.edit', (p) => ((p.tool_input = { file_path: file, old_string: 'a', new_string: 'b' }), change?.(p))),
    notAllowed: (d: Decided, what: string) => assert.ok(d.decision === 'deny' || d.decision === 'ask', `${what}: ${d.raw || 'allowed'}`),
    denied: (d: Decided, what: string) => assert.equal(d.decision, 'deny', `${what}: ${d.raw || 'allowed'}`),
    /** Approves the plan as the person would (their signed record) and starts it through the service. */
    async approveAndStart(id = plan): Promise<void> {
      fs.writeFileSync(planFile(id), await sealedByUser(fs.readFileSync(planFile(id), 'utf8').replace(/^status: proposed$/m, 'status: approved'), rootOf()));
      await startPlan({ store: await openNodeStore(rootOf(), { index: false }) }, id, { actor: 'agent' });
    },
  };
}

/**
 * The red team's ground, made fresh for each test of the describe it is called in: a state folder
 * of its own, a workspace with `plan` proposed and `src/app.ts`, `docs/`, and a Claude session on it.
 * `onRoot` receives each test's workspace folder.
 */
export function redTeamGround(plan: string, onRoot: (root: string) => void) {
  let root = '';
  freshStatePerTest();
  before(ensureBuilt);
  beforeEach(() => {
    root = tempWorkspace();
    onRoot(root);
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${plan}.md`), planText(plan, 'proposed'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'a\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  return {
    ...claudeSession(() => root, plan),
    planFile: (id = plan) => path.join(root, '.pi', 'plans', `${id}.md`),
    stateDir: () => process.env.PI_PLANS_STATE_DIR!,
  };
}
