// A person approves, and the real host works the plan: the step's target is edited and its
// evidence recorded; a file no step names is not (asked where the host can ask, which in -p mode
// means not run); ending the turn with steps open is blocked once, then let go.
// Scenarios 4, 5 and 6 of test/hosts/README.md, in one session per host.
import { strict as assert } from 'node:assert';
import { agentTools, approve, HOSTS, makeWorkspace, planText, readFile, removeWorkspace, runHost } from './hosts.mjs';
import { allText, inputHas, say, startModelServer } from './modelServer.mjs';

const APP = 'src/app.js';
const OTHER = 'src/other.js';
const STEPS = [
  { text: 'Change the greeting', tool: 'edit', operation: 'update', target: APP },
  { text: 'Document the greeting', tool: 'edit', operation: 'update', target: APP },
];

for (const host of Object.keys(HOSTS)) {
  describe(`${HOSTS[host].title}: working an approved plan`, function () {
    this.timeout(120_000);
    let ws;
    let model;
    let run;
    let id;
    before(async () => {
      ws = makeWorkspace(host);
      model = await startModelServer();
      const t = agentTools(ws);
      const plan = () => model.created();
      model.play([
        t.load?.(),
        t.mcp('pi_plan_create', { title: 'Change the greeting', goal: 'Say bye instead of hello', steps: STEPS, propose: true }),
        // The person approves (the harness, as them) while the agent waits; then the agent starts.
        () => {
          approve(ws, plan());
          return t.mcp('pi_plan_execute', { id: plan(), op: 'start' });
        },
        () => t.mcp('pi_plan_execute', { id: plan(), op: 'mark', step: 'S001', status: 'in_progress' }),
        t.read?.(APP),
        t.edit(APP, 'export const greeting = "hello";', 'export const greeting = "bye";'),
        t.read?.(OTHER),
        t.edit(OTHER, 'export const other = 1;', 'export const other = 2;'),
        () => t.mcp('pi_plan_execute', { id: plan(), op: 'mark', step: 'S001', status: 'done' }),
        say('first end'),
        say('second end'),
        say('third end'),
      ]);
      run = await runHost(ws, model, 'Change the greeting');
      id = model.created();
    });
    after(async () => {
      await model?.close();
      removeWorkspace(ws);
    });

    it('a person approves, the agent starts and edits the step\'s target: the file is written, and the step marked done carries a > Changed: line naming it', () => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(readFile(ws, APP), 'export const greeting = "bye";\n');
      const text = planText(ws, id);
      const steps = text.slice(text.indexOf('## Steps'));
      assert.match(steps, /\[x\] S001 Change the greeting .*\n(\s+> .*\n)*\s+> Changed: src\/app\.js \(\+1 −1\)/);
    });

    it(`an edit of a file no step names is not run (${host === 'codex' ? 'denied: Codex cannot ask' : '"ask", which -p mode cannot put to anyone'}); the model is told why`, () => {
      assert.equal(readFile(ws, OTHER), 'export const other = 1;\n');
      assert.match(model.resultOf(inputHas('other = 2')).text, new RegExp(`pi-plans: src/other\\.js is not a target of ${id}`));
    });

    it('ending the turn with a step open is blocked once: the host goes on with the reason, and the second end is let go', () => {
      const turns = model.turnRequests();
      const firstEnd = turns.findIndex((b) => allText(b).includes('first end'));
      assert.ok(firstEnd > 0, 'the model was asked again after its first end');
      assert.match(allText(turns[firstEnd]), new RegExp(`pi-plans: ${id} .{0,80}still has open steps; the next is S002`));
      assert.equal(turns.length, firstEnd + 1, 'no third request: the second end went');
      assert.equal(model.remaining(), 1);
    });
  });
}
