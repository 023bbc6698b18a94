// `pi-plans setup --command pi-plans`, with pi-plans on the PATH as a person installs it: the
// files setup writes (meant to be committed) name no path of this machine, and each real host
// still starts the MCP server in the workspace, where it serves the workspace's plans with no
// --root, and runs the hooks by that name.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentTools, HOSTS, makeWorkspace, planStatus, readFile, removeWorkspace, runHost } from './hosts.mjs';
import { inputHas, say, startModelServer } from './modelServer.mjs';

const APP = 'src/app.js';
const HELLO = 'export const greeting = "hello";';
const BYE = 'export const greeting = "bye";';
/** The files setup writes for each host (by our short name): the MCP server's and the hooks'. */
const FILES = { claude: ['.mcp.json', '.claude/settings.json'], codex: ['.codex/config.toml', '.codex/hooks.json'], copilot: ['.mcp.json', '.github/hooks/pi-plans.json'] };

for (const host of Object.keys(HOSTS)) {
  describe(`${HOSTS[host].title}: set up with --command pi-plans (no path of this machine)`, function () {
    this.timeout(120_000);
    let ws;
    let model;
    let id;
    before(async () => {
      ws = makeWorkspace(host, { command: 'pi-plans' });
      model = await startModelServer();
      const t = agentTools(ws);
      model.play([t.load?.(), t.mcp('pi_plan_create', { title: 'Change the greeting', goal: 'Say bye instead of hello', steps: [{ text: 'Change the greeting', tool: 'edit', operation: 'update', target: APP }], propose: true }), t.read?.(APP), t.edit(APP, HELLO, BYE), say('done')]);
      await runHost(ws, model, 'Change the greeting');
      id = model.created();
    });
    after(async () => {
      await model?.close();
      removeWorkspace(ws);
    });

    it('the files name no absolute path, and setup says nothing of machine-specific paths', () => {
      for (const f of FILES[host]) {
        const text = readFile(ws, f);
        assert.ok(!text.includes(ws.tmp), `${f} names no folder of this machine:\n${text}`);
        assert.doesNotMatch(text, /["'= ]\/[^/]/, `${f}: no absolute path:\n${text}`);
      }
      assert.doesNotMatch(ws.setup, /Machine-specific/);
    });

    it('the host starts the MCP server in the workspace: the plan the agent creates is in the workspace\'s .pi/plans', () => {
      assert.ok(id, 'pi_plan_create answered with a plan id');
      assert.equal(planStatus(ws, id), 'proposed');
      assert.ok(fs.existsSync(path.join(ws.dir, '.pi', 'plans', `${id}.md`)));
    });

    it('the hooks run as pi-plans from the PATH: the edit is denied while the plan is proposed', () => {
      assert.equal(readFile(ws, APP), `${HELLO}\n`);
      assert.match(model.resultOf(inputHas('greeting = ')).text, new RegExp(`pi-plans: .*${id}`));
    });
  });
}
