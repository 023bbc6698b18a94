// After a rejection with "Risks: add a Risks section", a revision that adds `## Risks` has answered
// that comment: submitting does not list it as "not changed since the rejection", and
// `pi-plans diff` (the CLI, in-process, over compareWithReviewed) shows it as revised. Real disk.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { setMetadata } from '../../../src/core';
import { openNodeStore } from '../../../src/node';
import { compareWithReviewed, rejectPlan, submitPlan } from '../../../src/service';

describe('use cases: a comment answered by a new section counts as addressed (submit, pi-plans diff)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-addressed-'));
  });
  afterEach(() => {
    process.exitCode = 0;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the added ## Risks answers the Risks comment; the Verification comment, left alone, stays untouched', async () => {
    const store = await openNodeStore(root, { index: false });
    const place = { store };
    const { fm } = await store.create({ title: 'No risks yet', goal: 'Ship it.', steps: [{ text: 'Build it' }, { text: 'Test it' }], verification: ['The tests pass.'], status: 'proposed' }, 'agent');
    const id = fm.id;
    await rejectPlan(place, id, {
      actor: 'user',
      feedback: 'Not yet.',
      comments: [
        { anchor: 'Risks', body: 'add a Risks section' },
        { anchor: 'Verification', body: 'name the command' },
      ],
    });
    await store.update(id, 'agent', (d, c) => setMetadata(d, { risks: ['The parser may be slow on large files.'] }, {}, c));
    const { untouched, doc } = await submitPlan(place, id, { actor: 'agent' });
    assert.deepEqual(untouched.map((c) => c.anchor), ['Verification'], 'only the comment whose section did not change is "not changed since the rejection"');

    const since = await compareWithReviewed(place, id);
    assert.deepEqual(since.comparison?.sectionsAdded, ['Risks']);
    assert.deepEqual(since.comments.map((c) => [c.anchor, c.addressed]), [
      ['Risks', true],
      ['Verification', false],
    ]);

    let out = '';
    let err = '';
    const code = await runCli(['diff', id, '--root', root], { out: (s) => (out += s), err: (s) => (err += s) });
    assert.equal(code, 0, err);
    assert.equal(
      out,
      [`${id}: v1 (reviewed) → v${doc.fm.version}`, '  + ## Risks added', 'Comments of the v1 review:', '  revised    Risks: add a Risks section', '  untouched  Verification: name the command', ''].join('\n'),
    );
  });

  it('`pi-plans reject --comment risks=…` (the title in lower case), then ## Risks added: submit and `pi-plans diff` count it as revised, in aligned columns', async () => {
    const store = await openNodeStore(root, { index: false });
    const { fm } = await store.create({ title: 'No risks yet', goal: 'Ship it.', steps: [{ text: 'Build it' }, { text: 'Test it' }], verification: ['The tests pass.'], status: 'proposed' }, 'agent');
    const id = fm.id;
    let out = '';
    let err = '';
    const cli = async (args: string[]) => {
      out = '';
      err = '';
      return runCli([...args, '--root', root], { out: (s) => (out += s), err: (s) => (err += s) });
    };
    assert.equal(await cli(['reject', id, '--comment', 'risks=add a Risks section', '--comment', 'verification=name the command']), 0, err);
    await store.update(id, 'agent', (d, c) => setMetadata(d, { risks: ['The parser may be slow on large files.'] }, {}, c));
    const { untouched, doc } = await submitPlan({ store }, id, { actor: 'agent' });
    assert.deepEqual(untouched.map((c) => c.anchor), ['verification']);
    assert.equal(await cli(['diff', id]), 0, err);
    assert.equal(
      out,
      [`${id}: v1 (reviewed) → v${doc.fm.version}`, '  + ## Risks added', 'Comments of the v1 review:', '  revised    risks: add a Risks section', '  untouched  verification: name the command', ''].join('\n'),
    );
  });
});
