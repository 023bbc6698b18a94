import * as vscode from 'vscode';
import { attentionLabel, attentionRank, checkStanding, compareText, evidenceFlag, fitLabel, parseClaim, PlanDocument, PlanStatus, planContextValue, PLAN_STATUSES, progressOf, stepContextValue, textWidthEm } from '../../core';
import { lastDrift, readPlanState } from '../../node';
import { planTooltip } from './planTooltip';
import { plainTooltip } from '../common/plainTooltip';
import { stepAnnotation, stepTooltip } from './stepTooltip';
import type { IndexEntry } from '../../store';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { DisposableScope } from '../common/disposable';
import { CHECKED, GroupKey, GroupNode, GROUPS, groupOf, LABEL_EM, MoreNode, Node, PAGE, PlanNode, Snapshot, StepNode } from './planRows';
import { COMMANDS, CONTEXT_KEYS, VIEWS } from '../common/ids';
import { planCodicon, planColor, relativeTime, STATUS_CODICON, STATUS_COLOR, STEP_ICON } from '../common/planIcons';
import type { WorkspacePlans } from '../workspace/workspacePlans';
import { PlanSessions, sessionsMark, sessionsTooltip } from './planSessions';

const FILTER_KEY = 'piPlans.explorer.filter';
/** The root's key among what the view shows (PlanExplorer.shown). */
const ROOT_KEY = '';
/** A burst of changes ends after this much quiet (ms); a redraw waits at most MAX_WAIT_MS for it. */
const QUIET_MS = 150;
const MAX_WAIT_MS = 1500;

/**
 * The plan explorer: every plan of every folder, grouped by what it needs, from the store's
 * index (no folder is read on a click; a plan's steps and tooltip read its one file, on demand).
 * Follows the index's change events, coalesced, so a `git checkout` of many plans is one update.
 */
export class PlanExplorer extends DisposableScope implements vscode.TreeDataProvider<Node> {
  private readonly changed = this.register(new vscode.EventEmitter<Node | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<Node>;
  private snapshot: Snapshot | undefined;
  private readonly nodes = new Map<string, Node>();
  private readonly limits = new Map<string, number>();
  private filter: PlanStatus[] | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last change event arrived and when the tree was last asked for its rows (the bench reads them); how many redraws, and how many of every row (a test reads them). */
  readonly timings = { lastChange: 0, lastRender: 0, rebuilds: 0, allRedraws: 0 };
  /** The agent sessions bound to each plan (pi-plans hook's bindings). */
  readonly sessions = this.register(new PlanSessions());

  constructor(
    private readonly plans: WorkspacePlans,
    private readonly active: WorkspaceActivePlans,
    private readonly state: vscode.Memento,
  ) {
    super();
    const saved = state.get<string[]>(FILTER_KEY);
    this.filter = saved?.filter((s): s is PlanStatus => (PLAN_STATUSES as readonly string[]).includes(s));
    if (!this.filter?.length) this.filter = undefined;
    this.view = this.register(vscode.window.createTreeView(VIEWS.explorer, { treeDataProvider: this, showCollapseAll: true }));
    // A group the person opened or closed stays so when it is drawn again (a plan in it changed).
    this.register(this.view.onDidExpandElement((e) => e.element.kind === 'group' && this.opened.set(e.element.key, true)));
    this.register(this.view.onDidCollapseElement((e) => e.element.kind === 'group' && this.opened.set(e.element.key, false)));
    this.register(plans.onDidChangePlans(() => this.refreshSoon()));
    this.register(plans.onDidChangeAttention(() => this.refreshSoon()));
    this.register(plans.onDidLoad(() => this.refreshSoon()));
    this.register(active.onDidChange(() => this.refreshSoon()));
    this.register(this.sessions.onDidChange(() => this.refreshSoon()));
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.refreshSoon()));
    this.register(vscode.window.onDidChangeActiveTextEditor((ed) => void this.follow(ed)));
    this.register(this.view.onDidChangeVisibility((e) => {
      if (!e.visible) return;
      this.visibleAt = performance.now();
      if (this.dirtyWhileHidden) this.redrawOnceShown();
      void this.follow(vscode.window.activeTextEditor);
    }));
    this.register({ dispose: () => ((this.gone = true), clearTimeout(this.refreshTimer), clearTimeout(this.shownTimer)) });
    for (const d of [
      vscode.commands.registerCommand(COMMANDS.showMore, (n?: MoreNode) => {
        if (n?.kind !== 'more') return;
        this.limits.set(n.parent.key, (this.limits.get(n.parent.key) ?? PAGE) + PAGE);
        this.fire(this.nodes.get(n.parent.key) ?? undefined);
      }),
      vscode.commands.registerCommand(COMMANDS.filter, () => this.pickFilter()),
      vscode.commands.registerCommand(COMMANDS.clearFilter, () => this.setFilter(undefined)),
      vscode.commands.registerCommand(COMMANDS.revealInExplorer, async (arg?: { id?: string }) => {
        const e = arg?.id ? plans.list().find((x) => x.id === arg.id) : undefined;
        if (e) await this.reveal(e.folder, e.file, true);
      }),
    ])
      this.register(d);
    this.publishFilter();
    this.rebuild();
  }

  private gone = false;

  /**
   * Redraw requests go to VS Code only while the view is visible. VS Code 1.139 queues those made
   * while it is hidden and runs them when it is shown, alongside the first render; two fetches at
   * once can then put one folder's rows under another (its tree view batches child requests, and
   * a batch that starts while another is waiting hands the waiting requests the wrong results).
   * A hidden view is marked stale instead, and redrawn once shown if its first render came before
   * the last change.
   */
  private fire(n: Node | undefined): void {
    if (this.view.visible) {
      this.changed.fire(n);
      return;
    }
    this.dirtyWhileHidden = true;
    this.lastHiddenChange = performance.now();
  }

  private dirtyWhileHidden = false;
  private lastHiddenChange = 0;
  private visibleAt = 0;
  private rootFetchedAt = 0;
  private shownTimer: ReturnType<typeof setTimeout> | undefined;

  /** After the view is shown: once VS Code has fetched the rows (or did not within a second), redraw if they predate a change. */
  private redrawOnceShown(): void {
    clearTimeout(this.shownTimer);
    const check = () => {
      if (this.gone || !this.view.visible) return; // hidden again: still stale
      const now = performance.now();
      const fetched = this.rootFetchedAt >= this.visibleAt;
      if ((!fetched && now - this.visibleAt < 1000) || now - this.timings.lastRender < 100) {
        this.shownTimer = setTimeout(check, 50);
        return;
      }
      this.dirtyWhileHidden = false;
      if (this.rootFetchedAt > this.lastHiddenChange) return; // that fetch read everything
      this.changed.fire(undefined);
    };
    this.shownTimer = setTimeout(check, 50);
  }

  /** When the first change of the burst now waiting arrived (0: none waiting). */
  private burstStart = 0;

  /**
   * Redraws once changes stop arriving for a moment (150 ms, the stores' own end of a burst: a
   * `git checkout` of many plans is one update, not one per file), at most 1.5 s after the first.
   */
  private refreshSoon(): void {
    const now = performance.now();
    this.timings.lastChange = now;
    // The rows VS Code asks for meanwhile (the view just shown, a group opened) are read anew: a
    // snapshot from before the change (before the first stalled plans were known, say) would draw
    // groups that the redraw then moves under the person's pointer.
    this.snapshot = undefined;
    if (!this.burstStart) this.burstStart = now;
    clearTimeout(this.refreshTimer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.burstStart + MAX_WAIT_MS - now));
    this.refreshTimer = setTimeout(() => {
      this.burstStart = 0;
      if (!this.gone) this.rebuild();
    }, wait);
  }

  /**
   * What the view shows, as far as this side knows: the root's rootShows and each group's
   * groupShows. Set when a redraw is sent and when VS Code reads the rows, so rows read after a
   * change, which already show it, are not redrawn again. A redraw that changes nothing is not
   * harmless: VS Code closes again a group the person opens while its parent's rows are fetched.
   */
  private shown = new Map<string, string>();

  /**
   * What the root's rows show: the groups of each folder, and what every row shows besides its own
   * plan (whether the index has loaded, the filter, the folders, a level each and the width of a
   * row's label, the active plans, whose rows are marked). When it changes, every row is redrawn.
   */
  private rootShows(snap: Snapshot): string {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => [f.uri.toString(), f.name]);
    const active = this.active.list().map((a) => [a.folder, a.id]).sort();
    const groups = [...snap].map(([folder, byGroup]) => [folder, [...byGroup.keys()].sort()]);
    return JSON.stringify([this.plans.loaded, this.filter ?? null, folders, active, groups]);
  }

  /** What a group's rows show: each plan's file, version, time, flag and bound sessions. */
  private groupShows(folder: string, rows: IndexEntry[]): string {
    const uri = vscode.Uri.parse(folder);
    return rows.map((e) => `${e.file}:${e.version}:${e.mtimeMs}:${this.plans.attention(uri, e.file) ?? ''}:${this.sessions.key(uri, e.id)}`).join('|');
  }

  /**
   * Re-reads the index into groups and redraws what the view shows differently: only the groups
   * whose rows changed (200 rows, not the 1,000 of five open groups), everything when the root's
   * rows changed (rootShows).
   */
  private rebuild(): void {
    this.snapshot = undefined;
    const snap = this.groups();
    const after = new Map<string, string>();
    for (const [folder, byGroup] of snap) {
      for (const [g, rows] of byGroup) after.set(`${folder}|group|${g}`, this.groupShows(folder, rows));
    }
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.loaded, this.plans.loaded);
    // The badge counts every plan awaiting review, whatever the filter shows.
    let review = 0;
    for (const f of this.plans.folders()) review += f.store.list({ status: ['proposed', 'needs_review'] }).length;
    this.view.badge = review ? { value: review, tooltip: review === 1 ? vscode.l10n.t('1 plan awaiting your review') : vscode.l10n.t('{0} plans awaiting your review', review) } : undefined;
    const root = this.rootShows(snap);
    this.timings.rebuilds++;
    const redrawAll = () => {
      this.timings.allRedraws++;
      this.shown = new Map(after).set(ROOT_KEY, root);
      this.forgetNodes(after);
      this.fire(undefined);
    };
    if (root !== this.shown.get(ROOT_KEY)) return redrawAll();
    for (const [key, sig] of after) {
      if (this.shown.get(key) === sig) continue;
      this.shown.set(key, sig);
      // A group with no node yet has never been drawn: VS Code reads it fresh when it draws it.
      const n = this.nodes.get(key);
      if (n) this.fire(n);
    }
  }

  /** The groups the person opened (true) or closed (false), by key. */
  private readonly opened = new Map<string, boolean>();

  /** Drops the nodes of plans and groups that are gone (the rest keep their identity for partial redraws). */
  private forgetNodes(groups: Map<string, string>): void {
    for (const [key, n] of this.nodes) {
      if (n.kind === 'group' && !groups.has(key)) this.nodes.delete(key);
      if (n.kind === 'plan' && !this.plans.storeFor(n.folder)?.entry(n.file.replace(/\.md$/, ''))) this.nodes.delete(key);
    }
  }


  private groups(): Snapshot {
    if (this.snapshot) return this.snapshot;
    const snap: Snapshot = new Map();
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      const store = this.plans.storeFor(f.uri);
      if (!store) continue;
      const byGroup = new Map<GroupKey, IndexEntry[]>();
      const rows = store
        .list()
        .filter((e) => !this.filter || (e.valid && e.status && this.filter.includes(e.status)))
        .map((e) => {
          const flag = this.plans.attention(f.uri, e.file);
          return { e, flag, rank: attentionRank({ valid: e.valid, status: e.status, flag, id: e.id }) };
        })
        // byAttention's order, with each row's rank computed once (10,000 rows sort in milliseconds).
        .sort((a, b) => a.rank - b.rank || compareText(b.e.updatedAt ?? '', a.e.updatedAt ?? '') || compareText(a.e.id, b.e.id));
      for (const { e, flag } of rows) {
        const g = groupOf(e, flag);
        let list = byGroup.get(g);
        if (!list) byGroup.set(g, (list = []));
        list.push(e);
      }
      snap.set(f.uri.toString(), byGroup);
    }
    return (this.snapshot = snap);
  }

  /** The one object of a row (VS Code redraws a row by the object it was given): known ones are updated in place. */
  private node<T extends Node>(n: T): T {
    const known = this.nodes.get(n.key);
    if (known) return Object.assign(known, n) as T;
    this.nodes.set(n.key, n);
    return n;
  }

  private planNode(folder: vscode.Uri, e: IndexEntry): PlanNode {
    const group = groupOf(e, this.plans.attention(folder, e.file));
    return this.node({ kind: 'plan', key: `${folder.toString()}|group|${group}|plan|${e.file}`, folder, group, file: e.file, id: e.id, version: e.version, errorLine: e.valid ? undefined : e.error?.line });
  }

  getChildren(n?: Node): vscode.ProviderResult<Node[]> {
    this.timings.lastRender = performance.now();
    if (!n) {
      this.rootFetchedAt = this.timings.lastRender;
      this.shown.set(ROOT_KEY, this.rootShows(this.groups()));
    }
    if (!this.plans.loaded) return [];
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => this.plans.storeFor(f.uri));
    if (!n) {
      if (!this.plans.list().length && !this.filter) return []; // the welcome view
      if (folders.length > 1) return folders.map((f) => this.node({ kind: 'folder', key: f.uri.toString(), folder: f.uri, name: f.name }));
      return folders.length ? this.groupNodes(folders[0].uri) : [];
    }
    if (n.kind === 'folder') return this.groupNodes(n.folder);
    if (n.kind === 'group') {
      const rows = this.groups().get(n.folder.toString())?.get(n.group) ?? [];
      this.shown.set(n.key, this.groupShows(n.folder.toString(), rows));
      const limit = this.limits.get(n.key) ?? PAGE;
      const shown: Node[] = rows.slice(0, limit).map((e) => this.planNode(n.folder, e));
      if (rows.length > limit) shown.push(this.node({ kind: 'more', key: `${n.key}|more`, parent: n, remaining: rows.length - limit }));
      return shown;
    }
    if (n.kind === 'plan') return this.stepNodes(n);
    return [];
  }

  private groupNodes(folder: vscode.Uri): GroupNode[] {
    const byGroup = this.groups().get(folder.toString());
    return GROUPS.filter((g) => byGroup?.get(g.key)?.length).map((g) => this.node({ kind: 'group', key: `${folder.toString()}|group|${g.key}`, folder, group: g.key }));
  }

  /** A plan's steps: its one file read when the row is expanded. */
  private async stepNodes(n: PlanNode): Promise<Node[]> {
    const store = this.plans.storeFor(n.folder);
    if (!store?.entry(n.id)?.valid) return [];
    try {
      const doc = await store.read(n.id);
      this.stepDocs.set(n.key, doc);
      return doc.steps.map((s) => this.node({ kind: 'step', key: `${n.key}|${s.id}`, parent: n, id: n.id, version: doc.fm.version, step: s.id }));
    } catch (e) {
      this.plans.logError(`explorer: steps of ${n.id}`, e);
      return [];
    }
  }

  /** The plan each expanded row was read as, for its steps' rows. */
  private readonly stepDocs = new Map<string, PlanDocument>();

  getParent(n: Node): Node | undefined {
    if (n.kind === 'step') return n.parent;
    if (n.kind === 'more') return n.parent;
    if (n.kind === 'group') return (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? this.nodes.get(n.folder.toString()) : undefined;
    if (n.kind === 'plan') {
      const key = `${n.folder.toString()}|group|${n.group}`;
      return this.nodes.get(key) ?? this.node({ kind: 'group', key, folder: n.folder, group: n.group });
    }
    return undefined;
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(n.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = n.key;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'piPlans.folder';
        item.accessibilityInformation = { label: n.name };
        return item;
      }
      case 'group': {
        const g = GROUPS.find((x) => x.key === n.group)!;
        const count = this.groups().get(n.folder.toString())?.get(n.group)?.length ?? 0;
        // Finished plans, and any group past one page except what awaits review, start collapsed: a large workspace opens on what needs a person.
        const collapsed = !(this.opened.get(n.key) ?? !(g.collapsed || (count > PAGE && n.group !== 'review')));
        const item = new vscode.TreeItem(vscode.l10n.t(g.label), collapsed ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.id = n.key;
        item.description = String(count);
        item.contextValue = `piPlans.group.${n.group}`;
        item.accessibilityInformation = { label: count === 1 ? vscode.l10n.t('{0}: 1 plan', vscode.l10n.t(g.label)) : vscode.l10n.t('{0}: {1} plans', vscode.l10n.t(g.label), count) };
        return item;
      }
      case 'plan':
        return this.planItem(n);
      case 'step':
        return this.stepItem(n);
      case 'more': {
        const item = new vscode.TreeItem(vscode.l10n.t('Show more ({0} more)', n.remaining), vscode.TreeItemCollapsibleState.None);
        item.id = n.key;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: COMMANDS.showMore, title: vscode.l10n.t('Show more'), arguments: [n] };
        return item;
      }
    }
  }

  private planItem(n: PlanNode): vscode.TreeItem {
    const store = this.plans.storeFor(n.folder);
    const e = store?.entry(n.file.replace(/\.md$/, ''));
    const uri = vscode.Uri.joinPath(n.folder, '.pi', 'plans', n.file);
    if (!e || !e.valid || !e.status) {
      const item = new vscode.TreeItem(n.file, vscode.TreeItemCollapsibleState.None);
      item.id = n.key;
      item.description = e?.error ? `${e.error.line ? vscode.l10n.t('line {0}: ', e.error.line) : ''}${e.error.message}` : '';
      item.tooltip = plainTooltip([String(item.description)], n.file);
      item.iconPath = new vscode.ThemeIcon(STATUS_CODICON.invalid, new vscode.ThemeColor(STATUS_COLOR.invalid));
      item.resourceUri = uri;
      item.contextValue = 'piPlans.invalid';
      item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [{ folder: n.folder, file: n.file, errorLine: e?.error?.line }] };
      item.accessibilityInformation = { label: vscode.l10n.t('Invalid plan file {0}: {1}', n.file, String(item.description)) };
      return item;
    }
    const flag = this.plans.attention(n.folder, e.file);
    const isActive = this.active.list().some((a) => a.id === e.id);
    // The label is the title, whole at the default side bar width (300 px) or cut there at a word
    // (fitLabel); the icon says the status (or what needs a person: stalled, changed since
    // approval…). The rest (progress, marks, age, id) follows in the description, cut first; all
    // of it, the whole title included, is in the tooltip and the accessible label. No resourceUri:
    // its file decorations (git's letter, problem counts, the plan badge the icon already says)
    // would take the label's room.
    const progress = e.steps ? `${e.stepsDone}/${e.steps}` : '';
    const item = new vscode.TreeItem(fitLabel(e.title ?? e.id, this.labelEm('plan')), e.steps ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = n.key;
    // Drift as the last look found it (one small file read; the tooltip looks again).
    const drifted = CHECKED.has(e.status) && lastDrift(n.folder.fsPath, { fm: { id: e.id, status: e.status, approved_hash: e.approvedHash } as PlanDocument['fm'] }).length > 0;
    const marks = [isActive ? vscode.l10n.t('active') : '', flag ? vscode.l10n.t(attentionLabel(flag)) : '', drifted ? vscode.l10n.t('drifted') : '', sessionsMark(this.sessions.of(n.folder, e.id))].filter(Boolean);
    item.description = [progress, ...marks, relativeTime(e.updatedAt, Date.now()), e.id].filter(Boolean).join(' · ');
    // The active plan (plan work) is a mark, never an icon: the play icon belongs to an executing plan.
    item.iconPath = new vscode.ThemeIcon(planCodicon(e.status, flag), new vscode.ThemeColor(planColor(e.status, flag)));
    const bound = this.sessions.of(n.folder, e.id).length > 0;
    item.contextValue = `${planContextValue(e.status, { flag })}${CHECKED.has(e.status) || e.status === 'completed' ? 'runChecks:' : ''}${drifted ? 'acknowledgeDrift:' : ''}${bound ? 'releaseSession:' : ''}`;
    item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [{ id: e.id, version: e.version }] };
    item.accessibilityInformation = {
      label: vscode.l10n.t(
        '{0}, {1}{2}, {3} of {4} steps done, updated {5}, {6}',
        e.title ?? e.id,
        e.status.replace('_', ' '),
        marks.length ? ` (${marks.join(', ')})` : '',
        e.stepsDone,
        e.steps,
        relativeTime(e.updatedAt, Date.now()) || vscode.l10n.t('at an unknown time'),
        e.id,
      ),
    };
    return item;
  }

  private stepItem(n: StepNode): vscode.TreeItem {
    const doc = this.stepDocs.get(n.parent.key);
    const s = doc?.steps.find((x) => x.id === n.step);
    const item = new vscode.TreeItem(s ? `${s.id} ${fitLabel(s.text, this.labelEm('step') - textWidthEm(`${s.id} `))}` : n.step, vscode.TreeItemCollapsibleState.None);
    item.id = n.key;
    if (!s || !doc) return item;
    const annotation = stepAnnotation(s);
    const flag = evidenceFlag(s);
    // The row names the flag that asks for attention; "no change, explained" is in the tooltip.
    const shownFlag = flag === 'no evidence' ? flag : '';
    // Who holds a step being worked on: the person deciding on Release Claim… sees it on the row.
    const holder = s.status === 'in_progress' ? parseClaim(s.record?.Claimed)?.session : undefined;
    item.description = [s.status !== 'pending' ? s.status.replace('_', ' ') : '', holder ? vscode.l10n.t('claimed') : '', shownFlag, annotation, s.note ? `“${s.note}”` : ''].filter(Boolean).join(' · ');
    const icon = flag === 'no evidence' ? { icon: 'warning', color: 'list.warningForeground' } : STEP_ICON[s.status];
    item.iconPath = new vscode.ThemeIcon(icon.icon, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
    // The record line, else (a step not worked on yet) the result kept beside the plan.
    const recorded = s.record?.Check ?? readPlanState(n.parent.folder.fsPath, doc.fm.id).checks[s.id]?.line;
    const check = checkStanding(s, recorded, undefined);
    // A step an agent session holds: the person may let its claim go (Release Claim…).
    const claimed = doc.fm.status === 'executing' && s.status === 'in_progress' && s.record?.Claimed ? 'claimed:' : '';
    item.contextValue = `${stepContextValue(doc.fm.status, s.status)}${check ? 'check:' : ''}${claimed}`;
    // The tooltip is resolved on hover (resolveTreeItem): the check read against the files now, stale or not.
    const { done, total } = progressOf(doc.steps);
    item.accessibilityInformation = { label: vscode.l10n.t('Step {0}, {1}: {2}{3}. Plan progress {4} of {5}.', s.id, `${s.status.replace('_', ' ')}${holder ? `, ${vscode.l10n.t('claimed by {0}', holder)}` : ''}${shownFlag ? `, ${shownFlag}` : ''}`, s.text, s.note ? `; note: ${s.note}` : '', done, total) };
    item.command = { command: 'vscode.open', title: vscode.l10n.t('Open'), arguments: [vscode.Uri.joinPath(n.parent.folder, '.pi', 'plans', n.parent.file)] };
    return item;
  }

  /** How many ems of a row's label the default side bar shows whole (see LABEL_EM). */
  private labelEm(kind: 'plan' | 'step'): number {
    return LABEL_EM[kind] - ((vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? LABEL_EM.folderLevel : 0);
  }

  /** The tooltip of a plan row: its one file, read when the pointer rests on it, in plain words (plainTooltip). */
  async resolveTreeItem(item: vscode.TreeItem, n: Node): Promise<vscode.TreeItem> {
    if (n.kind === 'step') return this.resolveStep(item, n);
    if (n.kind !== 'plan') return item;
    const store = this.plans.storeFor(n.folder);
    const e = store?.entry(n.id);
    if (!store || !e?.valid) return item;
    try {
      const doc = await store.read(n.id);
      item.tooltip = await planTooltip(store, doc, { file: vscode.Uri.joinPath(n.folder, '.pi', 'plans', n.file), flag: this.plans.attention(n.folder, e.file), sessions: sessionsTooltip(n.folder, this.sessions.of(n.folder, n.id)) });
    } catch (err) {
      item.tooltip = plainTooltip([String((err as Error).message ?? err)]);
    }
    return item;
  }

  /** A step row's tooltip, its check read against the working tree now (git): stale when its files changed since it ran. */
  private async resolveStep(item: vscode.TreeItem, n: StepNode): Promise<vscode.TreeItem> {
    const doc = this.stepDocs.get(n.parent.key);
    const s = doc?.steps.find((x) => x.id === n.step);
    if (doc && s) item.tooltip = await stepTooltip(n.parent.folder.fsPath, doc, s);
    return item;
  }

  /** A plan's row as VS Code gets it, its tooltip resolved (for this extension's tests). */
  async planRow(folder: vscode.Uri, id: string): Promise<vscode.TreeItem | undefined> {
    const e = this.plans.storeFor(folder)?.entry(id);
    if (!e) return undefined;
    const n = this.planNode(folder, e);
    return this.resolveTreeItem(this.getTreeItem(n), n);
  }

  /** Selects the row of the plan file open in the active editor (when the explorer is visible). */
  private async follow(ed: vscode.TextEditor | undefined): Promise<void> {
    if (!ed || !this.view.visible) return;
    const m = /\/\.pi\/plans\/(PLAN-[^/]+\.md)$/.exec(ed.document.uri.path);
    const folder = m ? vscode.workspace.getWorkspaceFolder(ed.document.uri) : undefined;
    if (!m || !folder) return;
    await this.reveal(folder.uri, m[1], false);
  }

  private async reveal(folder: vscode.Uri, file: string, focus: boolean): Promise<void> {
    const store = this.plans.storeFor(folder);
    const e = store?.entry(file.replace(/\.md$/, ''));
    if (!e) return;
    const n = this.planNode(folder, e);
    // A plan past the first page of its group is not a row yet: show enough of the group first.
    const parent = this.getParent(n);
    if (parent?.kind === 'group') {
      const rows = this.groups().get(folder.toString())?.get(parent.group) ?? [];
      const at = rows.findIndex((x) => x.file === file);
      if (at >= (this.limits.get(parent.key) ?? PAGE)) {
        this.limits.set(parent.key, Math.ceil((at + 1) / PAGE) * PAGE);
        this.fire(parent);
      }
    }
    try {
      await this.view.reveal(n, { select: true, focus, expand: false });
    } catch {
      /* the tree is being rebuilt: the next change reveals it */
    }
  }

  private async pickFilter(): Promise<void> {
    const items = PLAN_STATUSES.map((s) => ({ label: `$(${STATUS_CODICON[s]}) ${s.replace('_', ' ')}`, status: s, picked: this.filter?.includes(s) ?? false }));
    const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: vscode.l10n.t('Show plans with these statuses'), placeHolder: vscode.l10n.t('Pick none to show every plan') });
    if (!picked) return;
    await this.setFilter(picked.length ? picked.map((p) => p.status) : undefined);
  }

  private async setFilter(filter: PlanStatus[] | undefined): Promise<void> {
    this.filter = filter;
    await this.state.update(FILTER_KEY, filter);
    this.publishFilter();
    this.rebuild();
  }

  private publishFilter(): void {
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.filtered, !!this.filter);
    this.view.message = this.filter ? vscode.l10n.t('Showing only: {0}', this.filter.map((s) => s.replace('_', ' ')).join(', ')) : undefined;
  }
}
