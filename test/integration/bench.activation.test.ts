// Not a test: `npm run bench` runs this suite to read the extension's activation time inside the
// real extension host. Activation is measured by the extension itself (activate() start to return;
// the index loads after that, in the background) and printed with the index load time.
import * as vscode from 'vscode';
import { api, EXTENSION_ID, say } from './helpers';

describe('bench: activation', function () {
  this.timeout(60_000);
  it('reports activation and index load times', async () => {
    const t0 = Date.now();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const a = await api();
    say(`BENCH activation_ms=${a.activationMs.toFixed(2)} ready_after_ms=${Date.now() - t0} plans=${a.listPlans().length} active=${ext.isActive}`);
  });
});
