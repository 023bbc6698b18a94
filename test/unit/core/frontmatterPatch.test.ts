import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { entriesOf, patchFrontmatterYaml, plainMapping, topLevelEntries } from '../../../src/core/format/frontmatter';
import { applyEdits, parsePlan, PlanDocument } from '../../../src/core';

const BASE = [
  'id: PLAN-0000abcd',
  '# a comment about the title',
  'title: "A plan"',
  'status: draft',
  'tools_required:',
  '  - edit',
  '  - "run tests"',
  '',
  'custom_key: keep me',
  'version: 3',
].join('\n');

const KEYS = ['id', 'title', 'status', 'version', 'tools_required', 'custom_key', 'step_seq', 'updated_at', 'result_summary'];
const value = fc.oneof(
  fc.integer({ min: 0, max: 99999 }),
  fc.string({ maxLength: 30 }),
  fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { maxLength: 3 }),
  fc.constant(undefined),
);

describe('frontmatter patching', () => {
  it('replaces only the patched keys, keeps comments and unknown keys byte for byte', () => {
    const out = patchFrontmatterYaml(BASE, { version: 4, title: 'New "title"' }, '\n');
    assert.equal(
      out,
      ['id: PLAN-0000abcd', '# a comment about the title', 'title: "New \\"title\\""', 'status: draft', 'tools_required:', '  - edit', '  - "run tests"', '', 'custom_key: keep me', 'version: 4'].join('\n'),
    );
  });

  it('removes a key set to undefined and appends new keys at the end', () => {
    const out = patchFrontmatterYaml(BASE, { status: undefined, step_seq: 2 }, '\n');
    assert.ok(!/^status:/m.test(out));
    assert.ok(out.endsWith('version: 3\nstep_seq: 2'));
  });

  it('writes CRLF when asked', () => {
    const crlf = BASE.replace(/\n/g, '\r\n');
    const out = patchFrontmatterYaml(crlf, { tools_required: ['a', 'b'] }, '\r\n');
    assert.ok(!/[^\r]\n/.test(out), 'every line break is CRLF');
    assert.deepEqual((jsyaml.load(out) as Record<string, unknown>).tools_required, ['a', 'b']);
  });

  it('any sequence of patches: the remembered key ranges equal a fresh parse, and the YAML reads back as patched', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }), { minLength: 1, maxLength: 6 }), (patches) => {
        let yaml = BASE;
        let expected = jsyaml.load(BASE) as Record<string, unknown>;
        for (const p of patches) {
          yaml = patchFrontmatterYaml(yaml, p as never, '\n');
          expected = { ...expected };
          for (const [k, v] of Object.entries(p)) {
            if (v === undefined) delete expected[k];
            else expected[k] = v;
          }
          assert.deepEqual(entriesOf(yaml), topLevelEntries(yaml));
          assert.deepEqual({ ...(jsyaml.load(yaml) as object) }, expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('frontmatter of an operation result (through the caches, as a fresh parse)', () => {
  // Heads a person or another tool might have written: comments, unknown keys, nulls, quoting, CRLF, a BOM.
  const headArb = fc.record({
    comment: fc.boolean(),
    unknown: fc.boolean(),
    nulls: fc.boolean(),
    quoted: fc.boolean(),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    tools: fc.boolean(),
  });
  const headText = (h: { comment: boolean; unknown: boolean; nulls: boolean; quoted: boolean; crlf: boolean; bom: boolean; tools: boolean }) => {
    const lines = [
      '---',
      'id: PLAN-0000abcd',
      ...(h.comment ? ['# reviewed by the team'] : []),
      h.quoted ? "title: 'A plan: with a colon'" : 'title: A plan',
      'status: executing',
      'version: 3',
      'created_at: 2026-01-01T10:00:00.000Z',
      'updated_at: "2026-01-01T10:00:00.000Z"',
      ...(h.unknown ? ['custom_key: keep me', 'nested:', '  a: 1'] : []),
      ...(h.nulls ? ['result_summary: null', 'executor_model: ~'] : []),
      ...(h.tools ? ['tools_required:', '  - edit', '  - "run"'] : []),
      '---',
      '',
      '## Steps',
      '1. [ ] S001 One',
      '',
    ];
    return (h.bom ? '\ufeff' : '') + lines.join(h.crlf ? '\r\n' : '\n');
  };
  // Values the operations write, and some they never do (invalid ones must leave the parse to say why).
  const patchArb = fc.dictionary(
    fc.constantFrom('version', 'updated_at', 'status', 'result_summary', 'approved_by', 'approved_version', 'approved_at', 'approved_hash', 'execution_started_at', 'tools_required', 'step_seq', 'title', 'executor_model', 'supersedes', 'custom_key'),
    fc.oneof(
      fc.integer({ min: 0, max: 20 }),
      fc.constantFrom('2026-11-23T10:00:00.000Z', '0123456789abcdef', 'not a time', 'completed', 'agent', 'user', 'PLAN-1234abcd', 'not a status', '', 'true', '123', 'a "quoted" word', 'line: colon', 'ünïcødé ✓', '- dash', '#hash'),
      fc.array(fc.constantFrom('edit', 'run', 'bad tool name'), { maxLength: 3 }),
      fc.constant(undefined),
    ),
    { maxKeys: 4 },
  );
  const fields = (d: PlanDocument) => ({ fm: d.fm, block: d.block });
  // Shapes of YAML in which a patch may not read back as the patch (the new head's fields are then
  // not derived from the patch: the parse decides, and refuses what it must).
  const shapeArb = fc.constantFrom('plain', 'plain', 'indented', 'docEnd', 'quotedKey', 'blockScalar', 'trailingComment', 'flow');
  const reshape = (text: string, shape: string): string => {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const [open, ...rest] = text.split(`${eol}---${eol}`);
    const lines = open.split(eol);
    const head = lines.slice(1);
    let yaml: string[];
    switch (shape) {
      case 'indented':
        yaml = head.map((l) => `  ${l}`);
        break;
      case 'docEnd':
        yaml = [...head, '...'];
        break;
      case 'quotedKey':
        yaml = head.map((l) => (l.startsWith('status:') ? `"status":${l.slice(7)}` : l));
        break;
      case 'blockScalar':
        yaml = [...head, 'notes: |', '  kept as written', '  over two lines'];
        break;
      case 'trailingComment':
        yaml = [...head, '# the end'];
        break;
      case 'flow':
        yaml = [`{${head.filter((l) => /^[a-z_]+: [^\s]/.test(l)).join(', ')}}`];
        break;
      default:
        yaml = head;
    }
    return [[lines[0], ...yaml].join(eol), ...rest].join(`${eol}---${eol}`);
  };

  it('equals a fresh parse of the new text (fields and block), or the parse refuses it as it would anyway', () => {
    fc.assert(
      fc.property(headArb, patchArb, fc.nat(), shapeArb, (h, patch, salt, shape) => {
        // A title no earlier run used, so no head from another run is in the cache.
        const text = reshape(headText(h).replace('A plan', `A plan ${salt}`), shape);
        const doc = parsePlan(text);
        const out = applyEdits(doc, patch as never).text;
        let expected: ReturnType<typeof fields> | Error;
        try {
          expected = fields(parsePlan(out, undefined, { fresh: true }));
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) {
          assert.throws(() => parsePlan(out), (e: Error) => e.message === (expected as Error).message);
        } else {
          assert.deepStrictEqual(fields(parsePlan(out)), expected);
        }
      }),
      { numRuns: 600 },
    );
  });

  it('plainMapping: the shapes whose patches read back as the patch, and the others', () => {
    assert.equal(plainMapping('id: x\ntitle: "t"\n# note\ntools_required:\n  - edit\n\nversion: 3'), true);
    assert.equal(plainMapping('id: x\r\nnotes: |\r\n  two\r\n  lines'), true);
    for (const yaml of ['  id: x\n  title: t', 'id: x\n...', '{id: x, title: t}', '"id": x', 'id: x\n- item', 'id: x\n\tb: 1']) assert.equal(plainMapping(yaml), false, yaml);
  });
});
