// `pi-plans gc` removes records (a finished plan's review copies among them) and is the person's, as
// archive is: the hook's command policy finds it in a bound session's command, a dry run (a read) not.
import { strict as assert } from 'node:assert';
import { classifyCommand, type CommandContext } from '../../../src/hosts/policy/commands';

const CTX: CommandContext = { cwd: '/ws', home: '/home/u', places: [], resolve: (base, rel) => (rel.startsWith('/') ? rel : `${base}/${rel}`) };
const kinds = (cmd: string) => classifyCommand(cmd, CTX).map((f) => f.kind);

describe("pi-plans gc in an agent's command", () => {
  it("is a person's verb, in any spelling the shell runs; with --dry-run it only reads", () => {
    for (const c of ['pi-plans gc', 'pi-plans --root /ws gc --json', 'npx pi-plans gc', 'bash -c "pi-plans gc"', 'echo y | pi-plans gc']) assert.ok(kinds(c).includes('person'), `${c}: ${JSON.stringify(kinds(c))}`);
    for (const c of ['pi-plans gc --dry-run', 'pi-plans gc --dry-run --json']) assert.deepEqual(kinds(c), [], c);
  });
});
