import { strict as assert } from 'node:assert';
import { FromWebviewSchema } from '../../../src/protocol/planEditor';

// The host drops (and logs) every message from the plan editor's webview that this schema does not
// accept: a page that a plan's text took over could send anything.
describe('plan editor protocol: what the host accepts from the webview', () => {
  it('accepts the messages the webview sends', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'command', command: 'approve', version: 3 },
      { type: 'reject', feedback: 'Add a rollback step', version: 3 },
      { type: 'mark', step: 'S003', status: 'done', version: 4 },
      { type: 'openLink', href: 'src/a.ts' },
      { type: 'editStep', op: 'move', step: 'S002', after: 'start', version: 2 },
      { type: 'editSection', key: 'risks', text: '- one', version: 2 },
      { type: 'comment', anchor: 'S001' },
    ]) assert.equal(FromWebviewSchema.safeParse(m).success, true, JSON.stringify(m));
  });

  it('refuses anything else: unknown types and commands, a command URI as a step id, oversized text, missing versions', () => {
    for (const m of [
      undefined,
      'ready',
      { type: 'eval', code: 'x' },
      { type: 'command', command: 'workbench.action.terminal.new', version: 1 },
      { type: 'command', command: 'approve' },
      { type: 'reject', feedback: '', version: 1 },
      { type: 'reject', feedback: 'x'.repeat(20_001), version: 1 },
      { type: 'mark', step: 'command:x', status: 'done', version: 1 },
      { type: 'mark', step: 'S001', status: 'completed', version: 1 },
      { type: 'openLink', href: 'x'.repeat(2001) },
      { type: 'editStep', op: 'rewrite', version: 1 },
      { type: 'editStep', op: 'move', step: 'S001', after: '../S002', version: 1 },
      { type: 'editSection', key: 'steps', text: 'x', version: 1 },
    ]) assert.equal(FromWebviewSchema.safeParse(m).success, false, JSON.stringify(m)?.slice(0, 80));
  });
});
