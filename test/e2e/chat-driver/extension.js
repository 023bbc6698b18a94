// A UI-test fixture: a scripted language model (VS Code 1.139 sends no chat request, not even to
// an extension's participant, without a model, and hides other vendors' models from its picker
// while signed out of Copilot), and a command that opens the chat with a query and that model,
// as `workbench.action.chat.open` allows. The model's script: asked to plan, it calls
// pi_plan_create once with a plan for the request, then says what it did.
const vscode = require('vscode');

/** The text of a chat message's parts. */
function textOf(message) {
  return (message.content ?? []).map((p) => (typeof p.value === 'string' ? p.value : '')).join('');
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('piplanstest', {
      provideLanguageModelChatInformation: async () => [
        { id: 'scripted', name: 'Scripted', family: 'scripted', version: '1', maxInputTokens: 200000, maxOutputTokens: 8000, capabilities: { toolCalling: true }, isUserSelectable: true },
      ],
      provideLanguageModelChatResponse: async (_model, messages, options, progress) => {
        const last = messages[messages.length - 1];
        const answered = (last.content ?? []).some((p) => p && p.callId !== undefined && Array.isArray(p.content));
        const offered = (options.tools ?? []).map((t) => t.name);
        if (answered) {
          progress.report(new vscode.LanguageModelTextPart('I drafted the plan with four steps; it is yours to review.'));
          return;
        }
        if (!offered.includes('pi_plan_create')) {
          progress.report(new vscode.LanguageModelTextPart(`No plan tools were offered (${offered.join(', ') || 'none'}).`));
          return;
        }
        const task = textOf(last).trim() || 'the task';
        progress.report(new vscode.LanguageModelTextPart('Planning it.\n\n'));
        progress.report(
          new vscode.LanguageModelToolCallPart('call-1', 'pi_plan_create', {
            title: task.slice(0, 80),
            goal: `Done when: ${task}.`,
            verification: ['The new test passes', 'npm test passes'],
            steps: [
              { text: 'Read the router and the existing middleware', tool: 'read', operation: 'inspect', target: 'src/server.ts' },
              { text: 'Add the route', tool: 'edit', operation: 'update', target: 'src/server.ts' },
              { text: 'Test it: 200 and a JSON body', tool: 'edit', operation: 'create', target: 'test/health.test.ts' },
              { text: 'Run the test suite' },
            ],
          }),
        );
      },
      provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4),
    }),
    vscode.commands.registerCommand('piPlansTest.askChat', async () => {
      const query = await vscode.window.showInputBox({ prompt: 'What to send to the chat', ignoreFocusOut: true });
      if (!query) return;
      await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: 'piplanstest' } });
    }),
  );
};
exports.deactivate = () => undefined;
