// A UI-test fixture: calls `piPlans.approve` with `{ id, version }` exactly as another extension,
// or an agent whose tools can run commands, could; then says what the command returned.
const vscode = require('vscode');

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand('piPlansTest.approveByCommand', async () => {
      const v = await vscode.window.showInputBox({ prompt: 'PLAN-<id>@<version>', ignoreFocusOut: true });
      const m = /^(PLAN-[0-9a-f]{8})@(\d+)$/.exec(v ?? '');
      if (!m) return;
      const r = await vscode.commands.executeCommand('piPlans.approve', { id: m[1], version: Number(m[2]) });
      void vscode.window.showInformationMessage(`approve command returned: ${r ? r.status : 'nothing'}`);
    }),
  );
};
exports.deactivate = () => undefined;
