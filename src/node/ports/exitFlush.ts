/** Caches with something still to write, flushed when the process is about to exit: one `beforeExit` hook for all of them. */
const unflushed = new Set<{ flush(): Promise<unknown> }>();
let exitHook = false;

/** Flushes `cache` when the process is about to exit (once per registration; a cache flushed meanwhile is flushed again, harmlessly). */
export function flushAtExit(cache: { flush(): Promise<unknown> }): void {
  unflushed.add(cache);
  if (exitHook) return;
  exitHook = true;
  process.once('beforeExit', () => {
    exitHook = false;
    for (const c of [...unflushed]) void c.flush();
  });
}

/** Takes `cache` off the list (it flushed on its own). */
export function flushedBeforeExit(cache: { flush(): Promise<unknown> }): void {
  unflushed.delete(cache);
}
