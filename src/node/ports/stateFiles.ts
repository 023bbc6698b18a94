/**
 * Pi Plans' own state in the user's state folder (the agent sessions' bindings, the hook's call
 * records, the hooks' step reports): folders of its own, made if missing and refused when
 * something else stands there (a link, a file); files read only when they are regular files of at
 * most a given size, without following a link or blocking on a FIFO; written beside and renamed,
 * never through a link. Plain Node only: the hook's small bundle uses it on every tool call.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** Something stands where Pi Plans keeps its state that it did not put there; the message says what and the fix. */
export class StateBroken extends Error {}

/**
 * `parent/name` as a folder of Pi Plans' own: made (mode 0700, its parents too) when missing;
 * refused when a link, a file or anything but a folder stands there, so nothing is read from or
 * written to a place someone else chose.
 */
export function ownFolder(parent: string, name: string): string {
  const dir = path.join(parent, name);
  let st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) {
    fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    st = fs.lstatSync(dir);
  }
  if (st.isSymbolicLink() || !st.isDirectory()) throw new StateBroken(`${dir} is ${st.isSymbolicLink() ? 'a link' : 'not a folder'}, where Pi Plans keeps its own state: a person removes it (rm ${JSON.stringify(dir)}) and the next call makes the folder again`);
  return dir;
}

/** `parent/name` when it is a folder of Pi Plans' own, undefined when it does not exist; refused like ownFolder when something else stands there. */
export function existingFolder(parent: string, name: string): string | undefined {
  const dir = path.join(parent, name);
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (st.isSymbolicLink() || !st.isDirectory()) throw new StateBroken(`${dir} is ${st.isSymbolicLink() ? 'a link' : 'not a folder'}, where Pi Plans keeps its own state: a person removes it (rm ${JSON.stringify(dir)}) and the next call makes the folder again`);
  return dir;
}

/** A state file as read: absent, its text, or why it cannot be trusted (a link, a FIFO, a folder, too large, unreadable). */
export type StateRead = { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'bad'; why: string };

/** Reads a state file without following a link or waiting on a FIFO. */
export function readStateFile(file: string, maxBytes: number): StateRead {
  const r = readStateBytes(file, maxBytes);
  return r.kind === 'bytes' ? { kind: 'text', text: r.bytes.toString('utf8') } : r;
}

/** readStateFile's bytes, as they are on the disk. */
export function readStateBytes(file: string, maxBytes: number): { kind: 'none' } | { kind: 'bytes'; bytes: Buffer } | { kind: 'bad'; why: string } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { kind: 'bad', why: `${file} is not a plain file` };
    if (st.size > maxBytes) return { kind: 'bad', why: `${file} is ${st.size} bytes, over the ${maxBytes} a state file may have` };
    return { kind: 'bytes', bytes: fs.readFileSync(fd) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'bad', why: code === 'ELOOP' ? `${file} is a link` : `${file} cannot be read (${code ?? (e as Error).message})` };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Writes a state file whole: a new temp file beside it (never through a link), then renamed over it. */
export function writeStateFile(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`);
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Removes `dir/name` when it is a file or link of the given name pattern (its own names only; a link is removed itself, never its target). */
export function removeOwnFile(dir: string, name: string, pattern: RegExp): void {
  if (!pattern.test(name) || name.includes('/')) return;
  const f = path.join(dir, name);
  const st = fs.lstatSync(f, { throwIfNoEntry: false });
  if (st && !st.isDirectory()) fs.rmSync(f, { force: true });
}
