// The escapes a red team found in `pi-plans hook` (issue 37), each tried as the agent would try it,
// through the real built command (dist/bin.js hook) on the hosts' payloads: a session bound to a
// plan must not get past its plan by one call. Each test failed on the hook before the fix
// (PI_PLANS_TEST_BIN=<an older build's bin.js> runs them against another build).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openNodeStore } from '../../../src/node';
import { changePlanStatus } from '../../../src/service';
import { claudeSession } from '../../helpers/boundSession';
import { BIN, ensureBuilt, fixture, freshStatePerTest, Json, planText, runHook, tempWorkspace } from '../../helpers/hookContract';

const ID = 'PLAN-0000e5c0';
const SCRATCH = 'PLAN-0000e5c1';

describe('pi-plans hook: the escapes of a bound session, closed (the built command)', function () {
  this.timeout(60_000);
  let root: string;
  freshStatePerTest();
  const { claude, decide, bind, bash, edit, notAllowed, denied, approveAndStart } = claudeSession(() => root, ID);
  const planFile = (id = ID) => path.join(root, '.pi', 'plans', `${id}.md`);

  before(ensureBuilt);
  beforeEach(() => {
    root = tempWorkspace();
    fs.writeFileSync(planFile(), planText(ID, 'proposed'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'a\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a comment naming the collect command does not turn an approve into a plain allow', () => {
    bind();
    denied(decide(bash(`pi-plans approve ${ID} --digest sha256:abc # pi-plans hook collect ${ID}`)), 'approve with a collect comment');
    denied(decide(bash(`pi-plans approve ${ID} --digest sha256:abc; echo pi-plans hook collect ${ID}`)), 'approve beside an echo of the phrase');
  });

  it('naming a finished plan (a get of a cancelled one, a scratch plan created then cancelled) does not relax the session', async () => {
    fs.writeFileSync(planFile(SCRATCH), planText(SCRATCH, 'draft'));
    await changePlanStatus({ store: await openNodeStore(root, { index: false }) }, SCRATCH, 'cancel', { actor: 'agent', reason: 'scratch' });
    bind();
    bind(SCRATCH);
    denied(decide(edit(`${root}/src/app.ts`)), 'an edit after naming a cancelled plan');
    // Cancelling the plan itself (an agent's act) leaves the session held, not free.
    await changePlanStatus({ store: await openNodeStore(root, { index: false }) }, ID, 'cancel', { actor: 'agent', reason: 'escape' });
    const d = decide(edit(`${root}/src/app.ts`));
    denied(d, 'an edit after the agent cancelled its own plan');
    assert.match(d.reason, /is cancelled, so nothing more is approved for this session/);
  });

  it('tools no list names are of unknown effect (asked, or denied where the host cannot ask), never allowed: on every host', () => {
    bind();
    notAllowed(decide(claude('PreToolUse.bash', (p) => ((p.tool_name = 'EnterWorktree'), (p.tool_input = { name: 'x' })))), 'Claude Code EnterWorktree');
    notAllowed(decide(claude('PreToolUse.bash', (p) => ((p.tool_name = 'mcp__github__create_or_update_file'), (p.tool_input = { path: 'src/app.ts' })))), "another MCP server's write tool");
    notAllowed(decide(claude('PreToolUse.bash', (p) => ((p.tool_name = 'mcp__evil__pi_plan_get'), (p.tool_input = { id: ID })))), 'a tool merely named like a plan tool');
    const vscode = (tool: string, input: Json) => fixture(root, 'vscode', 'PreToolUse.run_in_terminal', (p) => ((p.tool_name = tool), (p.tool_input = input)));
    runHook(root, fixture(root, 'vscode', 'PreToolUse.mcp', (p) => (p.tool_input = { id: ID })));
    for (const [tool, input] of [['create_and_run_task', { task: { command: 'pi-plans approve x' } }], ['run_vscode_command', { commandId: 'piPlans.approve' }], ['send_to_terminal', { text: 'pi-plans approve x' }]] as const) {
      notAllowed(decide(vscode(tool, input)), `VS Code ${tool}`);
    }
    runHook(root, fixture(root, 'copilot-cli', 'preToolUse.mcp', (p) => (p.toolArgs = JSON.stringify({ id: ID }))));
    const write = runHook(root, fixture(root, 'copilot-cli', 'preToolUse.bash', (p) => ((p.toolName = 'write_bash'), (p.toolArgs = JSON.stringify({ shellId: '1', input: 'pi-plans approve x\n' })))));
    assert.ok(['deny', 'ask'].includes(write.out?.permissionDecision), `Copilot CLI write_bash: ${write.stdout || 'allowed'}`);
    // Codex: write_stdin reaches no hook, so the shell it types into is refused at its start.
    runHook(root, fixture(root, 'codex', 'PreToolUse.mcp', (p) => (p.tool_input = { id: ID })));
    const tty = runHook(root, fixture(root, 'codex', 'PreToolUse.bash', (p) => (p.tool_input = { command: 'bash', tty: true })));
    assert.equal(tty.out?.hookSpecificOutput?.permissionDecision, 'deny', `Codex exec_command with a tty: ${tty.stdout || 'allowed'}`);
  });

  it('the workspace is the one the session was bound in: a cd into a folder with its own .pi/plans, or a worktree, frees nothing', () => {
    bind();
    const sub = path.join(root, 'packages', 'inner');
    fs.mkdirSync(path.join(sub, '.pi', 'plans'), { recursive: true });
    denied(decide(edit(`${sub}/src/x.ts`, (p) => (p.cwd = sub))), 'an edit from a folder with its own .pi/plans');
    const tree = path.join(root, '.claude', 'worktrees', 'w1');
    fs.mkdirSync(path.join(tree, '.pi', 'plans'), { recursive: true });
    denied(decide(edit(`${tree}/src/app.ts`, (p) => (p.cwd = tree))), 'an edit in a worktree of its own');
  });

  it('an edit through a link into .pi/ is an edit of .pi/, even while the plan executes', async () => {
    bind();
    await approveAndStart();
    fs.symlinkSync('../.pi/plans', path.join(root, 'src', 'p'));
    const d = decide(edit(`${root}/src/p/${ID}.md`));
    denied(d, 'an edit of src/p/PLAN.md, src/p -> ../.pi/plans');
    assert.match(d.reason, /plan folder \(\.pi\/\)/);
  });

  it('approve in the spellings a shell reads as approve is denied; those it cannot read are asked; never allowed', () => {
    bind();
    const bin = path.join(root, 'bin');
    fs.mkdirSync(path.join(bin, 'dist'), { recursive: true });
    for (const c of [`pi-p'la'ns approve ${ID}`, `pi\\-plans approve ${ID}`, `cd ${path.dirname(BIN)} && node cli.js approve ${ID}`, `alias p='pi-plans approve'; p ${ID}`, `command pi-plans approve ${ID}`, `env -i pi-plans approve ${ID}`]) {
      denied(decide(bash(c)), c);
    }
    for (const c of [`p=pi-plans; $p approve ${ID}`, `pi-pl?ns approve ${ID}`, `echo ${Buffer.from(`pi-plans approve ${ID}`).toString('base64')} | base64 -d | sh`, `eval "$(echo pi-plans approve ${ID})"`]) {
      notAllowed(decide(bash(c)), c);
    }
  });

  it("while executing, a command that reaches .pi/ in any spelling is the person's to allow", async () => {
    bind();
    await approveAndStart();
    assert.equal(decide(bash('npm test')).decision, undefined, 'an ordinary command runs');
    for (const c of ['cd .pi&&rm -rf plans', 'rm .p?/plans/*', 'rm -rf $(printf .pi)', 'find . -name "PLAN-*" -delete']) notAllowed(decide(bash(c)), c);
  });

  it('the agent cannot make the hook fail open: a FIFO or a flood of brackets for settings, a file where its records go', async () => {
    bind();
    await approveAndStart();
    fs.mkdirSync(path.join(root, '.vscode'));
    const settings = path.join(root, '.vscode', 'settings.json');
    assert.equal(spawnSync('mkfifo', [settings]).status, 0);
    const t = Date.now();
    const fifo = decide(edit(`${root}/src/app.ts`));
    assert.ok(Date.now() - t < 10_000, 'no hang on the FIFO');
    denied(fifo, 'a FIFO as .vscode/settings.json');
    fs.rmSync(settings);
    fs.writeFileSync(settings, '['.repeat(5000));
    denied(decide(edit(`${root}/src/app.ts`)), '5,000 [ as .vscode/settings.json');
    fs.rmSync(settings);
    // The old place of the call records, and the new one: a plain file there neither allows nor hangs.
    fs.mkdirSync(path.join(root, '.pi', 'plans', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(root, '.pi', 'plans', 'hooks', 'calls'), 'x');
    fs.rmSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'hook-calls'), { recursive: true, force: true });
    fs.writeFileSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'hook-calls'), 'x');
    assert.equal(decide(edit(`${root}/src/new.ts`)).decision, 'ask', 'a non-target edit is still judged (asked)');
  });

  it('the workspace cannot relax the policy: planningTerminal "allow" in .vscode/settings.json is not taken', () => {
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(path.join(root, '.vscode', 'settings.json'), '{ "piPlans.hooks.planningTerminal": "allow", "piPlans.hooks.otherFiles": "allow" }');
    bind();
    assert.equal(decide(bash('npm test')).decision, 'ask');
  });

  it('unbinding is not one call away: a forged SessionEnd, setup --remove, hook release in the agent\'s shell, a resumed session', () => {
    bind();
    const end = spawnSync(process.execPath, [BIN, 'hook', '--agent', 'claude'], { input: JSON.stringify(claude('SessionEnd')), cwd: root, encoding: 'utf8' });
    assert.equal(end.status, 0);
    denied(decide(edit(`${root}/src/app.ts`)), 'an edit after a forged SessionEnd');
    denied(decide(bash(`pi-plans setup --agent claude --remove`)), 'setup --remove');
    denied(decide(bash(`pi-plans hook release 0b9c2f4e`)), 'hook release');
    const release = spawnSync(process.execPath, [BIN, '--root', root, 'hook', 'release', '0b9c2f4e'], { cwd: root, encoding: 'utf8' });
    assert.equal(release.status, 1, 'no terminal: not freed');
    assert.match(release.stderr, /freeing a session from its plan is a person's act/);
    // Claude Code's --resume keeps the session id: SessionStart (source resume) of the same session is still bound.
    const resumed = runHook(root, claude('SessionStart', (p) => (p.source = 'resume')));
    assert.match(resumed.out?.hookSpecificOutput?.additionalContext ?? '', new RegExp(`this session works on ${ID}`));
    denied(decide(edit(`${root}/src/app.ts`)), 'an edit after --resume');
  });

  it('hook state never follows links: a linked records folder prunes nothing outside, a linked .pi/plans/hooks holds no binding', () => {
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-outside-')));
    try {
      const precious = path.join(outside, `${'a'.repeat(40)}.json`);
      fs.writeFileSync(precious, 'mine');
      fs.utimesSync(precious, new Date(0), new Date(0));
      fs.mkdirSync(process.env.PI_PLANS_STATE_DIR!, { recursive: true });
      fs.symlinkSync(outside, path.join(process.env.PI_PLANS_STATE_DIR!, 'hook-calls'));
      fs.symlinkSync(outside, path.join(root, '.pi', 'plans', 'hooks'));
      bind();
      for (let i = 0; i < 40; i++) decide(edit(`${root}/src/app.ts`, (p) => (p.tool_use_id = `toolu_${i}`)));
      assert.equal(fs.readFileSync(precious, 'utf8'), 'mine', 'nothing outside was pruned');
      assert.deepEqual(fs.readdirSync(outside), [path.basename(precious)], 'nothing written through a link');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("Codex's patches: a header with leading blanks (Codex trims it) is an edit; a patch in a shell heredoc is an edit, credited to the session", async () => {
    const codex = (name: string, change: (p: Json) => void) => fixture(root, 'codex', name, change);
    runHook(root, codex('PreToolUse.mcp', (p) => (p.tool_input = { id: ID })));
    const padded = `*** Begin Patch\n   *** Add File: ${root}/src/evil.ts\n+x\n*** End Patch\n`;
    const d1 = runHook(root, codex('PreToolUse.apply_patch', (p) => (p.tool_input = { command: padded })));
    assert.equal(d1.out?.hookSpecificOutput?.permissionDecision, 'deny', `a padded header: ${d1.stdout || 'allowed'}`);
    const heredoc = `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/evil.ts\n+x\n*** End Patch\nEOF`;
    await approveAndStart();
    const d2 = runHook(root, codex('PreToolUse.bash', (p) => ((p.tool_input = { command: heredoc }), (p.cwd = root))));
    assert.equal(d2.out?.hookSpecificOutput?.permissionDecision, 'deny', `a heredoc patch of a non-target: ${d2.stdout || 'allowed'}`);
    assert.match(d2.out?.hookSpecificOutput?.permissionDecisionReason ?? '', /src\/evil\.ts is not a target/);
  });

  it('setup run from a clone (node dist/cli.js setup) writes hooks that run the small bundle (dist/bin.js)', () => {
    const cli = path.join(path.dirname(BIN), 'cli.js');
    const r = spawnSync(process.execPath, [cli, '--root', root, 'setup', '--agent', 'claude', '--no-mcp'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const hooks = JSON.parse(fs.readFileSync(path.join(root, '.claude', 'settings.json'), 'utf8')).hooks as Record<string, { hooks: { command: string }[] }[]>;
    for (const [event, groups] of Object.entries(hooks)) assert.match(groups[0].hooks[0].command, /dist\/bin\.js' hook|dist\/bin\.js hook/, event);
  });
});
