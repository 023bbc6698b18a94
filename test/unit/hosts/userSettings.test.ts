// The hook settings VS Code writes from the person's user settings into Pi Plans' config.json,
// where `pi-plans hook` reads them: only `hooks` changes, a broken file is left alone.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeUserHookSettings } from '../../../src/hosts/install/userSettings';
import { readSettings } from '../../../src/hosts/hook/workspace';

describe('the hook settings in the user\'s Pi Plans configuration', () => {
  let dir: string;
  let ws: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-usersettings-'));
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-usersettings-ws-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  });
  const file = () => path.join(dir, 'pi-plans', 'config.json');
  const env = () => ({ XDG_CONFIG_HOME: dir });

  it('writes hooks beside the person\'s other keys, which the hook then reads; unset keys go', () => {
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify({ name: 'Ana', trustedApprovers: [] }));
    assert.equal(writeUserHookSettings(path.dirname(file()), { planningTerminal: 'deny' }), true);
    assert.deepEqual(JSON.parse(fs.readFileSync(file(), 'utf8')), { name: 'Ana', trustedApprovers: [], hooks: { planningTerminal: 'deny' } });
    assert.deepEqual(readSettings(ws, env()), { planningTerminal: 'deny', otherFiles: 'ask' });
    assert.equal(writeUserHookSettings(path.dirname(file()), { planningTerminal: 'deny' }), false, 'nothing changed');
    writeUserHookSettings(path.dirname(file()), {});
    assert.deepEqual(JSON.parse(fs.readFileSync(file(), 'utf8')), { name: 'Ana', trustedApprovers: [] });
  });

  it('a file that does not parse is left as it is (and the hook fails closed on it, naming it)', () => {
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), '{ nope');
    assert.throws(() => writeUserHookSettings(path.dirname(file()), { otherFiles: 'allow' }));
    assert.equal(fs.readFileSync(file(), 'utf8'), '{ nope');
    assert.throws(() => readSettings(ws, env()), /config\.json does not parse/);
  });
});
