import { strict as assert } from 'node:assert';
import { bodyOf, isPlanError, knownRefusal, setMetadata } from '../../../src/core';
import { PlanStore } from '../../../src/store';
import { memoryPorts } from '../../helpers/memoryPorts';
import { planWithMarkdown } from '../../helpers/pathologicalMarkdown';

const ID = 'PLAN-0000beef';
const FILE = `/w/.pi/plans/${ID}.md`;

/** A store over an in-memory workspace holding one plan file with `text`. */
async function storeWith(text: string) {
  const { ports, fs } = memoryPorts();
  fs.put(FILE, text);
  return { store: await PlanStore.open('/w', ports), fs };
}

describe('plan files that are not plain text, or not Markdown a parse can bear, through the store', () => {
  it('a NUL byte is refused with its line: read, analyze and the index say so; the file is never rewritten', async () => {
    const text = planWithMarkdown('A line.\nAnother\0 line.\n', ID);
    const { store, fs } = await storeWith(text);
    const line = text.split('\n').findIndex((l) => l.includes('\0')) + 1;
    await assert.rejects(store.read(ID), (e: unknown) => isPlanError(e, 'INVALID_FILE') && e.details.rule === 'nul-byte' && e.details.line === line && e.message === `the file contains a NUL byte (line ${line}): remove it; plans are text`);
    const a = await store.analyze(ID);
    assert.deepEqual(
      a.problems.map((p) => [p.code, p.line]),
      [['nul-byte', line]],
    );
    const entry = store.list().find((e) => e.file === `${ID}.md`);
    assert.equal(entry?.valid, false);
    assert.equal(entry?.error?.rule, 'nul-byte');
    assert.equal(fs.text(FILE), text, 'untouched');
  });

  it('lone CR line ends are named as such (not as a frontmatter problem); CRLF reads', async () => {
    const lf = planWithMarkdown('A line.\n', ID);
    const { store } = await storeWith(lf.replace(/\n/g, '\r'));
    await assert.rejects(store.read(ID), (e: unknown) => isPlanError(e, 'INVALID_FILE') && e.details.rule === 'lone-cr' && e.details.line === 1 && e.message === 'the file uses lone CR line ends: convert them to LF or CRLF');
    assert.equal(store.list().find((e) => e.file === `${ID}.md`)?.error?.rule, 'lone-cr');
    const crlf = await storeWith(lf.replace(/\n/g, '\r\n'));
    assert.equal((await crlf.store.read(ID)).eol, '\r\n');
  });

  it('pathological Markdown is refused by the read with its rule and line, and remembered: the next read refuses at once', async () => {
    const text = planWithMarkdown(`Before.\n\n${'*a'.repeat(3000)}\n`, ID);
    const { store } = await storeWith(text);
    const line = text.split('\n').findIndex((l) => l.startsWith('*a*a')) + 1;
    const refused = (e: unknown) => isPlanError(e, 'TOO_LARGE') && e.details.rule === 'markdown-emphasis' && e.details.line === line && e.details.file === `.pi/plans/${ID}.md`;
    await assert.rejects(store.read(ID), refused);
    assert.ok(knownRefusal(bodyOf(text)!));
    await assert.rejects(store.read(ID), refused);
    const a = await store.analyze(ID);
    assert.deepEqual(
      a.problems.map((p) => [p.code, p.line]),
      [['markdown-emphasis', line]],
    );
  });

  it('a 40 KB quote written through an update is refused before anything is written (the write\'s own parse refuses it)', async () => {
    const { ports, fs } = memoryPorts();
    const store = await PlanStore.open('/w', ports);
    const doc = await store.create({ title: 'T', goal: 'G', steps: [{ text: 'a' }] }, 'agent');
    const file = `/w/.pi/plans/${doc.fm.id}.md`;
    const before = fs.text(file);
    await assert.rejects(
      store.update(doc.fm.id, 'agent', (d, c) => setMetadata(d, { context: `${'>'.repeat(40_000)} x` }, {}, c)),
      (e: unknown) => isPlanError(e, 'TOO_LARGE') && e.details.rule === 'markdown-quote-depth',
    );
    assert.equal(fs.text(file), before, 'nothing written');
  });
});
