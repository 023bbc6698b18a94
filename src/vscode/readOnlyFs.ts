import { PlanError } from '../core';
import type { FileSystemPort } from '../store';

/** A file system port that reads but refuses every write: Restricted Mode. */
export function readOnly(fs: FileSystemPort, why: () => string): FileSystemPort {
  const refuse = async (): Promise<never> => {
    throw new PlanError('IO', why());
  };
  return {
    readFile: (p) => fs.readFile(p),
    stat: (p) => fs.stat(p),
    statMany: (p) => fs.statMany(p),
    readMany: (p) => fs.readMany(p),
    readDir: (p) => fs.readDir(p),
    mkdirp: refuse,
    writeFileAtomic: refuse,
    createFileExclusive: refuse,
    appendFile: refuse,
    sweepTempFiles: async () => 0,
  };
}
