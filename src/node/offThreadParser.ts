import { Worker } from 'node:worker_threads';
import { bodyOf, hasOutline, type Outline, rememberOutline } from '../core';
import type { IndexEntry, IndexHelperPort, ParserPort } from '../store';

/** What the worker answers: an outline, or the entries of an index request; neither when it failed. */
interface Reply {
  id: number;
  outline?: Outline;
  entries?: (IndexEntry | undefined)[];
}

/**
 * Work on plans on a worker thread, for a process other code shares (the extension host) and for
 * a cold index anywhere:
 * - `prepare(text)` computes the body's outline (the Markdown parse) there and caches it here, so
 *   the parse of `text` that follows is only the frontmatter and the step lines. Bodies below
 *   `minChars`, and bodies whose outline is cached already, are left to the caller (a round trip
 *   costs more than their parse).
 * - `entries(files)` reads plan files there and returns their index entries (`IndexHelperPort`).
 * If the worker fails, the caller does the work as it would without it.
 */
export class OffThreadParser implements ParserPort, IndexHelperPort {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, (r: Reply | undefined) => void>();

  /** Ends the worker once it has had nothing to do for `idleMs`: its heap is given back, and the next request starts it again. */
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly retired = new WeakSet<Worker>();
  private idleEnds: (() => void)[] = [];

  constructor(
    private readonly script: string,
    private readonly minChars = 2048,
    /** Told when the worker cannot start or dies (parses then run on the caller's thread). */
    private readonly onFailure?: (e: Error) => void,
    /** How long an idle worker is kept (ms): a start costs about 50 ms, an idle worker 10–20 MB. */
    private readonly idleMs = 60_000,
  ) {}

  /** True while the worker thread is running (started by a request, ended when idle or disposed). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Resolves once no worker runs: it was ended for being idle, it died or it was disposed (at once when none runs). */
  idleEnd(): Promise<void> {
    if (!this.worker) return Promise.resolve();
    return new Promise((resolve) => this.idleEnds.push(resolve));
  }

  /** How many worker threads this parser has started. */
  get started(): number {
    return this.starts;
  }
  private starts = 0;

  async prepare(text: string): Promise<void> {
    if (text.length < this.minChars) return;
    const body = bodyOf(text);
    if (body !== undefined) await this.prepareBody(body);
  }

  async prepareBody(body: string): Promise<void> {
    if (body.length < this.minChars || hasOutline(body)) return;
    const outline = (await this.request({ body }))?.outline;
    if (outline) rememberOutline(body, outline);
  }

  async entries(files: readonly { name: string; path: string }[], maxBytes: number): Promise<(IndexEntry | undefined)[] | undefined> {
    const entries = (await this.request({ index: { files, maxBytes } }))?.entries;
    return entries?.length === files.length ? entries : undefined;
  }

  private request(message: { body: string } | { index: { files: readonly { name: string; path: string }[]; maxBytes: number } }): Promise<Reply | undefined> {
    let w: Worker;
    try {
      w = this.start();
    } catch (e) {
      this.onFailure?.(e as Error);
      return Promise.resolve(undefined); // no worker (a bad script path): the caller parses
    }
    const id = ++this.seq;
    clearTimeout(this.idleTimer);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      w.ref();
      w.postMessage({ id, ...message });
    });
  }

  /** Ends the worker after `idleMs` with nothing asked of it (a request in between keeps it). */
  private idleLater(w: Worker): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== w || this.waiting.size) return;
      this.worker = undefined;
      this.retired.add(w); // its exit is no failure, and nothing waits on it
      void w.terminate();
      this.ended();
    }, this.idleMs);
    this.idleTimer.unref?.();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.script);
    this.starts++;
    w.unref();
    w.on('message', (m: Reply) => {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
      if (!this.waiting.size) {
        w.unref();
        this.idleLater(w);
      }
    });
    const fail = (e?: unknown) => {
      if (this.retired.has(w)) return;
      if (this.worker === w) {
        this.worker = undefined;
        this.ended();
      }
      if (e instanceof Error || (typeof e === 'number' && e !== 0 && this.waiting.size)) this.onFailure?.(e instanceof Error ? e : new Error(`the parser worker exited with code ${e}`));
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', fail);
    return (this.worker = w);
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    void this.worker?.terminate();
    this.worker = undefined;
    this.ended();
  }

  private ended(): void {
    const waiters = this.idleEnds;
    this.idleEnds = [];
    for (const resolve of waiters) resolve();
  }
}
