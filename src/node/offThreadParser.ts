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

  constructor(
    private readonly script: string,
    private readonly minChars = 2048,
    /** Told when the worker cannot start or dies (parses then run on the caller's thread). */
    private readonly onFailure?: (e: Error) => void,
  ) {}

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
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      w.ref();
      w.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.script);
    w.unref();
    w.on('message', (m: Reply) => {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
      if (!this.waiting.size) w.unref();
    });
    const fail = (e?: unknown) => {
      if (this.worker === w) this.worker = undefined;
      if (e instanceof Error || (typeof e === 'number' && e !== 0 && this.waiting.size)) this.onFailure?.(e instanceof Error ? e : new Error(`the parser worker exited with code ${e}`));
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', fail);
    return (this.worker = w);
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}
