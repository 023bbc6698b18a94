// The person's decisions on a plan and on whose approvals count: approve, confirm, key, trust,
// reject. A decision is made by a person at a terminal, never by whoever merely can run the CLI:
// `--digest` names the text the person reviewed, and is checked at the terminal, never instead of it.
import { contentDigest, KEY_PATTERN, nextStatus, PlanDocument, PlanError, progressOf, refuseIfNotSeen, ReviewComment, SeenPlan, shortKey } from '../../core';
import { recordDriftBase } from '../../node';
import { approvePlan, confirmApproval, rejectPlan } from '../../service';
import { PlanStore } from '../../store';
import { CliContext, CliIo, commentOption, digestOption, needsPerson, NotDone, seenVersionOption, UsageError } from '../cliContext';
import { approvalReading, paged, printable } from '../planShown';

/** Registers `approve`, `confirm`, `key`, `trust` and `reject`, in that order. */
export function registerDecisionCommands(ctx: CliContext): void {
  registerApprove(ctx);
  registerConfirm(ctx);
  registerKey(ctx);
  registerTrust(ctx);
  registerReject(ctx);
}

function registerApprove({ program, io, store }: CliContext): void {
  program
    .command('approve <id>')
    .description('approve a proposed plan (a person\'s decision, at a terminal): it shows what changed since the last review and the plan\'s text (a screen at a time), its version and digest, and asks; --digest names the text you reviewed (refused when the plan is not that text); comments become non-blocking suggestions')
    .addOption(digestOption())
    .addOption(seenVersionOption())
    .addOption(commentOption())
    .action(async (id: string, o: { digest?: string; seenVersion?: number; comment?: ReviewComment[] }) => {
      const st = await store({ index: false });
      const seenPlan = await decided(io, st, id, o, 'approve');
      const { doc, warnings } = await approvePlan({ store: st }, id, { actor: 'cli', seen: seenPlan, comments: o.comment });
      // The drift base: HEAD and the targets as approved (a warning later, never a gate).
      await recordDriftBase(st.root, doc, doc.fm.approved_at ?? new Date().toISOString()).catch(() => undefined);
      io.out(`${id} approved at v${doc.fm.approved_version} (now v${doc.fm.version})${o.comment?.length ? ` with ${o.comment.length} suggestion${o.comment.length === 1 ? '' : 's'}` : ''}, signed by ${doc.fm.approver}.\n`);
      warn(io, id, 'approved', warnings);
    });
}

function registerConfirm({ program, io, store }: CliContext): void {
  program
    .command('confirm <id>')
    .description('confirm, on this machine, an approval made on another machine by a key not trusted here, so the plan can run (at a terminal: it shows who signed and asks)')
    .addOption(seenVersionOption())
    .action(async (id: string, o: { seenVersion?: number }) => {
      const st = await store({ index: false });
      const seenPlan = await decided(io, st, id, o, 'confirm');
      const doc = await st.read(id);
      if (contentDigest(doc) !== seenPlan.digest) throw new PlanError('STALE_APPROVAL', `the text of ${id} changed since you read it: review it again (\`pi-plans show ${id}\`)`);
      await confirmApproval({ store: st }, id, { actor: 'cli' });
      io.out(`${id}: the approval by ${doc.fm.approver} at v${doc.fm.approved_version} is confirmed on this machine; the plan can run.\n`);
    });
}

function registerKey({ program, io, keys: keysOf }: CliContext): void {
  program
    .command('key')
    .description('show your approval key (made on first use, kept in your user configuration folder): give it to teammates who trust your approvals; --protect puts it under a passphrase you type at each approval')
    .option('--protect', 'encrypt the key under a passphrase (asked twice, at a terminal): no program that reads the file can sign with it')
    .option('--unprotect', 'remove the passphrase (asked, at a terminal)')
    .action(async (o: { protect?: boolean; unprotect?: boolean }) => {
      const keys = keysOf();
      const problem = keys.problem();
      if (problem) throw new PlanError('APPROVAL_INVALID', problem);
      if (o.protect && o.unprotect) throw new UsageError('--protect and --unprotect: choose one');
      if (o.protect || o.unprotect) {
        if (!io.secret) needsPerson('the approval key was not changed: its passphrase is a person\'s', 'The person runs `pi-plans key --protect` (or --unprotect) in their own terminal.', 'ask the user; do not change the key yourself.');
        if (o.unprotect) {
          await keys.unprotect();
          io.out(`Your approval key is no longer protected: any program you run can sign with it (${keys.configDir}).\n`);
          return;
        }
        const first = await io.secret!('New passphrase for your approval key (8 characters or more): ');
        const again = await io.secret!('The same passphrase again: ');
        if (first !== again) throw new NotDone('the two passphrases differ: the key was not changed.');
        const { sealed } = keys.protect(first);
        io.out(`Your approval key is protected: approvals, confirmations and trusts ask for its passphrase${sealed ? `; the ${sealed} trust or confirmation entr${sealed === 1 ? 'y it held is' : 'ies it held are'} sealed with it` : ''}. A forgotten passphrase cannot be recovered.\n`);
        return;
      }
      const me = keys.identity(true);
      io.out(`${me.key}  ${me.name}${me.protected ? '  (protected by a passphrase)' : ''}\nkept in ${keys.configDir} (never in a workspace); a teammate trusts it with: pi-plans trust ${me.key} --name "${me.name}"\n`);
    });
}

function registerTrust({ program, io, keys: keysOf }: CliContext): void {
  program
    .command('trust <key>')
    .description('trust another person\'s approval key: their approvals (made on their machine) run here without a confirmation (at a terminal: it names the key and asks)')
    .requiredOption('--name <name>', 'whose key it is')
    .action(async (key: string, o: { name: string }) => {
      const keys = keysOf();
      if (!KEY_PATTERN.test(key)) throw new PlanError('INVALID_INPUT', `"${key.slice(0, 60)}" is not an approval key: it is ed25519: and 43 characters, as \`pi-plans key\` prints it`);
      const problem = keys.problem();
      if (problem) throw new PlanError('APPROVAL_INVALID', `the key cannot be trusted: ${problem}`);
      if (!io.ask) {
        needsPerson(
          "the key was not trusted: trusting another person's approval key is a person's decision",
          "The person runs `pi-plans trust` in their own terminal, or chooses Always Trust in VS Code's Confirm Approval.",
          'ask the user; do not trust a key yourself.',
        );
      }
      const answer = await io.ask!(`Trust approvals signed by ${shortKey(key)} as ${o.name}'s, on this machine? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) throw new NotDone(`${shortKey(key)} was not trusted.`);
      await keys.trust(key, o.name);
      io.out(`Approvals signed by ${shortKey(key)} (${o.name}) are trusted on this machine.\n`);
    });
}

function registerReject({ program, io, store }: CliContext): void {
  program
    .command('reject <id>')
    .description('reject a proposed plan with feedback and comments for its author')
    .option('--feedback <text>', 'what must change, overall')
    .addOption(commentOption())
    .addOption(seenVersionOption())
    .addOption(digestOption())
    .action(async (id: string, o: { feedback?: string; seenVersion?: number; digest?: string; comment?: ReviewComment[] }) => {
      if (!o.feedback?.trim() && !o.comment?.length) throw new UsageError('say what must change: --feedback "…" and/or --comment S003="…" (repeatable)');
      const { doc, warnings } = await rejectPlan({ store: await store({ index: false }) }, id, { actor: 'cli', feedback: o.feedback ?? '', seenVersion: o.seenVersion, seen: o.digest ? { digest: o.digest } : undefined, comments: o.comment });
      io.out(`${id} ${doc.fm.status === 'needs_review' ? 'rejected a third time: needs_review (reopen it to continue)' : 'rejected'} (v${doc.fm.version}).\n`);
      warn(io, id, 'rejected', warnings);
    });
}


/**
 * What the person decides on: the text shown to them at the terminal (title, version, digest)
 * and confirmed there. `--digest` and `--seen-version` name what they reviewed elsewhere: a plan
 * that is no longer that text is refused. Without a terminal nothing is decided, digest or not: a
 * script or an agent cannot stand in for the person.
 */
async function decided(io: CliIo, st: PlanStore, id: string, o: { digest?: string; seenVersion?: number }, what: 'approve' | 'confirm'): Promise<SeenPlan> {
  // A plan that cannot be approved now is refused for that reason first (not for want of a terminal).
  const current = await st.read(id);
  if (what === 'approve') nextStatus(id, current.fm.status, 'approve', 'cli');
  else await somethingToConfirm(st, current);
  if (!io.ask) {
    if (what === 'approve') {
      needsPerson(`${id} was not approved: approving a plan is a person's decision`, `The person approves it in VS Code, or runs \`pi-plans approve ${id}\` in their own terminal (it shows the plan and asks).`, 'ask the user to review the plan; do not approve it yourself.');
    }
    needsPerson(
      `${id}: the approval was not confirmed: confirming an approval made on another machine is a person's decision`,
      `The person confirms it in VS Code (Pi Plans: Confirm Approval…), or runs \`pi-plans confirm ${id}\` in their own terminal.`,
      'ask the user; do not confirm it yourself.',
    );
  }
  const ask = io.ask!;
  const doc = current;
  const digest = contentDigest(doc);
  const { done, total } = progressOf(doc.steps);
  // Before the question, what is approved: the changes since the last review and the plan's text, paged.
  if (what === 'approve') await paged(await approvalReading(st, doc), io.out, ask, process.stdout.isTTY ? process.stdout.rows : undefined);
  io.out(`${doc.fm.id}: ${printable(doc.fm.title)}\nstatus: ${doc.fm.status}   version: ${doc.fm.version}   steps: ${done}/${total} done\ndigest: ${digest}\n`);
  if (what === 'confirm') {
    const s = await st.approvalStanding(doc);
    if (s.state === 'foreign') io.out(`approved by ${s.approver} at v${s.version} on another machine, key ${shortKey(s.key)}\n`);
  }
  // What they reviewed elsewhere (`show` printed the digest, an editor the version) must still be the plan.
  refuseIfNotSeen(doc, { digest: o.digest ?? digest, version: o.seenVersion }, what);
  const answer = await ask(what === 'approve' ? `Approve ${id} "${printable(doc.fm.title)}" at v${doc.fm.version}? [y/N] ` : `Confirm this approval of ${id} on this machine, so it can run? [y/N] `);
  if (!/^y(es)?$/i.test(answer.trim())) throw new NotDone(`${id} was not ${what === 'approve' ? 'approved' : 'confirmed'}.`);
  return { digest, version: doc.fm.version, text: doc.text };
}

/**
 * Refuses `confirm` on a plan with no approval from another machine to confirm, saying why and
 * what the person does instead (before asking for a terminal: the reason is the plan, not where
 * the command runs).
 */
async function somethingToConfirm(st: PlanStore, doc: PlanDocument): Promise<void> {
  const s = await st.approvalStanding(doc);
  if (s.state === 'foreign') return;
  const { id, status } = doc.fm;
  const about = '`pi-plans confirm` is for an approval signed on another machine by a key not trusted here';
  const withdraw = `send it back for review (\`pi-plans withdraw ${id}\`), then approve the current text (\`pi-plans approve ${id}\`)`;
  let why: string;
  if (s.state === 'valid') {
    const how = s.signer === 'own' ? 'signed with your key' : s.signer === 'trusted' ? 'signed with a key you trust' : 'confirmed here already';
    why = `the approval by ${s.approver} at v${s.version} holds on this machine (${how}): the plan can run as it is`;
  } else if (s.state === 'changed') {
    why = `its text changed since it was approved${s.version !== undefined ? ` at v${s.version}` : ''}, so that approval no longer holds: ${withdraw}`;
  } else if (s.state === 'invalid') {
    why = `its approval does not hold (${s.reason}): ${withdraw}`;
  } else if (status === 'proposed') {
    why = `it is proposed, and no one has approved it yet (${about}): review it and approve it with \`pi-plans approve ${id}\``;
  } else if (status === 'draft' || status === 'rejected' || status === 'needs_review') {
    why = `it is ${status}, with no approval (${about}): the agent submits it for review, then a person approves it`;
  } else {
    why = `it is ${status}, and needs no approval now (${about})`;
  }
  throw new PlanError('INVALID_TRANSITION', `${id}: nothing to confirm: ${why}.`);
}

/** What could not be done beside a decision that was written: the decision stands, and each failure is named. */
function warn(io: CliIo, id: string, decision: string, warnings: readonly string[] | undefined): void {
  for (const w of warnings ?? []) io.err(`pi-plans: warning: ${id} is ${decision}, and that stands; but ${w}\n`);
}
