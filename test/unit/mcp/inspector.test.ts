// A second, independent client: the MCP Inspector's CLI mode (`@modelcontextprotocol/inspector-cli`,
// a devDependency; `mcp-inspector-cli --cli <command> --method <method>`), which needs neither a
// browser nor the network. It lists what the built server offers, calls a tool and reads a plan.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALL_TOOLS } from '../../../src/tools';
import { PLANNING_STRATEGIES } from '../../../src/tools/strategies';
import { CLI, ensureBuilt, idIn, ROOT, Sandbox, type Text } from './serverProcess';

// inspector-cli 1.0.3 looks for its own package.json at a path relative to the working folder
// (`../package.json`, a packaging bug), so it runs from its build folder, with absolute paths.
const BUILD = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');

describe('the MCP Inspector CLI as a second client (the built server)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  /** One Inspector run: `--cli node dist/cli.js --root DIR mcp --method …`; the JSON it prints, or its failure. */
  const inspect = (...args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(BUILD, 'cli.js'), '--cli', process.execPath, CLI, '--root', sandbox.root, 'mcp', ...args], {
      cwd: BUILD,
      encoding: 'utf8',
      env: sandbox.env(),
      // A bound for a hung process only (the test's own timeout cannot stop a synchronous spawn).
      timeout: 50_000,
    });
    return { status: r.status, stderr: r.stderr, json: () => JSON.parse(r.stdout) as Record<string, unknown> };
  };

  before(ensureBuilt);
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.dispose());

  it('lists the tools, prompts and resources, calls a tool and reads the plan it made', () => {
    const tools = inspect('--method', 'tools/list');
    assert.equal(tools.status, 0, tools.stderr);
    const listed = (tools.json().tools as { name: string; inputSchema: { additionalProperties?: unknown; required?: string[] } }[]);
    assert.deepEqual(listed.map((t) => t.name).sort(), ALL_TOOLS.filter((t) => t.name !== 'pi_plan_approve').map((t) => t.name).sort(), 'every tool but approve (agent approval is off)');
    for (const t of listed) assert.equal(t.inputSchema.additionalProperties, false, t.name);
    assert.ok(listed.find((t) => t.name === 'pi_plan_get')!.inputSchema.required?.includes('id'));

    const prompts = inspect('--method', 'prompts/list');
    assert.equal(prompts.status, 0, prompts.stderr);
    assert.deepEqual((prompts.json().prompts as { name: string }[]).map((p) => p.name).sort(), PLANNING_STRATEGIES.map((s) => `plan-${s}`).sort());

    const called = inspect('--method', 'tools/call', '--tool-name', 'pi_plan_create', '--tool-arg', 'title=From the Inspector', '--tool-arg', 'goal=G');
    assert.equal(called.status, 0, called.stderr);
    const id = idIn((called.json() as Text).content[0].text!);
    const file = sandbox.planFile(id);
    assert.match(fs.readFileSync(file, 'utf8'), /^title: "?From the Inspector"?$/m);

    const resources = inspect('--method', 'resources/list');
    assert.equal(resources.status, 0, resources.stderr);
    assert.deepEqual((resources.json().resources as { uri: string; title: string }[]).map((r) => [r.uri, r.title]), [[`pi-plans://plans/${id}`, 'From the Inspector']]);
    const templates = inspect('--method', 'resources/templates/list');
    assert.equal(templates.status, 0, templates.stderr);
    assert.deepEqual((templates.json().resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate), ['pi-plans://plans/{id}']);
    const read = inspect('--method', 'resources/read', '--uri', `pi-plans://plans/${id}`);
    assert.equal(read.status, 0, read.stderr);
    assert.equal((read.json().contents as { text: string }[])[0].text, fs.readFileSync(file, 'utf8'));
  });

  it('sees the refusals a client developer expects: a typo named, a missing plan as -32002', () => {
    const typo = inspect('--method', 'tools/call', '--tool-name', 'pi_plan_list', '--tool-arg', 'stauts=draft');
    assert.equal(typo.status, 0, typo.stderr);
    const result = typo.json() as Text;
    assert.equal(result.isError, true);
    assert.equal(result.content[0].text, 'Unknown argument "stauts" (did you mean "status"?): fix the arguments and call again.');
    const missing = inspect('--method', 'resources/read', '--uri', 'pi-plans://plans/PLAN-00000000');
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /-32002.*PLAN-00000000/);
  });
});
