/**
 * The approval record: what a person approves, how the record is signed, and whether a plan's
 * approval stands. One place for the decision (house style 16): the operations, the service,
 * the tools, the CLI and every view ask `approvalStanding`, never re-derive it.
 *
 * A record is three things in the frontmatter, written only by the review path:
 * - `approved_hash`: the content digest of the approved text (sha256 of everything the reviewer
 *   was shown and the agent reads, execution state left out). Unkeyed: any machine can tell
 *   whether the text is still the approved one.
 * - `approval_key` and `approval_sig`: an Ed25519 signature, by the approving person's key (kept
 *   outside every workspace), over the plan id, the version, the digest, who approved and when.
 *   A file write can copy, edit or delete these lines, but cannot make a new valid signature.
 * The keys themselves are the faces' business (a port); the core only asks a keyring whether a
 * signature verifies and whom this machine trusts.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { PlanDocument } from '../format/document';
import { parseYaml } from '../format/frontmatter';
import { recordBlockOf, rewriteHeader } from '../format/steps';
import type { Actor } from '../format/schema';

/** SHA-256 as every digest here takes it: @noble/hashes' (pure, any platform), or the platform's own that a face gave (`useSha256`). */
let sha256Of: (bytes: Uint8Array) => Uint8Array = sha256;

/**
 * Makes the digests of this process (content, text, approval notes) use `hash`, which must be
 * SHA-256 itself: Node's crypto gives the same bytes as @noble/hashes' in a fraction of the time
 * (a 180 KB plan's digest, in a fresh process: 9–13 ms, against 0.5 ms). src/node gives it.
 */
export function useSha256(hash: (bytes: Uint8Array) => Uint8Array): void {
  sha256Of = hash;
}

/** How a content digest is written: `sha256:` and 64 hex digits. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
/** The digest older versions of Pi Plans wrote (an unkeyed 16-digit hash): read, never trusted. */
export const LEGACY_DIGEST_PATTERN = /^[0-9a-f]{16}$/;

/**
 * Frontmatter fields that are not covered by the digest: the execution state the store itself
 * writes (status, version, times, the session, the result), its bookkeeping (the step counter, the
 * link to a revision) and the approval record itself. Every other field, unknown ones included,
 * is covered.
 */
export const UNCOVERED_FIELDS: ReadonlySet<string> = new Set([
  'status',
  'version',
  'updated_at',
  'execution_session',
  'execution_started_at',
  'execution_ended_at',
  'result_summary',
  'step_seq',
  'superseded_by',
  'approved_by',
  'approved_version',
  'approved_at',
  'approved_hash',
  'approver',
  'approval_key',
  'approval_sig',
  'approval_notes',
]);

/** The approval record's fields, for clearing them all at once. */
export const APPROVAL_FIELDS = ['approved_by', 'approved_version', 'approved_at', 'approved_hash', 'approver', 'approval_key', 'approval_sig', 'approval_notes'] as const;

/** JSON with object keys in code-unit order, so equal YAML values give equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The covered frontmatter fields, canonical: the raw YAML's mapping (unknown keys too) without the uncovered ones. */
function coveredFields(doc: PlanDocument): string {
  const data = parseYaml(doc.block.yaml) as Record<string, unknown> | null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data ?? {})) if (!UNCOVERED_FIELDS.has(k) && v !== null && v !== undefined) out[k] = v;
  return canonicalJson(out);
}

/**
 * The body as covered by the digest: every character of it, except what execution writes on a
 * step's own lines: its checkbox and status marker (read as pending) and its record lines, the
 * lines the store writes under it (`> Note: …`, `> Changed: …`, the item's last; see
 * `recordBlockOf` in steps.ts).
 * Every other line under a step, a `>` quote included, is the author's text and covered. Line
 * ends are LF and trailing blanks are dropped, so a CRLF checkout or an editor's whitespace trim
 * is no change.
 */
export function coveredBody(doc: PlanDocument): string {
  const body = doc.body;
  let out = '';
  let pos = 0;
  for (const it of doc.outline.steps) {
    out += body.slice(pos, it.start) + rewriteHeader(body.slice(it.start, it.lineEnd), 'pending');
    // The item's continuation lines, with the line break before each; the store's record lines left out.
    const block = it.end > it.lineEnd ? recordBlockOf(body.slice(it.start, it.end)) : undefined;
    out += body.slice(it.lineEnd, block ? it.start + block.sep : it.end);
    pos = it.end;
  }
  out += body.slice(pos);
  return out.replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
}

/** Content digests by document (a document is immutable; an operation that changes no content hands its digest on). */
const digests = new WeakMap<PlanDocument, string>();

/**
 * The content digest of a plan: sha256 over the covered frontmatter fields and the covered body
 * (see `coveredBody`), as `sha256:<64 hex>`. What a reviewer sees and approves; what the agent
 * reads; what no execution step changes.
 */
export function contentDigest(doc: PlanDocument): string {
  let d = digests.get(doc);
  if (!d) {
    const text = `pi-plans content v1\n${coveredFields(doc)}\n---\n${coveredBody(doc)}`;
    d = `sha256:${bytesToHex(sha256Of(new TextEncoder().encode(text)))}`;
    digests.set(doc, d);
  }
  return d;
}

/** Tells the digest cache that `to` has the content of `from` (an operation that changed only execution state). */
export function sameContent(from: PlanDocument, to: PlanDocument): void {
  const d = digests.get(from);
  if (d) digests.set(to, d);
}

/** The digest of a whole text (its UTF-8 bytes), as `sha256:<64 hex>`: what a review copy's record names. */
export function textDigest(text: string): string {
  return `sha256:${bytesToHex(sha256Of(new TextEncoder().encode(text)))}`;
}

/**
 * The exact bytes (as text) a review copy's record signs: the plan, the version a person decided
 * on and the digest of the copy kept of it. Signed with the person's key when the copy is kept, so
 * a copy rewritten later (its version line kept or not, its record too) does not verify.
 */
export function reviewCopyPayload(c: { id: string; version: number; digest: string }): string {
  return ['pi-plans review copy v1', `plan: ${c.id}`, `version: ${c.version}`, `digest: ${c.digest}`].join('\n');
}

/** The first 12 hex digits of a digest, for people: `sha256:3f9a1c2e0b7d`. */
export function shortDigest(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(0, 7 + 12) : digest;
}

/** A signer key as the record writes it: `ed25519:` and the raw public key in base64url. */
export const KEY_PATTERN = /^ed25519:[A-Za-z0-9_-]{43}$/;
/** An Ed25519 signature in base64url (64 bytes). */
export const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{86}$/;

/** The fields an approval record signs. */
export interface ApprovalClaim {
  id: string;
  version: number;
  digest: string;
  by: Actor;
  approver: string;
  at: string;
  /**
   * The digest of the approval's suggestions (`notesDigest` of its `## Approval (vN)` section's
   * text), or `none` when it has none. Every approval written now signs it (payload v2);
   * undefined only to check a record an older Pi Plans signed (v1), whose suggestions were not signed.
   */
  notes?: string;
}

/** The exact bytes an approval signature covers (as text): one field a line, in a fixed order. */
export function approvalPayload(c: ApprovalClaim): string {
  const fields = [`plan: ${c.id}`, `version: ${c.version}`, `digest: ${c.digest}`, `by: ${c.by}`, `approver: ${c.approver}`, `at: ${c.at}`];
  return c.notes === undefined ? ['pi-plans approval v1', ...fields].join('\n') : ['pi-plans approval v2', ...fields, `notes: ${c.notes}`].join('\n');
}

/**
 * The digest of an approval's suggestions as written (the text of its `## Approval (vN)` section,
 * under the heading): LF line ends, no trailing blanks. The signature covers it, so a section
 * merely titled like an approval (written into the file by hand) is never read as the person's.
 */
export function notesDigest(text: string): string {
  const norm = text.replace(/\r\n?/g, '\n').replace(/[ \t]+$/gm, '').trim();
  return `sha256:${bytesToHex(sha256Of(new TextEncoder().encode(`pi-plans approval notes v1\n${norm}`)))}`;
}

/** What signs approvals on this machine: the person's key (kept outside every workspace). */
export interface ApprovalSigner {
  /** The public key, `ed25519:…`. */
  readonly key: string;
  /** The person's name as approvals record it. */
  readonly approver: string;
  /** The signature of `payload`, base64url. */
  sign(payload: string): string;
}

/** Whom this machine trusts to approve, and how it checks signatures. */
export interface ApprovalKeyring {
  /** True when `signature` is a valid Ed25519 signature of `payload` by `key` (`ed25519:…`). */
  verify(payload: string, signature: string, key: string): boolean;
  /** This machine's regard for a signer key: its own, one the user trusts (with the name they gave), or a stranger (undefined). */
  trust(key: string): { kind: 'own' | 'trusted'; name?: string } | undefined;
  /** True when a person on this machine confirmed the approval with this signature (signed elsewhere by a key not trusted here). */
  confirmed(signature: string): boolean;
  /** Why no approval can be trusted here (e.g. the user's configuration folder is inside the workspace); undefined when all is well. */
  readonly problem?: string;
  /** The own key is protected by the person's passphrase: records kept beside the plans may be unsigned (no one was there to unlock it). */
  readonly ownKeyProtected?: boolean;
  /**
   * Why an approval record, though signed, no longer holds by this machine's record of a person's
   * decisions (src/node/ports/decisionLedger.ts): a later decision on the plan (withdrawn, rejected,
   * approved again), or a file older than the last decision (a copy written back). Undefined: it holds.
   */
  superseded?(plan: string, approval: { signature: string; at: string; fileVersion: number }): string | undefined;
  /**
   * What this keyring answers from, as one string (a digest of the own key, the trusted keys and
   * confirmations that count, the record of decisions, the problem): two keyrings with the same
   * `state` give the same answers. Verdicts kept between processes are keyed on it; absent, none
   * are kept.
   */
  readonly state?: string;
}

/** A person's decision on a plan, as this machine records it (outside every workspace). */
export interface DecisionRecord {
  plan: string;
  decision: 'approve' | 'reject' | 'withdraw' | 'confirm';
  /** The plan file's version after the decision was written (a confirmation: the version confirmed). */
  version: number;
  /** The content digest of the text decided on. */
  digest: string;
  /** An approval's or a confirmed approval's signature. */
  signature?: string;
  at: string;
}

/** Statuses in which an approval still governs what the agent does. */
export const APPROVAL_GOVERNS: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled', 'failed']);

/**
 * What the record's signature says of the approval's suggestions, once it verified: `notes`, the
 * digest of their text (absent when the approval had none); `unsignedNotes` for a record an
 * older Pi Plans signed, which did not cover them (read as none). Without a keyring nothing is
 * verified, and neither is set.
 */
export interface SignedNotes {
  notes?: string;
  unsignedNotes?: true;
}

/** Where a plan's approval stands. */
export type ApprovalStanding =
  /**
   * The status needs no approval (a draft, a proposal, a finished plan). A finished plan that ran
   * on a person's approval keeps its record: `finished` names that approval's version and signed
   * suggestions when the record still verifies, so its `## Approval (vN)` reads as theirs.
   */
  | { state: 'none'; finished?: { version: number } & SignedNotes }
  /** A person's approval of exactly this text, signed by a key this machine trusts (or confirmed here). */
  | ({ state: 'valid'; approver: string; by: Actor; version: number; digest: string; signer: 'own' | 'trusted' | 'confirmed' } & SignedNotes)
  /** Signed on another machine by a key not trusted here, the text unchanged: a person here confirms it once before it runs. */
  | ({ state: 'foreign'; approver: string; by: Actor; version: number; digest: string; key: string; signature: string } & SignedNotes)
  /** Approved, then the approved text changed. */
  | ({ state: 'changed'; approver?: string; version?: number } & SignedNotes)
  /** Marked approved without a record that holds: no record, an old unsigned one, a signature that does not verify. */
  | { state: 'invalid'; reason: string };

/** Finished statuses where an approval record, if the plan carries one, is still the person's (the plan ran, or was replaced, on it). */
const FINISHED_WITH_RECORD: ReadonlySet<string> = new Set(['completed', 'cancelled', 'superseded']);

/**
 * Whether a plan's approval stands, checked against the keyring: the record's fields, the digest
 * of the text now, the signature, and this machine's trust. Without a keyring (a pure check with
 * no keys at hand) a signed, unchanged record reads as `foreign`: it is never `valid`.
 */
export function approvalStanding(doc: PlanDocument, keyring?: ApprovalKeyring): ApprovalStanding {
  const fm = doc.fm;
  if (!APPROVAL_GOVERNS.has(fm.status)) {
    // A finished plan: the record is checked as it was while the plan ran (its digest leaves the step marks out).
    if (fm.approval_sig === undefined || !FINISHED_WITH_RECORD.has(fm.status)) return { state: 'none' };
    const ran = approvalStanding({ ...doc, fm: { ...fm, status: 'executing' } }, keyring);
    return ran.state === 'valid' || ran.state === 'foreign' ? { state: 'none', finished: { version: ran.version, ...(ran.notes ? { notes: ran.notes } : {}) } } : { state: 'none' };
  }
  const { approved_hash: digest, approval_key: key, approval_sig: signature, approved_by: by, approved_version: version, approved_at: at, approver } = fm;
  if (digest === undefined && key === undefined && signature === undefined && by === undefined && fm.approval_notes === undefined) {
    return { state: 'invalid', reason: `it is ${fm.status} but carries no approval record: the status was written by a file edit, not by a person's approval` };
  }
  if (digest !== undefined && LEGACY_DIGEST_PATTERN.test(digest) && !signature) {
    return { state: 'invalid', reason: 'its approval was recorded by an older Pi Plans, without a signature: a person approves it again' };
  }
  if (!digest || !key || !signature || !by || version === undefined || !at || !approver) {
    return { state: 'invalid', reason: 'its approval record is incomplete (a field of it was removed or never written by a person\'s approval)' };
  }
  // The record first (is it a person's signed approval of this plan?), then the text (is it still
  // the approved one?): a forged or copied record is "not valid", not "changed".
  if (keyring?.problem) return { state: 'invalid', reason: keyring.problem };
  let signed: SignedNotes = {};
  if (keyring) {
    const claim = { id: fm.id, version, digest, by, approver, at };
    const notes = fm.approval_notes;
    // Every approval now signs its suggestions (payload v2; `none` when it has none). A record an
    // older Pi Plans signed (v1, no notes field) still verifies, and its suggestions are not read.
    if (keyring.verify(approvalPayload({ ...claim, notes: notes ?? 'none' }), signature, key)) signed = notes ? { notes } : {};
    else if (notes === undefined && keyring.verify(approvalPayload(claim), signature, key)) signed = { unsignedNotes: true };
    else return { state: 'invalid', reason: 'its approval record does not verify: it was edited, copied from another plan or forged' };
  }
  // A person's later decision on this machine voids the approval, wherever its file came from.
  const superseded = keyring?.superseded?.(fm.id, { signature, at, fileVersion: fm.version });
  if (superseded) return { state: 'invalid', reason: superseded };
  if (contentDigest(doc) !== digest) return { state: 'changed', approver, version, ...signed };
  if (!keyring) return { state: 'foreign', approver, by, version, digest, key, signature };
  const trusted = keyring.trust(key);
  if (trusted) return { state: 'valid', approver, by, version, digest, signer: trusted.kind, ...signed };
  if (keyring.confirmed(signature)) return { state: 'valid', approver, by, version, digest, signer: 'confirmed', ...signed };
  return { state: 'foreign', approver, by, version, digest, key, signature, ...signed };
}

/** What an index keeps of a plan's approval record (`IndexEntry`): enough to tell a record that is not there. */
export interface ApprovalHead {
  status?: string;
  approved_hash?: string;
  approved_by?: Actor;
  approved_version?: number;
}

/**
 * The state of a plan's approval when the frontmatter alone decides it, whatever the body says:
 * `invalid` for a status an approval governs whose record lacks a field every record that holds
 * has (the digest, who approved, the version approved), or when the keyring trusts no approval
 * (`problem`): `approvalStanding` says `invalid` for every such plan (the property test in
 * approval.test.ts holds the two together). Undefined when only `approvalStanding` on the whole
 * plan tells (its body's digest, the signature). Never `valid`: a head alone never makes an
 * approval hold.
 */
export function standingByHead(head: ApprovalHead, keyring?: ApprovalKeyring): 'invalid' | undefined {
  if (!head.status || !APPROVAL_GOVERNS.has(head.status)) return undefined;
  if (!head.approved_hash || !head.approved_by || head.approved_version === undefined) return 'invalid';
  return keyring?.problem ? 'invalid' : undefined;
}

/** A signer key shortened for people: `ed25519:AbCdEf12…`. */
export function shortKey(key: string): string {
  return key.length > 20 ? `${key.slice(0, 20)}…` : key;
}

/** One sentence on a standing that does not let a plan run, naming what to do (for people and models alike). */
export function standingProblem(doc: PlanDocument, s: ApprovalStanding): string | undefined {
  const id = doc.fm.id;
  switch (s.state) {
    case 'none':
    case 'valid':
      return undefined;
    case 'changed':
      return `${id} changed since ${s.approver ?? 'a person'} approved v${s.version ?? '?'}: its text differs from the approved text`;
    case 'foreign':
      return `${id} was approved by ${s.approver} at v${s.version} on another machine (key ${shortKey(s.key)}, not a key trusted here): a person on this machine confirms that approval before it runs`;
    case 'invalid':
      return `${id}'s approval is not valid: ${s.reason}`;
  }
}

/** True when a plan's text differs from its approved text (`changed`): the short test the views use. */
export function changedSinceApproval(doc: PlanDocument, keyring?: ApprovalKeyring): boolean {
  return approvalStanding(doc, keyring).state === 'changed';
}
