// On Node the core's digests take Node's own SHA-256 (src/node installs it): the same bytes as the
// core's pure @noble/hashes, 20x faster (issue 40: a 1,000-step plan's digest was 9-13 ms of every
// `pi-plans show` and `validate`).
import { strict as assert } from 'node:assert';
import { sha256 } from '@noble/hashes/sha2.js';
import { contentDigest, createPlanText, parsePlan, textDigest } from '../../../src/core';
import '../../../src/node';

// The module object src/node calls createHash on (a property read at each call).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the builtin's own exports, to count calls on them
const nodeCrypto = require('node:crypto') as { createHash: (algorithm: string) => unknown };

const pure = (text: string) => `sha256:${Buffer.from(sha256(new TextEncoder().encode(text))).toString('hex')}`;

describe("the core's digests on Node", () => {
  it("go through Node's SHA-256 and give the bytes of the core's own", () => {
    const texts = ['', 'a plan', 'é → ✓ 😀 \u2028', 'x'.repeat(100_003)];
    let calls = 0;
    const createHash = nodeCrypto.createHash;
    nodeCrypto.createHash = (algorithm: string) => (calls++, createHash(algorithm));
    try {
      for (const t of texts) assert.equal(textDigest(t), pure(t), JSON.stringify(t.slice(0, 20)));
      const doc = parsePlan(createPlanText({ id: 'PLAN-0000abcd', title: 'T → ✓', goal: 'G', steps: [{ text: 'a' }, { text: 'b (edit: update → src/b.ts)' }] }, '2026-11-22T10:00:00.000Z'));
      assert.match(contentDigest(doc), /^sha256:[0-9a-f]{64}$/);
    } finally {
      nodeCrypto.createHash = createHash;
    }
    assert.equal(calls, texts.length + 1);
  });
});
