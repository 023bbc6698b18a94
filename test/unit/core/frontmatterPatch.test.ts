import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { entriesOf, patchFrontmatterYaml, topLevelEntries } from '../../../src/core/frontmatter';

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
