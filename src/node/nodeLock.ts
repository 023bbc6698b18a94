import * as fs from 'node:fs';
import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import { PlanError } from '../core';
import type { LockPort } from '../store';

/**
 * The calls proper-lockfile makes, in its callback style, done with Node's synchronous calls:
 * what its `lockSync` does, as one object kept for the process (see `acquire`).
 */
const SYNC_FS = Object.fromEntries(
  (['mkdir', 'realpath', 'stat', 'rmdir', 'utimes'] as const).map((name) => [
    name,
    (...args: unknown[]) => {
      const callback = args.pop() as (err: unknown, result?: unknown) => void;
      let result: unknown;
      try {
        result = (fs[`${name}Sync`] as (...a: unknown[]) => unknown)(...args);
      } catch (e) {
        callback(e);
        return;
      }
      callback(null, result);
    },
  ]),
);

/**
 * A cross-process lock per plan file (proper-lockfile: an atomic mkdir, refreshed while held,
 * taken over when its holder died and it went stale). The lock folder sits beside the plan as
 * `.<name>.lock`. With `blocking` (the CLI), an uncontended lock is taken and released with
 * synchronous file-system calls (microseconds); otherwise (the extension host) and when
 * contended, with its asynchronous calls and retries.
 */
export class NodeLock implements LockPort {
  constructor(private readonly opts: { staleMs?: number; retries?: number; blocking?: boolean } = {}) {}

  async acquire(file: string): Promise<() => Promise<void>> {
    const options = {
      realpath: false,
      lockfilePath: path.join(path.dirname(file), `.${path.basename(file)}.lock`),
      stale: this.opts.staleMs ?? 10_000,
    };
    if (this.opts.blocking ?? true) {
      try {
        // With one file-system object for every call, proper-lockfile learns the folder's mtime
        // precision once per process (`lockSync` builds a new one per call and probes again: a
        // utimes and a stat on every lock).
        return await lockfile.lock(file, { ...options, fs: SYNC_FS });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
      }
    }
    try {
      return await lockfile.lock(file, {
        ...options,
        retries: { retries: this.opts.retries ?? 200, factor: 1.3, minTimeout: 2, maxTimeout: 100, randomize: true },
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOCKED') {
        throw new PlanError('VERSION_CONFLICT', `${path.basename(file)} is locked by another writer that is taking too long: try again in a moment`);
      }
      throw e;
    }
  }
}
