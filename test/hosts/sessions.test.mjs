// The host's own agent session holds its steps: a step the real host's MCP client claims
// (pi_plan_execute op=start) is claimed as `<host>-<the session id the host gives its hooks>`;
// after the session ends, the person resumes the stalled plan and the resumed session (a new MCP
// server process) marks its own step done, unrefused; with the hooks installed, the session's
// edit is told from a file another process wrote meanwhile on the step's `> Changed:` line.
// Scenario 13 of test/hosts/README.md, in one workspace per host (a git repository, so the steps
// have evidence), two runs: the first session, then its resume.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentTools, approve, captured, HOSTS, makeWorkspace, piPlans, planStatus, planText, readFile, removeWorkspace, resume, runHost } from './hosts.mjs';
import { say, startModelServer } from './modelServer.mjs';

const APP = 'src/app.js';
const OTHER = 'src/other.js';
/** The file another process (this test, as a formatter or a person would) writes while S001 runs: no step names it. */
const NOTES = 'NOTES.md';
const STEPS = [
  { text: 'Change the greeting', tool: 'edit', operation: 'update', target: APP },
  { text: 'Change the other value', tool: 'edit', operation: 'update', target: OTHER },
];

/** A step's lines in the plan file: its step line and the record lines under it. */
function stepBlock(text, step) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^\\d+\\. \\[[ x]\\] ${step} `).test(l));
  if (at < 0) return '';
  const end = lines.findIndex((l, i) => i > at && !/^\s+>/.test(l));
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

/** A step's record line of a kind (`Claimed`, `Changed`), its text. */
const recordOf = (block, kind) => new RegExp(`^\\s+> ${kind}: (.*)$`, 'm').exec(block)?.[1];

/** The session id a hook payload carries (Claude Code and Codex: session_id; Copilot CLI: sessionId). */
const sessionIn = (p) => p.session_id ?? p.sessionId;
const toolIn = (p) => p.tool_name ?? p.toolName;
const inputIn = (p) => p.tool_input ?? p.toolArgs;

/** The session id the hooks were given with the (first) pi_plan_execute call whose input `match` accepts (PreToolUse payloads, as captured). */
function sessionOfCall(ws, match) {
  const p = captured(ws, HOSTS[ws.host].events.pre)
    .map((x) => x.payload)
    .find((q) => /pi_plan_execute$/.test(toolIn(q) ?? '') && match(inputIn(q) ?? {}));
  return p && sessionIn(p);
}

/** How each host resumes a session (hosts.mjs `runHost(…, { resume })`). */
const RESUME = { claude: 'claude -p --resume <id>', codex: 'codex exec resume <id>', copilot: 'copilot --resume=<id>' };

for (const host of Object.keys(HOSTS)) {
  const agent = HOSTS[host].agent;
  describe(`${HOSTS[host].title}: the host's own session claims its steps, across --resume`, function () {
    this.timeout(180_000);
    let ws;
    let model;
    let id;
    let first;
    let second;
    /** The plan file right after op=start answered (S001 just handed). */
    let afterStart;
    /** The plan file just before the resumed session's first call. */
    let beforeResume;
    /** What the first run's model was told, by call. */
    let startResult;
    let doneResult;
    let resumedDone;
    let hookSession;
    let hookStatus;
    let statusAfterFirst;
    let resumedHookSession;

    before(async () => {
      ws = makeWorkspace(host, { capture: true });
      model = await startModelServer();
      const t = agentTools(ws);
      const plan = () => model.created();
      const editApp = t.edit(APP, 'export const greeting = "hello";', 'export const greeting = "bye";');
      const editOther = t.edit(OTHER, 'export const other = 1;', 'export const other = 2;');
      model.play([
        t.load?.(),
        t.mcp('pi_plan_create', { title: 'Change the greeting', goal: 'Say bye, and count to two', steps: STEPS, propose: true }),
        () => {
          approve(ws, plan());
          return t.mcp('pi_plan_execute', { id: plan(), op: 'start' });
        },
        // (The plan file as op=start left it, read before the host's next request is answered.)
        () => ((afterStart = planText(ws, plan())), t.read?.(APP) ?? editApp),
        t.read ? editApp : undefined,
        () => {
          // Another process writes a file while S001 is in progress: not the session's.
          fs.writeFileSync(path.join(ws.dir, NOTES), 'Notes a person keeps.\n');
          return t.mcp('pi_plan_execute', { id: plan(), op: 'mark', step: 'S001', status: 'done' });
        },
        // S002 is the session's now; it ends its turn: blocked once, then let go (the plan is marked stalled).
        say('first end'),
        say('second end'),
      ]);
      first = await runHost(ws, model, 'Change the greeting');
      id = plan();
      startResult = model.resultsOf((c) => /pi_plan_execute$/.test(c.name) && c.input.op === 'start')[0]?.text;
      doneResult = model.resultsOf((c) => /pi_plan_execute$/.test(c.name) && c.input.step === 'S001')[0]?.text;
      hookSession = sessionOfCall(ws, (input) => input.op === 'start');
      hookStatus = JSON.parse(piPlans(ws, 'hook', 'status', '--json'));

      // The person resumes the plan the stopped session left stalled; the session is resumed.
      statusAfterFirst = planStatus(ws, id);
      if (statusAfterFirst === 'stalled') resume(ws, id);
      model.play([
        () => ((beforeResume = planText(ws, id)), t.read?.(OTHER) ?? editOther),
        t.read ? editOther : undefined,
        t.mcp('pi_plan_execute', { id, op: 'mark', step: 'S002', status: 'done' }),
        say('all done'),
      ]);
      second = await runHost(ws, model, 'Go on with the plan', { resume: first.session });
      resumedDone = model.resultsOf((c) => /pi_plan_execute$/.test(c.name) && c.input.step === 'S002')[0]?.text;
      resumedHookSession = sessionOfCall(ws, (input) => input.step === 'S002');
    });
    after(async () => {
      await model?.close();
      removeWorkspace(ws);
    });

    it(`op=start through the host's MCP client claims S001 as ${agent}-<the session id its hooks are given>`, () => {
      assert.equal(first.code, 0, first.stderr);
      assert.ok(hookSession, 'the hook was given the session id with the pi_plan_execute call');
      assert.deepEqual(
        hookStatus.sessions.map((s) => `${s.host} ${s.session}`),
        [`${agent} ${hookSession}`],
        'pi-plans hook status: the one session bound is the one the hooks were given',
      );
      const mine = `${agent}-${hookSession}`;
      assert.match(startResult ?? '', new RegExp(`S001 is yours now \\(claimed for ${mine}, in progress\\)`));
      assert.match(recordOf(stepBlock(afterStart, 'S001'), 'Claimed') ?? '', new RegExp(`^${mine} at \\d{4}-`));
      assert.match(stepBlock(afterStart, 'S001'), /^\d+\. \[ \] S001 \*in progress\* /);
    });

    it('marking its step done hands the session the next one, claimed as the same session', () => {
      const mine = `${agent}-${hookSession}`;
      assert.match(doneResult ?? '', new RegExp(`S002 is yours now \\(claimed for ${mine}, in progress\\)`));
      assert.match(recordOf(stepBlock(beforeResume, 'S002'), 'Claimed') ?? '', new RegExp(`^${mine} at `));
    });

    it(`hooks installed: the session's edit of S001's target is its own, and ${NOTES}, which another process wrote meanwhile, is "not by the session" on S001's > Changed: line`, () => {
      assert.equal(readFile(ws, APP), 'export const greeting = "bye";\n');
      const changed = recordOf(stepBlock(planText(ws, id), 'S001'), 'Changed') ?? '';
      assert.match(changed, /src\/app\.js \(\+1 −1\)/, changed);
      assert.match(changed, new RegExp(`${NOTES.replace('.', '\\.')} \\(new, \\+1 −0\\)`), changed);
      assert.match(changed, new RegExp(` · not by the session: ${NOTES.replace('.', '\\.')}$`), changed);
      assert.match(doneResult ?? '', new RegExp(`not by the session: ${NOTES.replace('.', '\\.')}`));
    });

    it(`resumed (${RESUME[host]}: a new MCP server process), after the person resumed the plan the session left stalled, the session marks its own step S002 done with no refusal, and the plan completes`, () => {
      assert.equal(statusAfterFirst, 'stalled', 'the first session ended its turn twice with S002 open');
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.session, first.session, 'the same session');
      assert.equal(resumedHookSession, hookSession, 'the hooks are given the same session id after the resume');
      assert.doesNotMatch(resumedDone ?? '', /claimed by|not run/i, resumedDone);
      assert.match(resumedDone ?? '', /S002 is done; every step is done, so the plan is completed/, resumedDone);
      assert.equal(planStatus(ws, id), 'completed');
      const s002 = stepBlock(planText(ws, id), 'S002');
      assert.match(s002, /^\d+\. \[x\] S002 /);
      assert.match(recordOf(s002, 'Claimed') ?? '', new RegExp(`^${agent}-${hookSession} at `), 'its claim, made in the first run, is kept as the record of who did it');
      // Only the resumed session's edit changed a file while S002 ran.
      assert.match(recordOf(s002, 'Changed') ?? '', /^src\/other\.js \(\+1 −1\) · 1 file \+1 −1 · tree [0-9a-f]+\.\.[0-9a-f]+$/);
    });
  });
}
