// A hook that fails blocks, on each real host, as `pi-plans setup` configures it: Claude Code's
// `onFailure: "block"`, Codex's command ending `|| exit 2`, Copilot CLI's own rule (a hook that
// exits non-zero denies). The hook is made to fail before it can answer (its script is not there:
// node exits 1), and the agent's edit must not happen. facts.test.mjs shows the same exit 1 lets
// the call through on Claude Code and Codex without those settings.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentTools, changePiPlansPreToolHook, HOSTS, makeWorkspace, removeWorkspace, runHost } from './hosts.mjs';
import { say, startModelServer } from './modelServer.mjs';

for (const host of Object.keys(HOSTS)) {
  describe(`${HOSTS[host].title}: pi-plans' hook fails before it answers`, function () {
    this.timeout(120_000);
    let ws;
    let model;
    before(async () => {
      ws = makeWorkspace(host);
      // The bin's path made one that is not there: node starts, cannot load it, exits 1.
      changePiPlansPreToolHook(ws, (command) => {
        assert.match(command, /bin\.js/, 'setup wrote a hook command that runs the bin');
        return command.replace(/bin\.js/, 'no-such-bin.js');
      });
      model = await startModelServer();
      const t = agentTools(ws);
      model.play([t.write('src/new.js', 'export const n = 1;\n'), say('done'), say('done')]);
      await runHost(ws, model, 'Write a file');
    });
    after(async () => {
      await model?.close();
      removeWorkspace(ws);
    });

    it('the edit it was asked about does not run (the host blocks a failed hook, as setup configured it)', () => {
      // The host did make the call and answered it: the test cannot pass on a host that never ran.
      assert.ok(model.results().length >= 1, 'the host sent the tool call\'s result back to the model');
      assert.equal(fs.existsSync(path.join(ws.dir, 'src', 'new.js')), false);
    });
  });
}
