import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import { PlanError } from '../core';
import type { LockPort } from '../store';

/**
 * A cross-process lock per plan file (proper-lockfile: an atomic mkdir, refreshed while held,
 * taken over when its holder died and it went stale). The lock folder sits beside the plan as
 * `.<name>.lock`. With `blocking` (the CLI), an uncontended lock is taken and released with
 * proper-lockfile's synchronous calls (microseconds); otherwise (the extension host) and when
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
        const release = lockfile.lockSync(file, options);
        return async () => release();
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
