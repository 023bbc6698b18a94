import { strict as assert } from 'node:assert';
import { PlanError } from '../../src/core';

/** The PlanError `fn` throws (fails the test when it throws anything else, or nothing). */
export function errorOf(fn: () => unknown): PlanError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof PlanError, `expected a PlanError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a PlanError, nothing was thrown');
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function refusal(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof Error, 'expected a refusal, but it went through');
  return err;
}

/**
 * Lines removed from `a` and added in `b` (longest common subsequence on lines split at "\n", so a
 * "\r" stays part of its line): everything else was kept as it was.
 */
export function diffLines(a: string, b: string): { removed: string[]; added: string[] } {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const removed: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) removed.push(x[i++]);
    else added.push(y[j++]);
  }
  while (i < n) removed.push(x[i++]);
  while (j < m) added.push(y[j++]);
  return { removed, added };
}
