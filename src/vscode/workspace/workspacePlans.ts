import * as vscode from 'vscode';
import { AttentionFlag, isPlanError, PlanDocument } from '../../core';
import { fileIndexCache, NodeApprovalKeys, NodeWatcher, nodePorts, OffThreadParser, userConfigDir } from '../../node';
import { Following, IndexEntry, PlanStore, StorePorts } from '../../store';
import { DisposableScope } from '../common/disposable';
import { SETTINGS } from '../common/ids';
import { readOnly } from './readOnlyFs';
import { VsCodeWatcher } from './vscodeWatcher';
import { dirtyDocumentGuard } from './writeGuard';

/** A change in one workspace folder's plans, by file name. */
export interface PlansChange {
  folder: vscode.Uri;
  added: string[];
  changed: string[];
  removed: string[];
}

/** A plan's status changed (or it appeared): the pi plan-mode vision's events, e.g. `plans:proposed`. */
export interface PlanStatusChange {
  folder: vscode.Uri;
  id: string;
  /** undefined for a plan that just appeared. */
  from?: string;
  to: string;
  version: number;
  /** True when the change came from outside this window (an editor, git, another process). */
  outside: boolean;
}

/** A plan's index entry and the folder it lives in. */
export interface FolderEntry extends IndexEntry {
  folder: vscode.Uri;
}

interface FolderPlans {
  folder: vscode.WorkspaceFolder;
  store: PlanStore;
  following: Following;
  subs: vscode.Disposable[];
}

/**
 * How the stores follow their folders: a burst of events ends after 150 ms of quiet (views redraw
 * then); a re-scan a second after loading and every 30 s; on focus at most every 2 s.
 */
const FOLLOW = { settleMs: 150, confirmMs: 1000, periodMs: 30_000 };
const FOCUS_RECONCILE_MS = 2000;
/** How often stalled and stale plans are looked for (they need time, not an event, to become so). */
const ATTENTION_PERIOD_MS = 60_000;

/**
 * One plan store per `file:` workspace folder (multi-root works), each followed by a VS Code
 * watcher. Loads in the background with progress in the status bar area; every store error
 * lands in the log. In Restricted Mode the stores are read-only until the workspace is trusted.
 */
export class WorkspacePlans extends DisposableScope {
  private readonly folders_ = new Map<string, FolderPlans>();
  private readonly changed = this.register(new vscode.EventEmitter<PlansChange>());
  /** Fires when plans are added, changed or removed in any folder. */
  readonly onDidChangePlans = this.changed.event;
  private readonly statusChanged = this.register(new vscode.EventEmitter<PlanStatusChange>());
  /** Fires when a plan's status changes or a plan appears. Events are a convenience: the file is the truth. */
  readonly onDidChangePlanStatus = this.statusChanged.event;
  private loading: Promise<void> = Promise.resolve();
  private started = false;
  private markStarted!: () => void;
  private readonly startedPromise = new Promise<void>((r) => (this.markStarted = r));
  private loadedOnce = false;
  private readonly loadedChanged = this.register(new vscode.EventEmitter<void>());
  /** Fires once, when the first index of every folder has loaded. */
  readonly onDidLoad = this.loadedChanged.event;
  private lastFocusReconcile = 0;
  /** Plans that need a person's attention, by `folder/file`: shown everywhere, never written to the file. */
  private attentionOf = new Map<string, AttentionFlag>();
  private readonly attentionChanged = this.register(new vscode.EventEmitter<void>());
  /** Fires when the set of stalled or stale plans changes. */
  readonly onDidChangeAttention = this.attentionChanged.event;
  private attentionTimer: ReturnType<typeof setTimeout> | undefined;

  /** Markdown parses of large plans run on a worker thread, never on the extension host's. */
  private readonly parser: OffThreadParser | undefined;

  /**
   * The person's approval keys (in their configuration folder, shared with the CLI and the MCP
   * server): one for every folder's store. A configuration folder inside any workspace folder is
   * refused (no approval holds, none can be signed).
   */
  readonly keys = new NodeApprovalKeys(userConfigDir(), () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath), false, {
    // A protected key: the person types its passphrase here; kept unlocked for the window's life unless they said not to.
    passphrase: (why) =>
      Promise.resolve(
        vscode.window.showInputBox({ title: vscode.l10n.t('Pi Plans: your approval key'), prompt: vscode.l10n.t('The passphrase of your approval key, to {0}', why), password: true, ignoreFocusOut: true }),
      ),
    get keep() {
      return vscode.workspace.getConfiguration(SETTINGS.section).get<boolean>(SETTINGS.keepKeyUnlocked, true);
    },
  });

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly cacheDir: string | undefined,
    parserScript?: string,
  ) {
    super();
    if (parserScript) {
      const parser = (this.parser = new OffThreadParser(parserScript, undefined, (e) => this.logError('parser worker', e)));
      this.register({ dispose: () => parser.dispose() });
    }
    this.register(vscode.workspace.onDidChangeWorkspaceFolders((e) => this.track(() => this.syncFolders(e.removed))));
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // The stores ask for trust at each write (readOnly), so nothing has to be reopened.
        this.log.info('Workspace trusted: plans are writable now.');
      }),
    );
    // Coming back to the window is when a person expects to see what changed while away.
    this.register(
      vscode.window.onDidChangeWindowState((s) => {
        if (!s.focused || Date.now() - this.lastFocusReconcile < FOCUS_RECONCILE_MS) return;
        this.lastFocusReconcile = Date.now();
        for (const f of this.folders_.values()) void f.following.reconcile();
        this.refreshAttentionSoon();
      }),
    );
    const period = setInterval(() => this.refreshAttentionSoon(), ATTENTION_PERIOD_MS);
    this.register({ dispose: () => clearInterval(period) });
    this.register(this.onDidChangePlans(() => this.refreshAttentionSoon()));
    this.register({ dispose: () => clearTimeout(this.attentionTimer) });
    this.register({ dispose: () => this.closeAll() });
  }

  /** Whether a plan is stalled (executing, no activity for `executor_timeout_minutes`), stale (proposed, waiting longer than `stale_after_days`) or changed since its approval. */
  attention(folder: vscode.Uri, file: string): AttentionFlag | undefined {
    return this.attentionOf.get(`${folder.toString()}/${file}`);
  }

  /** Checks again where every approval stands (after a key was trusted or an approval confirmed here: the files did not change). */
  recheckApprovals(): void {
    this.refreshAttentionSoon();
  }

  /** Looks for stalled, stale and changed plans shortly (after loading, a change, focus, and every minute); reads checkpoint logs, and approved plans once per change of their file. */
  private refreshAttentionSoon(): void {
    clearTimeout(this.attentionTimer);
    this.attentionTimer = setTimeout(() => void this.refreshAttention().catch((e) => this.logError('attention', e)), 200);
  }

  /** The refresh running now, and whether another must follow it (something changed meanwhile). */
  private attentionRun: Promise<void> | undefined;
  private attentionAgain = false;

  /**
   * One refresh at a time: a refresh started before a change could otherwise finish after the
   * one started for it and put its older picture back (seen under load: a plan edited after its
   * approval not flagged). A request during a run makes one more run follow it.
   */
  private refreshAttention(): Promise<void> {
    if (this.attentionRun) {
      this.attentionAgain = true;
      return this.attentionRun;
    }
    const run = async () => {
      do {
        this.attentionAgain = false;
        await this.computeAttention();
      } while (this.attentionAgain);
    };
    this.attentionRun = run().finally(() => (this.attentionRun = undefined));
    return this.attentionRun;
  }

  private async computeAttention(): Promise<void> {
    const next = new Map<string, AttentionFlag>();
    for (const f of this.folders_.values()) {
      // Executing (stalled?), proposed (stale?), and every plan an approval still governs (changed since?).
      const entries = f.store.list({ status: ['executing', 'proposed', 'approved', 'stalled', 'failed'] });
      const flags = await f.store.attentionOfAll(entries);
      for (const [i, e] of entries.entries()) {
        const flag = flags[i];
        if (flag) next.set(`${f.folder.uri.toString()}/${e.file}`, flag);
      }
    }
    const same = next.size === this.attentionOf.size && [...next].every(([k, v]) => this.attentionOf.get(k) === v);
    this.attentionOf = next;
    if (!same) this.attentionChanged.fire();
  }

  /** True when writes are allowed (a trusted workspace). */
  get writable(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** Starts loading every folder's index (in the background); `ready` resolves when done. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.markStarted();
    this.track(() => this.syncFolders([]));
    // The first counts shown include what needs attention: look for stalled plans before saying "loaded".
    void this.loading
      .then(() => this.refreshAttention())
      .catch((e) => this.logError('attention', e))
      .then(() => {
        this.loadedOnce = true;
        this.loadedChanged.fire();
      });
  }

  /** Resolves when the indexes that were loading have loaded (after `start`). */
  get ready(): Promise<void> {
    return this.startedPromise.then(() => this.loading);
  }

  /** True once the first index of every folder has loaded: before that, counts mean nothing. */
  get loaded(): boolean {
    return this.loadedOnce;
  }

  /** Every plan of every folder, oldest first per folder. */
  list(): FolderEntry[] {
    return [...this.folders_.values()].flatMap((f) => f.store.list().map((e) => ({ ...e, folder: f.folder.uri })));
  }

  /** Has the Markdown parse of a plan text done on the worker thread first (an editor's buffer, before `analyze`). */
  async prepare(text: string): Promise<void> {
    await this.parser?.prepare(text).catch(() => undefined);
  }

  /** Every folder's store with its name (the tools' view of the workspace). */
  folders(): { name: string; store: PlanStore }[] {
    return [...this.folders_.values()].map((f) => ({ name: f.folder.name, store: f.store }));
  }

  /** What each folder's first load read: files read, and how many of them on the worker thread (the tests read it). */
  readonly firstLoads = new Map<string, { plans: number; ms: number; reads: number; helped: number }>();

  /** The store of a folder. */
  storeFor(folder: vscode.Uri): PlanStore | undefined {
    return this.folders_.get(folder.toString())?.store;
  }

  /** The folder store holding a plan id (multi-root: the id is looked up in every folder). */
  storeOf(id: string): PlanStore | undefined {
    return [...this.folders_.values()].find((f) => f.store.entry(id))?.store;
  }

  /** Reads a plan from whichever folder has it. */
  async read(id: string): Promise<PlanDocument> {
    const store = this.storeOf(id) ?? [...this.folders_.values()][0]?.store;
    if (!store) throw new Error(vscode.l10n.t('No workspace folder is open: open a folder that has .pi/plans.'));
    return store.read(id);
  }

  /** Re-scans every folder (after missed events, or on request). */
  async rescanAll(): Promise<void> {
    for (const f of this.folders_.values()) await f.store.rescan().catch((e) => this.logError(`rescan ${f.folder.name}`, e));
  }

  /** Resolves once every folder's store has applied the events and re-scans pending now (tests wait on it). */
  async settled(): Promise<void> {
    await this.ready;
    for (const f of this.folders_.values()) await f.store.settled();
  }

  /** The latest errors logged (newest last), for the extension's own tests. */
  readonly recentErrors: string[] = [];

  /** Logs a store error with its file and line. */
  logError(what: string, e: unknown): void {
    const line = `${what}: ${isPlanError(e) ? e.toLocatedString() : e instanceof Error ? e.message : String(e)}`;
    this.log.error(line);
    this.remember(line);
  }

  /** Keeps the latest 50 lines for `recentErrors`. */
  private remember(line: string): void {
    this.recentErrors.push(line);
    if (this.recentErrors.length > 50) this.recentErrors.shift();
  }

  /** Runs folder work one job at a time (two opens of one folder can never race), with progress in the status bar area. */
  private track(job: () => Promise<void>): void {
    const run = this.loading.then(() =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Pi Plans: loading plans') }, job),
    );
    this.loading = run.catch((e) => this.logError('loading plans', e));
  }

  private async syncFolders(removed: readonly vscode.WorkspaceFolder[]): Promise<void> {
    for (const f of removed) this.close(f.uri.toString());
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (this.folders_.has(folder.uri.toString())) continue;
      if (folder.uri.scheme !== 'file') {
        this.log.warn(`${folder.name}: ${folder.uri.scheme}: folders are not supported (plans need a local file system for atomic writes).`);
        continue;
      }
      await this.open(folder);
    }
  }

  private async open(folder: vscode.WorkspaceFolder): Promise<void> {
    const root = folder.uri.fsPath.split('\\').join('/');
    // Never a synchronous file or lock call on the extension host's thread: other extensions share it.
    // The approval keys and the review copies live in the user's folders, outside the workspace.
    const base = nodePorts(root, { indexCache: false, blocking: false, keys: this.keys });
    const ports: StorePorts = {
      ...base,
      fs: readOnly(
        base.fs,
        () => !this.writable,
        () => vscode.l10n.t('This workspace is in Restricted Mode, so Pi Plans is read-only: trust the workspace to change plans.'),
      ),
      indexCache: this.cacheDir ? fileIndexCache(root, this.cacheDir) : undefined,
      writeGuard: dirtyDocumentGuard,
      parser: this.parser,
      // A first load of many plans reads and summarizes them on the worker: this thread only waits.
      indexHelper: this.parser,
      onError: (op, e) => this.logError(`${folder.name}: ${op}`, e),
    };
    const t0 = Date.now();
    const store = new PlanStore(root, ports);
    // Watchers first, then the scan: Node's watcher is live when it returns, VS Code's starts a
    // little later; the store re-scans a second after loading for anything neither saw.
    const following = store.watch([new NodeWatcher(), new VsCodeWatcher()], FOLLOW);
    const subs: vscode.Disposable[] = [following];
    const s = store.onDidChangePlans((e) => {
      this.trackStatuses(folder, store, e.outside ?? []);
      this.changed.fire({ folder: folder.uri, ...e });
    });
    subs.push({ dispose: () => s.dispose() });
    try {
      await store.load();
    } catch (e) {
      for (const d of subs) d.dispose();
      throw e;
    }
    this.folders_.set(folder.uri.toString(), { folder, store, following, subs });
    for (const e of store.list()) this.statusSeen.set(`${folder.uri.toString()}/${e.file}`, e.status);
    const invalid = store.list().filter((e) => !e.valid);
    const load = { plans: store.list().length, ms: Date.now() - t0, ...store.lastScan };
    this.firstLoads.set(folder.uri.toString(), load);
    this.log.info(`${folder.name}: ${load.plans === 1 ? '1 plan' : `${load.plans} plans`} indexed in ${load.ms} ms${load.helped ? ` (${load.helped} read on the worker thread)` : ''}${this.writable ? '' : ' (read-only: Restricted Mode)'}.`);
    for (const e of invalid) this.log.warn(`${folder.name}: .pi/plans/${e.file}${e.error?.line ? `:${e.error.line}` : ''}: ${e.error?.message}`);
    if (store.configError) this.log.warn(`${folder.name}: ${store.configError.message}`);
    this.changed.fire({ folder: folder.uri, added: store.list().map((e) => e.file), changed: [], removed: [] });
  }

  /** Fires status events, and flags approvals that arrive as outside file changes (a file edit can forge a status line). */
  private readonly statusSeen = new Map<string, string | undefined>();
  private trackStatuses(folder: vscode.WorkspaceFolder, store: PlanStore, outside: readonly string[]): void {
    const prefix = `${folder.uri.toString()}/`;
    const present = new Set<string>();
    for (const e of store.list()) {
      const key = prefix + e.file;
      present.add(key);
      const seen = this.statusSeen.has(key);
      const before = this.statusSeen.get(key);
      this.statusSeen.set(key, e.status);
      if (e.status && (!seen || before !== e.status)) {
        this.statusChanged.fire({ folder: folder.uri, id: e.id, from: before, to: e.status, version: e.version ?? 0, outside: outside.includes(e.file) });
      }
      if (!outside.includes(e.file) || e.status !== 'approved' || before === 'approved') continue;
      // A status line is only text: an approval that no reviewer made here arrived as a file edit, or as a new file.
      const msg = seen
        ? vscode.l10n.t('{0} became approved through an outside file change (approved_by: {1}), not through this window. If you did not approve it, review it.', e.id, e.approvedBy ?? 'none')
        : vscode.l10n.t('{0} appeared already approved (approved_by: {1}) through an outside file change, not through this window. If you did not approve it, review it.', e.id, e.approvedBy ?? 'none');
      this.log.warn(`${folder.name}: ${msg}`);
      this.remember(msg);
      void vscode.window.showWarningMessage(msg);
    }
    // Forget plans that are gone, so the map holds only what the folder has.
    for (const key of this.statusSeen.keys()) if (key.startsWith(prefix) && !present.has(key)) this.statusSeen.delete(key);
  }

  private close(key: string): void {
    const f = this.folders_.get(key);
    if (!f) return;
    for (const s of f.subs) s.dispose();
    this.folders_.delete(key);
    this.firstLoads.delete(key);
    for (const k of this.statusSeen.keys()) if (k.startsWith(`${key}/`)) this.statusSeen.delete(k);
    this.changed.fire({ folder: f.folder.uri, added: [], changed: [], removed: f.store.list().map((e) => e.file) });
  }

  private closeAll(): void {
    for (const key of [...this.folders_.keys()]) this.close(key);
  }
}
