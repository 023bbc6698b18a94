import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { GOLDEN_FILE, scanGolden } from '../../helpers/markdownScanGolden';

/** The case a golden line is about: its name, length and text digest (everything before the options). */
const caseOf = (line: string | undefined): string => (line === undefined ? '(none)' : JSON.stringify((JSON.parse(line) as unknown[]).slice(0, 3)));

describe('markdown scan: its output is byte-identical to the golden file on every pathological family, ordinary plans, section caps and random soups', function () {
  this.timeout(120_000);

  it('inspectMarkdown returns, byte for byte, what test/fixtures/markdownScan.golden.jsonl recorded', () => {
    const want = fs.readFileSync(GOLDEN_FILE, 'utf8');
    const got = scanGolden();
    if (got === want) return;
    const a = got.split('\n');
    const b = want.split('\n');
    const i = a.findIndex((l, k) => l !== b[k]);
    const at = i === -1 ? b.length : i;
    const inputChanged = caseOf(a[at]) !== caseOf(b[at]);
    assert.fail(
      `line ${at + 1} of the golden file differs (${a.length} lines now, ${b.length} recorded): ` +
        (inputChanged
          ? `the case's input changed (the generator, an example plan or the corpus), not necessarily the scan: check, then rewrite it with \`npx tsx test/helpers/markdownScanGolden.ts --write\``
          : 'the same text, another output: the scan changed') +
        `\n  now:      ${a[at]?.slice(0, 600)}\n  recorded: ${b[at]?.slice(0, 600)}`,
    );
  });
});
