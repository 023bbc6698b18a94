// The bound plan outlives the conversation: after the host compacts it, and when the session is
// resumed (`--resume` after a -p run that ended), the plan's summary reaches the model and the
// session is still bound. Scenarios 7 and 8 of test/hosts/README.md.
// "[escape]" in a title: an escape the hook before design-37 (6315c83) let through.
import { strict as assert } from 'node:assert';
import { agentTools, HOSTS, makeWorkspace, readFile, removeWorkspace, runHost } from './hosts.mjs';
import { allText, inputHas, say, startModelServer } from './modelServer.mjs';

const APP = 'src/app.js';
const HELLO = 'export const greeting = "hello";';
const proposal = { title: 'Change the greeting', goal: 'Say bye instead of hello', steps: [{ text: 'Change the greeting', tool: 'edit', operation: 'update', target: APP }], propose: true };
const summaryOf = (id) => `pi-plans: this session works on ${id}`;

/** Hosts whose SessionEnd ended the binding before design-37, so a resumed session ran unbound. */
const RESUME_ESCAPES = ['claude', 'copilot'];

for (const host of Object.keys(HOSTS)) {
  describe(`${HOSTS[host].title}: the plan across compaction and --resume`, function () {
    this.timeout(120_000);
    let model;
    const open = [];
    before(async () => (model = await startModelServer()));
    after(async () => {
      await model?.close();
      for (const ws of open) removeWorkspace(ws);
    });

    // Copilot CLI compacts too (at ~190k tokens reported, it asks for a summary), but runs no
    // sessionStart after it (and setup installs no preCompact hook for it): no hook event can
    // bring the summary back within the session. Left out for Copilot CLI.
    if (host !== 'copilot') {
      it('after the host compacts a nearly full context, the plan\'s summary reaches the model (SessionStart, source compact)', async () => {
        const ws = makeWorkspace(host);
        open.push(ws);
        const t = agentTools(ws);
        model.play([t.load?.(), t.mcp('pi_plan_create', proposal), { ...t.mcp('pi_plan_list', {}), contextFull: true }, say('done')]);
        const run = await runHost(ws, model, 'Change the greeting');
        const id = model.created();
        assert.equal(run.code, 0, run.stderr);
        const turns = model.turnRequests();
        const planned = turns.findIndex((b) => allText(b).includes(`Created in proj/.pi/plans/${id}.md`));
        assert.ok(turns.slice(planned + 1).some((b) => allText(b).includes(summaryOf(id))), 'the summary is in a request after the compaction');
      });
    }

    describe('--resume of a -p session that bound itself and ended', () => {
      let ws;
      let id;
      let resumed;
      before(async () => {
        ws = makeWorkspace(host);
        open.push(ws);
        const t = agentTools(ws);
        model.play([t.load?.(), t.mcp('pi_plan_create', proposal), say('The plan waits for your review.')]);
        const first = await runHost(ws, model, 'Plan the greeting change');
        id = model.created();
        assert.equal(first.code, 0, first.stderr);
        model.play([t.read?.(APP), t.edit(APP, HELLO, 'export const greeting = "bye";'), say('done')]);
        resumed = await runHost(ws, model, 'Go on with the change', { resume: first.session });
        assert.equal(resumed.session, first.session, 'the same session');
      });

      it(`${RESUME_ESCAPES.includes(host) ? '[escape] ' : ''}the plan's summary reaches the model (SessionStart, source resume)`, () => {
        assert.ok(allText(model.turnRequests()[0]).includes(summaryOf(id)));
      });

      it(`${RESUME_ESCAPES.includes(host) ? '[escape] ' : ''}an edit is denied: the session is still bound`, () => {
        assert.equal(readFile(ws, APP), `${HELLO}\n`);
        assert.match(model.resultOf(inputHas('greeting = ')).text, new RegExp(`pi-plans: .*${id}`));
      });
    });
  });
}
