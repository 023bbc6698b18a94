// The sample agent of `npm run demo`: a scripted "model" that calls the Pi Plans tools through
// vscode.lm.invokeTool exactly as Copilot agent mode would, so the whole loop (plan, review,
// revise, execute) can be watched without a Copilot sign-in. Plain JavaScript, no build step.
'use strict';
const vscode = require('vscode');

const STEPS = [
  { text: 'Add a /healthz route that answers 200 with the build version', tool: 'edit', operation: 'create', target: 'src/routes/health.ts' },
  { text: 'Register the route before the auth middleware', tool: 'edit', operation: 'update', target: 'src/server.ts' },
  { text: 'Test the route: 200, JSON body, no auth needed', tool: 'edit', operation: 'create', target: 'test/health.test.ts' },
  { text: 'Run the test suite', tool: 'terminal', operation: 'run', target: 'npm test' },
];

let running = false;

/** Calls one tool and returns its text result. */
async function call(log, name, input, token) {
  log.appendLine(`→ ${name} ${JSON.stringify(input)}`);
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
  const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  log.appendLine(`← ${text.split('\n')[0]}`);
  return text;
}

const pause = (ms, token) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    token.onCancellationRequested(() => {
      clearTimeout(t);
      resolve();
    });
  });

async function runAgent(log) {
  if (running) {
    void vscode.window.showInformationMessage('The sample agent is already running.');
    return;
  }
  running = true;
  log.show(true);
  const delay = () => vscode.workspace.getConfiguration('piPlansDemo').get('stepDelayMs', 1500);
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Sample agent', cancellable: true },
      async (progress, token) => {
        const api = await vscode.extensions.getExtension('pi-plans.pi-plans').activate();
        await api.ready;
        progress.report({ message: 'drafting a plan…' });
        let r = await call(log, 'pi_plan_create', { title: 'Add a health-check endpoint', goal: 'Load balancers and uptime checks need a cheap endpoint that says the service is up and which build it runs.' }, token);
        const id = /\*\*(PLAN-[0-9a-f]{8})\*\*/.exec(r)[1];
        const ids = [];
        for (const s of STEPS) {
          if (token.isCancellationRequested) return;
          r = await call(log, 'pi_plan_step', { id, op: 'add', ...s }, token);
          ids.push(/Added (S\d{3,4})/.exec(r)[1]);
          await pause(delay() / 3, token);
        }
        await call(log, 'pi_plan_update', { id, risks: ['The route must not leak secrets in the build info'], verification: ['npm test passes', 'curl localhost:3000/healthz answers 200'] }, token);
        for (let round = 1; round <= 3; round++) {
          if (token.isCancellationRequested) return;
          progress.report({ message: `waiting for your review of ${id}…` });
          r = await call(log, 'pi_plan_submit', { id, wait: true }, token);
          if (/Approved by/.test(r)) break;
          const feedback = /<feedback>([\s\S]*?)<\/feedback>/.exec(r);
          if (!feedback) {
            log.appendLine(`The review ended without a decision: ${r.split('\n')[0]}`);
            return;
          }
          progress.report({ message: 'revising the plan with your feedback…' });
          const text = feedback[1].trim().replace(/\s+/g, ' ').slice(0, 400);
          r = await call(log, 'pi_plan_step', { id, op: 'add', text: `Address the review: ${text}`, after: ids[ids.length - 2] }, token);
          ids.splice(ids.length - 1, 0, /Added (S\d{3,4})/.exec(r)[1]);
          await pause(delay() / 2, token);
          if (round === 3) return;
        }
        progress.report({ message: `executing ${id}…` });
        await call(log, 'pi_plan_execute', { id, op: 'start' }, token);
        for (const step of ids) {
          if (token.isCancellationRequested) return;
          progress.report({ message: `${step}…` });
          await call(log, 'pi_plan_execute', { id, op: 'mark', step, status: 'in_progress' }, token);
          await pause(delay(), token);
          await call(log, 'pi_plan_execute', { id, op: 'mark', step, status: 'done', note: `done by the sample agent at ${new Date().toLocaleTimeString()}` }, token);
        }
        void vscode.window.showInformationMessage(`The sample agent finished ${id}.`);
      },
    );
  } catch (e) {
    log.appendLine(`Stopped: ${e && e.message ? e.message : String(e)}`);
    void vscode.window.showErrorMessage(`Sample agent: ${e && e.message ? e.message : String(e)}`);
  } finally {
    running = false;
  }
}

function activate(context) {
  const log = vscode.window.createOutputChannel('Pi Plans Sample Agent');
  context.subscriptions.push(log, vscode.commands.registerCommand('piPlansDemo.runAgent', () => runAgent(log)));
  if (vscode.workspace.getConfiguration('piPlansDemo').get('autoStart', false)) void runAgent(log);
}

module.exports = { activate, deactivate() {} };
