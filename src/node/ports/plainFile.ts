/**
 * Reading and appending the small state files beside the plans (check results, drift bases, the
 * hooks' step reports) without following a link or blocking: any process can plant a link, a
 * FIFO or a device under `.pi/`, and a reader must neither hang on it nor write through it.
 * Plain Node only (the hook's bundle uses it).
 */
import * as fs from 'node:fs';

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** A regular file's text, when it is one of at most `maxBytes`; undefined for none, a link, a special file or a larger one. */
export function readPlainText(file: string, maxBytes: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const st = fs.fstatSync(fd);
    return st.isFile() && st.size <= maxBytes ? fs.readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Appends `text` to a regular file (created if absent); refused when a link (ELOOP) or a FIFO with no reader (ENXIO) is there. */
export function appendPlainText(file: string, text: string): void {
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${file} is not a plain file: remove it`);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
