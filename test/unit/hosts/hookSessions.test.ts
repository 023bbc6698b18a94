// Contract tests of `pi-plans hook` (the built command, real plans folder, real store) on what a
// session sees across calls: `hook status` with the store's approval check, Copilot CLI's VS
// Code-compatible payloads told from VS Code's, one call reaching the hook through two hook files,
// the open review comments in the plan's summary, collect mode started from a plan tool call.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPlanText } from '../../../src/core';
import { openNodeStore } from '../../../src/node';
import { approvePlan, editPlanStep, rejectPlan, startPlan, submitPlan } from '../../../src/service';
import { sealedByUser, seenIn } from '../../helpers/approvals';
import { ensureBuilt, freshStatePerTest, fixture, hookCommand, Json, planText, runHook, runHookAsync, tempWorkspace } from '../../helpers/hookContract';

const ID = 'PLAN-0000b00d';

describe('pi-plans hook: sessions across calls (the built command)', function () {
  this.timeout(60_000);
  let root: string;
  freshStatePerTest();
  const planFile = (id = ID) => path.join(root, '.pi', 'plans', `${id}.md`);
  const claude = (name: string, change?: (p: Json) => void) => fixture(root, 'claude', name, change);
  const bindClaude = (id = ID) => assert.equal(runHook(root, claude('PreToolUse.mcp', (p) => (p.tool_input = { id }))).stdout, '');
  const forge = (status: string) => fs.writeFileSync(planFile(), fs.readFileSync(planFile(), 'utf8').replace(/^status: proposed$/m, `status: ${status}`));

  before(ensureBuilt);
  beforeEach(() => {
    root = tempWorkspace();
    fs.writeFileSync(planFile(), planText(ID, 'proposed'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Approves the plan as the person would (their signed record) and starts it through the service. */
  async function approveAndStart(): Promise<void> {
    fs.writeFileSync(planFile(), await sealedByUser(fs.readFileSync(planFile(), 'utf8').replace(/^status: proposed$/m, 'status: approved'), root));
    await startPlan({ store: await openNodeStore(root, { index: false }) }, ID, { actor: 'agent' });
  }

  describe('Copilot CLI\'s VS Code-compatible payloads (PascalCase events, .claude/settings.json read by the CLI) are told from VS Code\'s and answered in the CLI\'s format', () => {
    const cli = (name: string, change?: (p: Json) => void) => fixture(root, 'copilot-cli', name, change);
    // As the CLI runs the hooks of .claude/settings.json, which setup writes with --agent claude.
    const viaClaudeFile = (event: string) => ['--agent', 'claude', '--event', event];

    it('a create binds from its tool_result; an edit is denied at the top level; SessionStart\'s context is at the top level', () => {
      const created = runHook(root, cli('PostToolUse.pascal-compat.mcp', (p) => (p.tool_result.text_result_for_llm = `Created ${ID} (v1).`)), viaClaudeFile('PostToolUse'));
      assert.equal(created.stdout, '', created.stderr);
      const edit = runHook(root, cli('PreToolUse.pascal-compat.edit'), viaClaudeFile('PreToolUse'));
      assert.equal(edit.out?.permissionDecision, 'deny', edit.stdout);
      assert.match(edit.out?.permissionDecisionReason, /PLAN-0000b00d .* is not approved: it is proposed/);
      const start = runHook(root, cli('SessionStart.pascal-compat'), viaClaudeFile('SessionStart'));
      assert.match(start.out?.additionalContext, /this session works on PLAN-0000b00d/, start.stdout);
      const prompt = runHook(root, cli('UserPromptSubmit.pascal-compat'), viaClaudeFile('UserPromptSubmit'));
      assert.match(prompt.out?.additionalContext, /this session works on PLAN-0000b00d/, prompt.stdout);
    });

    it('Stop with open steps: the CLI\'s block is top-level only, VS Code\'s is nested; each is let go the second time', async () => {
      runHook(root, cli('PostToolUse.pascal-compat.mcp', (p) => (p.tool_result.text_result_for_llm = `Created ${ID} (v1).`)));
      const vscode = (name: string) => fixture(root, 'vscode', name);
      runHook(root, fixture(root, 'vscode', 'PreToolUse.mcp', (p) => (p.tool_input = { id: ID })));
      await approveAndStart();
      const cliStop = runHook(root, cli('Stop.pascal-compat'), viaClaudeFile('Stop'));
      assert.equal(cliStop.out?.decision, 'block', cliStop.stdout + cliStop.stderr);
      assert.match(cliStop.out?.reason, /the next is S001/);
      assert.equal(cliStop.out?.hookSpecificOutput, undefined, 'not VS Code\'s nested form');
      const vsStop = runHook(root, vscode('Stop'));
      assert.equal(vsStop.out?.hookSpecificOutput?.decision, 'block', vsStop.stdout);
      const second = cli('Stop.pascal-compat', (p) => (p.timestamp = '2026-10-22T10:31:00.000Z'));
      assert.equal(runHook(root, second, viaClaudeFile('Stop')).out?.decision, undefined, 'the CLI session\'s second attempt goes');
      const binding = JSON.parse(hookCommand(root, 'status', '--json').stdout) as Json;
      assert.deepEqual(binding.sessions.map((b: Json) => b.host).sort(), ['copilot', 'copilot-cli']);
    });
  });

  describe('one call reaching the hook through two hook files (VS Code with chat.useClaudeHooks runs .claude/settings.json beside .github/hooks) is handled once', () => {
    // The two commands setup writes: the shared Copilot file's (no --agent) and Claude Code's.
    const COPILOT_FILE: string[] = [];
    const CLAUDE_FILE = (event: string) => ['--agent', 'claude', '--event', event];
    const vscode = (name: string, change?: (p: Json) => void) => fixture(root, 'vscode', name, change);
    const OTHER = 'PLAN-0000b00e';

    it('collect mode: two processes at once on the same edit record one step, and both deny naming it', async () => {
      fs.writeFileSync(planFile(OTHER), planText(OTHER, 'draft'));
      const session = vscode('PreToolUse.create_file').session_id as string;
      assert.equal(hookCommand(root, 'collect', OTHER, '--session', session, '--agent', 'copilot').code, 0);
      const edit = vscode('PreToolUse.create_file');
      const [a, b] = await Promise.all([runHookAsync(root, edit, COPILOT_FILE), runHookAsync(root, edit, CLAUDE_FILE('PreToolUse'))]);
      for (const r of [a, b]) {
        assert.equal(r.out?.hookSpecificOutput?.permissionDecision, 'deny', r.stdout + r.stderr);
        assert.match(r.out?.hookSpecificOutput?.permissionDecisionReason, /recorded as S004 of PLAN-0000b00e/);
      }
      const text = fs.readFileSync(planFile(OTHER), 'utf8');
      assert.match(text, /^4\. \[ \] S004 Edit src\/new-module\.ts/m);
      assert.doesNotMatch(text, /S005/, 'one step, not two');
      // The next call (another id) is recorded as the next step.
      const next = runHook(root, vscode('PreToolUse.run_in_terminal'));
      assert.match(next.out?.hookSpecificOutput?.permissionDecisionReason, /recorded as S005/);
    });

    it('Stop: the same payload twice (at once, then again) is one attempt: both blocked, the plan not marked stalled; the next Stop goes', async () => {
      runHook(root, vscode('PreToolUse.mcp', (p) => (p.tool_input = { id: ID })));
      await approveAndStart();
      const stop = vscode('Stop');
      const [a, b] = await Promise.all([runHookAsync(root, stop, COPILOT_FILE), runHookAsync(root, stop, CLAUDE_FILE('Stop'))]);
      const again = runHook(root, stop, CLAUDE_FILE('Stop'));
      for (const r of [a, b, again]) assert.equal(r.out?.hookSpecificOutput?.decision, 'block', r.stdout + r.stderr);
      assert.match(fs.readFileSync(planFile(), 'utf8'), /^status: executing$/m, 'one attempt counted: not stalled');
      const later = runHook(root, vscode('Stop', (p) => (p.timestamp = new Date(Date.parse(p.timestamp) + 5000).toISOString())));
      assert.equal(later.out?.hookSpecificOutput?.decision, undefined, later.stdout);
      assert.match(fs.readFileSync(planFile(), 'utf8'), /^status: stalled$/m);
      const calls = fs.readdirSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'hook-calls'));
      assert.ok(calls.every((f) => /^[0-9a-f]{40}\.(claim|json)$/.test(f)), calls.join(', '));
    });
  });

  describe('the plan\'s summary (SessionStart, UserPromptSubmit) counts the open review comments', () => {
    const contextOf = (r: { out?: Json }) => r.out?.hookSpecificOutput?.additionalContext as string;

    it('a rejection\'s comments while the plan is revised (read from the body), an approval\'s suggestions while it runs (counted by the store\'s check, then cached)', async () => {
      bindClaude();
      const place = { store: await openNodeStore(root, { index: false }) };
      assert.doesNotMatch(contextOf(runHook(root, claude('SessionStart'))), /open review comment/);
      await rejectPlan(place, ID, { actor: 'user', feedback: 'Not yet.', seenVersion: 1, comments: [{ anchor: 'S001', body: 'Which variable?' }, { anchor: 'S002', body: 'Where?' }] });
      const rejected = contextOf(runHook(root, claude('UserPromptSubmit')));
      assert.match(rejected, /PLAN-0000b00d .*, rejected, v2, .* 2 open review comments: read them with pi_plan_get\.$/);
      await editPlanStep(place, ID, { op: 'update', id: 'S001', text: 'Read PORT into config.port' }, { actor: 'agent' });
      await submitPlan(place, ID, { actor: 'agent' });
      assert.doesNotMatch(contextOf(runHook(root, claude('SessionStart'))), /open review comment/, 'submitted again: the rejection is answered');
      await approvePlan(place, ID, { actor: 'user', seen: await seenIn(place.store, ID), comments: [{ anchor: 'S001', body: 'Default to 3000.' }] });
      await startPlan(place, ID, { actor: 'agent' });
      const first = runHook(root, claude('SessionStart'), [], { PI_PLANS_HOOK_TRACE: '1' });
      assert.match(contextOf(first), /executing, v\d+, .* 1 open review comment: read them with pi_plan_get\.$/, first.stderr);
      const cached = runHook(root, claude('UserPromptSubmit'), [], { PI_PLANS_HOOK_TRACE: '1' });
      assert.match(cached.stderr, /approval verdict from the cache: valid/);
      assert.match(contextOf(cached), / 1 open review comment: /);
    });
  });

  describe('collect mode started from chat: pi_plan_create with collect=true', () => {
    const NEW = 'PLAN-0000c011';
    const created = (host: 'claude' | 'vscode', input: Json) =>
      fixture(root, host, host === 'claude' ? 'PostToolUse.write' : 'PostToolUse', (p) => Object.assign(p, { tool_name: host === 'claude' ? 'mcp__pi-plans__pi_plan_create' : 'pi_plan_create', tool_input: input, tool_response: `Created **${NEW}** (version: 1, draft).` }));

    for (const host of ['claude', 'vscode'] as const) {
      it(`${host}: its PostToolUse binds the session to the new draft in collect mode; each edit is then recorded as a step; pi_plan_submit ends it`, () => {
        fs.writeFileSync(planFile(NEW), createPlanText({ id: NEW, title: 'Collected', goal: 'Plan by trying.', status: 'draft' }, '2026-11-01T00:00:00.000Z'));
        assert.equal(runHook(root, created(host, { title: 'Collected', collect: true })).stdout, '');
        const status = hookCommand(root, 'status');
        assert.match(status.stdout, new RegExp(`^\\S+ session \\S+, idle 0 min, unprotected: ${NEW} \\(draft\\), collecting into ${NEW}\n`), status.stdout);
        const edit = runHook(root, fixture(root, host, host === 'claude' ? 'PreToolUse.edit' : 'PreToolUse.replace_string_in_file'));
        assert.equal(edit.out?.hookSpecificOutput?.permissionDecision, 'deny', edit.stdout + edit.stderr);
        assert.match(edit.out?.hookSpecificOutput?.permissionDecisionReason, new RegExp(`recorded as S001 of ${NEW} .*\\(collect mode\\)`));
        assert.match(fs.readFileSync(planFile(NEW), 'utf8'), /^1\. \[ \] S001 Edit src\/app\.ts/m);
        const submit = fixture(root, host, host === 'claude' ? 'PostToolUse.write' : 'PostToolUse', (p) => Object.assign(p, { tool_name: host === 'claude' ? 'mcp__pi-plans__pi_plan_submit' : 'pi_plan_submit', tool_input: { id: NEW }, tool_response: 'Submitted.' }));
        runHook(root, submit);
        assert.match(hookCommand(root, 'status').stdout, new RegExp(`unprotected: ${NEW} \\(draft\\)\n`), 'collect mode ended with the submission');
      });
    }

    it('a create without collect binds without collect mode (and ends the collect mode of the draft before)', () => {
      fs.writeFileSync(planFile(NEW), planText(NEW, 'draft'));
      runHook(root, created('claude', { title: 'Collected', collect: true }));
      fs.writeFileSync(planFile('PLAN-0000c012'), planText('PLAN-0000c012', 'draft'));
      runHook(root, fixture(root, 'claude', 'PostToolUse.write', (p) => Object.assign(p, { tool_name: 'mcp__pi-plans__pi_plan_create', tool_input: { title: 'Plain' }, tool_response: 'Created **PLAN-0000c012** (version: 1, draft).' })));
      assert.match(hookCommand(root, 'status').stdout, /unprotected: PLAN-0000c011 \(draft\), PLAN-0000c012 \(draft\)\n/, 'both bound, neither collecting');
      const edit = runHook(root, claude('PreToolUse.edit'));
      assert.match(edit.out?.hookSpecificOutput?.permissionDecisionReason, /is not run: PLAN-0000c011 .* is not approved: it is a draft/);
    });
  });

  describe('an approval forged by a file write (the status line changed, no person\'s signed approval)', () => {
    for (const status of ['approved', 'executing']) {
      it(`"${status}": PreToolUse denies the edit as not approved, and hook status says so, never "may edit"`, () => {
        bindClaude();
        forge(status);
        const edit = runHook(root, claude('PreToolUse.edit'));
        assert.equal(edit.out?.hookSpecificOutput?.permissionDecision, 'deny', edit.stdout + edit.stderr);
        assert.match(edit.out?.hookSpecificOutput?.permissionDecisionReason, new RegExp(`says ${status}, but its approval is not valid .*call pi_plan_submit with id ${ID}`));
        const text = hookCommand(root, 'status');
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, new RegExp(`^claude session \\S+, idle 0 min, unprotected: ${ID} \\(${status}, approval not valid\\)\n`));
        assert.match(text.stdout, /may: read and use the plan tools; file edits denied, because PLAN-0000b00d .* says \w+, but its approval is not valid/);
        assert.doesNotMatch(text.stdout, /edit the steps' targets|until pi_plan_execute start/);
        const json = JSON.parse(hookCommand(root, 'status', '--json').stdout) as Json;
        assert.equal(json.sessions[0].plans[0].status, status);
        assert.equal(json.sessions[0].plans[0].approval.state, 'invalid');
      });
    }

    it('a person\'s real approval, then start: hook status says the session may edit the steps\' targets', async () => {
      bindClaude();
      fs.writeFileSync(planFile(), await sealedByUser(fs.readFileSync(planFile(), 'utf8').replace(/^status: proposed$/m, 'status: approved'), root));
      assert.match(hookCommand(root, 'status').stdout, /unprotected: PLAN-0000b00d \(approved\)\n {2}may: read; file edits denied until pi_plan_execute start\n/);
      await startPlan({ store: await openNodeStore(root, { index: false }) }, ID, { actor: 'agent' });
      assert.match(hookCommand(root, 'status').stdout, /unprotected: PLAN-0000b00d \(executing\)\n {2}may: edit the steps' targets; other files: ask/);
    });
  });
});
