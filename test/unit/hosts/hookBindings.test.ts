// The sessions' bindings as the plan explorer reads them (src/node/hookBindings.ts, which the hook
// writes through src/cli/hook/workspace.ts), and which hosts have Pi Plans' hooks set up for a
// workspace (src/node/agentSetup.ts hooksSetUp), on real files in temporary folders.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as hookWorkspace from '../../../src/hosts/hook/workspace';
import { hasOurHooks } from '../../../src/hosts/setup/configEdit';
import { hooksSetUp, runAgentSetup, userFolders } from '../../../src/hosts/setup/apply';
import { Binding, BINDING_TTL_MS, bindingFile, hooksDir, listBindings, readBinding, writeBinding } from '../../../src/hosts/hook/sessions';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const binding = (session: string, plan: string, seenAt = new Date(NOW - 60_000).toISOString()): Binding => ({ v: 1, session, host: 'claude', plan, boundAt: seenAt, seenAt });

describe('hook bindings and hooks set up', () => {
  let ws: string;
  let home: string;
  let folders: ReturnType<typeof userFolders>;
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
    it('the hook\'s workspace module re-exports the one reader (no second copy)', () => {
      assert.equal(hookWorkspace.listBindings, listBindings);
      assert.equal(hookWorkspace.readBinding, readBinding);
      assert.equal(hookWorkspace.hooksDir, hooksDir);
      assert.equal(hookWorkspace.BINDING_TTL_MS, BINDING_TTL_MS);
    });

    it('lists live bindings; without prune an expired one is left out and left on disk, with prune it is removed', () => {
      writeBinding(ws, binding('s-live', 'PLAN-0000aaaa'));
      writeBinding(ws, binding('s-old', 'PLAN-0000bbbb', new Date(NOW - BINDING_TTL_MS - 1000).toISOString()));
      assert.deepEqual(listBindings(ws, NOW, { prune: false }).map((b) => b.session), ['s-live']);
      assert.ok(fs.existsSync(bindingFile(ws, 's-old')), 'the explorer never removes a file');
      assert.deepEqual(listBindings(ws, NOW).map((b) => b.session), ['s-live']);
      assert.equal(fs.existsSync(bindingFile(ws, 's-old')), false, 'the hook removes it');
    });

    it('ignores what is not a binding: another name, a broken file, another plan id, a file under a name its session does not hash to', () => {
      writeBinding(ws, binding('s1', 'PLAN-0000aaaa'));
      fs.writeFileSync(path.join(hooksDir(ws), 'notes.json'), JSON.stringify(binding('s2', 'PLAN-0000aaaa')));
      fs.writeFileSync(path.join(hooksDir(ws), `${'a'.repeat(40)}.json`), '{ broken');
      fs.writeFileSync(path.join(hooksDir(ws), `${'b'.repeat(40)}.json`), JSON.stringify(binding('s3', 'not-a-plan')));
      fs.writeFileSync(path.join(hooksDir(ws), `${'c'.repeat(40)}.json`), JSON.stringify(binding('s4', 'PLAN-0000aaaa')));
      assert.deepEqual(listBindings(ws, NOW, { prune: false }).map((b) => b.session), ['s1']);
      assert.deepEqual(listBindings(path.join(ws, 'nowhere'), NOW), []);
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
