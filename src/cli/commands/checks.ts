// The commands of issue 30's checks and drift: verify (run a plan's approved checks, for a person
// at a terminal and for CI) and drift (see it, acknowledge it).
import { driftWords, workFactLines } from '../../core';
import { acknowledgeDrift, lookForDrift, planWorkFacts, verifyPlan } from '../../node';
import { CliContext, needsPerson, personConfirms, UsageError } from '../cliContext';

/** Registers `verify` and `drift`, in that order. */
export function registerCheckCommands(ctx: CliContext): void {
  registerVerify(ctx);
  registerDrift(ctx);
}

function registerVerify({ program, io, store }: CliContext): void {
  program
    .command('verify <id> [steps...]')
    .description('run the checks (`verify:` lines) of an approved plan\'s steps, all or the ones named, and record each result on its step; exit 1 when one fails (for CI). A plan whose approval does not hold runs nothing.')
    .option('--quiet', 'do not print the commands\' output (the last lines are kept all the same)')
    .action(async (id: string, steps: string[], o: { quiet?: boolean }) => {
      for (const s of steps) if (!/^S\d{3,4}$/i.test(s)) throw new UsageError(`"${s}" is not a step id: name steps like S001`);
      const st = await store({ index: false });
      const results = await verifyPlan(st, id, {
        steps,
        actor: 'cli',
        onStart: (step, command) => io.out(`${id} ${step}: $ ${command}\n`),
        onOutput: o.quiet ? undefined : (chunk) => io.out(chunk),
      });
      for (const r of results) io.out(`${id} ${r.step}: ${r.line}\n`);
      const failed = results.filter((r) => r.record.outcome === 'failed');
      io.out(failed.length ? `${failed.length} of ${results.length} check${results.length === 1 ? '' : 's'} failed: ${failed.map((r) => r.step).join(', ')}.\n` : `${results.length} check${results.length === 1 ? '' : 's'} passed.\n`);
      if (failed.length) process.exitCode = 1;
    });
}

function registerDrift({ program, io, store, keys }: CliContext): void {
  program
    .command('drift <id>')
    .description('show whether the files an approved plan\'s steps target changed since its approval by anything but its own steps (a pull, another agent, a person); --ack records them as they are now as the new base (a person\'s acknowledgement)')
    .option('--ack', 'acknowledge the drift: the targets as they are now, and HEAD, become the new base')
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { ack?: boolean; json?: boolean }) => {
      const st = await store({ index: false });
      const doc = await st.read(id);
      const at = new Date().toISOString();
      if (o.ack) {
        // A person's acknowledgement: at a terminal, asked (and the key's passphrase where it is protected).
        if (!io.ask) needsPerson(`${id}: the drift was not acknowledged: that is a person's decision`, `The person runs \`pi-plans drift ${id} --ack\` in their own terminal, or uses Acknowledge Drift in VS Code.`, 'ask the user; do not acknowledge it yourself.');
        await personConfirms({ io, keys }, `Acknowledge the drift of ${id} "${doc.fm.title}": the targets as they are now become the base? [y/N] `, `${id}: the drift was not acknowledged.`);
        const base = await acknowledgeDrift(st.root, doc, at);
        io.out(base ? `${id}: drift acknowledged; ${Object.keys(base.targets).length} target${Object.keys(base.targets).length === 1 ? '' : 's'} as they are now${base.commit ? ` at ${base.commit.slice(0, 7)}` : ''} are the new base.\n` : `${id}: nothing to acknowledge (no approval, no git, or no file targets).\n`);
        return;
      }
      const look = await lookForDrift(st.root, doc, at);
      if (o.json) {
        io.out(`${JSON.stringify({ id, drifted: look.drifted, base: look.base ? { commit: look.base.commit, at: look.base.at, taken: look.base.taken, targets: look.base.targets } : undefined }, null, 2)}\n`);
        return;
      }
      if (!look.base) io.out(`${id}: no drift is watched (it is ${doc.fm.status}, outside git, or its steps name no file targets).\n`);
      else if (!look.drifted.length) {
        const n = Object.keys(look.base.targets).length;
        io.out(`${id}: no drift since ${look.base.taken === 'approval' ? 'approval' : look.base.taken === 'acknowledged' ? 'the last acknowledgement' : 'the first look'} (${look.base.at}); ${n} target${n === 1 ? '' : 's'} watched.\n`);
      }
      else io.out(`${id}: ${driftWords(look.drifted)}.\nAcknowledge it with \`pi-plans drift ${id} --ack\`, or send the plan back to review with \`pi-plans withdraw ${id}\`.\n`);
    });
}

/** The facts lines `show` prints under the approval (checks, drift); none when there are none. */
export async function factLinesOf(root: string, doc: Parameters<typeof planWorkFacts>[1]): Promise<string[]> {
  return workFactLines(doc.fm.id, await planWorkFacts(root, doc));
}
