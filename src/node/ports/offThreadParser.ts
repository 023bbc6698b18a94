import { Worker } from 'node:worker_threads';
import { bodyOf, hasOutline, knownRefusal, type MarkdownRefusal, type Outline, rememberOutline, rememberRefusal } from '../../core';
import type { IndexEntry, IndexHelperPort, ParserPort } from '../../store';

/** What the worker answers: an outline, a refusal, or the entries of an index request; `begun` when it starts on a body. */
interface Reply {
  id: number;
  begun?: true;
  outline?: Outline;
  refused?: MarkdownRefusal;
  entries?: (IndexEntry | undefined)[];
}

type Request = { body: string } | { index: { files: readonly { name: string; path: string }[]; maxBytes: number } };

/** A request on its way: how to answer it, what to send again to a new worker, its deadline once begun. */
interface Pending {
  resolve: (r: Reply | undefined) => void;
  message: Request;
  /** Workers it was sent to (a request is sent again once, to a new worker, if one dies before starting on it). */
  sends: number;
  begun: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/** How long a body's parse may take on the worker, from when it starts on it (ms). */
export const PARSE_DEADLINE_MS = 4000;

/** A worker's heap cap (MB): a parse that grows past it ends the worker, and the body is refused. */
const WORKER_HEAP_MB = 512;

/**
 * Work on plans on a worker thread, for a process other code shares (the extension host) and for
 * a cold index anywhere:
 * - `prepare(text)` computes the body's outline (the pre-scan, then the Markdown parse) there and
 *   caches it here, so the parse of `text` that follows is only the frontmatter and the step lines.
 *   A body the worker refuses (the pre-scan), fails to parse, or parses past its deadline (the
 *   worker is then ended and another started) is remembered as refused: the parse of `text` that
 *   follows throws that refusal at once, and never parses the body on this thread. Bodies below
 *   `minChars`, and bodies whose outline or refusal is known already, are left to the caller (a
 *   round trip costs more than their parse).
 * - `entries(files)` reads plan files there and returns their index entries (`IndexHelperPort`).
 * If the worker cannot start, the caller does the work as it would without it.
 */
export class OffThreadParser implements ParserPort, IndexHelperPort {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, Pending>();

  /** Ends the worker once it has had nothing to do for `idleMs`: its heap is given back, and the next request starts it again. */
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly retired = new WeakSet<Worker>();
  private idleEnds: (() => void)[] = [];

  constructor(
    private readonly script: string,
    private readonly minChars = 2048,
    /** Told when the worker cannot start, dies, or overruns a deadline (it is then replaced). */
    private readonly onFailure?: (e: Error) => void,
    /** How long an idle worker is kept (ms): a start costs about 50 ms, an idle worker 10–20 MB. */
    private readonly idleMs = 60_000,
    /** How long the parse of one body may take once the worker starts on it (ms). */
    private readonly deadlineMs = PARSE_DEADLINE_MS,
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
    if (body.length < this.minChars || hasOutline(body) || knownRefusal(body)) return;
    const reply = await this.request({ body });
    if (reply?.outline) rememberOutline(body, reply.outline);
    else if (reply?.refused) rememberRefusal(body, reply.refused);
  }

  async entries(files: readonly { name: string; path: string }[], maxBytes: number): Promise<(IndexEntry | undefined)[] | undefined> {
    const entries = (await this.request({ index: { files, maxBytes } }))?.entries;
    return entries?.length === files.length ? entries : undefined;
  }

  private request(message: Request): Promise<Reply | undefined> {
    const id = ++this.seq;
    clearTimeout(this.idleTimer);
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve, message, sends: 0, begun: false });
      this.send(id);
    });
  }

  /** Sends a waiting request to the worker (started if need be); without one, it is answered with nothing (the caller does the work). */
  private send(id: number): void {
    const p = this.waiting.get(id)!;
    let w: Worker;
    try {
      w = this.start();
    } catch (e) {
      this.onFailure?.(e as Error);
      this.settle(id, undefined); // no worker (a bad script path): the caller parses
      return;
    }
    p.sends++;
    w.ref();
    w.postMessage({ id, ...p.message });
  }

  private settle(id: number, reply: Reply | undefined): void {
    const p = this.waiting.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.waiting.delete(id);
    p.resolve(reply);
  }

  /** The worker started on a body: from now it has `deadlineMs`, or it is ended and the body refused. */
  private begun(w: Worker, id: number): void {
    const p = this.waiting.get(id);
    if (!p) return;
    p.begun = true;
    p.timer = setTimeout(() => {
      if (this.worker !== w) return;
      this.onFailure?.(new Error(`the parser worker took over ${this.deadlineMs} ms on a plan body: it was ended, the plan refused, and another worker started`));
      this.settle(id, { id, refused: overran(this.deadlineMs) });
      this.replace(w);
    }, this.deadlineMs);
  }

  /**
   * Ends worker `w` (stuck on a body, or dead) and sends what it had not started on to a new one;
   * what it had started on is refused (a body that takes down the parser is never parsed again).
   */
  private replace(w: Worker, died?: Error): void {
    if (this.worker === w) this.worker = undefined;
    this.retired.add(w);
    void w.terminate();
    for (const [id, p] of [...this.waiting]) {
      if (p.begun && 'body' in p.message) this.settle(id, { id, refused: stopped(died) });
      else if (p.sends < 2) {
        p.begun = false;
        this.send(id);
      } else this.settle(id, undefined);
    }
    if (!this.worker) this.ended();
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
    const w = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    this.starts++;
    w.unref();
    w.on('message', (m: Reply) => {
      if (this.retired.has(w)) return;
      if (m.begun) return this.begun(w, m.id);
      this.settle(m.id, m);
      if (!this.waiting.size) {
        w.unref();
        this.idleLater(w);
      }
    });
    const fail = (e?: unknown) => {
      if (this.retired.has(w)) return;
      if (e instanceof Error || (typeof e === 'number' && e !== 0 && this.waiting.size)) this.onFailure?.(e instanceof Error ? e : new Error(`the parser worker exited with code ${e}`));
      this.replace(w, e instanceof Error ? e : undefined);
    };
    w.on('error', fail);
    w.on('exit', fail);
    return (this.worker = w);
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    if (this.worker) this.retired.add(this.worker);
    void this.worker?.terminate();
    this.worker = undefined;
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
    this.ended();
  }

  private ended(): void {
    const waiters = this.idleEnds;
    this.idleEnds = [];
    for (const resolve of waiters) resolve();
  }
}

/** The refusal of a body whose parse overran the worker's deadline. */
function overran(ms: number): MarkdownRefusal {
  return {
    code: 'TOO_LARGE',
    rule: 'markdown-timeout',
    message: `the Markdown took over ${ms / 1000} s to parse and was stopped: split the plan, or simplify its largest lists, tables or quotes`,
    line: 1,
  };
}

/** The refusal of a body the worker died on (out of memory, a crash). */
function stopped(e?: Error): MarkdownRefusal {
  const why = e && /memory/i.test(`${(e as { code?: string }).code ?? ''} ${e.message}`) ? 'ran out of memory' : 'stopped';
  return { code: 'TOO_LARGE', rule: 'markdown-parse-failed', message: `the Markdown parser ${why} on this plan: split the plan, or simplify its largest lists, tables or quotes`, line: 1 };
}
