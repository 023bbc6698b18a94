// `pi-plans approve` and `confirm` at a real terminal: the built CLI in a pseudo-terminal (util-linux
// `script`), answered at its prompt as a person types, and the same commands without a terminal.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atTerminal as atTerminal_ } from '../../helpers/terminal';
import { personSync } from '../../helpers/person.mjs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const ID = 'PLAN-0000000a';
const PLAN = `---\nid: ${ID}\ntitle: "Fix the thing"\nstatus: proposed\nversion: 3\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-02T00:00:00.000Z\n---\n\n## Goal\nMake it work\n\n## Steps\n1. [ ] S001 first\n`;

describe('pi-plans at a terminal (a pseudo-terminal, the built CLI)', function () {
  this.timeout(30_000);
  let root: string;
  let home: string;
  const env = () => ({ ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_STATE_HOME: path.join(home, 'state'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') });
  const file = () => fs.readFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), 'utf8');

  /** Runs the CLI in a pseudo-terminal; types `answer` once the prompt is on the screen. */
  const atTerminal = (answer: string, ...args: string[]) => atTerminal_(['--root', root, ...args], env(), answer);

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tty-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tty-home-'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), PLAN);
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ name: 'Ana' }));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('approve shows the title, version and digest and asks: "n" leaves the plan as it was, "y" approves it, signed', async () => {
    const no = await atTerminal('n', 'approve', ID);
    assert.equal(no.code, 1);
    assert.match(no.screen, /Fix the thing[\s\S]*version: 3[\s\S]*digest: sha256:[0-9a-f]{64}[\s\S]*Approve PLAN-0000000a "Fix the thing" at v3\? \[y\/N\]/);
    assert.match(no.screen, /was not approved/);
    assert.equal(file(), PLAN);
    const yes = await atTerminal('y', 'approve', ID);
    assert.equal(yes.code, 0, yes.screen);
    assert.match(yes.screen, /PLAN-0000000a approved at v3 \(now v4\), signed by Ana\./);
    assert.match(file(), /^status: approved$/m);
    assert.match(file(), /^approval_sig: /m);
  });

  it('the same command without a terminal (a pipe, as an agent runs it) approves nothing, and its answer coaches no model: no --digest, no `show`', () => {
    const r = spawnSync(process.execPath, [CLI, '--root', root, 'approve', ID], { env: env(), encoding: 'utf8', input: 'y\n' });
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr,
      "pi-plans: PLAN-0000000a was not approved: approving a plan is a person's decision, and there is no terminal here to ask one. The person approves it in VS Code, or runs `pi-plans approve PLAN-0000000a` in their own terminal (it shows the plan and asks). An agent reading this: ask the user to review the plan; do not approve it yourself.\n",
    );
    assert.doesNotMatch(r.stderr, /--digest|pi-plans show|digest/);
    assert.equal(file(), PLAN);
  });

  /** The plan approved by Bo on his machine (his own key): approved elsewhere here. */
  function approvedByBo(): string {
    const bo = path.join(home, 'bo');
    fs.mkdirSync(path.join(bo, 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(bo, 'pi-plans', 'config.json'), JSON.stringify({ name: 'Bo' }));
    const asBo = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', root, ...args], { env: { ...env(), XDG_CONFIG_HOME: bo }, encoding: 'utf8' });
    const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(asBo('show', ID).stdout)![1];
    assert.equal(personSync(CLI, ['--root', root, 'approve', ID, '--digest', digest], { env: { ...env(), XDG_CONFIG_HOME: bo } }).status, 0);
    return /^(ed25519:\S+)/.exec(asBo('key').stdout)![1];
  }

  it('confirm needs a person at a terminal: without one it confirms nothing, --digest or not; at a terminal it shows who signed and asks', async () => {
    approvedByBo();
    const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(spawnSync(process.execPath, [CLI, '--root', root, 'show', ID], { env: env(), encoding: 'utf8' }).stdout)![1];
    for (const args of [['confirm', ID], ['confirm', ID, '--digest', digest]]) {
      const r = spawnSync(process.execPath, [CLI, '--root', root, ...args], { env: env(), encoding: 'utf8', input: 'y\n' });
      assert.equal(r.status, args.length > 2 ? 2 : 1, r.stderr);
      if (args.length === 2) {
        assert.equal(
          r.stderr,
          "pi-plans: PLAN-0000000a: the approval was not confirmed: confirming an approval made on another machine is a person's decision, and there is no terminal here to ask one. The person confirms it in VS Code (Pi Plans: Confirm Approval…), or runs `pi-plans confirm PLAN-0000000a` in their own terminal. An agent reading this: ask the user; do not confirm it yourself.\n",
        );
      } else assert.match(r.stderr, /unknown option '--digest'/);
    }
    assert.equal(fs.existsSync(path.join(home, 'config', 'pi-plans', 'confirmed-approvals.json')), false);
    const yes = await atTerminal('y', 'confirm', ID);
    assert.equal(yes.code, 0, yes.screen);
    assert.match(yes.screen, /approved by Bo at v3 on another machine, key ed25519:[\s\S]*Confirm this approval of PLAN-0000000a on this machine, so it can run\? \[y\/N\]/);
    assert.match(yes.screen, /the approval by Bo at v3 is confirmed on this machine/);
  });

  it('trust needs a person at a terminal: without one no key is trusted; at a terminal it names the key and asks', async () => {
    const key = approvedByBo();
    const config = path.join(home, 'config', 'pi-plans', 'config.json');
    const before = fs.readFileSync(config, 'utf8');
    const r = spawnSync(process.execPath, [CLI, '--root', root, 'trust', key, '--name', 'Bo'], { env: env(), encoding: 'utf8', input: 'y\n' });
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr,
      "pi-plans: the key was not trusted: trusting another person's approval key is a person's decision, and there is no terminal here to ask one. The person runs `pi-plans trust` in their own terminal, or chooses Always Trust in VS Code's Confirm Approval. An agent reading this: ask the user; do not trust a key yourself.\n",
    );
    assert.equal(fs.readFileSync(config, 'utf8'), before);
    const no = await atTerminal('n', 'trust', key, '--name', 'Bo');
    assert.equal(no.code, 1);
    assert.equal(fs.readFileSync(config, 'utf8'), before);
    const yes = await atTerminal('y', 'trust', key, '--name', 'Bo');
    assert.equal(yes.code, 0, yes.screen);
    assert.match(yes.screen, new RegExp(`Trust approvals signed by ${key.slice(0, 20)}… as Bo's, on this machine\\? \\[y\\/N\\]`));
    assert.match(fs.readFileSync(config, 'utf8'), new RegExp(key));
  });
});
