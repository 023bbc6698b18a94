/**
 * Approvals for core tests: a person's Ed25519 key (real keys, real signatures, made once per test
 * process) as a keyring and a signer, so operations that check or sign approvals run without the
 * store. Store-level tests use the Node adapter itself (memoryPorts' `approvals`).
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { NodeApprovalKeys, userConfigDir } from '../../src/node/ports/approvalKeys';
import { applyEdits, APPROVAL_FIELDS, approvalPayload, approve, ApprovalKeyring, ApprovalSigner, contentDigest, OpContext, OpResult, parsePlan, PlanDocument, ReviewComment, SeenPlan } from '../../src/core';

const pair = generateKeyPairSync('ed25519');
/** The test person's public key, `ed25519:…`. */
export const TEST_KEY = `ed25519:${pair.publicKey.export({ format: 'jwk' }).x}`;

export const TEST_SIGNER: ApprovalSigner = { key: TEST_KEY, approver: 'Test Person', sign: (payload) => sign(null, Buffer.from(payload), pair.privateKey).toString('base64url') };

/** A keyring that trusts the test person's key (and `trusted`), checking signatures for real. */
export function testKeyring(opts: { trusted?: readonly string[]; confirmed?: readonly string[]; problem?: string } = {}): ApprovalKeyring {
  return {
    problem: opts.problem,
    verify: (payload, signature, key) => {
      try {
        return verify(null, Buffer.from(payload), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.slice('ed25519:'.length) }, format: 'jwk' }), Buffer.from(signature, 'base64url'));
      } catch {
        return false;
      }
    },
    trust: (key) => (key === TEST_KEY ? { kind: 'own' } : opts.trusted?.includes(key) ? { kind: 'trusted' } : undefined),
    confirmed: (signature) => opts.confirmed?.includes(signature) ?? false,
  };
}

/** What an operation checks and signs approvals with, in core tests. */
export const TEST_APPROVALS: NonNullable<OpContext['approvals']> = { keyring: testKeyring(), signer: TEST_SIGNER };

/** What a reviewer saw: the plan as it is now. */
export function seenNow(doc: PlanDocument, version?: number): SeenPlan {
  return { digest: contentDigest(doc), ...(version !== undefined ? { version } : {}) };
}

/** Approves a plan as shown now (the person reviewed exactly this text), signed by the test person. */
export function approveNow(doc: PlanDocument, ctx: OpContext, review?: { note?: string; comments?: readonly ReviewComment[] }): OpResult {
  return approve(doc, seenNow(doc), withApprovals(ctx), review);
}

/** `ctx` with the test person's keys, unless it has its own. */
export function withApprovals(ctx: OpContext): OpContext {
  return ctx.approvals ? ctx : { ...ctx, approvals: TEST_APPROVALS };
}

/**
 * A plan already approved or executing (a fixture written by hand or by another tool) with the
 * record a person's approval of its text would have given: digest, key and signature of the test
 * person. Its text is otherwise unchanged.
 */
export function sealApproval(doc: PlanDocument, signer: ApprovalSigner = TEST_SIGNER, at = doc.fm.approved_at ?? doc.fm.updated_at): PlanDocument {
  const digest = contentDigest(doc);
  const version = doc.fm.approved_version ?? doc.fm.version;
  const by = doc.fm.approved_by ?? 'user';
  const payload = approvalPayload({ id: doc.fm.id, version, digest, by, approver: signer.approver, at });
  const record = { approved_by: by, approved_version: version, approved_at: at, approved_hash: digest, approver: signer.approver, approval_key: signer.key, approval_sig: signer.sign(payload) };
  return parsePlan(applyEdits(doc, record).text);
}

/** A plan's text without any field of an approval record (as before a sealed mark, for comparisons of the rest). */
export function unsealed(text: string): string {
  return applyEdits(parsePlan(text), Object.fromEntries(APPROVAL_FIELDS.map((k) => [k, undefined]))).text;
}

/** What a reviewer sees of a stored plan now: its digest (and the version, when given). */
export async function seenIn(store: { read(id: string): Promise<PlanDocument> }, id: string, version?: number): Promise<SeenPlan> {
  return seenNow(await store.read(id), version);
}

/** A plan text with the approval record the person of this test process (their keys in the test's user configuration folder) would sign for it. */
export async function sealedByUser(text: string, root: string): Promise<string> {
  return sealApproval(parsePlan(text), await new NodeApprovalKeys(userConfigDir(), () => [root]).signer()).text;
}
