// Commands that move a plan through its life, or mend it: cancel, reopen, retry, resume, withdraw;
// unlock, release and clone.
import { nextStatus, parseClaim, PlanError, PlanStatus } from '../../core';
import { clearPlanLock } from '../../node';
import { archivePlan, changePlanStatus, releaseStepClaim } from '../../service';
import { CliContext, needsPerson, personConfirms } from '../cliContext';

/** Registers `cancel`, `reopen`, `retry`, `resume` and `withdraw`, in that order; all but cancel are a person's decision, asked at a terminal. */
export function registerStatusCommands(ctx: CliContext): void {
  const { program, io, store } = ctx;
  for (const [name, action, what] of [
    ['cancel', 'cancel', 'cancel a plan'],
    ['reopen', 'reopen', 'reopen a plan in needs_review as a draft'],
    ['retry', 'retry', 'send a failed or stalled plan back to approved'],
    ['resume', 'resume', 'resume a failed or stalled plan (executing again)'],
    ['withdraw', 'withdraw', 'withdraw the approval of an approved, executing or stalled plan (a drifted one, say): back to review (proposed), its progress kept'],
  ] as const) {
    const cmd = program.command(`${name} <id>`).description(what);
    if (name === 'cancel') cmd.option('--reason <text>', 'why');
    cmd.action(async (id: string, o: { reason?: string }) => {
      const st = await store({ index: false });
      if (name !== 'cancel') await personDecides(ctx, id, name, (await st.read(id)).fm);
      const { doc } = await changePlanStatus({ store: st }, id, action, { actor: 'cli', reason: o.reason });
      io.out(`${id} is now ${doc.fm.status} (v${doc.fm.version}).\n`);
    });
  }
}

/**
 * A person's verb on a plan: refused first for the plan's status (the same words as without a
 * terminal), then without a terminal; at one, it names the plan and the move and asks, and a
 * protected key's passphrase is asked too (what an agent at a pseudo-terminal does not have).
 */
async function personDecides({ io, keys }: CliContext, id: string, verb: 'reopen' | 'retry' | 'resume' | 'withdraw', fm: { title: string; status: PlanStatus }): Promise<void> {
  const to = nextStatus(id, fm.status, verb, 'cli');
  if (!io.ask) {
    needsPerson(`${id}: "${verb}" was not done: it is a person's decision`, `The person runs \`pi-plans ${verb} ${id}\` in their own terminal, or uses Pi Plans in VS Code.`, `ask the user; do not ${verb} it yourself.`);
  }
  await personConfirms({ io, keys }, `${verb[0].toUpperCase()}${verb.slice(1)} ${id} "${fm.title}" (${fm.status} -> ${to})? [y/N] `, `${id} was left ${fm.status}.`);
}

/** Registers `unlock`, `release`, `archive` and `clone`, in that order. */
export function registerUpkeepCommands(ctx: CliContext): void {
  const { program, io, store } = ctx;
  program
    .command('unlock <id>')
    .description('clear a plan\'s lock left by a crashed writer, or something planted where the lock goes (a link is removed itself, never its target); a lock a live process holds is not cleared')
    .action(async (id: string) => {
      const st = await store({ index: false });
      const removed = await clearPlanLock(st.pathOf(id), { root: st.root });
      io.out(removed ? `${id}: its lock (${removed.kind}${removed.owners.length ? `, held by pid ${removed.owners.map((o) => `${o.pid} on ${o.host}`).join(', ')}` : ''}) was cleared.\n` : `${id} has no lock to clear.\n`);
    });

  program
    .command('release <id> <step>')
    .description("let a step's claim go (a person's decision, at a terminal): the step in progress goes back to pending, for any agent to take (an agent whose server went away for good, one that stopped)")
    .action(async (id: string, step: string) => {
      const st = await store({ index: false });
      const s = (await st.read(id)).steps.find((x) => x.id === step.toUpperCase());
      if (!s) throw new PlanError('NOT_FOUND', `${id} has no step ${step}: \`pi-plans show ${id}\` lists its steps`);
      if (s.status !== 'in_progress') throw new PlanError('INVALID_INPUT', `${id}: ${s.id} is ${s.status.replace('_', ' ')}, not in progress: there is no claim to release`);
      if (!io.ask) needsPerson(`${id}: the claim on ${s.id} was not released: it is a person's decision`, `The person runs \`pi-plans release ${id} ${s.id}\` in their own terminal, or uses Release Claim in VS Code.`, 'ask the user; do not release it yourself.');
      const claim = parseClaim(s.record?.Claimed);
      await personConfirms(ctx, `Release ${s.id} "${s.text}" of ${id}${claim ? `, claimed by ${claim.session} since ${claim.at}` : ''}? It goes back to pending, for any agent to take. [y/N] `, `${id}: ${s.id} is still claimed.`);
      const { doc } = await releaseStepClaim({ store: st }, id, s.id, { actor: 'cli' });
      io.out(`${id}: ${s.id} is pending again, claimed by no one (v${doc.fm.version}).\n`);
    });

  program
    .command('archive <id>')
    .description("move a finished plan (completed, cancelled, superseded) into .pi/plans/archive/ as it is (a person's decision, at a terminal)")
    .action(async (id: string) => {
      const st = await store({ index: false });
      const { fm } = await st.read(id);
      nextStatus(id, fm.status, 'archive', 'cli');
      if (!io.ask) needsPerson(`${id} was not archived: it is a person's decision`, `The person runs \`pi-plans archive ${id}\` in their own terminal, or uses Archive in VS Code.`, 'ask the user; do not archive it yourself.');
      await personConfirms(ctx, `Archive ${id} "${fm.title}" (${fm.status}) into .pi/plans/archive/? [y/N] `, `${id} was not archived.`);
      const { path } = await archivePlan({ store: st }, id, { actor: 'cli' });
      io.out(`${id} archived: ${path}\n`);
    });

  program
    .command('clone <id>')
    .description('start a new proposed plan from a finished, rejected or failed one')
    .action(async (id: string) => {
      const doc = await (await store({ index: false })).clone(id, 'cli');
      io.out(`${doc.fm.id} created from ${id} (proposed).\n`);
    });
}
