// What each host does around its hooks, measured on the real host in a session no plan binds:
// the payloads it sends (kept as fixtures with PI_PLANS_SAVE_FIXTURES=1), where it runs a hook,
// and what it makes of a hook that exits 1 or 2, prints garbage, asks, or outlives its timeout.
// These are the facts test/hosts/README.md states; a host upgrade that changes one fails here.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { addPreToolHook, agentTools, captured, HOSTS, makeWorkspace, removeWorkspace, ROOT, runHost } from './hosts.mjs';
import { inputHas, say, startModelServer, toolNames } from './modelServer.mjs';

/** Seconds a probe hook may run; the slow probe sleeps longer. */
const PROBE_TIMEOUT = 2;

/** A PreToolUse hook that acts on the command it is shown: `probe-<kind>` in it picks what the hook does. */
function probeScript(ws) {
  const ask = ws.host === 'copilot' ? '{"permissionDecision":"ask","permissionDecisionReason":"probe asks"}' : '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"probe asks"}}';
  const file = path.join(ws.tmp, 'probe.sh');
  fs.writeFileSync(
    file,
    [
      'p=$(cat)',
      'case "$p" in',
      '  *probe-exit1*) echo "probe exits 1" >&2; exit 1;;',
      '  *probe-exit2*) echo "probe exits 2" >&2; exit 2;;',
      '  *probe-garbage*) echo "this is not json {"; exit 0;;',
      `  *probe-ask*) echo '${ask}'; exit 0;;`,
      `  *probe-slow*) sleep ${PROBE_TIMEOUT * 5}; exit 0;;`,
      'esac',
      '',
    ].join('\n'),
  );
  return `sh ${file}`;
}

const PROBES = ['exit1', 'exit2', 'garbage', 'ask', 'slow'];

/** What each host did with each probe, as measured: does the command run, and what the model is told. */
const EXPECTED = {
  claude: { exit1: true, exit2: false, garbage: true, ask: false, slow: true },
  codex: { exit1: true, exit2: false, garbage: true, ask: true, slow: true },
  copilot: { exit1: false, exit2: false, garbage: true, ask: false, slow: true },
};

/** A captured payload with the run's temporary paths replaced by /home/dev/proj (and its home /home/dev). */
function anonymised(ws, payload) {
  const encoded = (p) => p.replace(/[/.]/g, '-');
  let text = JSON.stringify(payload, null, 2);
  for (const [from, to] of [[ws.dir, '/home/dev/proj'], [ws.home, '/home/dev'], [ws.tmp, '/home/dev/tmp'], [encoded(ws.dir), '-home-dev-proj']]) text = text.split(from).join(to);
  return `${text}\n`;
}

/** One payload per event and tool, written to test/fixtures/hooks/real/<claude, codex, copilot-cli>/ (PI_PLANS_SAVE_FIXTURES=1). */
function saveFixtures(ws) {
  const dir = path.join(ROOT, 'test', 'fixtures', 'hooks', 'real', HOSTS[ws.host].agent);
  fs.mkdirSync(dir, { recursive: true });
  for (const file of fs.readdirSync(ws.captured).filter((f) => f.endsWith('.jsonl'))) {
    const event = file.slice(0, -'.jsonl'.length);
    for (const { payload } of captured(ws, event)) {
      const tool = payload.tool_name ?? payload.toolName;
      const kind = tool ? (/pi_plan_/.test(tool) ? 'mcp' : tool) : payload.source ?? payload.trigger;
      const name = `${event}${kind ? `.${kind}` : ''}.json`;
      if (!fs.existsSync(path.join(dir, name))) fs.writeFileSync(path.join(dir, name), anonymised(ws, payload));
    }
  }
}

for (const host of Object.keys(HOSTS)) {
  const { events } = HOSTS[host];
  describe(`${HOSTS[host].title}: host facts (a session no plan binds)`, function () {
    this.timeout(180_000);
    let ws;
    let model;
    let run;
    let resumed;
    /** What the model was told for each probe's call (printed at the end: the README's table). */
    const seen = {};
    let offered;
    const pre = () => captured(ws, events.pre).map((c) => c.payload);
    const toolOf = (p) => p.tool_name ?? p.toolName;
    const inputOf = (p) => p.tool_input ?? p.toolArgs;
    const commandOf = (p) => inputOf(p)?.command ?? '';

    before(async () => {
      ws = makeWorkspace(host, { capture: true });
      addPreToolHook(ws, probeScript(ws), PROBE_TIMEOUT);
      model = await startModelServer();
      const t = agentTools(ws);
      const turns = [
        t.load?.(),
        t.mcp('pi_plan_list', {}),
        t.shell('mkdir -p sub && cd sub && pwd'),
        t.shell('pwd'),
        t.read?.('src/app.js'),
        t.edit('src/app.js', 'export const greeting = "hello";', 'export const greeting = "hi";'),
        t.write('src/new.js', 'export const created = 1;\n'),
        // Absolute: Claude Code keeps the `cd sub` for later commands.
        ...PROBES.map((k) => t.shell(`touch ${path.join(ws.dir, `probe-ran-${k}`)} # probe-${k}`)),
      ];
      if (host === 'codex') {
        turns.push(t.shell('pwd # in workdir src', { workdir: 'src' }));
        // A shell in a terminal (tty), then a command typed into it: which of the two the hooks see.
        turns.push(t.shell('bash', { tty: true, yield_time_ms: 500 }));
        turns.push((b) => ({ calls: [{ name: 'write_stdin', input: { session_id: Number(/session ID (\d+)/.exec(JSON.stringify(b))?.[1] ?? 0), chars: 'touch typed-into-tty\n', yield_time_ms: 1500 } }] }));
      }
      if (host === 'copilot') {
        // Copilot CLI in -p mode offers no write_bash: the model calls it anyway.
        turns.push(t.shell('cat', { mode: 'async', shellId: 'typing' }));
        turns.push({ calls: [{ name: 'write_bash', input: { shellId: 'typing', input: 'hello\n', delay: 1 } }] });
      }
      // Claude Code and Codex compact on a nearly full context (Copilot CLI does too, but runs no hook for it).
      if (host !== 'copilot') turns.push({ ...t.mcp('pi_plan_list', {}), contextFull: true });
      model.play([...turns, say('done')]);
      run = await runHost(ws, model, 'measure the hooks');
      for (const probe of PROBES) seen[probe] = model.resultOf(inputHas(`probe-${probe}`))?.text;
      offered = toolNames(model.turnRequests()[0]);
      model.play([say('resumed')]);
      resumed = await runHost(ws, model, 'go on', { resume: run.session });
      if (process.env.PI_PLANS_SAVE_FIXTURES) saveFixtures(ws);
    });
    after(async () => {
      if (process.env.PI_PLANS_SAVE_FIXTURES) console.log(JSON.stringify({ host, seen, ms: [run?.ms, resumed?.ms] }, null, 2));
      await model?.close();
      removeWorkspace(ws);
    });

    it('runs a session and its resumption to the end', () => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.session, run.session);
    });

    it('names its shell, edit and MCP tools in PreToolUse as measured', () => {
      const names = new Set(pre().map(toolOf));
      const expected = { claude: ['Bash', 'Read', 'Edit', 'Write', 'mcp__pi-plans__pi_plan_list'], codex: ['Bash', 'apply_patch', 'mcp__pi_plans__pi_plan_list'], copilot: ['bash', 'edit', 'create', 'pi-plans-pi_plan_list'] }[host];
      for (const n of expected) assert.ok(names.has(n), `${n} in ${[...names].join(', ')}`);
    });

    it('sends the payload cwd and CLAUDE_PROJECT_DIR as measured after the agent ran `cd sub`', () => {
      const after = captured(ws, events.pre).find((c) => commandOf(c.payload) === 'pwd');
      const inSub = host === 'claude';
      assert.equal(after.payload.cwd, inSub ? path.join(ws.dir, 'sub') : ws.dir);
      assert.equal(after.env.pwd, inSub ? path.join(ws.dir, 'sub') : ws.dir, 'the hook process runs there too');
      assert.equal(after.env.CLAUDE_PROJECT_DIR, host === 'codex' ? undefined : ws.dir);
    });

    for (const probe of PROBES) {
      it(`a PreToolUse hook that ${{ exit1: 'exits 1', exit2: 'exits 2', garbage: 'prints garbage', ask: 'answers "ask" (no one to ask in -p)', slow: 'outlives its timeout' }[probe]}: the call ${EXPECTED[host][probe] ? 'runs' : 'does not run'}`, () => {
        assert.equal(fs.existsSync(path.join(ws.dir, `probe-ran-${probe}`)), EXPECTED[host][probe]);
        assert.ok(seen[probe] !== undefined, 'the model got a result for the call');
      });
    }

    it('starts sessions with SessionStart sources as measured (startup, resume; compact after compaction)', () => {
      const sources = captured(ws, events.start).map((c) => c.payload.source);
      const expected = { claude: ['startup', 'compact', 'resume'], codex: ['startup', 'compact', 'resume'], copilot: ['new', 'resume'] }[host];
      assert.deepEqual(sources, expected);
    });

    it(`${events.end ? 'runs' : 'has no'} SessionEnd in -p mode`, () => {
      if (events.end) assert.equal(captured(ws, events.end).length, 2);
      else assert.ok(!fs.existsSync(path.join(ws.captured, 'SessionEnd.jsonl')));
    });

    if (host === 'codex') {
      it('sends exec_command\'s workdir as the payload cwd (not in tool_input)', () => {
        const p = pre().find((x) => commandOf(x).includes('in workdir src'));
        assert.equal(p.cwd, path.join(ws.dir, 'src'));
        assert.deepEqual(Object.keys(inputOf(p)), ['command']);
      });

      it('sends exec_command with tty as a Bash payload holding only the command (no tty, no workdir), and no hook for write_stdin', () => {
        const shell = pre().find((p) => commandOf(p) === 'bash');
        assert.deepEqual(Object.keys(inputOf(shell)), ['command']);
        assert.ok(!pre().some((p) => toolOf(p) === 'write_stdin' || /typed-into-tty/.test(JSON.stringify(p))));
        assert.ok(fs.existsSync(path.join(ws.dir, 'typed-into-tty')), 'what was typed into the tty ran');
      });
    }
    if (host === 'copilot') {
      it('offers no write_bash in -p mode, yet runs preToolUse for a call to it', () => {
        assert.ok(!offered.includes('write_bash'), offered.join(', '));
        assert.ok(pre().some((p) => toolOf(p) === 'write_bash'));
      });
    }
  });
}
