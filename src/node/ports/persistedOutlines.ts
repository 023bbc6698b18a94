import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bodyOf, knownOutline, outlineFits, quickStepCounts, rememberOutline } from '../../core';
import type { ParserPort } from '../../store';
import { flushAtExit, flushedBeforeExit } from './exitFlush';

/** Bodies below this many characters parse in a few milliseconds: not worth a file. */
const MIN_CHARS = 8 * 1024;
/** Outlines kept; the oldest go first. */
export const OUTLINES_KEPT = 200;
/** An outline is written once its plan has been quiet this long, or when the process is about to exit. */
const QUIET_MS = 1000;

const digest = (body: string) => createHash('sha256').update(body).digest('hex');

/**
 * Outlines of large plan bodies kept on disk (by the body's SHA-256), for short-lived processes
 * (the CLI, an MCP server's first call on a plan): a process that finds the outline of the plan it
 * reads spares itself the Markdown parse (a 1,000-step plan: ~0.5 s and ~60 MB), and one that
 * reads or writes a plan keeps the outline of that text for the next. An outline read back is
 * used only if it fits the body by the core's checks (`outlineFits`); a missing, corrupted or
 * foreign file means a parse, as without the cache. Never throws.
 */
export class PersistedOutlines implements ParserPort {
  /** Digests of the outlines on disk that this process read or wrote. */
  private readonly onDisk = new Set<string>();
  /** The latest text whose outline to keep (a run of updates writes only its last body's). */
  private pending: string | undefined;
  /** The text last parsed here: the next update of the same process starts from it. */
  private latest: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writes = 0;

  constructor(private readonly dir: string) {}

  async prepare(text: string): Promise<void> {
    // The text this process parsed last (its own write, read back): known, nothing to look up.
    if (text.length < MIN_CHARS || text === this.latest) return;
    const body = bodyOf(text);
    if (body !== undefined) await this.prepareBody(body);
  }

  async prepareBody(body: string): Promise<void> {
    if (body.length < MIN_CHARS || knownOutline(body)) return;
    const key = digest(body);
    const json = await fs.promises.readFile(this.file(key), 'utf8').catch(() => undefined);
    if (json === undefined) return;
    let outline: unknown;
    try {
      outline = JSON.parse(json);
    } catch {
      return;
    }
    if (outlineFits(body, outline, quickStepCounts(body).total)) {
      rememberOutline(body, outline);
      this.onDisk.add(key);
    }
  }

  /** Keeps the outline of a text this process parsed (read, created, written); the work is done later, off the caller's path. */
  parsed(text: string): void {
    if (text.length < MIN_CHARS) return;
    this.latest = text;
    this.pending = text;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), QUIET_MS);
    this.timer.unref();
    flushAtExit(this);
  }

  /** Writes the pending outline now (the quiet timer or the process's exit does it otherwise). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    flushedBeforeExit(this);
    const text = this.pending;
    this.pending = undefined;
    const body = text === undefined ? undefined : bodyOf(text);
    const outline = body !== undefined && body.length >= MIN_CHARS ? knownOutline(body) : undefined;
    if (!outline) return;
    const key = digest(body!);
    if (this.onDisk.has(key)) return;
    this.onDisk.add(key);
    try {
      await fs.promises.mkdir(this.dir, { recursive: true });
      const tmp = `${this.file(key)}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, JSON.stringify(outline));
      await fs.promises.rename(tmp, this.file(key));
      if (this.writes++ % 50 === 0) await this.prune();
    } catch {
      // A cache: a write that fails costs the next process a parse, nothing else.
    }
  }

  private file(key: string): string {
    return path.join(this.dir, `${key}.json`);
  }

  /** The newest OUTLINES_KEPT outlines stay. */
  private async prune(): Promise<void> {
    const names = (await fs.promises.readdir(this.dir)).filter((n) => n.endsWith('.json'));
    if (names.length <= OUTLINES_KEPT) return;
    const aged = await Promise.all(names.map(async (n) => ({ n, t: (await fs.promises.stat(path.join(this.dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    aged.sort((a, b) => a.t - b.t);
    await Promise.all(aged.slice(0, aged.length - OUTLINES_KEPT).map((a) => fs.promises.rm(path.join(this.dir, a.n), { force: true })));
  }
}
