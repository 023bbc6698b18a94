// The hook's reading of each host's documented payloads (the research fixtures, copied into
// test/fixtures/hooks): which host and event a shape is, and what a tool call is. In process, pure.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOSTS } from '../../../src/hosts/hosts';
import { patchPaths } from '../../../src/hosts/policy/patch';
import { HookPayload, readPayload as read } from '../../../src/hosts/policy/payload';
import { classifyTool as classifyBy, planToolOf } from '../../../src/hosts/policy/tools';

export const FIXTURES = path.resolve(__dirname, '../../fixtures/hooks');
const readPayload = read;
/** A payload's tool call, by the lists of the host it comes from. */
const classifyTool = (p: HookPayload) => classifyBy(p, HOSTS[p.host]);
const load = (host: string, name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, host, `${name}.json`), 'utf8')) as Record<string, unknown>;

describe('pi-plans hook: payload shapes (the hosts\' documented fixtures)', () => {
  it('tells every fixture\'s host from its shape alone, and its event (Copilot CLI\'s camelCase names none: told from its fields)', () => {
    const expected: Record<string, string> = { claude: 'claude', vscode: 'copilot', codex: 'codex', 'copilot-cli': 'copilot-cli' };
    let n = 0;
    for (const host of Object.keys(expected)) {
      for (const f of fs.readdirSync(path.join(FIXTURES, host)).filter((x) => x.endsWith('.json'))) {
        const p = readPayload(load(host, f.slice(0, -5)));
        const name = f.slice(0, -5);
        // Copilot CLI's VS Code-compatible payloads (snake_case, ISO timestamp) are told from VS Code's too.
        assert.equal(p?.host, expected[host], `${host}/${f}`);
        const event = name.split('.')[0];
        const canonical: Record<string, string> = { agentStop: 'Stop', userPromptSubmitted: 'UserPromptSubmit', errorOccurred: 'other', PermissionRequest: 'other', SubagentStart: 'other', 'cloud-agent': 'PreToolUse' };
        const want = canonical[event] ?? event.charAt(0).toUpperCase() + event.slice(1);
        assert.equal(p?.event, want, `${host}/${f}: event`);
        n++;
      }
    }
    assert.ok(n >= 50, `${n} fixtures read`);
  });

  it('--agent and --event win over the shape; a payload that is not an object, or names no host, is none', () => {
    assert.equal(readPayload(load('claude', 'Stop'), { agent: 'codex' })?.host, 'codex');
    assert.equal(readPayload(load('copilot-cli', 'sessionEnd'), { event: 'SessionEnd' })?.event, 'SessionEnd');
    assert.equal(readPayload([]), undefined);
    assert.equal(readPayload('x'), undefined);
    assert.equal(readPayload({ hello: 1 }), undefined);
  });

  it('a payload under --agent claude (or codex) that carries another host\'s ISO timestamp (Copilot CLI or VS Code reading .claude/settings.json) is read as that host\'s', () => {
    assert.equal(readPayload(load('copilot-cli', 'Stop.pascal-compat'), { agent: 'claude' })?.host, 'copilot-cli');
    assert.equal(readPayload(load('copilot-cli', 'SessionStart.pascal-compat'), { agent: 'codex' })?.host, 'copilot-cli');
    assert.equal(readPayload(load('vscode', 'Stop'), { agent: 'claude' })?.host, 'copilot');
    assert.equal(readPayload(load('vscode', 'SessionStart'), { agent: 'claude' })?.host, 'copilot');
    assert.equal(readPayload(load('copilot-cli', 'Stop.pascal-compat'), { agent: 'copilot' })?.host, 'copilot', 'under a Copilot host, --agent is as given');
  });

  it('reads the text of Copilot CLI\'s tool result in both of its formats (a create binds from it)', () => {
    const compat = readPayload(load('copilot-cli', 'PostToolUse.pascal-compat.mcp'))!;
    assert.equal(compat.response, 'Created PLAN-1a2b3c4d (v1, draft).');
    assert.deepEqual(classifyTool(compat), { kind: 'plan', tool: 'pi_plan_create', plan: 'PLAN-1a2b3c4d', creates: true });
    assert.equal(readPayload(load('copilot-cli', 'postToolUse'))!.response, 'All tests passed (15/15)');
  });

  it('reads Copilot CLI\'s toolArgs as a JSON string or an object alike', () => {
    const s = readPayload(load('copilot-cli', 'preToolUse.create'))!;
    const o = readPayload(load('copilot-cli', 'preToolUse.create.objectArgs'))!;
    assert.deepEqual(s.input, o.input);
    assert.deepEqual(classifyTool(s), { kind: 'edit', tool: 'create', paths: ['/home/dev/proj/src/new-module.ts'] });
  });

  it('knows each host\'s editing tools and the files they name', () => {
    const paths = (host: string, name: string) => {
      const c = classifyTool(readPayload(load(host, name))!);
      return c?.kind === 'edit' ? c.paths : c?.kind;
    };
    const app = '/home/dev/proj/src/app.ts';
    assert.deepEqual(paths('claude', 'PreToolUse.edit'), [app]);
    assert.deepEqual(paths('claude', 'PreToolUse.multiedit.legacy'), [app]);
    assert.deepEqual(paths('claude', 'PreToolUse.notebookedit'), ['/home/dev/proj/analysis.ipynb']);
    assert.deepEqual(paths('vscode', 'PreToolUse.apply_patch'), [app]);
    assert.deepEqual(paths('vscode', 'PreToolUse.multi_replace_string_in_file'), [app, '/home/dev/proj/src/cfg.ts']);
    assert.deepEqual(paths('vscode', 'PreToolUse.insert_edit_into_file'), [app]);
    assert.deepEqual(paths('codex', 'PreToolUse.apply_patch'), [app, '/home/dev/proj/src/new-module.ts']);
    assert.deepEqual(paths('copilot-cli', 'preToolUse.edit'), [app]);
    assert.deepEqual(paths('copilot-cli', 'PreToolUse.pascal-compat.edit'), [app]);
    for (const [host, name] of [['claude', 'PreToolUse.bash'], ['vscode', 'PreToolUse.run_in_terminal'], ['codex', 'PreToolUse.bash'], ['copilot-cli', 'preToolUse.bash']]) assert.equal(paths(host, name), 'terminal', `${host}/${name}`);
    assert.deepEqual(patchPaths('*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** Delete File: c.ts\n*** End Patch'), ['a.ts', 'b.ts', 'c.ts']);
  });

  it('knows our plan tools under every host\'s MCP prefix, and nothing else by that name', () => {
    for (const n of ['pi_plan_submit', 'mcp__pi-plans__pi_plan_submit', 'mcp_pi-plans_pi_plan_submit', 'pi-plans-pi_plan_submit', 'mcp__pi_plans__pi_plan_submit']) assert.equal(planToolOf(n), 'pi_plan_submit', n);
    for (const n of ['Edit', 'mcp__other__submit', 'xpi_plan_submit', 'mcp__evil__pi_plan_get', 'evil_pi_plan_get', 'mcp__pi-plans-x__pi_plan_get']) assert.equal(planToolOf(n), undefined, n);
    for (const [host, name] of [['claude', 'PreToolUse.mcp'], ['vscode', 'PreToolUse.mcp'], ['codex', 'PreToolUse.mcp'], ['copilot-cli', 'preToolUse.mcp']]) {
      assert.deepEqual(classifyTool(readPayload(load(host, name))!), { kind: 'plan', tool: 'pi_plan_submit', plan: undefined, creates: false }, `${host}/${name}`);
    }
  });
});
