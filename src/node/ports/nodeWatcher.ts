import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Disposable, WatcherListener, WatcherPort } from '../../store';

/**
 * fs.watch on the plans folder (not recursive), debounced per file. It is live when `watch`
 * returns (unlike VS Code's watcher, which starts asynchronously), so a store that starts it
 * before its first scan misses no change. A folder that does not exist yet, or that is removed
 * and made again (a git checkout, `rm -rf`), is looked for every `retryMs` and watched again
 * once it is there; the listener's `onDidLoseTrack` then asks the store to re-scan. Events are
 * hints: the store re-stats and re-reads, so a dropped or merged event costs only a re-scan.
 */
export class NodeWatcher implements WatcherPort {
  constructor(
    private readonly debounceMs = 50,
    private readonly retryMs = 1000,
  ) {}

  watch(dir: string, l: WatcherListener): Disposable {
    const timers = new Map<string, NodeJS.Timeout>();
    const self = path.basename(dir);
    let w: fs.FSWatcher | undefined;
    let retry: NodeJS.Timeout | undefined;
    let disposed = false;
    let lost = false;

    const fire = (p: string) => {
      clearTimeout(timers.get(p));
      const t = setTimeout(() => {
        timers.delete(p);
        fs.promises.lstat(p).then(
          () => !disposed && l.onDidChange(p),
          () => !disposed && l.onDidDelete(p),
        );
      }, this.debounceMs);
      t.unref();
      timers.set(p, t);
    };
    const detach = () => {
      w?.close();
      w = undefined;
      if (disposed) return;
      lost = true;
      retry = setTimeout(attach, this.retryMs);
      retry.unref();
    };
    const attach = () => {
      retry = undefined;
      if (disposed) return;
      let ino: number | undefined;
      try {
        // The only synchronous calls: one stat and the watch of one folder, so that the watcher is
        // live when `watch` returns (what makes "no missed change" hold from the first moment).
        ino = fs.statSync(dir).ino;
        const mine = (w = fs.watch(dir, { persistent: false }, (_kind, name) => {
          if (!name) return;
          if (name.toString() !== self) return fire(path.join(dir, name.toString()));
          // The folder itself was removed or renamed: this watch is dead; look for the folder again.
          fs.promises.stat(dir).then(
            (st) => st.ino !== ino && w === mine && detach(),
            () => w === mine && detach(),
          );
        }));
        w.on('error', detach);
      } catch {
        w = undefined;
        lost = true;
        retry = setTimeout(attach, this.retryMs);
        retry.unref();
        return;
      }
      if (lost) {
        lost = false;
        l.onDidLoseTrack?.();
      }
    };
    attach();
    return {
      dispose: () => {
        disposed = true;
        clearTimeout(retry);
        w?.close();
        for (const t of timers.values()) clearTimeout(t);
      },
    };
  }
}
