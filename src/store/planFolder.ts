import { Actor, decodePlanBytes, DEFAULT_CONFIG, fileTooLarge, isPlanError, isPlanId, LIMITS, OpContext, parsePlan, PlanDocument, PlanError, PlansConfig, PlansConfigSchema } from '../core';
import { isSpecial } from './planIndex';
import { describeKind, StorePorts } from './ports';

/**
 * One workspace folder's plan files, as every part of the store reaches them: the folders and
 * their paths, the workspace's config (`.pi/plans.json`), and the checked reads (a plan id before
 * any path, real folders only, a regular file under the size cap, decoded strictly). Shared by the
 * index, the write path, the history and the attention checks; holds no plan.
 */
export class PlanFolder {
  readonly plansDir: string;
  readonly sessionsDir: string;
  readonly configPath: string;
  private _config: PlansConfig = DEFAULT_CONFIG;
  private _configError: PlanError | undefined;

  constructor(
    readonly root: string,
    readonly ports: StorePorts,
  ) {
    const r = root.replace(/[\\/]+$/, '');
    this.plansDir = `${r}/.pi/plans`;
    this.sessionsDir = `${this.plansDir}/sessions`;
    this.configPath = `${r}/.pi/plans.json`;
  }

  get config(): PlansConfig {
    return this._config;
  }
  /** Why `.pi/plans.json` was not used (defaults apply then), if it was not. */
  get configError(): PlanError | undefined {
    return this._configError;
  }

  /** Reads `.pi/plans.json`; a file that is not valid leaves the defaults, and says why in `configError`. */
  async loadConfig(): Promise<void> {
    this._config = DEFAULT_CONFIG;
    this._configError = undefined;
    const bytes = await this.ports.fs.readFile(this.configPath).catch((e) => {
      this._configError = isPlanError(e) ? e : new PlanError('IO', String(e));
      return undefined;
    });
    if (!bytes) return;
    try {
      const r = PlansConfigSchema.safeParse(JSON.parse(decodePlanBytes(bytes)));
      if (r.success) this._config = r.data;
      else {
        const i = r.error.issues[0];
        this._configError = new PlanError('INVALID_FILE', `.pi/plans.json: "${i.path.join('.')}" ${i.message}: fix it (defaults are used until then)`, { file: '.pi/plans.json' });
      }
    } catch (e) {
      this._configError = new PlanError('INVALID_FILE', `.pi/plans.json is not valid JSON (${(e as Error).message}): fix it (defaults are used until then)`, { file: '.pi/plans.json' });
    }
  }

  /** A fresh plan id (not checked against the folder: creating the file refuses a clash). */
  newPlanId(): string {
    return `PLAN-${this.ports.random.hex8()}`;
  }

  /** The path of a plan file. Refuses anything that is not a plan id before a path is built. */
  pathOf(id: string): string {
    if (!isPlanId(id)) {
      const shown = JSON.stringify(String(id).slice(0, 40));
      throw new PlanError('INVALID_ID', `${shown} is not a plan id: ids are PLAN- and 8 lowercase hex digits, e.g. PLAN-1a2b3c4d; list the plans to find one`);
    }
    return `${this.plansDir}/${id}.md`;
  }

  /** A path as errors and logs name it: relative to the workspace folder. */
  rel(path: string): string {
    return path.startsWith(this.root) ? path.slice(this.root.replace(/[\\/]+$/, '').length + 1) : path;
  }

  /** What an operation is given: the time now, who acts, and the workspace's config. */
  ctx(actor: Actor): OpContext {
    return { now: this.ports.clock.now().toISOString(), actor, config: this._config };
  }

  /** Runs an operation; an error it throws is reported to `ports.onError`, then rethrown. */
  async reported<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (caught) {
      // Errors name files relative to the workspace folder: a model or a log needs no more of the machine's layout.
      const e = isPlanError(caught) && caught.details.file?.startsWith(`${this.root.replace(/[\\/]+$/, '')}/`) ? caught.inFile(this.rel(caught.details.file)) : caught;
      try {
        this.ports.onError?.(operation, e);
      } catch {
        /* a broken reporter must not hide the error */
      }
      throw e;
    }
  }

  /** The document's id must be the file name's. */
  checkId(id: string, path: string, doc: PlanDocument): PlanDocument {
    if (doc.fm.id !== id) {
      throw new PlanError('INVALID_FILE', `the id in the file (${doc.fm.id}) is not the file name's (${id}): make them the same`, { file: this.rel(path), line: 2 });
    }
    return doc;
  }

  /** Byte-for-byte equality: the file system's own where it has one. */
  sameBytes(a: Uint8Array, b: Uint8Array): boolean {
    return this.ports.fs.sameBytes ? this.ports.fs.sameBytes(a, b) : sameBytes(a, b);
  }

  /** A plan file's bytes; a file over the size cap is refused without being read. */
  async readPlanBytes(id: string, path: string): Promise<Uint8Array> {
    // A stat first, so a FIFO, socket or device named like the plan is refused without being
    // opened (opening one, even without blocking, wakes a writer waiting on a pipe).
    const st = await this.ports.fs.stat(path);
    if (st && isSpecial(st)) {
      throw new PlanError('NOT_A_FILE', `${id}.md is ${describeKind(st.kind)}, not a file: plans are only read from regular files; remove it or replace it with a plan file`, { file: this.rel(path) });
    }
    if (st && st.size > LIMITS.fileBytes) throw fileTooLarge(st.size, this.rel(path));
    const bytes = await this.ports.fs.readFile(path);
    if (!bytes) throw this.notFound(id);
    return bytes;
  }

  notFound(id: string): PlanError {
    return new PlanError('NOT_FOUND', `${id} does not exist in ${this.rel(this.plansDir)}: list the plans to find the right id`);
  }

  /** Reads and fully parses a plan. NOT_FOUND, INVALID_FILE (with file and line), UNSAFE_PATH. */
  async readPlan(id: string): Promise<PlanDocument> {
    const path = this.pathOf(id);
    await this.checkFolders();
    const bytes = await this.readPlanBytes(id, path);
    const text = decodePlanBytes(bytes, this.rel(path));
    await this.prepare(text);
    const doc = this.checkId(id, path, parsePlan(text, this.rel(path)));
    this.ports.parser?.parsed?.(text);
    return doc;
  }

  /** Has a parser port compute the Markdown parse of `text` off this thread first, when there is one. */
  async prepare(text: string): Promise<void> {
    await this.ports.parser?.prepare(text).catch(() => undefined);
  }

  /** The parse of a plan's bytes (decoded strictly; the parser port asked first). */
  async documentOf(path: string, bytes: Uint8Array): Promise<PlanDocument> {
    const text = decodePlanBytes(bytes, this.rel(path));
    await this.prepare(text);
    return parsePlan(text, this.rel(path));
  }

  /** `.pi`, `.pi/plans` and its `sessions` must be real folders, never links, files or anything else. */
  async checkFolders(): Promise<void> {
    for (const dir of [this.plansDir.slice(0, -'/plans'.length), this.plansDir, this.sessionsDir]) {
      const st = await this.ports.fs.stat(dir);
      if (st?.isSymbolicLink) {
        throw new PlanError('UNSAFE_PATH', `${this.rel(dir)} is a symbolic link: plans are only read and written in real folders inside the workspace; replace the link with a folder`);
      }
      if (st && !st.isDirectory) {
        throw new PlanError('NOT_A_FILE', `${this.rel(dir)} is ${describeKind(st.kind ?? (st.isFile ? 'file' : 'other'))}, not a folder: plans live in the folder .pi/plans; move it away and make a folder there`);
      }
    }
  }

  /** The folders checked, and the plans folder made if it is missing. */
  async ensureFolders(): Promise<void> {
    await this.checkFolders();
    await this.ports.fs.mkdirp(this.plansDir);
  }
}

/** An error's message, as a warning quotes it. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Byte-for-byte equality, four bytes at a time where both arrays are aligned for it. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.byteLength;
  if (n !== b.byteLength) return false;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const wa = new Uint32Array(a.buffer, a.byteOffset, n >> 2);
    const wb = new Uint32Array(b.buffer, b.byteOffset, n >> 2);
    for (let k = 0; k < wa.length; k++) if (wa[k] !== wb[k]) return false;
    i = wa.length * 4;
  }
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
