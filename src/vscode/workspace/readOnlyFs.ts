import { PlanError } from '../../core';
import type { FileSystemPort } from '../../store';

/**
 * A file system port that reads, and refuses every write while `locked()` says so: Restricted
 * Mode. Asked at each write, so trust granted at any moment (even while an index loads) holds.
 */
export function readOnly(fs: FileSystemPort, locked: () => boolean, why: () => string): FileSystemPort {
  const guard =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (locked()) throw new PlanError('IO', why());
      return fn(...a);
    };
  return {
    readFile: (p) => fs.readFile(p),
    stat: (p) => fs.stat(p),
    statMany: (p) => fs.statMany(p),
    readMany: (p) => fs.readMany(p),
    // The optional reads pass through too (without them the index stats every file, then reads it).
    ...(fs.readManyWithStats ? { readManyWithStats: (p: readonly string[], max: number) => fs.readManyWithStats!(p, max) } : {}),
    ...(fs.readEachWithStats ? { readEachWithStats: (p: readonly string[], max: number, each: Parameters<NonNullable<FileSystemPort['readEachWithStats']>>[2]) => fs.readEachWithStats!(p, max, each) } : {}),
    ...(fs.sameBytes ? { sameBytes: (a: Uint8Array, b: Uint8Array) => fs.sameBytes!(a, b) } : {}),
    readDir: (p) => fs.readDir(p),
    mkdirp: guard((p) => fs.mkdirp(p)),
    writeFileAtomic: guard((p, d, o) => fs.writeFileAtomic(p, d, o)),
    createFileExclusive: guard((p, d) => fs.createFileExclusive(p, d)),
    removeFile: guard((p) => fs.removeFile(p)),
    appendFile: guard((p, d) => fs.appendFile(p, d)),
    sweepTempFiles: async (d, n) => (locked() ? 0 : fs.sweepTempFiles(d, n)),
  };
}
