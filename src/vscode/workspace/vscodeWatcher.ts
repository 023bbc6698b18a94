import * as vscode from 'vscode';
import type { Disposable, WatcherListener, WatcherPort } from '../../store';

/**
 * VS Code's file watcher as the store's watcher port: a non-recursive RelativePattern on the
 * plans folder (so `files.watcherExclude` does not hide it), events debounced per file. Events
 * are hints; the store re-reads and re-scans.
 */
export class VsCodeWatcher implements WatcherPort {
  constructor(private readonly debounceMs = 100) {}

  watch(dir: string, l: WatcherListener): Disposable {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), 'PLAN-*.md'));
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    const later = (uri: vscode.Uri, fn: (p: string) => void) => {
      const p = uri.fsPath.split('\\').join('/');
      clearTimeout(timers.get(p));
      timers.set(
        p,
        setTimeout(() => {
          timers.delete(p);
          fn(p);
        }, this.debounceMs),
      );
    };
    const subs = [
      w.onDidCreate((u) => later(u, l.onDidCreate)),
      w.onDidChange((u) => later(u, l.onDidChange)),
      w.onDidDelete((u) => later(u, l.onDidDelete)),
      w,
    ];
    return {
      dispose: () => {
        for (const t of timers.values()) clearTimeout(t);
        for (const s of subs) s.dispose();
      },
    };
  }
}
