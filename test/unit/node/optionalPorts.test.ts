import { strict as assert } from 'node:assert';
import { NodeFileSystem } from '../../../src/node';
import { readOnly } from '../../../src/vscode/workspace/readOnlyFs';

describe('optional file system calls: native byte comparison, and Restricted Mode keeps them', () => {
  const fs = new NodeFileSystem();
  const bytes = (n: number, at = 0) => {
    // A view at an odd offset of a larger buffer: not aligned for word reads.
    const b = new Uint8Array(n + at);
    for (let i = 0; i < n; i++) b[at + i] = (i * 31) & 0xff;
    return b.subarray(at);
  };

  it('sameBytes compares views byte for byte, at any offset', () => {
    assert.equal(fs.sameBytes(bytes(100_001), bytes(100_001, 3)), true);
    const other = bytes(100_001, 1);
    other[77_777] ^= 1;
    assert.equal(fs.sameBytes(bytes(100_001), other), false);
    assert.equal(fs.sameBytes(bytes(10), bytes(11)), false);
    assert.equal(fs.sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
  });

  it('the read-only port of Restricted Mode passes the one-pass read and the comparison through, and still refuses writes', async () => {
    const ro = readOnly(fs, () => true, () => 'Restricted Mode: trust the workspace to change plans');
    assert.equal(typeof ro.readManyWithStats, 'function', 'without it the index stats every file, then reads it');
    assert.equal(ro.sameBytes?.(bytes(5), bytes(5, 1)), true);
    await assert.rejects(ro.writeFileAtomic('/nonexistent/x', bytes(1)), /Restricted Mode/);
  });
});
