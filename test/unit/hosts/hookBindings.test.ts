// The sessions' bindings as the hook keeps them and the plan explorer reads them
// (src/hosts/hook/sessions.ts, in the user's state folder), and which hosts have Pi Plans' hooks
// set up for a workspace (src/hosts/install/apply.ts hooksSetUp), on real files in temporary folders.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hasOurHooks } from '../../../src/hosts/setup/configEdit';
import { hooksSetUp, runAgentSetup, userFolders } from '../../../src/hosts/install/apply';
import { Binding, BINDING_TTL_MS, bindingName, listBindings, readBinding, removeBinding, writeBinding } from '../../../src/hosts/hook/sessions';
import { freshStatePerTest } from '../../helpers/hookContract';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const binding = (session: string, plans: string[], root: string, seenAt = new Date(NOW - 60_000).toISOString()): Binding => ({ v: 2, session, host: 'claude', root, plans, boundAt: seenAt, seenAt });

describe('hook bindings and hooks set up', () => {
  let ws: string;
  let home: string;
  let folders: ReturnType<typeof userFolders>;
  freshStatePerTest();
  const sessionsDir = () => path.join(process.env.PI_PLANS_STATE_DIR!, 'sessions');
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bindings-ws-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bindings-home-'));
    folders = userFolders({}, home, 'linux');
  });
  afterEach(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  describe('the bindings', () => {
    it('lists live bindings, of one workspace when asked; without prune an expired one is left out and left on disk, with prune it is removed', () => {
      writeBinding(binding('s-live', ['PLAN-0000aaaa'], ws));
      writeBinding(binding('s-elsewhere', ['PLAN-0000aaaa'], '/other'));
      writeBinding(binding('s-old', ['PLAN-0000bbbb'], ws, new Date(NOW - BINDING_TTL_MS - 1000).toISOString()));
      assert.deepEqual(listBindings(NOW, { root: ws }).map((b) => b.session), ['s-live']);
      assert.deepEqual(listBindings(NOW).map((b) => b.session).sort(), ['s-elsewhere', 's-live']);
      assert.ok(fs.existsSync(path.join(sessionsDir(), bindingName('claude', 's-old'))), 'the explorer never removes a file');
      listBindings(NOW, { prune: true });
      assert.equal(fs.existsSync(path.join(sessionsDir(), bindingName('claude', 's-old'))), false, 'the hook removes it');
    });

    it('ignores what is not a binding when listing: another name, a broken file, another plan id, a file under a name its session does not hash to', () => {
      writeBinding(binding('s1', ['PLAN-0000aaaa'], ws));
      fs.writeFileSync(path.join(sessionsDir(), 'notes.json'), JSON.stringify(binding('s2', ['PLAN-0000aaaa'], ws)));
      fs.writeFileSync(path.join(sessionsDir(), `${'a'.repeat(40)}.json`), '{ broken');
      fs.writeFileSync(path.join(sessionsDir(), `${'b'.repeat(40)}.json`), JSON.stringify(binding('s3', ['not-a-plan'], ws)));
      fs.writeFileSync(path.join(sessionsDir(), `${'c'.repeat(40)}.json`), JSON.stringify(binding('s4', ['PLAN-0000aaaa'], ws)));
      assert.deepEqual(listBindings(NOW).map((b) => b.session), ['s1']);
    });

    it('a session\'s own binding file that is not a binding Pi Plans wrote (broken, a link, a FIFO, a folder) reads as broken, never as none', () => {
      writeBinding(binding('s1', ['PLAN-0000aaaa'], ws));
      const file = path.join(sessionsDir(), bindingName('claude', 's1'));
      assert.equal(readBinding('claude', 's1', NOW).kind, 'bound');
      fs.writeFileSync(file, '{ broken');
      assert.equal(readBinding('claude', 's1', NOW).kind, 'broken');
      fs.rmSync(file);
      fs.symlinkSync(path.join(home, 'elsewhere.json'), file);
      assert.equal(readBinding('claude', 's1', NOW).kind, 'broken');
      fs.rmSync(file);
      fs.mkdirSync(file);
      assert.equal(readBinding('claude', 's1', NOW).kind, 'broken');
      fs.rmdirSync(file);
      assert.equal(readBinding('claude', 's1', NOW).kind, 'none');
    });

    it('removing a binding (a person\'s release) removes the file itself, never what a link there points to', () => {
      const outside = path.join(home, 'precious.json');
      fs.writeFileSync(outside, 'mine');
      fs.mkdirSync(sessionsDir(), { recursive: true });
      fs.symlinkSync(outside, path.join(sessionsDir(), bindingName('claude', 's1')));
      removeBinding('claude', 's1');
      assert.equal(fs.readFileSync(outside, 'utf8'), 'mine');
      assert.equal(fs.existsSync(path.join(sessionsDir(), bindingName('claude', 's1'))), false);
    });
  });

  describe('hooks set up', () => {
    const setup = (agent: 'claude' | 'copilot' | 'codex' | 'copilot-cli', scope: 'workspace' | 'user' = 'workspace', remove = false) =>
      runAgentSetup({ agent, scope, hooks: true, mcp: false, command: ['/opt/node/bin/node', '/opt/pi plans/cli.js'], workspace: ws, remove, dryRun: false }, folders);
    const hosts = () => hooksSetUp(ws, folders).map((h) => `${h.host}:${h.scope}`);

    it('none in a workspace and home without hook files', () => {
      assert.deepEqual(hosts(), []);
    });

    it('names each host whose hook file setup wrote, at workspace and user scope; the shared Copilot file counts for both Copilots', () => {
      setup('claude');
      assert.deepEqual(hosts(), ['claude:workspace']);
      setup('copilot');
      setup('codex', 'user');
      assert.deepEqual(hosts(), ['copilot:workspace', 'claude:workspace', 'codex:user', 'copilot-cli:workspace']);
      setup('claude', 'workspace', true);
      assert.deepEqual(hosts(), ['copilot:workspace', 'codex:user', 'copilot-cli:workspace']);
    });

    it('a file with only the person\'s hooks, one that does not parse, or a folder in its place holds none', () => {
      fs.mkdirSync(path.join(ws, '.claude'));
      fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), '// mine\n{ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./lint.sh" } ] } ] } }\n');
      fs.mkdirSync(path.join(ws, '.codex'));
      fs.writeFileSync(path.join(ws, '.codex', 'hooks.json'), '{ "hooks": { "Stop": [ { "hooks": [ { "command": "pi-plans hook --agent codex --event Stop" ');
      fs.mkdirSync(path.join(ws, '.github', 'hooks', 'pi-plans.json'), { recursive: true });
      assert.deepEqual(hosts(), []);
    });

    it('recognises our entries as setup does, in both shapes, with comments and trailing commas', () => {
      assert.equal(hasOurHooks('{ "version": 1, "hooks": { "preToolUse": [ { "type": "command", "bash": "pi-plans hook --event preToolUse" }, ] } } // ours'), true);
      assert.equal(hasOurHooks('{ "hooks": { "Stop": [ { "matcher": "", "hooks": [ { "type": "command", "command": "./x.sh" }, { "type": "command", "command": "node cli.js hook --agent claude --event Stop" } ] } ] } }'), true);
      assert.equal(hasOurHooks('{ "hooks": { "Stop": [ { "type": "command", "command": "pi-plans hook status" } ] } }'), false);
      assert.equal(hasOurHooks('{ "hooks": [] }'), false);
      assert.equal(hasOurHooks('[]'), false);
    });
  });
});
