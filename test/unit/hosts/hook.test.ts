// Contract tests of `pi-plans hook`: the real built command (node dist/bin.js hook, which runs
// dist/hook.js) on each host's documented payloads (test/fixtures/hooks, with the fixture's
// workspace path replaced by a temporary one), against a real plans folder. The plan is moved
// along its life by the real store and service (a person's signed approval, the test person's keys).
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createHmac, createPrivateKey } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPROVAL_GOVERNS, contentDigest, parsePlan } from '../../../src/core';
import { GOVERNED } from '../../../src/hosts/hook/verdict';
import { openNodeStore } from '../../../src/node';
import { decisionLedgerFile } from '../../../src/node/ports/decisionLedger';
import { protectKey } from '../../../src/node/ports/protectedKey';
import { userStateDir } from '../../../src/node/ports/userFolders';
import { startPlan } from '../../../src/service';
import { sealedByUser } from '../../helpers/approvals';
import { bindingsOnDisk, freshStatePerTest, planText } from '../../helpers/hookContract';
import { FIXTURES } from './hookPayload.test';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'dist', 'bin.js');
const ID = 'PLAN-0000b00d';
const OTHER = 'PLAN-0000b00e';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field
interface Host {
  name: 'claude' | 'copilot' | 'codex' | 'copilot-cli';
  dir: string;
  files: { target: string; other: string; terminal: string; mcp: string; stop: string; start: string; prompt: string; end?: string };
}
const HOSTS: Host[] = [
  { name: 'claude', dir: 'claude', files: { target: 'PreToolUse.edit', other: 'PreToolUse.write', terminal: 'PreToolUse.bash', mcp: 'PreToolUse.mcp', stop: 'Stop', start: 'SessionStart', prompt: 'UserPromptSubmit', end: 'SessionEnd' } },
  { name: 'copilot', dir: 'vscode', files: { target: 'PreToolUse.replace_string_in_file', other: 'PreToolUse.create_file', terminal: 'PreToolUse.run_in_terminal', mcp: 'PreToolUse.mcp', stop: 'Stop', start: 'SessionStart', prompt: 'UserPromptSubmit' } },
  { name: 'codex', dir: 'codex', files: { target: 'PreToolUse.apply_patch#app', other: 'PreToolUse.apply_patch#new', terminal: 'PreToolUse.bash', mcp: 'PreToolUse.mcp', stop: 'Stop', start: 'SessionStart', prompt: 'UserPromptSubmit' } },
  { name: 'copilot-cli', dir: 'copilot-cli', files: { target: 'preToolUse.edit', other: 'preToolUse.create', terminal: 'preToolUse.bash', mcp: 'preToolUse.mcp', stop: 'agentStop', start: 'sessionStart', prompt: 'userPromptSubmitted', end: 'sessionEnd' } },
];

describe('pi-plans hook: contract tests (the built command on each host\'s payloads)', function () {
  this.timeout(60_000);
  let root: string;
  freshStatePerTest();

  before(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'hook.js')) || !fs.existsSync(BIN)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-hook-')));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(planFile(ID), planText(ID, 'proposed'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const planFile = (id: string) => path.join(root, '.pi', 'plans', `${id}.md`);

  /** A fixture with the workspace moved to this test's folder; `name#app` / `name#new`: Codex's patch cut to one file. */
  function payload(host: Host, name: string, change: (p: Json) => void = () => undefined): Json {
    const [file, part] = name.split('#');
    const p = JSON.parse(fs.readFileSync(path.join(FIXTURES, host.dir, `${file}.json`), 'utf8').replaceAll('/home/dev/proj', root)) as Json;
    if (part === 'app') p.tool_input.command = `*** Begin Patch\n*** Update File: ${root}/src/app.ts\n@@\n-a\n+b\n*** End Patch\n`;
    if (part === 'new') p.tool_input.command = `*** Begin Patch\n*** Add File: ${root}/src/new-module.ts\n+x\n*** End Patch\n`;
    change(p);
    return p;
  }

  let calls = 0;
  /** A payload as a new call: hosts give each call its own id and time (the same ones twice are one call reaching the hook twice, handled once: see hookSessions.test.ts). */
  function newCall(p: Json): Json {
    const n = ++calls;
    const q: Json = { ...p, last_assistant_message: `call ${n}` };
    if (typeof q.tool_use_id === 'string') q.tool_use_id = `${q.tool_use_id}-${n}`;
    if (typeof q.timestamp === 'number') q.timestamp += n;
    if (typeof q.timestamp === 'string') q.timestamp = new Date(Date.parse(q.timestamp) + n).toISOString();
    return q;
  }

  /** Runs the built `pi-plans hook` with a payload (an object, as a new call; or raw text) on stdin. */
  function hook(input: Json | string, args: string[] = [], env: Record<string, string> = {}): { code: number | null; out: Json | undefined; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [BIN, 'hook', ...args], { input: typeof input === 'string' ? input : JSON.stringify(newCall(input)), encoding: 'utf8', cwd: root, env: { ...process.env, CLAUDE_PROJECT_DIR: '', ...env } });
    return { code: r.status, out: r.stdout.trim() ? (JSON.parse(r.stdout) as Json) : undefined, stdout: r.stdout, stderr: r.stderr };
  }

  /** A plan tool call naming `id`, as this host sends it (binds the session). */
  function bind(host: Host, id = ID): void {
    const r = hook(
      payload(host, host.files.mcp, (p) => {
        if (host.name === 'copilot-cli') p.toolArgs = JSON.stringify({ id });
        else p.tool_input = { id };
      }),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', 'a plan tool is always allowed, silently');
  }

  /** The PreToolUse decision and its reason, wherever this host reads them. */
  function decision(host: Host, out: Json | undefined): { decision?: string; reason?: string; context?: string } {
    if (!out) return {};
    const o = host.name === 'copilot-cli' ? out : (out.hookSpecificOutput ?? {});
    return { decision: o.permissionDecision, reason: o.permissionDecisionReason, context: o.additionalContext };
  }

  /** Approves the plan as the person would (their signed record) and starts it through the service. */
  async function approveAndStart(host: Host): Promise<void> {
    fs.writeFileSync(planFile(ID), await sealedByUser(fs.readFileSync(planFile(ID), 'utf8').replace(/^status: proposed$/m, 'status: approved'), root));
    const before = decision(host, hook(payload(host, host.files.target)).out);
    assert.equal(before.decision, 'deny', 'approved, not started: edits denied until start');
    assert.match(before.reason!, /PLAN-0000b00d .* is approved but not started: call pi_plan_execute with op "start" and id PLAN-0000b00d before editing src\/app\.ts/);
    await startPlan({ store: await openNodeStore(root, { index: false }) }, ID, { actor: 'agent' });
    assert.match(fs.readFileSync(planFile(ID), 'utf8'), /^status: executing$/m);
  }

  for (const host of HOSTS) {
    describe(host.name, () => {
      it('an unbound session is never restricted: edits, commands and Stop get an empty allow', () => {
        for (const name of [host.files.target, host.files.other, host.files.terminal, host.files.stop, host.files.start]) {
          const r = hook(payload(host, name));
          assert.equal(r.code, 0);
          assert.equal(r.stdout, '', `${name}: ${r.stdout}`);
        }
        assert.deepEqual(bindingsOnDisk(), [], 'nothing is bound');
      });

      it('while the plan is proposed: an edit is denied, naming the plan and the next call; a command asks (deny on Codex); reads and plan tools pass', () => {
        bind(host);
        const edit = hook(payload(host, host.files.target));
        assert.equal(edit.code, 0);
        const d = decision(host, edit.out);
        assert.equal(d.decision, 'deny');
        assert.match(d.reason!, new RegExp(`${ID} "Read the port from the environment" is not approved: it is proposed \\(v1\\)`));
        assert.match(d.reason!, /pi_plan_get with id PLAN-0000b00d/);
        const cmd = decision(host, hook(payload(host, host.files.terminal)).out);
        assert.equal(cmd.decision, host.name === 'codex' ? 'deny' : 'ask');
        if (host.name === 'codex') assert.match(cmd.reason!, /Codex hooks cannot ask the person, so it is not run: if it should run, ask the person to run it in their own terminal$/);
        // How the host shows a denial: Claude Code as a "hook error", so the reason says first it is the plan;
        // Codex adds ". Command: …" after it, so the reason leaves its last full stop to Codex (no "..").
        const lead = host.name === 'claude' || host.name === 'codex' ? 'Blocked by the plan, not an error. pi-plans: ' : 'pi-plans: ';
        for (const r of [d.reason!, ...(cmd.decision === 'deny' ? [cmd.reason!] : [])]) {
          assert.ok(r.startsWith(lead), `${host.name}: ${r}`);
          if (host.name === 'codex') assert.match(r, /[^.]$/, `Codex ends the sentence itself: ${r}`);
          else assert.match(r, /[^.]\.$/, `one full stop: ${r}`);
          assert.doesNotMatch(r, /\.\./, r);
        }
        if (cmd.decision === 'ask') assert.ok(cmd.reason!.startsWith('pi-plans: '), `an ask is a question for the person, not a denial: ${cmd.reason}`);
        bind(host); // a plan tool again: allowed, silently
      });

      it('after approve and start: an edit to a step target is allowed (with a reminder to mark the step), another file asks', async () => {
        bind(host);
        await approveAndStart(host);
        const target = hook(payload(host, host.files.target));
        assert.equal(target.code, 0);
        const t = decision(host, target.out);
        assert.equal(t.decision, undefined, 'no decision: the host\'s own flow goes on');
        assert.match(t.context ?? '', /no step in progress: call pi_plan_execute with op "mark", id PLAN-0000b00d, step S001/);
        const other = decision(host, hook(payload(host, host.files.other)).out);
        assert.equal(other.decision, host.name === 'codex' ? 'deny' : 'ask');
        assert.match(other.reason!, /src\/new-module\.ts is not a target of PLAN-0000b00d .*S001 src\/app\.ts, S002 docs\//);
      });

      it('a status written by hand (executing, no signed approval): an edit to a step target is denied as "approval is not valid" with the call to make; a command asks; Stop is not blocked', () => {
        bind(host);
        fs.writeFileSync(planFile(ID), fs.readFileSync(planFile(ID), 'utf8').replace(/^status: proposed$/m, 'status: executing'));
        const edit = hook(payload(host, host.files.target));
        assert.equal(edit.code, 0);
        const d = decision(host, edit.out);
        assert.equal(d.decision, 'deny', edit.stdout + edit.stderr);
        const [lead, end] = host.name === 'claude' ? ['Blocked by the plan, not an error\\. ', '\\.'] : host.name === 'codex' ? ['Blocked by the plan, not an error\\. ', ''] : ['', '\\.'];
        assert.match(d.reason!, new RegExp(`^${lead}pi-plans: .* is not run: PLAN-0000b00d "Read the port from the environment" is not approved: PLAN-0000b00d "Read the port from the environment" says executing, but its approval is not valid \\(it is executing but carries no approval record: the status was written by a file edit, not by a person's approval\\): call pi_plan_submit with id PLAN-0000b00d so the person reviews it, and wait for their approval${end}$`));
        const cmd = decision(host, hook(payload(host, host.files.terminal)).out);
        assert.equal(cmd.decision, host.name === 'codex' ? 'deny' : 'ask');
        assert.match(cmd.reason!, /its approval is not valid/);
        const stop = hook(payload(host, host.files.stop));
        assert.equal(stop.code, 0);
        assert.notEqual((host.name === 'copilot' ? stop.out?.hookSpecificOutput : stop.out)?.decision, 'block', 'an unapproved run is not pushed on');
        assert.match(fs.readFileSync(planFile(ID), 'utf8'), /^status: executing$/m, 'and not marked stalled');
      });

      it('Stop with open steps is blocked once with the next step, then let go; the plan is marked stalled', async () => {
        bind(host);
        await approveAndStart(host);
        const first = hook(payload(host, host.files.stop));
        assert.equal(first.code, 0);
        const block = host.name === 'copilot' ? first.out?.hookSpecificOutput : first.out;
        assert.equal(block?.decision, 'block', first.stdout);
        assert.match(block?.reason, /PLAN-0000b00d .* still has open steps; the next is S001 "Read PORT": .*pi_plan_execute with op "mark", id PLAN-0000b00d, step S001, status "done"/);
        const second = hook(payload(host, host.files.stop));
        assert.equal(second.code, 0);
        assert.notEqual((host.name === 'copilot' ? second.out?.hookSpecificOutput : second.out)?.decision, 'block', 'the second attempt goes');
        assert.match(fs.readFileSync(planFile(ID), 'utf8'), /^status: stalled$/m);
      });

      it('while executing, the plan folder changes only through the plan tools: an edit of the plan file is denied, a command naming .pi/ asks, the CLI\'s approve is denied', async () => {
        bind(host);
        await approveAndStart(host);
        const planPath = `${root}/.pi/plans/${ID}.md`;
        const edit = hook(
          payload(host, host.files.target, (p) => {
            if (host.name === 'codex') p.tool_input.command = `*** Begin Patch\n*** Update File: ${planPath}\n@@\n-a\n+b\n*** End Patch\n`;
            else if (host.name === 'copilot-cli') p.toolArgs = { ...(typeof p.toolArgs === 'string' ? JSON.parse(p.toolArgs) : p.toolArgs), path: planPath };
            else if (host.name === 'copilot') p.tool_input.filePath = planPath;
            else p.tool_input.file_path = planPath;
          }),
        );
        const d = decision(host, edit.out);
        assert.equal(d.decision, 'deny', edit.stdout + edit.stderr);
        assert.match(d.reason!, /on \.pi\/plans\/PLAN-0000b00d\.md is not run: it is in the plan folder \(\.pi\/\), which an agent bound to a plan never changes by an edit \(plans change through the plan tools/);
        const rm = hook(
          payload(host, host.files.terminal, (p) => {
            if (host.name === 'copilot-cli') p.toolArgs = { command: 'rm -rf .pi/plans/hooks' };
            else p.tool_input = { ...p.tool_input, command: 'rm -rf .pi/plans/hooks' };
          }),
        );
        const c = decision(host, rm.out);
        assert.equal(c.decision, host.name === 'codex' ? 'deny' : 'ask', rm.stdout + rm.stderr);
        assert.match(c.reason!, /names the plan folder \(\.pi\/\)/);
        // Approving is the person's act: the CLI's approve in the agent's terminal is denied on every host.
        const approve = hook(
          payload(host, host.files.terminal, (p) => {
            const command = `npx pi-plans --root ${root} approve ${OTHER} --digest abc`;
            if (host.name === 'copilot-cli') p.toolArgs = { command };
            else p.tool_input = { ...p.tool_input, command };
          }),
        );
        const a = decision(host, approve.out);
        assert.equal(a.decision, 'deny', approve.stdout + approve.stderr);
        assert.match(a.reason!, /approving a plan is the person's act, never an agent's, whatever the spelling: call pi_plan_submit with id PLAN-0000b00d/);
        // A command that does not name it runs as before while executing.
        assert.equal(decision(host, hook(payload(host, host.files.terminal)).out).decision, undefined);
      });

      it('the context events inject the plan\'s summary (status, version, next step), at most 1,500 characters', () => {
        bind(host);
        for (const name of [host.files.start, host.files.prompt]) {
          const r = hook(payload(host, name));
          assert.equal(r.code, 0);
          const context = host.name === 'copilot-cli' ? r.out?.additionalContext : r.out?.hookSpecificOutput?.additionalContext;
          assert.match(context, /this session works on PLAN-0000b00d "Read the port from the environment", proposed, v1, 0\/3 steps finished/, name);
          assert.ok(context.length <= 1500);
        }
      });
    });
  }

  describe('bindings (in the user\'s state folder, sticky: only a person frees a session)', () => {
    const claude = HOSTS[0];
    it('VS Code\'s plan work mode binds a VS Code session no plan tool call bound, for good: ending the mode (or deleting its file) frees no session; other hosts\' sessions stay free', () => {
      const vscodeHost = HOSTS[1];
      fs.writeFileSync(planFile(OTHER), planText(OTHER, 'draft'));
      const modeFile = path.join(root, '.pi', 'plans', 'hooks', 'work-mode.json');
      fs.mkdirSync(path.dirname(modeFile), { recursive: true });
      fs.writeFileSync(modeFile, JSON.stringify({ plan: ID }));
      const edit = () => decision(vscodeHost, hook(payload(vscodeHost, vscodeHost.files.target)).out);
      assert.equal(edit().decision, 'deny');
      assert.match(edit().reason!, /PLAN-0000b00d .* is not approved/);
      assert.deepEqual(bindingsOnDisk().map((b) => [b.host, b.plans]), [['copilot', [ID]]], 'the mode\'s binding is written');
      assert.equal(hook(payload(claude, claude.files.target)).stdout, '', 'a Claude Code session is not bound by VS Code\'s mode');
      const status = spawnSync(process.execPath, [BIN, 'hook', 'status'], { cwd: root, encoding: 'utf8' });
      assert.match(status.stdout, /VS Code's plan work mode is on PLAN-0000b00d: it binds every VS Code agent session no plan tool call has bound/);
      fs.rmSync(modeFile);
      assert.equal(edit().decision, 'deny', 'the mode ended, the session stays bound');
      bind(vscodeHost, OTHER);
      assert.match(edit().reason!, /PLAN-0000b00d .* is not approved/, 'naming another plan adds it; the first still binds');
      assert.deepEqual(bindingsOnDisk()[0].plans, [ID, OTHER]);
    });

    it('naming another plan adds it, never removes one; SessionEnd ends nothing (a resumed session is the same); a day idle ends it', () => {
      fs.writeFileSync(planFile(OTHER), planText(OTHER, 'draft'));
      bind(claude);
      bind(claude, OTHER);
      assert.match(decision(claude, hook(payload(claude, claude.files.target)).out).reason!, /PLAN-0000b00d .* it is proposed/);
      hook(payload(claude, claude.files.end!));
      assert.equal(decision(claude, hook(payload(claude, claude.files.target)).out).decision, 'deny', 'still bound after SessionEnd');
      const [b] = bindingsOnDisk();
      assert.deepEqual(b.plans, [ID, OTHER]);
      assert.equal(b.root, root);
      const dir = path.join(process.env.PI_PLANS_STATE_DIR!, 'sessions');
      const [file] = fs.readdirSync(dir);
      fs.writeFileSync(path.join(dir, file), JSON.stringify({ ...b, seenAt: new Date(Date.now() - 25 * 3600_000).toISOString() }));
      assert.equal(hook(payload(claude, claude.files.target)).stdout, '', 'idle over a day: unbound');
      assert.deepEqual(bindingsOnDisk(), [], 'and the expired binding is removed');
    });

    it('a pi_plan_create binds from its result after the fact; a hostile session id becomes a hashed file name in the state folder', () => {
      const session = '../../../../etc/passwd\u0000' + 'x'.repeat(5000);
      hook(payload(claude, 'PostToolUse.write', (p) => Object.assign(p, { session_id: session, tool_name: 'mcp__pi-plans__pi_plan_create', tool_input: { title: 't' }, tool_response: `Created **${ID}** (v1).` })));
      const files = fs.readdirSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'sessions'));
      assert.deepEqual(files.map((f) => /^[0-9a-f]{40}\.json$/.test(f)), [true]);
      assert.equal(decision(claude, hook(payload(claude, claude.files.target, (p) => (p.session_id = session))).out).decision, 'deny');
    });

    it('hook status lists the bound sessions, their plans, what each may do now and how it is kept to them: unprotected, hooks only, sealed', () => {
      bind(claude);
      // The person's home and PATH as the status command sees them: no host files but the workspace's;
      // the seal's two programs stand on the PATH (setup checks only that they are there).
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-home-'));
      const bin = path.join(home, 'bin');
      fs.mkdirSync(bin);
      for (const p of ['bwrap', 'socat']) fs.writeFileSync(path.join(bin, p), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const env = { ...process.env, HOME: home, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
      const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, '--root', root, ...args], { encoding: 'utf8', env });
      try {
        const line = (protection: string) => new RegExp(`^claude session 0b9c2f4e-6a1d-4e8b-9f3a-2c7d5e1a8b40, idle 0 min, ${protection}: PLAN-0000b00d \\(proposed\\)\n {2}may: read and use the plan tools; file edits denied; terminal commands: ask\n`);
        let r = cli('hook', 'status');
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, line('unprotected'), 'no hook of ours in any Claude Code file: nothing checks its calls');
        assert.match(r.stdout, /unprotected: no hook of Pi Plans' is set up for this host/);
        assert.match(r.stdout, /The approval key is not protected: .*pi-plans key --protect\n$/);
        assert.equal(cli('setup', '--agent', 'claude').status, 0);
        r = cli('hook', 'status');
        assert.match(r.stdout, line('hooks only'));
        assert.match(r.stdout, /hooks only: the hook checks each call; an agent with a shell may find a way past it/);
        assert.equal(JSON.parse(cli('hook', 'status', '--json').stdout).sessions[0].protection, 'hooks only');
        const sealed = cli('setup', '--agent', 'claude', '--seal');
        assert.equal(sealed.status, 0, sealed.stderr);
        r = cli('hook', 'status');
        assert.match(r.stdout, line('sealed'));
        assert.match(r.stdout, /sealed: the host's sandbox keeps the agent from the approval key/);
        // A seal that no longer names every path (one deny taken out by hand) is not a seal.
        const local = path.join(root, '.claude', 'settings.local.json');
        const settings = JSON.parse(fs.readFileSync(local, 'utf8'));
        settings.sandbox.filesystem.denyRead = settings.sandbox.filesystem.denyRead.slice(1);
        fs.writeFileSync(local, JSON.stringify(settings));
        assert.match(cli('hook', 'status').stdout, line('hooks only'), 'a seal with a hole in it');
        settings.sandbox.filesystem.denyRead = [];
        fs.writeFileSync(local, JSON.stringify({ ...settings, sandbox: { ...settings.sandbox } }));
        assert.equal(cli('setup', '--agent', 'claude', '--seal').status, 0);
        assert.match(cli('hook', 'status').stdout, line('sealed'), 'sealed again');
        // Without its programs the sandbox cannot start: not sealed, whatever the file says.
        const noBin = spawnSync(process.execPath, [BIN, '--root', root, 'hook', 'status'], { encoding: 'utf8', env: { ...env, PATH: path.join(home, 'nothing') } });
        assert.match(noBin.stdout, line('hooks only'), noBin.stderr);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    });

    it('the settings: the user\'s own (config.json "hooks") decide; the workspace\'s .vscode/settings.json (JSONC) makes them stricter, never looser', async () => {
      fs.mkdirSync(path.join(root, '.vscode'));
      fs.writeFileSync(path.join(root, '.vscode', 'settings.json'), '{\n  // planning: no commands\n  "piPlans.hooks.planningTerminal": "deny",\n  /* executing */ "piPlans.hooks.otherFiles": "allow",\n}\n');
      bind(claude);
      assert.equal(decision(claude, hook(payload(claude, claude.files.terminal)).out).decision, 'deny', 'stricter: taken');
      await approveAndStart(claude);
      assert.equal(decision(claude, hook(payload(claude, claude.files.other)).out).decision, 'ask', 'looser: not taken');
      const config = path.join(process.env.XDG_CONFIG_HOME!, 'pi-plans', 'config.json');
      const before = fs.readFileSync(config, 'utf8');
      try {
        fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(before), hooks: { otherFiles: 'allow' } }));
        assert.equal(hook(payload(claude, claude.files.other)).stdout, '', 'the user\'s own allow');
      } finally {
        fs.writeFileSync(config, before);
      }
    });
  });

  describe('the approval behind the status (the store\'s check with the user\'s keys, its verdict cached outside the workspace)', () => {
    const claude = HOSTS[0];
    const TRACE = { PI_PLANS_HOOK_TRACE: '1' };
    const editTarget = (env: Record<string, string> = TRACE) => hook(payload(claude, claude.files.target), [], env);
    /** The verdict cache's entry for this workspace's plan, in the user's cache folder. */
    const entryFile = (cacheDir = process.env.PI_PLANS_CACHE_DIR!) => path.join(cacheDir, 'hook-verdicts', `${createHash('sha256').update(`${root}\0${ID}`).digest('hex').slice(0, 40)}.json`);
    const sha = () => createHash('sha256').update(fs.readFileSync(planFile(ID))).digest('hex');

    it('checks every status an approval governs (the hook\'s list is core\'s)', () => {
      assert.deepEqual([...GOVERNED].sort(), [...APPROVAL_GOVERNS].sort());
    });

    it('after approve and start, a hand edit to a step\'s text denies edits as changed since approval; a recomputed digest as not valid', async () => {
      bind(claude);
      await approveAndStart(claude);
      assert.equal(decision(claude, editTarget().out).decision, undefined, 'approved and started: allowed');
      fs.writeFileSync(planFile(ID), fs.readFileSync(planFile(ID), 'utf8').replace('Read PORT', 'Read PORT and drop the production database'));
      const changed = decision(claude, editTarget().out);
      assert.equal(changed.decision, 'deny');
      assert.match(changed.reason!, /PLAN-0000b00d "Read the port from the environment" says executing, but its text changed since approval \(Test Person approved v1\): call pi_plan_submit with id PLAN-0000b00d so the person reviews the current text, and wait for their approval\.$/);
      const text = fs.readFileSync(planFile(ID), 'utf8');
      fs.writeFileSync(planFile(ID), text.replace(/^approved_hash: .*$/m, `approved_hash: ${contentDigest(parsePlan(text))}`));
      const forged = decision(claude, editTarget().out);
      assert.equal(forged.decision, 'deny');
      assert.match(forged.reason!, /its approval is not valid \(its approval record does not verify: it was edited, copied from another plan or forged\): call pi_plan_submit with id PLAN-0000b00d/);
    });

    it('the verdict is cached by the file\'s SHA-256: a second call on an unchanged file does not load the store; a forged entry (outside or inside the workspace) is not read', async () => {
      bind(claude);
      await approveAndStart(claude);
      const first = editTarget();
      assert.match(first.stderr, /loading dist\/cli\.js/);
      assert.match(first.stderr, /PLAN-0000b00d executing: approval checked by the store in \d+ ms: valid/);
      const second = editTarget();
      assert.equal(decision(claude, second.out).decision, undefined);
      assert.doesNotMatch(second.stderr, /loading dist\/cli\.js|checked by the store/, 'no store on a cache hit');
      assert.match(second.stderr, /PLAN-0000b00d executing: approval verdict from the cache: valid/);
      const entry = JSON.parse(fs.readFileSync(entryFile(), 'utf8'));
      assert.equal(entry.sha, sha());
      assert.equal(entry.state, 'valid');

      // The agent changes a step and rewrites the entry for its new bytes (it cannot make the HMAC).
      fs.writeFileSync(planFile(ID), fs.readFileSync(planFile(ID), 'utf8').replace('Read PORT', 'Read PORT and drop the production database'));
      fs.writeFileSync(entryFile(), JSON.stringify({ ...entry, sha: sha() }));
      const forged = editTarget();
      assert.equal(decision(claude, forged.out).decision, 'deny', forged.stderr);
      assert.match(forged.stderr, /approval checked by the store in \d+ ms: changed/);

      // A cache folder inside the workspace is never used: a valid-looking entry there is not read, nothing is written there.
      const inside = path.join(root, '.pi', 'cache');
      fs.mkdirSync(path.join(inside, 'hook-verdicts'), { recursive: true });
      fs.writeFileSync(entryFile(inside), JSON.stringify({ ...entry, sha: sha() }));
      const there = editTarget({ ...TRACE, PI_PLANS_CACHE_DIR: inside });
      assert.equal(decision(claude, there.out).decision, 'deny');
      assert.match(there.stderr, /no verdict cache: the cache folder \(.*\) is inside the workspace/);
      assert.match(there.stderr, /approval checked by the store in \d+ ms: changed/);
      assert.deepEqual(fs.readdirSync(path.join(inside, 'hook-verdicts')), [path.basename(entryFile(inside))]);
    });

    it('with a protected key (a file an agent can read), a kept "valid" is never read back: an entry forged from the key file\'s bytes, as the hook makes one, changes nothing', async () => {
      bind(claude);
      await approveAndStart(claude);
      // The person protects their key (the approval's signature stays good: same public key).
      const configDir = path.join(process.env.XDG_CONFIG_HOME!, 'pi-plans');
      const keyFile = path.join(configDir, 'approval-key.pem');
      const plain = fs.readFileSync(keyFile, 'utf8');
      fs.writeFileSync(keyFile, protectKey(createPrivateKey(plain), 'correct horse'));
      try {
        await protectedKeyKeepsNoValid(configDir, keyFile);
      } finally {
        fs.writeFileSync(keyFile, plain);
      }
    });

    async function protectedKeyKeepsNoValid(configDir: string, keyFile: string): Promise<void> {
      fs.rmSync(entryFile(), { force: true });
      const first = editTarget();
      assert.equal(decision(claude, first.out).decision, undefined, first.stderr);
      assert.match(first.stderr, /approval checked by the store in \d+ ms: valid/);
      assert.ok(!fs.existsSync(entryFile()), 'no "valid" kept under a protected key');
      const again = editTarget();
      assert.match(again.stderr, /approval checked by the store in \d+ ms: valid/, 'checked again, not read from the cache');
      // The agent edits a step, then forges the entry for its new bytes with everything it can read: the key file, the stamps, this formula.
      fs.writeFileSync(planFile(ID), fs.readFileSync(planFile(ID), 'utf8').replace('Read PORT', 'Read PORT and drop the production database'));
      const stamp = (f: string) => {
        const st = fs.statSync(f, { throwIfNoEntry: false });
        return st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-';
      };
      const keys = [...['approval-key.pem', 'config.json', 'confirmed-approvals.json'].map((f) => path.join(configDir, f)), decisionLedgerFile(root, userStateDir(process.env))].map(stamp).join('|');
      const secret = createHash('sha256').update('pi-plans hook verdict v1\0').update(fs.readFileSync(keyFile)).digest();
      const mac = createHmac('sha256', secret).update(JSON.stringify([fs.realpathSync(root), ID, sha(), keys, 'valid', null, 0])).digest('hex');
      fs.mkdirSync(path.dirname(entryFile()), { recursive: true });
      fs.writeFileSync(entryFile(), JSON.stringify({ v: 1, id: ID, sha: sha(), state: 'valid', openComments: 0, mac }));
      const forged = editTarget();
      assert.equal(decision(claude, forged.out).decision, 'deny', forged.stderr);
      assert.match(forged.stderr, /approval checked by the store in \d+ ms: changed/);
    }

    it('a check that fails (the plan file no longer a plan the store reads) denies, and says why and what the person does', async () => {
      bind(claude);
      await approveAndStart(claude);
      fs.appendFileSync(planFile(ID), Buffer.from([0xff, 0xfe, 0x0a]));
      const d = decision(claude, editTarget({}).out);
      assert.equal(d.decision, 'deny');
      assert.match(d.reason!, /PLAN-0000b00d cannot be read \(the approval of PLAN-0000b00d \(executing\) could not be checked: .*UTF-8.*\), and while it binds this session only reads and the plan tools run: the person fixes the plan file .* or frees this session \(pi-plans hook release /);
    });
  });

  describe('collect mode', () => {
    it('the agent runs pi-plans hook collect on its draft: each edit or command after it is denied and recorded as a step', () => {
      fs.writeFileSync(planFile(OTHER), planText(OTHER, 'draft'));
      const claude = HOSTS[0];
      const run = hook(payload(claude, claude.files.terminal, (p) => (p.tool_input.command = `pi-plans hook collect ${OTHER}`)));
      assert.equal(run.stdout, '', 'the collect command itself runs');
      const cli = spawnSync(process.execPath, [BIN, '--root', root, 'hook', 'collect', OTHER], { encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      const edit = decision(claude, hook(payload(claude, claude.files.target)).out);
      assert.equal(edit.decision, 'deny');
      assert.match(edit.reason!, /recorded as S004 of PLAN-0000b00e .* call pi_plan_submit with id PLAN-0000b00e/);
      assert.match(decision(claude, hook(payload(claude, claude.files.terminal)).out).reason!, /recorded as S005/);
      const text = fs.readFileSync(planFile(OTHER), 'utf8');
      assert.match(text, /^4\. \[ \] S004 Edit src\/app\.ts \(Edit: edit → src\/app\.ts\)$/m);
      assert.match(text, /^5\. \[ \] S005 Run `npm test` \(Bash: run → npm test\)$/m);
    });
  });

  describe('failures: an unbound session is never restricted; a bound one is held to reads and the plan tools, told what a person does', () => {
    const claude = HOSTS[0];
    const denies = (r: ReturnType<typeof hook>, why: RegExp) => {
      assert.equal(r.code, 0);
      const d = decision(claude, r.out);
      assert.equal(d.decision, 'deny', r.stdout + r.stderr);
      assert.match(d.reason!, why);
    };

    it('input that is not JSON, and a payload of no known shape: no session is known, nothing is checked, and it says so', () => {
      for (const r of [hook('{not json', ['--agent', 'claude']), hook({ what: 'ever' }, ['--agent', 'claude', '--event', 'nonsense'])]) {
        assert.equal(r.code, 0);
        assert.ok(!/"deny"|"ask"|"block"/.test(r.stdout), r.stdout);
        assert.match(r.out?.systemMessage ?? '', /nothing was checked/);
      }
      const bare = hook('[1,2]');
      assert.equal(bare.code, 0);
      assert.equal(bare.stdout, '', 'no host known: nothing on stdout');
      assert.match(bare.stderr, /not one it knows/);
    });

    it('a bound plan whose file is missing or broken: edits and commands denied, reads and plan tools run', () => {
      bind(claude);
      fs.writeFileSync(planFile(ID), '---\nid: [unclosed\n---\n');
      denies(hook(payload(claude, claude.files.target)), /PLAN-0000b00d cannot be read \(\.pi\/plans\/PLAN-0000b00d\.md has no readable frontmatter/);
      fs.rmSync(planFile(ID));
      denies(hook(payload(claude, claude.files.terminal)), /PLAN-0000b00d cannot be read \(\.pi\/plans\/PLAN-0000b00d\.md is not there/);
      bind(claude);
    });

    it('the state folder\'s sessions/ is not a folder: no session can be told unbound, so every edit is denied (plan tools still run), naming what to remove; for Copilot CLI too', () => {
      fs.mkdirSync(process.env.PI_PLANS_STATE_DIR!, { recursive: true });
      fs.writeFileSync(path.join(process.env.PI_PLANS_STATE_DIR!, 'sessions'), 'not a folder');
      bind(claude);
      denies(hook(payload(claude, claude.files.target)), /sessions is not a folder, where Pi Plans keeps its own state: a person removes it/);
      const cli = hook(payload(HOSTS[3], HOSTS[3].files.target));
      assert.equal(cli.code, 0);
      assert.equal(cli.out?.permissionDecision, 'deny', cli.stdout);
    });
  });
});
