// A UI-test fixture: a scripted language model for VS Code's agent mode (the Local agent of
// Copilot Chat), so a turn calls VS Code's own tools offline. Every request it receives is logged
// (the tools offered, the tool results it saw) to the file PI_PLANS_DRIVER_LOG names. Its script,
// from the query "PLAN-… <edit tool> <absolute path> [start]":
// 1. pi_plan_get with the plan id (the PostToolUse hook binds the session to the plan);
// 2. with "start": pi_plan_execute start;
// 3. the edit tool on the path (create_file: a small TypeScript file);
// 4. says what the edit tool answered.
// From the query "[#tag] PLAN-… call <tool> <JSON input>": pi_plan_get, then that tool with that
// input, then says what it answered, with the tag (a tool of unknown effect, a command in the terminal).
// A message that is not a query (a Stop hook's reason) is answered with text: the turn ends.
const vscode = require('vscode');
const fs = require('fs');

const LOG = process.env.PI_PLANS_DRIVER_LOG;
const log = (entry) => {
  if (LOG) fs.appendFileSync(LOG, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
};
const SCRIPT = /(PLAN-[0-9a-f]{8}) (\S+) (\/\S+)( start)?/;
const CALL = /(#\w+ )?(PLAN-[0-9a-f]{8}) call (\S+) (\{.*\})/s;

const textOf = (message) => (message.content ?? []).map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
const isResult = (p) => p && p.callId !== undefined && Array.isArray(p.content);
const resultText = (part) => part.content.map((c) => (typeof c.value === 'string' ? c.value : '')).join('');

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('piplanstest', {
      provideLanguageModelChatInformation: async () => [
        { id: 'scripted', name: 'Scripted', family: 'scripted', version: '1', maxInputTokens: 200000, maxOutputTokens: 8000, capabilities: { toolCalling: true }, isUserSelectable: true },
      ],
      provideLanguageModelChatResponse: async (_model, messages, options, progress) => {
        const offered = (options.tools ?? []).map((t) => t.name);
        const last = messages[messages.length - 1];
        // The turn: from the last user message holding a query on.
        let start = -1;
        for (let i = messages.length - 1; i >= 0; i--) {
          if (messages[i].role === vscode.LanguageModelChatMessageRole.User && (SCRIPT.test(textOf(messages[i])) || CALL.test(textOf(messages[i])))) {
            start = i;
            break;
          }
        }
        const results = messages.slice(start + 1).flatMap((m) => (m.content ?? []).filter(isResult).map((p) => ({ callId: p.callId, text: resultText(p).slice(0, 1500) })));
        const lastText = textOf(last);
        log({ event: 'request', offered, results, last: lastText.slice(-1500) });
        const say = (text) => progress.report(new vscode.LanguageModelTextPart(text));
        const call = (name, input) => progress.report(new vscode.LanguageModelToolCallPart(`${name}-${Date.now()}`, name, input));
        if (start < 0) return say(`No script in the query. Offered: ${offered.join(', ')}`);
        const called = (name) => results.some((r) => r.callId.startsWith(`${name}-`));
        const asCall = CALL.exec(textOf(messages[start]));
        if (asCall) {
          const [, tag = '', plan, tool, input] = asCall;
          if (!(last.content ?? []).some(isResult) && messages.length - 1 !== start) return say(`Noted: ${lastText.slice(-300)}`);
          if (!called('pi_plan_get')) return call('pi_plan_get', { id: plan });
          if (!called(tool)) {
            if (!offered.includes(tool)) return say(`${tool} was not offered (${offered.join(', ')}).`);
            return call(tool, JSON.parse(input));
          }
          return say(`The tool answered ${tag.trim()}: ${results.filter((r) => r.callId.startsWith(`${tool}-`)).at(-1).text}`);
        }
        const [, plan, tool, file, startIt] = SCRIPT.exec(textOf(messages[start]));
        if (!(last.content ?? []).some(isResult) && messages.length - 1 !== start) return say(`Noted: ${lastText.slice(-300)}`);
        if (!called('pi_plan_get')) return call('pi_plan_get', { id: plan });
        if (startIt && !called('pi_plan_execute')) return call('pi_plan_execute', { id: plan, op: 'start' });
        if (!called(tool)) {
          if (!offered.includes(tool)) return say(`${tool} was not offered (${offered.join(', ')}).`);
          return call(tool, { filePath: file, content: 'export const answer = 42;\n' });
        }
        return say(`The edit tool answered: ${results.filter((r) => r.callId.startsWith(`${tool}-`)).at(-1).text}`);
      },
      provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
    }),
    vscode.commands.registerCommand('piPlansTest.askAgent', async () => {
      const query = await vscode.window.showInputBox({ prompt: 'What to send to the agent', ignoreFocusOut: true });
      if (!query) return;
      // Copilot Chat registers its agent only when its activation ends (after it has seen a model,
      // ours). A request sent before goes to VS Code's placeholder agent, which starts the sign-in
      // flow ("Sign in to use GitHub Copilot") instead: wait for the activation, however late it is.
      await vscode.extensions.getExtension('github.copilot-chat')?.activate();
      await vscode.commands.executeCommand('workbench.action.chat.open', { query, mode: 'agent', modelSelector: { vendor: 'piplanstest' } });
    }),
  );
};
exports.deactivate = () => undefined;
