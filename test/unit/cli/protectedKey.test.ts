// A key the agent cannot use: `pi-plans key --protect` puts the person's approval key under a
// passphrase, and then every route an agent running as the user was found to have is tried: the
// built CLI without a terminal and in a pseudo-terminal, the key file read and used by hand, its
// own key written into the trust list, a confirmation planted, its own approval with the user's
// opt-in. Each must leave the plan unapproved; the person at a terminal with the passphrase
// approves it.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { contentDigest, parsePlan } from '../../../src/core';
import { openNodeStore } from '../../../src/node';
import { approvePlan } from '../../../src/service';
import { sealApproval } from '../../helpers/approvals';
import { atTerminalAnswering, CLI } from '../../helpers/terminal';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ID = 'PLAN-0000000a';
const PLAN = `---\nid: ${ID}\ntitle: "Fix the thing"\nstatus: proposed\nversion: 3\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-02T00:00:00.000Z\n---\n\n## Goal\nMake it work\n\n## Steps\n1. [ ] S001 first\n`;
const PASS = 'correct horse battery';

describe('a protected approval key (pi-plans key --protect): no route of an agent approves', function () {
  this.timeout(60_000);
  let root: string;
  let home: string;
  const config = () => path.join(home, 'config', 'pi-plans');
  const env = () => ({ ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_STATE_HOME: path.join(home, 'state'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') });
  const file = () => fs.readFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), 'utf8');
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, '--root', root, ...args], { env: env(), encoding: 'utf8' });
  const standing = () => JSON.parse(cli('show', ID, '--json').stdout).approval as { state: string };
  const atTerminal = (answers: [RegExp, string][], ...args: string[]) => atTerminalAnswering(['--root', root, ...args], env(), answers);
  const approveTyping = (passphrase: string) => atTerminal([[/\[y\/N\] /, 'y'], [/Passphrase of your approval key/, passphrase]], 'approve', ID);

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-key-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-key-home-'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), PLAN);
    fs.mkdirSync(config(), { recursive: true });
    fs.writeFileSync(path.join(config(), 'config.json'), JSON.stringify({ name: 'Ana' }));
    const r = await atTerminal([[/New passphrase/, PASS], [/same passphrase again/, PASS]], 'key', '--protect');
    assert.equal(r.code, 0, r.screen);
    assert.match(r.screen, /Your approval key is protected/);
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('the key file holds no usable key: encrypted PKCS#8 under scrypt of the passphrase, the public key readable beside it', () => {
    const text = fs.readFileSync(path.join(config(), 'approval-key.pem'), 'utf8');
    assert.match(text, /^Pi-Plans-Key: protected\nPublic-Key: ed25519:\S{43}\nKDF: scrypt N=131072 r=8 p=1 salt=\S+\n-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    const pem = text.slice(text.indexOf('-----BEGIN'));
    assert.throws(() => createPrivateKey(pem), 'no key without a passphrase');
    assert.throws(() => createPrivateKey({ key: pem, format: 'pem', passphrase: PASS }), 'nor with the passphrase itself: it is scrypt of it');
    assert.match(cli('key').stdout, /^ed25519:\S{43} {2}Ana {2}\(protected by a passphrase\)$/m);
    assert.equal((fs.statSync(path.join(config(), 'approval-key.pem')).mode & 0o777).toString(8), '600');
  });

  it('the person at a terminal approves with the passphrase; a wrong or empty one approves nothing', async () => {
    for (const wrong of ['not it at all', '']) {
      const r = await approveTyping(wrong);
      assert.equal(r.code, 1, r.screen);
      assert.match(r.screen, wrong ? /not the passphrase of your approval key[^\n]*nothing was signed/ : /no passphrase was entered: nothing was signed/);
      assert.equal(file(), PLAN);
    }
    const ok = await approveTyping(PASS);
    assert.equal(ok.code, 0, ok.screen);
    assert.match(ok.screen, /PLAN-0000000a approved at v3 \(now v4\), signed by Ana\./);
    assert.equal(standing().state, 'valid');
  });

  it('an agent: the CLI without a terminal, --digest or not, approves nothing', () => {
    const digest = /^digest: (sha256:[0-9a-f]{64})$/m.exec(cli('show', ID).stdout)![1];
    for (const args of [['approve', ID], ['approve', ID, '--digest', digest], ['key', '--unprotect'], ['trust', `ed25519:${'A'.repeat(43)}`, '--name', 'Me']]) {
      const r = cli(...args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /no terminal here to ask one/);
    }
    assert.equal(file(), PLAN);
  });

  it('an agent: its own key written into the trust list, or a confirmation planted, makes its own approval of the plan count for nothing', () => {
    // The agent makes a key pair, signs an approval record of the plan as it is, and marks it approved.
    const mine = generateKeyPairSync('ed25519');
    const key = `ed25519:${mine.publicKey.export({ format: 'jwk' }).x}`;
    const signer = { key, approver: 'Ana', sign: (p: string) => sign(null, Buffer.from(p), mine.privateKey).toString('base64url') };
    const forged = sealApproval(parsePlan(PLAN.replace('status: proposed', 'status: approved')), signer);
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), forged.text);
    assert.notEqual(standing().state, 'valid');
    // Its key in the trust list (as `trust` wrote it before seals, and with a made-up seal).
    for (const seal of [undefined, signer.sign(`pi-plans trust v1\n${key}\nAna`)]) {
      fs.writeFileSync(path.join(config(), 'config.json'), JSON.stringify({ name: 'Ana', trustedApprovers: [{ name: 'Ana', key, ...(seal ? { seal } : {}) }] }));
      assert.notEqual(standing().state, 'valid', `trusted with seal ${seal ?? 'none'}`);
    }
    // Its approval's signature among the confirmations.
    fs.writeFileSync(path.join(config(), 'confirmed-approvals.json'), JSON.stringify({ confirmed: [{ signature: forged.fm.approval_sig, plan: ID, approver: 'Ana', key, at: new Date().toISOString() }] }));
    assert.notEqual(standing().state, 'valid');
  });

  it("an agent: its own approval (pi_plan_approve) is refused while the key is protected, even with the user's agentMayApprove", async () => {
    fs.writeFileSync(path.join(config(), 'config.json'), JSON.stringify({ name: 'Ana', agentMayApprove: true }));
    const saved = { ...process.env };
    Object.assign(process.env, env());
    try {
      const store = await openNodeStore(root, { index: false });
      const doc = await store.read(ID);
      await assert.rejects(approvePlan({ store }, ID, { actor: 'agent', seen: { digest: contentDigest(doc) }, agentMayApprove: true }), /agents cannot approve while the person's approval key is protected/);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
    assert.equal(file(), PLAN);
  });

  it('what the plain key trusted before --protect still counts (sealed by it); --unprotect needs the passphrase', async () => {
    await atTerminal([[/Passphrase of your approval key/, PASS]], 'key', '--unprotect');
    assert.doesNotMatch(fs.readFileSync(path.join(config(), 'approval-key.pem'), 'utf8'), /Pi-Plans-Key/);
    // Bo approves on his machine; Ana trusts his key while hers is plain, then protects it again.
    const bo = path.join(home, 'bo');
    fs.mkdirSync(path.join(bo, 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(bo, 'pi-plans', 'config.json'), JSON.stringify({ name: 'Bo' }));
    const boEnv = { ...env(), XDG_CONFIG_HOME: bo };
    const boKey = /^(ed25519:\S+)/.exec(spawnSync(process.execPath, [CLI, 'key'], { env: boEnv, encoding: 'utf8' }).stdout)![1];
    const boApproves = await atTerminalAnswering(['--root', root, 'approve', ID], boEnv, [[/\[y\/N\] /, 'y']]);
    assert.equal(boApproves.code, 0, boApproves.screen);
    assert.equal(standing().state, 'foreign');
    assert.equal((await atTerminal([[/\[y\/N\] /, 'y']], 'trust', boKey, '--name', 'Bo')).code, 0);
    assert.equal(standing().state, 'valid');
    const again = await atTerminal([[/New passphrase/, PASS], [/same passphrase again/, PASS]], 'key', '--protect');
    assert.match(again.screen, /the 1 trust or confirmation entry it held is sealed with it/);
    assert.equal(standing().state, 'valid', 'the sealed trust still counts');
    const wrong = await atTerminal([[/Passphrase of your approval key/, 'guess']], 'key', '--unprotect');
    assert.equal(wrong.code, 1);
    assert.match(fs.readFileSync(path.join(config(), 'approval-key.pem'), 'utf8'), /^Pi-Plans-Key: protected/);
  });
  it('hook release at a terminal: yes alone frees nothing while the key is protected; with its passphrase the session is free', async () => {
    const BIN = path.join(path.dirname(CLI), 'bin.js');
    const session = '0b9c2f4e-0000-4000-8000-00000000re1e';
    const payload = { session_id: session, hook_event_name: 'PostToolUse', tool_name: 'mcp__pi-plans__pi_plan_get', tool_input: { id: ID }, tool_response: `${ID} (proposed, v3)`, cwd: root };
    const hook = spawnSync(process.execPath, [BIN, 'hook', '--agent', 'claude'], { input: JSON.stringify(payload), env: { ...env(), CLAUDE_PROJECT_DIR: '' }, encoding: 'utf8' });
    assert.equal(hook.status, 0, hook.stderr);
    const bound = () => spawnSync(process.execPath, [BIN, '--root', root, 'hook', 'status'], { env: env(), encoding: 'utf8' }).stdout;
    assert.match(bound(), /claude session 0b9c2f4e/);
    // The agent's pseudo-terminal: it can type "y", not the passphrase.
    const guess = await atTerminalAnswering(['--root', root, 'hook', 'release', '0b9c2f4e'], env(), [[/\[y\/N\] /, 'y'], [/Passphrase of your approval key/, 'guess']]);
    assert.equal(guess.code, 1, guess.screen);
    assert.match(guess.screen, /not freed: .*not the passphrase of your approval key/);
    assert.match(bound(), /claude session 0b9c2f4e/, 'still bound');
    const person = await atTerminalAnswering(['--root', root, 'hook', 'release', '0b9c2f4e'], env(), [[/\[y\/N\] /, 'y'], [/Passphrase of your approval key/, PASS]]);
    assert.equal(person.code, 0, person.screen);
    assert.match(person.screen, /Freed: the Claude Code session is no longer bound/);
    assert.match(bound(), /No agent session is bound/);
  });

  it('setup --remove loosens every session of the host: refused without a terminal (nothing removed), asks yes and the passphrase at one', async () => {
    const settings = path.join(root, '.claude', 'settings.json');
    assert.equal(cli('setup', '--agent', 'claude', '--no-mcp').status, 0);
    const hooks = fs.readFileSync(settings, 'utf8');
    const agent = cli('setup', '--agent', 'claude', '--remove');
    assert.equal(agent.status, 1);
    assert.match(agent.stderr, /frees every Claude Code session from its plan: a person decides that.*An agent reading this: ask the user/s);
    assert.equal(fs.readFileSync(settings, 'utf8'), hooks, 'nothing removed');
    assert.equal(cli('setup', '--agent', 'claude', '--remove', '--dry-run').status, 0, 'a dry run changes nothing: anyone may look');
    const guess = await atTerminal([[/\[y\/N\] /, 'y'], [/Passphrase of your approval key/, 'guess']], 'setup', '--agent', 'claude', '--remove');
    assert.equal(guess.code, 1, guess.screen);
    assert.equal(fs.readFileSync(settings, 'utf8'), hooks, 'nothing removed on a wrong passphrase');
    const person = await atTerminal([[/Remove Pi Plans' hooks from \.claude\/settings\.json.*\[y\/N\] /, 'y'], [/Passphrase of your approval key/, PASS]], 'setup', '--agent', 'claude', '--remove');
    assert.equal(person.code, 0, person.screen);
    assert.equal(fs.existsSync(settings), false, 'the file setup made is gone');
    assert.match(cli('setup', '--agent', 'claude', '--remove').stdout, /Nothing to remove\./, 'nothing to take out: no person needed');
  });
});
