import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PlanError } from '../../src/core';
import { NodeApprovalKeys } from '../../src/node/ports/approvalKeys';
import { describeKind, type FileKind, type FileStat, type FileSystemPort, type LockPort, type StorePorts } from '../../src/store';

/** An in-memory file system with links, for unit tests of the store (no disk). */
export class MemoryFileSystem implements FileSystemPort {
  files = new Map<string, Uint8Array>();
  links = new Map<string, string>();
  dirs = new Set<string>();
  mtimes = new Map<string, number>();
  private tick = 1;
  writes = 0;

  private touch(p: string) {
    this.mtimes.set(p, this.tick++);
    const parts = p.split('/');
    for (let i = 2; i < parts.length; i++) this.dirs.add(parts.slice(0, i).join('/'));
  }

  /** Paths that are something other than a file or folder (a FIFO, a socket, a device). */
  special = new Map<string, FileKind>();

  async readFile(p: string): Promise<Uint8Array | undefined> {
    this.reads++;
    if (this.links.has(p)) throw new PlanError('UNSAFE_PATH', `${p} is a symbolic link`);
    const kind = this.special.get(p) ?? (this.dirs.has(p) ? 'directory' : undefined);
    if (kind) throw new PlanError('NOT_A_FILE', `${p.slice(p.lastIndexOf('/') + 1)} is ${describeKind(kind)}, not a file`, { file: p });
    const b = this.files.get(p);
    return b ? new Uint8Array(b) : undefined;
  }
  async stat(p: string): Promise<FileStat | undefined> {
    if (this.links.has(p)) return { size: 0, mtimeMs: 0, isFile: false, isDirectory: false, isSymbolicLink: true, kind: 'symlink' };
    const special = this.special.get(p);
    if (special) return { size: 0, mtimeMs: this.mtimes.get(p) ?? 0, isFile: false, isDirectory: false, isSymbolicLink: false, kind: special };
    const b = this.files.get(p);
    if (b) return { size: b.byteLength, mtimeMs: this.mtimes.get(p) ?? 0, isFile: true, isDirectory: false, isSymbolicLink: false, kind: 'file' };
    if (this.dirs.has(p)) return { size: 0, mtimeMs: 0, isFile: false, isDirectory: true, isSymbolicLink: false, kind: 'directory' };
    return undefined;
  }
  async statMany(paths: readonly string[]): Promise<(FileStat | undefined)[]> {
    return Promise.all(paths.map((p) => this.stat(p)));
  }
  reads = 0;
  async readMany(paths: readonly string[]): Promise<(Uint8Array | undefined | Error)[]> {
    return Promise.all(paths.map((p) => this.readFile(p).catch((e: Error) => e)));
  }
  async readDir(p: string): Promise<string[]> {
    const out = new Set<string>();
    for (const k of [...this.files.keys(), ...this.links.keys(), ...this.special.keys(), ...this.dirs]) {
      if (k.startsWith(p + '/')) out.add(k.slice(p.length + 1).split('/')[0]);
    }
    return [...out];
  }
  async mkdirp(p: string): Promise<void> {
    this.touch(p + '/x');
  }
  async writeFileAtomic(p: string, data: Uint8Array): Promise<void> {
    if (this.links.has(p)) throw new PlanError('UNSAFE_PATH', `${p} is a symbolic link`);
    this.files.set(p, new Uint8Array(data));
    this.touch(p);
    this.writes++;
  }
  async createFileExclusive(p: string, data: Uint8Array): Promise<void> {
    if (this.files.has(p) || this.links.has(p)) throw Object.assign(new Error('EEXIST'), { code: 'EEXIST' });
    await this.writeFileAtomic(p, data);
  }
  async removeFile(p: string): Promise<void> {
    this.files.delete(p);
    this.links.delete(p);
  }
  async appendFile(p: string, data: Uint8Array): Promise<void> {
    const old = this.files.get(p) ?? new Uint8Array();
    const n = new Uint8Array(old.byteLength + data.byteLength);
    n.set(old);
    n.set(data, old.byteLength);
    this.files.set(p, n);
    this.touch(p);
  }
  async sweepTempFiles(): Promise<number> {
    return 0;
  }
  /** Test helper: write a file as an outside editor would (no lock). */
  put(p: string, text: string | Uint8Array) {
    this.files.set(p, typeof text === 'string' ? new TextEncoder().encode(text) : text);
    this.touch(p);
  }
  text(p: string): string | undefined {
    const b = this.files.get(p);
    return b ? new TextDecoder().decode(b) : undefined;
  }
}

/** A lock that serializes holders inside one process. */
export class MemoryLock implements LockPort {
  private held = new Map<string, Promise<void>>();
  async acquire(path: string): Promise<() => Promise<void>> {
    while (this.held.has(path)) await this.held.get(path);
    let release!: () => void;
    this.held.set(path, new Promise<void>((r) => (release = r)));
    return async () => {
      this.held.delete(path);
      release();
    };
  }
}

/**
 * The approval keys of a person for a test: the real Node adapter (real Ed25519 keys) in a fresh
 * temporary configuration folder, outside any workspace. `workspace`: the root the store serves.
 */
export function testApprovalKeys(workspace = '/ws'): NodeApprovalKeys {
  // Under the test run's own home (test/helpers/setup.cjs removes it at the end).
  const base = process.env.XDG_CONFIG_HOME ?? os.tmpdir();
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, 'keys-'));
  // A person's name, as their configuration gives it (otherwise the login name, which differs by machine).
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ name: 'Test Person' }));
  return new NodeApprovalKeys(dir, () => [workspace]);
}

/**
 * Ports for a store on the in-memory file system, with a settable clock and predictable ids, the
 * person's approval keys (`testApprovalKeys`) and review copies kept outside the workspace (in
 * the in-memory file system, under /state).
 */
export function memoryPorts(start = Date.parse('2026-11-22T10:00:00.000Z'), opts: { approvals?: NodeApprovalKeys } = {}) {
  let now = start;
  let seq = 0;
  const mem = new MemoryFileSystem();
  const approvals = opts.approvals ?? testApprovalKeys();
  const ports: StorePorts & { fs: MemoryFileSystem } = {
    fs: mem,
    lock: new MemoryLock(),
    clock: { now: () => new Date(now) },
    random: { hex8: () => (++seq).toString(16).padStart(8, '0') },
    approvals,
    reviewCopies: '/state/reviews/ws',
  };
  return { ports, fs: mem, approvals, advance: (ms: number) => (now += ms), setNow: (t: number) => (now = t) };
}
