// Attribution with the agent hooks: the bound session's PostToolUse reports (run through the hook's
// own code, in-process) tell its edits from another process's changes while a step runs, in a real
// repository (a temporary folder, the machine's git).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runHook } from '../../../src/hosts/hook/run';
import * as shellReader from '../../../src/hosts/policy/commands';
import { changedLine, hostSession, readChangedLine } from '../../../src/core';
import { NodeEvidence } from '../../../src/node';
import { writeBinding } from '../../../src/hosts/hook/sessions';
import { freshStatePerTest } from '../../helpers/hookContract';
const FIXTURES = path.resolve(__dirname, '../../fixtures/hooks');

const ID = 'PLAN-0000a77b';
const SESSION = '0b9c2f4e-6a1d-4e8b-9f3a-2c7d5e1a8b40';

describe('step evidence: the session\'s reported edits against another process\'s changes (hooks, real repository)', function () {
  this.timeout(30_000);
  let root: string;
  freshStatePerTest();
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: root }).status, 0, `git ${args.join(' ')}`);
  /** A Claude Code PostToolUse payload of a fixture, moved to this test's folder. */
  const post = (fixture: string) => {
    const p = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'claude', `${fixture}.json`), 'utf8').replaceAll('/home/dev/proj', root));
    return JSON.stringify({ ...p, hook_event_name: 'PostToolUse', tool_response: { success: true } });
  };
  const hook = (stdin: string) => runHook(stdin, { env: process.env, cwd: root, now: Date.now(), heavy: () => Promise.reject(new Error('not needed')), shell: () => shellReader });

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-attribution-')));
    git('init', '-q');
    write('src/app.ts', 'const port = 3000;\n');
    git('add', '-A');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'base');
    // An executing plan whose S001 is in progress, the session bound to it (as its plan tool call would bind it).
    write(`.pi/plans/${ID}.md`, ['---', `id: ${ID}`, 'title: Port', 'status: executing', 'version: 4', 'created_at: 2026-11-01T00:00:00.000Z', 'updated_at: 2026-11-01T00:00:00.000Z', '---', '', '## Goal', 'G', '', '## Steps', '1. [ ] S001 *in progress* Read PORT', '2. [ ] S002 Document it', ''].join('\n'));
    const now = new Date().toISOString();
    writeBinding({ v: 2, session: SESSION, host: 'claude', root, plans: [ID], boundAt: now, seenAt: now });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a snapshot git cannot take (an empty repository embedded in the tree) is git\'s own error on the line, not "its start was not recorded"', async () => {
    const ev = new NodeEvidence(root);
    await ev.begin(ID, 'S001');
    fs.mkdirSync(path.join(root, 'vendor', 'lib'), { recursive: true });
    assert.equal(spawnSync('git', ['init', '-q'], { cwd: path.join(root, 'vendor', 'lib') }).status, 0);
    const c = await ev.end(ID, 'S001');
    assert.equal(c.recorded, false);
    assert.ok(!c.recorded && /^git failed: .*vendor\/lib/.test(c.why), JSON.stringify(c));
    assert.match(changedLine(c), /^not recorded \(git failed: /);
  });

  it('names the file another process changed while the step ran, not the one the session edited', async () => {
    const ev = new NodeEvidence(root);
    await ev.begin(ID, 'S001');
    write('src/app.ts', 'const port = Number(process.env.PORT ?? 3000);\n');
    await hook(post('PreToolUse.edit'));
    // Another process (not the agent's session): a formatter, a person, another agent.
    assert.equal(spawnSync('sh', ['-c', 'echo "export const x = 1;" > src/other.ts'], { cwd: root }).status, 0);
    const c = await ev.end(ID, 'S001');
    assert.ok(c.recorded);
    assert.deepEqual(c.files.map((f) => f.path).sort(), ['src/app.ts', 'src/other.ts']);
    assert.deepEqual(c.notBySession, ['src/other.ts']);
    assert.deepEqual(readChangedLine(changedLine(c)).notBySession, ['src/other.ts']);
    await ev.settled();
  });

  it('two sessions with a step each: an edit is reported to the step its own session holds (claimed as the MCP server names that host session), never to the other one', async () => {
    // S001 held by another Claude Code session, S002 by this one (the MCP server claims as "claude-<session_id>").
    const plan = fs.readFileSync(path.join(root, `.pi/plans/${ID}.md`), 'utf8');
    write(
      `.pi/plans/${ID}.md`,
      plan
        .replace('1. [ ] S001 *in progress* Read PORT', '1. [ ] S001 *in progress* Read PORT\n   > Claimed: claude-11111111-2222-4333-8444-555555555555 at 2026-11-01T00:00:00.000Z')
        .replace('2. [ ] S002 Document it', `2. [ ] S002 *in progress* Document it\n   > Claimed: ${hostSession('claude', SESSION)} at 2026-11-01T00:00:00.000Z`),
    );
    const ev = new NodeEvidence(root);
    await ev.begin(ID, 'S001');
    await ev.begin(ID, 'S002');
    write('src/app.ts', 'const port = Number(process.env.PORT ?? 3000);\n');
    await hook(post('PreToolUse.edit'));
    // The other session's file (no report from it here).
    write('docs/port.md', 'PORT\n');
    const mine = await ev.end(ID, 'S002');
    assert.ok(mine.recorded && mine.toldApart, JSON.stringify(mine));
    assert.deepEqual(mine.notBySession, ['docs/port.md'], 'its own edit is its, the other file is not');
    const theirs = await ev.end(ID, 'S001');
    assert.ok(theirs.recorded && !theirs.toldApart, 'nothing reported for the other session\'s step: nothing told apart');
    await ev.settled();
  });

  it('tells nothing apart when the session ran a command (it may have changed any file), nor without hook reports', async () => {
    const ev = new NodeEvidence(root);
    await ev.begin(ID, 'S001');
    write('src/app.ts', 'const port = 1;\n');
    await hook(post('PreToolUse.edit'));
    await hook(post('PreToolUse.bash'));
    write('src/other.ts', 'x\n');
    const c = await ev.end(ID, 'S001');
    assert.ok(c.recorded && c.files.length === 2);
    assert.equal(c.notBySession, undefined);
    await ev.begin(ID, 'S002');
    write('docs/port.md', 'PORT\n');
    const d = await ev.end(ID, 'S002');
    assert.ok(d.recorded && d.files.length === 1);
    assert.equal(d.notBySession, undefined, 'no report for S002: nothing to tell apart');
    await ev.settled();
  });
});
