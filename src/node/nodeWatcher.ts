import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Disposable, WatcherPort } from '../store';

/**
 * fs.watch on the plans folder (not recursive), debounced per file. Events are hints: the
 * store re-stats and re-reads, so a dropped or merged event costs nothing but a rescan.
 */
export class NodeWatcher implements WatcherPort {
  constructor(private readonly debounceMs = 50) {}

  watch(dir: string, l: { onDidCreate(p: string): void; onDidChange(p: string): void; onDidDelete(p: string): void }): Disposable {
    const timers = new Map<string, NodeJS.Timeout>();
    let w: fs.FSWatcher | undefined;
    try {
      w = fs.watch(dir, { persistent: false }, (_kind, name) => {
        if (!name) return;
        const p = path.join(dir, name.toString());
        clearTimeout(timers.get(p));
        timers.set(
          p,
          setTimeout(() => {
            timers.delete(p);
            fs.promises.lstat(p).then(
              () => l.onDidChange(p),
              () => l.onDidDelete(p),
            );
          }, this.debounceMs),
        );
      });
    } catch {
      w = undefined;
    }
    return {
      dispose: () => {
        w?.close();
        for (const t of timers.values()) clearTimeout(t);
      },
    };
  }
}
