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
/**
 * The change each step makes, for real, in the workspace (as an agent's edit tool would): files
 * written under the first workspace folder. The last step, "Run the test suite", changes nothing
 * and is marked done without a note, so the demo shows one "no evidence" flag beside the steps'
 * evidence and View changes. A step added from a review's feedback adds a comment to the route.
 */
const CHANGES = [
  { 'src/routes/health.ts': "import { routes } from '../server';\n\nexport const BUILD = process.env.BUILD_VERSION ?? 'dev';\n\nroutes.set('/healthz', () => JSON.stringify({ ok: true, build: BUILD }));\n" },
  { 'src/server.ts': (t) => t.replace("import { auth } from './auth';", "import { auth } from './auth';\nimport './routes/health';").replace('  if (!auth(req))', "  if (req.url !== '/healthz' && !auth(req))") },
  { 'test/health.test.ts': "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { routes } from '../src/server';\nimport '../src/routes/health';\n\ntest('/healthz answers ok with the build', () => {\n  assert.deepEqual(JSON.parse(routes.get('/healthz')!()), { ok: true, build: 'dev' });\n});\n" },
  {},
];
const REVIEW_CHANGE = { 'src/routes/health.ts': (t) => `// Reviewed: the route answers without authentication and names the build only.\n${t}` };

/** Makes a step's change in the first workspace folder; false when there is nothing to change. */
async function change(edits) {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (!folder || !Object.keys(edits).length) return false;
  for (const [file, edit] of Object.entries(edits)) {
    const uri = vscode.Uri.joinPath(folder.uri, file);
    const old = await vscode.workspace.fs.readFile(uri).then((b) => Buffer.from(b).toString('utf8'), () => '');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(typeof edit === 'function' ? edit(old) : edit, 'utf8'));
  }
  return true;
}

/** workspaceState: the id of the agent's latest plan, and whether the one automatic run happened. */
const LAST_PLAN = 'piPlansDemo.lastPlan';
const AUTO_STARTED = 'piPlansDemo.autoStarted';

let running = false;

/**
 * The agent's line in the status bar: what it does now, and its log one click away (the Output
 * panel stays closed: the plan and the review request are what the demo opens on).
 */
let statusItem;
function say(text) {
  if (!statusItem) return;
  statusItem.text = `$(hubot) Sample agent: ${text}`;
  statusItem.show();
}

/** Stops a run that the person cancelled (the progress notification's Cancel). */
class Cancelled extends Error {}

/** Calls one tool and returns its text result. */
async function call(log, name, input, token) {
  if (token.isCancellationRequested) throw new Cancelled();
  log.appendLine(`→ ${name} ${JSON.stringify(input)}`);
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
  const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  log.appendLine(`← ${text.split('\n')[0]}`);
  // The review's comments, one line each, as the tool listed them.
  for (const line of text.split('\n')) if (/^- (S\d{3,4}|## )/.test(line)) log.appendLine(`  ${line}`);
  // Tests read the whole conversation from a file (piPlansDemo.transcriptFile, off by default).
  const transcript = vscode.workspace.getConfiguration('piPlansDemo').get('transcriptFile', '');
  if (transcript) require('node:fs').appendFileSync(transcript, `→ ${name} ${JSON.stringify(input)}\n${text}\n\n`);
  return text;
}

/** What a pattern found in a tool's result; a result of another shape stops the agent, quoting it. */
function must(re, text, what) {
  const m = re.exec(text);
  if (!m) throw new Error(`expected ${what} in the tool's result, got: ${text.split('\n')[0]}`);
  return m[1];
}

/** Waits `ms` (so a person can watch the plan change), or less when the run is cancelled. */
const pause = (ms, token) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    token.onCancellationRequested(() => {
      clearTimeout(t);
      resolve();
    });
  });

/** One run: draft a plan, submit it and wait for the review, revise on a rejection, execute on approval. */
async function runAgent(log, state) {
  if (running) {
    void vscode.window.showInformationMessage('The sample agent is already running.');
    return;
  }
  running = true;
  const delay = () => vscode.workspace.getConfiguration('piPlansDemo').get('stepDelayMs', 1500);
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Sample agent', cancellable: true },
      async (progress, token) => {
        const api = await vscode.extensions.getExtension('pi-plans.pi-plans').activate();
        await api.ready;
        const report = (message, increment) => {
          progress.report({ message, increment });
          say(message);
        };
        report('drafting a plan…');
        let r = await call(log, 'pi_plan_create', { title: 'Add a health-check endpoint', goal: 'Load balancers and uptime checks need a cheap endpoint that says the service is up and which build it runs.' }, token);
        const id = must(/\*\*(PLAN-[0-9a-f]{8})\*\*/, r, 'the new plan\'s id');
        await state.update(LAST_PLAN, id);
        const ids = [];
        for (const s of STEPS) {
          r = await call(log, 'pi_plan_step', { id, op: 'add', ...s }, token);
          ids.push(must(/Added (S\d{3,4})/, r, 'the new step\'s id'));
          await pause(delay() / 3, token);
        }
        await call(log, 'pi_plan_update', { id, risks: ['The route must not leak secrets in the build info'], verification: ['npm test passes', 'curl localhost:3000/healthz answers 200'] }, token);
        for (let round = 1; ; round++) {
          report(`waiting for your review of ${id}…`);
          r = await call(log, 'pi_plan_submit', { id, wait: true }, token);
          if (/Approved by/.test(r)) break;
          const feedback = /<feedback>([\s\S]*?)<\/feedback>/.exec(r);
          if (!feedback && !/^Rejected at v/m.test(r)) {
            if (token.isCancellationRequested) throw new Cancelled();
            log.appendLine(`The review ended without a decision: ${r.split('\n')[0]}`);
            return;
          }
          if (/status: needs_review/.test(r)) {
            log.appendLine(`${id} was rejected ${round} times: it needs a person to reopen it. The agent stops here.`);
            return;
          }
          report('revising the plan with your feedback…');
          // Comments on steps: the agent rewrites the first commented step (and only that one),
          // so a reviewer can see one comment addressed and the others not.
          const commented = /^- (S\d{3,4}) "([^"]*)": (.*?) → pi_plan_step/m.exec(r);
          if (commented) {
            await call(log, 'pi_plan_step', { id, op: 'update', step: commented[1], text: `${commented[2]}, as the review asked: ${commented[3].slice(0, 200)}` }, token);
            await pause(delay() / 2, token);
            continue;
          }
          if (!feedback) {
            if (token.isCancellationRequested) throw new Cancelled();
            log.appendLine(`The review ended without a decision: ${r.split('\n')[0]}`);
            return;
          }
          const text = feedback[1].trim().replace(/\s+/g, ' ').slice(0, 400);
          // The revision: a step that addresses the feedback, before the final test run.
          r = await call(log, 'pi_plan_step', { id, op: 'add', text: `Address the review: ${text}`, after: ids[ids.length - 2] }, token);
          ids.splice(ids.length - 1, 0, must(/Added (S\d{3,4})/, r, 'the new step\'s id'));
          await pause(delay() / 2, token);
        }
        report(`executing ${id}…`);
        await call(log, 'pi_plan_execute', { id, op: 'start' }, token);
        // The steps added from feedback sit before the last one: their change is the review's.
        const planned = ids.map((_, i) => (i < STEPS.length - 1 ? CHANGES[i] : i === ids.length - 1 ? CHANGES[STEPS.length - 1] : REVIEW_CHANGE));
        for (const [i, step] of ids.entries()) {
          report(`${step} (${i + 1} of ${ids.length})…`, 100 / ids.length);
          await call(log, 'pi_plan_execute', { id, op: 'mark', step, status: 'in_progress' }, token);
          const changed = await change(planned[i]);
          await pause(delay(), token);
          // The step that changed nothing is marked done without a note: its "no evidence" flag shows.
          await call(log, 'pi_plan_execute', { id, op: 'mark', step, status: 'done', ...(changed ? { note: 'done by the sample agent' } : {}) }, token);
        }
        // Pi Plans itself says "PLAN-… completed." (with Open); a second toast would only be noise.
        log.appendLine(`Finished ${id}.`);
        say(`finished ${id}`);
      },
    );
  } catch (e) {
    if (e instanceof Cancelled || e instanceof vscode.CancellationError) {
      log.appendLine('Cancelled: the plan stays as it is.');
      say('cancelled');
      return;
    }
    log.appendLine(`Stopped: ${e && e.message ? e.message : String(e)}`);
    say('stopped (see its log)');
    void vscode.window.showErrorMessage(`Sample agent: ${e && e.message ? e.message : String(e)}`);
  } finally {
    running = false;
  }
}

/**
 * The demo's one automatic run. A reload or a second tab on the same workspace does not start
 * another plan: it says where the first one stands instead, when it was left unfinished.
 */
async function autoStart(log, state) {
  if (!state.get(AUTO_STARTED, false)) {
    await state.update(AUTO_STARTED, true);
    // The demo opens on Pi Plans' own view: the plans by what they need, the agent's among them.
    await vscode.commands.executeCommand('workbench.view.extension.piPlans').then(undefined, () => undefined);
    return runAgent(log, state);
  }
  const id = state.get(LAST_PLAN);
  if (!id) return undefined;
  const api = await vscode.extensions.getExtension('pi-plans.pi-plans').activate();
  await api.ready;
  const plan = await Promise.resolve(api.readPlan(id)).catch(() => undefined);
  const status = plan && plan.fm ? plan.fm.status : undefined;
  if (!['draft', 'proposed', 'approved', 'executing'].includes(status)) return undefined;
  const again = 'Run the Sample Agent';
  const choice = await vscode.window.showInformationMessage(
    `The sample agent stopped when its window closed: ${id} is ${status}. Run it again for a new plan.`,
    again,
  );
  return choice === again ? runAgent(log, state) : undefined;
}

function activate(context) {
  const log = vscode.window.createOutputChannel('Pi Plans Sample Agent');
  const state = context.workspaceState;
  statusItem = vscode.window.createStatusBarItem('piPlansDemo.agent', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'Pi Plans Sample Agent';
  statusItem.command = 'piPlansDemo.showLog';
  statusItem.tooltip = 'Show the sample agent\'s log: every tool call it made and the first line of each answer';
  say('idle');
  context.subscriptions.push(
    log,
    statusItem,
    vscode.commands.registerCommand('piPlansDemo.runAgent', () => runAgent(log, state)),
    vscode.commands.registerCommand('piPlansDemo.showLog', () => log.show()),
  );
  if (vscode.workspace.getConfiguration('piPlansDemo').get('autoStart', false)) void autoStart(log, state);
}

module.exports = { activate, deactivate() {} };
