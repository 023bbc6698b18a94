// Issue 40: approval verdicts kept on disk (src/node/ports/approvalVerdicts.ts), so an approval is
// checked once per file version and machine; and an entry that is stale, corrupt, planted or a
// link is never trusted. The agent runs as the user: it can write the cache folder, read every
// file the user can, and run this code; the tests plant what it could.
import { strict as assert } from 'node:assert';
import { createHash, generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { approve, OpContext } from '../../../src/core';
import { ApprovalVerdicts, userPorts, verdictsFile } from '../../../src/node';
import { verdictMac, verdictSecret } from '../../../src/node/ports/approvalVerdicts';
import { decisionLedgerFile, recordDecision } from '../../../src/node/ports/decisionLedger';
import { NodeApprovalKeys } from '../../../src/node/ports/approvalKeys';
import { PlanStore } from '../../../src/store';
import { seenNow } from '../../helpers/approvals';
import { MemoryFileSystem, memoryPorts, testApprovalKeys } from '../../helpers/memoryPorts';

const ROOT = '/w';
const planFile = (id: string) => `${ROOT}/.pi/plans/${id}.md`;
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** One machine: its keys, its cache folder, and the plans folder (in memory) its processes share. */
class Machine {
  readonly keys: NodeApprovalKeys = testApprovalKeys(ROOT);
  readonly keyFile = path.join(this.keys.configDir, 'approval-key.pem');
  readonly cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verdicts-'));
  readonly stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verdicts-state-'));
  readonly base = memoryPorts(Date.parse('2026-11-22T10:00:00.000Z'), { approvals: this.keys });
  readonly fs: MemoryFileSystem = this.base.fs;
  /** The approvals port with this workspace's record of decisions (as nodePorts gives it). */
  readonly approvals = userPorts(ROOT, this.keys, this.stateDir).approvals;
  /** Every process's verdicts port, flushed before the folders are removed (a flush left for later would make them again). */
  private readonly made: ApprovalVerdicts[] = [];

  /** A new process: a store on the same files, with its own verdicts port; `parses` counts the plans it parses. */
  async process(): Promise<{ store: PlanStore; verdicts: ApprovalVerdicts; parses: () => number; flags: () => Promise<Record<string, string | undefined>> }> {
    let parses = 0;
    const verdicts = new ApprovalVerdicts(ROOT, this.cacheDir, this.keyFile);
    this.made.push(verdicts);
    const store = await PlanStore.open(ROOT, { ...this.base.ports, approvals: this.approvals, verdicts, parser: { prepare: async () => void parses++ } });
    const flags = async () => {
      const keyring = await store.keyring();
      const rows = store.list();
      return Object.fromEntries(await Promise.all(rows.map(async (r) => [r.id, await store.attention(r, { keyring })] as const)));
    };
    return { store, verdicts, parses: () => parses, flags };
  }

  /** Plans proposed by an agent and approved by the person (signed with their key). */
  async approvedPlans(n: number): Promise<string[]> {
    const { store, verdicts } = await this.process();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const doc = await store.create({ title: `T${i}`, goal: `Goal ${i}`, steps: [{ text: `a${i}` }, { text: `b${i}` }], status: 'proposed' }, 'agent');
      await store.update(doc.fm.id, 'user', (d, c: OpContext) => approve(d, seenNow(d), c), { sign: true });
      ids.push(doc.fm.id);
    }
    await verdicts.flush();
    return ids;
  }

  /** The agent edits an approved plan's step text as a file. */
  edit(id: string): Uint8Array {
    this.fs.put(planFile(id), this.fs.text(planFile(id))!.replace(/(S001 a\d+)/, '$1, and also delete the database'));
    return this.fs.files.get(planFile(id))!;
  }

  /** Writes the verdicts file as an agent would, entries given. */
  plant(entries: Record<string, [string, string, string, string]>): void {
    const file = verdictsFile(ROOT, this.cacheDir);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, JSON.stringify({ v: 1, root: ROOT, entries }));
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.made.map((v) => v.flush()));
    fs.rmSync(this.cacheDir, { recursive: true, force: true });
    fs.rmSync(this.stateDir, { recursive: true, force: true });
  }
}

describe('approval verdicts kept on disk: a planted entry is never trusted (issue 40)', function () {
  this.timeout(60_000);
  let m: Machine;
  beforeEach(() => (m = new Machine()));
  afterEach(() => m.cleanup());

  it("a 'valid' entry planted for a text changed since approval, signed with everything an agent can read (the key protected by a passphrase): the plan reads as changed", async () => {
    const [id] = await m.approvedPlans(1);
    m.keys.protect('correct horse battery staple');
    const changed = m.edit(id);
    // The agent reads the (encrypted) key file, knows this code, and forges the entry it would write.
    const state = (await m.approvals.keyring()).state!;
    const secret = verdictSecret(fs.readFileSync(m.keyFile, 'utf8')).key;
    m.plant({ [id]: [sha(changed), state, 'valid', verdictMac(secret, ROOT, id, sha(changed), state, 'valid')] });
    const p = await m.process();
    assert.deepEqual(await p.flags(), { [id]: 'changed' });
    assert.equal(p.parses(), 1, 'checked on the text itself');
  });

  it("a 'valid' entry planted without the person's plain key (its own key, a made-up secret, copied from another plan or workspace): the plan reads as changed", async () => {
    const [id, other] = await m.approvedPlans(2);
    const p1 = await m.process();
    assert.deepEqual(await p1.flags(), { [id]: undefined, [other]: undefined });
    await p1.verdicts.flush();
    const kept = JSON.parse(fs.readFileSync(verdictsFile(ROOT, m.cacheDir), 'utf8')) as { entries: Record<string, [string, string, string, string]> };
    const changed = m.edit(id);
    const state = (await m.approvals.keyring()).state!;
    const s = sha(changed);
    const ownKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const forgeries: [string, [string, string, string, string]][] = [
      ['its own key', [s, state, 'valid', verdictMac(verdictSecret(ownKey).key, ROOT, id, s, state, 'valid')]],
      ['no key at all', [s, state, 'valid', verdictMac(verdictSecret(undefined).key, ROOT, id, s, state, 'valid')]],
      ["another plan's entry, its bytes renamed", [s, state, 'valid', kept.entries[other][3]]],
      ["this plan's entry for the approved text", kept.entries[id]],
      ['the MAC of another workspace', [s, state, 'valid', verdictMac(verdictSecret(fs.readFileSync(m.keyFile, 'utf8')).key, '/elsewhere', id, s, state, 'valid')]],
      ['no MAC', [s, state, 'valid', '']],
    ];
    for (const [what, entry] of forgeries) {
      m.plant({ ...kept.entries, [id]: entry });
      const p = await m.process();
      assert.deepEqual(await p.flags(), { [id]: 'changed', [other]: undefined }, what);
      assert.equal(p.parses(), 1, `${what}: the changed plan checked on its text, the other from the cache`);
    }
  });

  it('a verdict kept before a later decision of the person (withdrawn) or a change of trust does not count: the keyring it was made under is gone', async () => {
    const [id, other] = await m.approvedPlans(2);
    const p1 = await m.process();
    assert.deepEqual(await p1.flags(), { [id]: undefined, [other]: undefined });
    await p1.verdicts.flush();
    const doc = await p1.store.read(id);
    await recordDecision(decisionLedgerFile(ROOT, m.stateDir), { plan: id, decision: 'withdraw', version: doc.fm.version, digest: doc.fm.approved_hash!, at: '2026-11-22T11:00:00.000Z' });
    const p2 = await m.process();
    assert.deepEqual(await p2.flags(), { [id]: 'unapproved', [other]: undefined });
    assert.equal(p2.parses(), 2, 'both checked again under the new record of decisions');
    await p2.verdicts.flush();
    // A key trusted now: a new keyring again.
    const config = path.join(m.keys.configDir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ ...JSON.parse(fs.readFileSync(config, 'utf8')), trustedApprovers: [{ name: 'Bo', key: `ed25519:${'B'.repeat(43)}` }] }));
    const p3 = await m.process();
    assert.deepEqual(await p3.flags(), { [id]: 'unapproved', [other]: undefined });
    assert.equal(p3.parses(), 2);
  });

  it('a corrupt file, a file that is a link, a folder that is a link: not read, nothing written through the link', async () => {
    const [id] = await m.approvedPlans(1);
    const p1 = await m.process();
    await p1.flags();
    await p1.verdicts.flush();
    const file = verdictsFile(ROOT, m.cacheDir);
    const good = fs.readFileSync(file, 'utf8');
    for (const broken of ['{"v":1,', '[]', JSON.stringify({ v: 1, root: '/elsewhere', entries: JSON.parse(good).entries }), JSON.stringify({ v: 1, root: ROOT, entries: { [id]: ['x'] } })]) {
      fs.writeFileSync(file, broken);
      const p = await m.process();
      assert.deepEqual(await p.flags(), { [id]: undefined });
      assert.equal(p.parses(), 1, broken.slice(0, 30));
    }
    // A link in place of the file, to a good copy elsewhere: not followed; the next write replaces the link, not its target.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verdicts-elsewhere-'));
    try {
      fs.writeFileSync(path.join(elsewhere, 'copy.json'), good);
      fs.rmSync(file);
      fs.symlinkSync(path.join(elsewhere, 'copy.json'), file);
      const p = await m.process();
      assert.deepEqual(await p.flags(), { [id]: undefined });
      assert.equal(p.parses(), 1, 'the link is not read');
      fs.writeFileSync(path.join(elsewhere, 'copy.json'), 'unchanged');
      await p.verdicts.flush();
      assert.equal(fs.readFileSync(path.join(elsewhere, 'copy.json'), 'utf8'), 'unchanged');
      assert.equal(fs.lstatSync(file).isSymbolicLink(), false);
      // A link in place of the folder: not read, not written.
      const dir = path.dirname(file);
      fs.cpSync(dir, path.join(elsewhere, 'dir'), { recursive: true });
      fs.rmSync(dir, { recursive: true });
      fs.symlinkSync(path.join(elsewhere, 'dir'), dir);
      const q = await m.process();
      assert.deepEqual(await q.flags(), { [id]: undefined });
      assert.equal(q.parses(), 1, 'the linked folder is not read');
      const before = fs.readdirSync(path.join(elsewhere, 'dir')).map((n) => fs.readFileSync(path.join(elsewhere, 'dir', n), 'utf8'));
      await q.verdicts.flush();
      assert.deepEqual(fs.readdirSync(path.join(elsewhere, 'dir')).map((n) => fs.readFileSync(path.join(elsewhere, 'dir', n), 'utf8')), before);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('no verdict is kept in a cache folder inside the workspace', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-verdicts-ws-'));
    try {
      assert.match(new ApprovalVerdicts(ws, path.join(ws, '.cache'), m.keyFile).problem ?? '', /inside the workspace/);
      assert.equal(new ApprovalVerdicts(ws, m.cacheDir, m.keyFile).problem, undefined);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('approval verdicts kept on disk: checked once per file version and machine (issue 40)', function () {
  this.timeout(60_000);
  let m: Machine;
  beforeEach(() => (m = new Machine()));
  afterEach(() => m.cleanup());

  it('the next process parses no plan whose bytes and keyring are unchanged; an edited plan once', async () => {
    const ids = await m.approvedPlans(3);
    const p1 = await m.process();
    const valid = Object.fromEntries(ids.map((id) => [id, undefined]));
    assert.deepEqual(await p1.flags(), valid);
    assert.equal(p1.parses(), 3);
    await p1.verdicts.flush();
    const p2 = await m.process();
    assert.deepEqual(await p2.flags(), valid);
    assert.equal(p2.parses(), 0, 'every verdict from the cache');
    m.edit(ids[1]);
    const p3 = await m.process();
    assert.deepEqual(await p3.flags(), { ...valid, [ids[1]]: 'changed' });
    assert.equal(p3.parses(), 1);
    await p3.verdicts.flush();
    const p4 = await m.process();
    assert.deepEqual(await p4.flags(), { ...valid, [ids[1]]: 'changed' });
    assert.equal(p4.parses(), 0);
  });

  it("with the key protected, a valid verdict is not kept (the next process checks it again) and a more restrictive one is", async () => {
    const [id, other] = await m.approvedPlans(2);
    m.keys.protect('correct horse battery staple');
    m.edit(id);
    const p1 = await m.process();
    assert.deepEqual(await p1.flags(), { [id]: 'changed', [other]: undefined });
    await p1.verdicts.flush();
    const p2 = await m.process();
    assert.deepEqual(await p2.flags(), { [id]: 'changed', [other]: undefined });
    assert.equal(p2.parses(), 1, 'the valid one checked again, the changed one from the cache');
  });
});
