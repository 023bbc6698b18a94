/**
 * The store's evidence port on Node (floor 3): what a step changed, from git snapshots of the
 * working tree (gitEvidence). The "before" tree lives in git, pinned at
 * `refs/pi-plans/evidence/<plan>/<step>/before` when the step goes to in_progress; the "after"
 * tree beside it when the step leaves in_progress, and the difference is the step's change. No
 * state file: a step started from VS Code and finished from the CLI records the same way.
 * The tree as of the plan's last mark (its start, then each step's end) is pinned too, at
 * `refs/pi-plans/evidence/<plan>/last-mark/after`: a step marked done straight from pending (the
 * shortest path an agent takes) counts its change from there.
 */
import type { FileChange, StepChanges } from '../../core';
import type { EvidencePort } from '../../store';
import * as path from 'node:path';
import { GitEvidence, NotRecorded, pinRef } from './gitEvidence';
import { readStepEvents } from './stepReports';

/** Files another process changed: what the agent's hooks reported for the step, when they reported anything. */
export interface SessionReports {
  /** The files the bound sessions' edit tools reported while the step was in progress (relative to the workspace folder, "/"), and whether any ran a command; undefined when no hook reported anything. */
  reported(plan: string, step: string): { files: Set<string>; ranCommand: boolean } | undefined;
}

/** The pin of the tree as of a plan's last mark (not a step id: no step is named so). */
const LAST_MARK = 'last-mark';

export class NodeEvidence implements EvidencePort {
  /** The tree as of each plan's last mark this process made (another process's is read from its ref). */
  private readonly lastMark = new Map<string, string>();
  /** The repository, once found (a folder that is not in one is asked again next time). */
  private repo?: GitEvidence;
  /** The "before" trees this process took, by plan and step (another process's are read from their refs). */
  private readonly started = new Map<string, string>();
  /** Pins of "after" trees still being written: the mark does not wait for them. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly root: string,
    private readonly reports: SessionReports = hookReports(root),
  ) {}

  private async git(): Promise<GitEvidence> {
    this.repo ??= await GitEvidence.open(this.root);
    return this.repo;
  }

  /** Resolves once every pin this port started is written (tests; a short-lived process exits after them anyway). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async begin(plan: string, step: string): Promise<void> {
    const g = await this.git().catch((e) => {
      if (e instanceof NotRecorded) return undefined;
      throw e;
    });
    if (!g) return;
    const tree = await g.snapshot();
    await g.pin(plan, step, 'before', tree);
    this.started.set(`${plan}/${step}`, tree);
  }

  async end(plan: string, step: string): Promise<StepChanges> {
    try {
      const g = await this.git();
      const known = this.started.get(`${plan}/${step}`);
      // The "before" tree this process took, or the one its ref pins (read while the snapshot is taken).
      // A snapshot git cannot take (an embedded repository, a file it cannot read) is git's own error, said as such.
      const [before, now] = await Promise.all([known ?? g.pinned(plan, step, 'before'), g.snapshotSince(known ?? pinRef(plan, step, 'before')).catch((e: Error) => e)]);
      if (now instanceof Error) throw now;
      if (!before || !now) return { recorded: false, why: 'its start was not recorded' };
      this.started.delete(`${plan}/${step}`);
      return this.recorded(g, plan, step, before, now);
    } catch (e) {
      return notRecorded(e);
    }
  }

  async planStarted(plan: string): Promise<void> {
    const g = await this.git().catch((e) => {
      if (e instanceof NotRecorded) return undefined;
      throw e;
    });
    if (!g) return;
    const tree = await g.snapshot();
    this.lastMark.set(plan, tree);
    await g.pin(plan, LAST_MARK, 'after', tree);
  }

  async endSinceLastMark(plan: string, step: string): Promise<StepChanges> {
    try {
      const g = await this.git();
      const before = this.lastMark.get(plan) ?? (await g.pinned(plan, LAST_MARK, 'after'));
      if (!before) return { recorded: false, why: "the step was never marked in progress, and neither the plan's start nor an earlier mark was recorded" };
      const now = await g.snapshotSince(before);
      await g.pin(plan, step, 'before', before);
      return this.recorded(g, plan, step, before, now);
    } catch (e) {
      return notRecorded(e);
    }
  }

  /** A step's change from `before` to the snapshot `now`: pinned (later: the pin keeps the tree from git gc, two weeks away at the soonest, so the mark need not wait for it), the plan's last mark moved to it. */
  private recorded(g: GitEvidence, plan: string, step: string, before: string, now: { tree: string; changes: FileChange[] }): StepChanges {
    this.pinLater(g, plan, step, now.tree);
    this.markAt(g, plan, now.tree);
    return { recorded: true, files: now.changes, before, after: now.tree, ...this.toldApart(plan, step, now.changes, g.top) };
  }

  async contradicted(plan: string, lines: readonly { step: string; before: string; after: string }[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (!lines.length) return out;
    const g = await this.git().catch(() => undefined);
    if (!g) return out;
    const pins = await g.pinsOf(plan);
    // The line abbreviates each tree; a pin is the whole name. A step with neither pin cannot be judged here.
    const differs = (pin: string | undefined, shown: string) => pin !== undefined && !pin.startsWith(shown);
    for (const l of lines) if (differs(pins.get(`${l.step}/before`), l.before) || differs(pins.get(`${l.step}/after`), l.after)) out.add(l.step);
    return out;
  }

  /** The tree as of the plan's last mark, kept here and pinned (the mark does not wait for the pin). */
  private markAt(g: GitEvidence, plan: string, tree: string): void {
    this.lastMark.set(plan, tree);
    this.pinLater(g, plan, LAST_MARK, tree);
  }

  /** Pins an "after" tree without waiting for it (`settled` does); a pin that fails leaves the tree to git gc. */
  private pinLater(g: GitEvidence, plan: string, step: string, tree: string): void {
    const pin = g.pin(plan, step, 'after', tree).catch(() => undefined);
    this.pending.add(pin);
    void pin.finally(() => this.pending.delete(pin));
  }

  /**
   * Files changed while the step ran that the bound sessions did not report, when hooks reported
   * anything and no session ran a command (then the files are told apart: `toldApart`).
   */
  private toldApart(plan: string, step: string, files: FileChange[], top: string): { notBySession?: string[]; toldApart?: true } {
    const r = this.reports.reported(plan, step);
    if (!r || r.ranCommand) return {};
    // The hooks name files from the workspace folder, git from the repository's top.
    const prefix = path.relative(top, this.root).split(path.sep).join('/');
    const reported = new Set([...r.files].map((f) => (prefix ? `${prefix}/${f}` : f)));
    const others = files.map((f) => f.path).filter((f) => !reported.has(f));
    return { toldApart: true, ...(others.length ? { notBySession: others } : {}) };
  }
}

/** A step's change that could not be recorded: git's own words, or why there was nothing to count from. */
function notRecorded(e: unknown): StepChanges {
  return { recorded: false, why: e instanceof NotRecorded ? e.message : `git failed: ${(e as Error).message.split('\n')[0].slice(0, 200)}` };
}

/**
 * What the agent hooks reported for a step (`pi-plans hook` on PostToolUse, src/node/stepReports):
 * the files its sessions' edit tools named and whether any ran a command. A command may change
 * any file, so a step during which one ran tells no file apart; nor does a step no hook reported on.
 */
export function hookReports(root: string): SessionReports {
  return {
    reported(plan, step) {
      const events = readStepEvents(root, plan, step);
      if (!events.length) return undefined;
      return { files: new Set(events.flatMap((e) => e.paths ?? [])), ranCommand: events.some((e) => e.kind === 'command') };
    },
  };
}
