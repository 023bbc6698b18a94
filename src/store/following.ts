import type { FolderIndex } from './folderIndex';
import { PLAN_FILE_PATTERN } from './planIndex';
import type { Disposable, WatcherPort } from './ports';

/** How a store follows its folder; see `follow`. */
export interface FollowOptions {
  /** Quiet time after the last event before a re-scan reconciles the burst (ms). */
  settleMs?: number;
  /** A re-scan this long after the first load, for changes made before a watcher was live (ms; 0: none). */
  confirmMs?: number;
  /** A re-scan on this period, for watchers that stopped silently (ms; 0: none). */
  periodMs?: number;
}

/** A store following its folder. */
export interface Following extends Disposable {
  /** Queues a re-scan (a listing and stats; only changed files are read). At most one waits at a time. */
  reconcile(): Promise<void>;
  /** Resolves once no watcher event, re-scan or settle timer is pending. */
  settled(): Promise<void>;
}

/**
 * Follows the folder with one or more watchers, started at once (before a first `load`, so no
 * change made during the scan is missed). Each event re-reads its file (events from several
 * watchers for a file that is already queued are merged); a re-scan reconciles after every
 * burst, once `confirmMs` after the first load, whenever a watcher lost track, on `reconcile()`
 * and every `periodMs`. All of it runs in the store's queue, one step at a time.
 */
export function follow(index: FolderIndex, plansDir: string, watchers: WatcherPort | readonly WatcherPort[], opts: FollowOptions = {}): Following {
  const settleMs = opts.settleMs ?? 300;
  let settle: ReturnType<typeof setTimeout> | undefined;
  let confirm: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  const pending = new Set<string>();
  let rescanWaiting: Promise<void> | undefined;
  const reconcile = (): Promise<void> => {
    if (disposed) return Promise.resolve();
    rescanWaiting ??= index.queued(async () => {
      rescanWaiting = undefined;
      await index.rescanNow();
    }).then(
      () => undefined,
      () => undefined,
    );
    return rescanWaiting;
  };
  const onEvent = (path: string) => {
    if (disposed) return;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!PLAN_FILE_PATTERN.test(name) || path.slice(0, path.length - name.length - 1) !== plansDir) return;
    if (!pending.has(path)) {
      pending.add(path);
      void index.queued(() => {
        pending.delete(path);
        return index.refreshEntries([name]);
      }).catch(() => undefined);
    }
    clearTimeout(settle);
    settle = setTimeout(() => {
      settle = undefined;
      void reconcile();
    }, settleMs);
    index.busyChanged();
  };
  const listener = { onDidCreate: onEvent, onDidChange: onEvent, onDidDelete: onEvent, onDidLoseTrack: () => void reconcile() };
  const subs = (Array.isArray(watchers) ? watchers : [watchers as WatcherPort]).map((w) => w.watch(plansDir, listener));
  if (opts.confirmMs) {
    void index.whenLoaded.then(() => {
      if (disposed) return;
      confirm = setTimeout(() => {
        confirm = undefined;
        void reconcile();
      }, opts.confirmMs);
      index.busyChanged();
    });
  }
  const period = opts.periodMs ? setInterval(() => void reconcile(), opts.periodMs) : undefined;
  (period as { unref?: () => void } | undefined)?.unref?.();
  const idle = () => !settle && !confirm;
  index.idleChecks.add(idle);
  return {
    reconcile,
    settled: () => index.settled(),
    dispose: () => {
      disposed = true;
      clearTimeout(settle);
      clearTimeout(confirm);
      clearInterval(period);
      settle = confirm = undefined;
      index.idleChecks.delete(idle);
      for (const s of subs) s.dispose();
      index.busyChanged();
    },
  };
}
