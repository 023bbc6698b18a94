/**
 * What a step changed, as its `> Changed:` record line says it (pure: no git here; src/node
 * works the changes out, the service writes them). The line is written once, when the step leaves
 * in_progress, e.g.
 *
 *   > Changed: src/health.ts (+24 −0), test/health.test.ts (new, +31 −0) · 2 files +55 −0 · tree 1a2b3c4d5e..5d6e7f8a9b
 *   > Changed: nothing · tree 5d6e7f8a9b..5d6e7f8a9b
 *   > Changed: not recorded (not a git repository)
 *
 * Files past the first few are summarised ("and 12 more files"); the trees (abbreviated) let a
 * face show the whole change from git. Files another process changed while the step ran, when the
 * agent's hooks can tell, follow as `· not by the session: a.ts, b.ts`.
 */
import { LIMITS } from '../limits/limits';
import type { Step } from '../format/steps';

/** One file a step changed. */
export interface FileChange {
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  path: string;
  from?: string;
  added?: number;
  removed?: number;
  binary: boolean;
}

/** What a step changed, as recorded. */
export type StepChanges =
  | {
      recorded: true;
      files: FileChange[];
      before: string;
      after: string;
      /** Files the hooks' reports show the session did not change (see `toldApart`). */
      notBySession?: string[];
      /** The hooks reported the session's own edits, so its files are told from other processes' (no step "ran alongside"). */
      toldApart?: boolean;
      /** Steps another session worked on meanwhile, when nothing told the files apart. */
      alongside?: string[];
    }
  | { recorded: false; why: string };

/** What a `> Changed:` line says, read back. */
export interface ChangedFacts {
  recorded: boolean;
  /** Why nothing was recorded. */
  why?: string;
  /** The files the line names (the first few of them). */
  shown: { text: string; path: string }[];
  files: number;
  added: number;
  removed: number;
  before?: string;
  after?: string;
  notBySession: string[];
  /** Steps another session worked on while this one ran: without hooks to tell, some of the files may be theirs. */
  alongside: string[];
}

/** How many files the line names before it summarises. */
export const SHOWN_FILES = 6;
const ABBREV = 10;

function fileText(f: FileChange): string {
  const name = f.status === 'renamed' && f.from ? `${f.from} → ${f.path}` : f.path;
  const kind = f.status === 'added' ? 'new, ' : f.status === 'deleted' ? 'deleted, ' : '';
  const counts = f.binary ? 'binary' : `+${f.added ?? 0} −${f.removed ?? 0}`;
  return `${name} (${kind}${counts})`;
}

/** The text of a step's `> Changed:` line (one line, within LIMITS.note: fewer files named when long paths need it). */
export function changedLine(c: StepChanges): string {
  if (!c.recorded) return `not recorded (${c.why})`.slice(0, LIMITS.note);
  const trees = `tree ${c.before.slice(0, ABBREV)}..${c.after.slice(0, ABBREV)}`;
  if (!c.files.length) return `nothing · ${trees}`;
  const added = c.files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = c.files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const total = `${c.files.length} file${c.files.length === 1 ? '' : 's'} +${added} −${removed}`;
  const others =
    (c.notBySession?.length ? ` · not by the session: ${c.notBySession.slice(0, SHOWN_FILES).join(', ')}${c.notBySession.length > SHOWN_FILES ? ` and ${c.notBySession.length - SHOWN_FILES} more` : ''}` : '') + alongsidePart(c.alongside);
  for (let n = Math.min(SHOWN_FILES, c.files.length); ; n--) {
    const more = c.files.length - n;
    const list = c.files.slice(0, n).map(fileText).join(', ') + (more ? `${n ? ' and ' : ''}${more} ${n ? 'more ' : ''}file${more === 1 ? '' : 's'}` : '');
    const line = `${list} · ${total} · ${trees}${others}`;
    if (line.length <= LIMITS.note || n === 0) return line.slice(0, LIMITS.note);
  }
}

/** How many steps a line names as run alongside before it counts the rest. */
const SHOWN_ALONGSIDE = 4;
const ALONGSIDE = 'ran alongside: ';

function alongsidePart(steps: readonly string[] | undefined): string {
  if (!steps?.length) return '';
  const more = steps.length - SHOWN_ALONGSIDE;
  return ` · ${ALONGSIDE}${steps.slice(0, SHOWN_ALONGSIDE).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * A recorded `> Changed:` line with the steps other sessions worked on while its step ran: the
 * snapshots hold every process's changes, so without the hooks' reports to tell them apart some of
 * the files may be those steps'. A line that is not a recorded one, or would grow too long, stays as it is.
 */
export function withAlongside(line: string, steps: readonly string[]): string {
  if (!steps.length || !readChangedLine(line).recorded || line.includes(` · ${ALONGSIDE}`)) return line;
  const out = line + alongsidePart(steps);
  return out.length <= LIMITS.note ? out : line;
}

/**
 * Reads a `> Changed:` line's text back (a line written by hand that does not read is "not
 * recorded", as is one longer than the store writes: its file list costs time growing with the
 * square of its length).
 */
export function readChangedLine(text: string): ChangedFacts {
  const none: ChangedFacts = { recorded: false, shown: [], files: 0, added: 0, removed: 0, notBySession: [], alongside: [] };
  if (text.length > LIMITS.note) return { ...none, why: 'the line is longer than a recorded one' };
  const why = /^not recorded \((.*)\)$/.exec(text);
  if (why) return { ...none, why: why[1] };
  const parts = text.split(' · ');
  const tree = parts.map((p) => /^tree ([0-9a-f]{4,40})\.\.([0-9a-f]{4,40})$/.exec(p)).find(Boolean);
  if (!tree) return { ...none, why: 'the line does not read' };
  const facts: ChangedFacts = { ...none, recorded: true, before: tree[1], after: tree[2] };
  const others = parts.find((p) => p.startsWith('not by the session: '));
  if (others) facts.notBySession = others.slice('not by the session: '.length).replace(/ and \d+ more$/, '').split(', ');
  const along = parts.find((p) => p.startsWith(ALONGSIDE));
  if (along) facts.alongside = along.slice(ALONGSIDE.length).replace(/ and \d+ more$/, '').split(', ').filter((x) => /^S\d{3,4}$/.test(x));
  if (parts[0] === 'nothing') return facts;
  const total = parts.map((p) => /^(\d+) files? \+(\d+) \u2212(\d+)$/.exec(p)).find(Boolean);
  if (total) [facts.files, facts.added, facts.removed] = [Number(total[1]), Number(total[2]), Number(total[3])];
  const list = parts[0].replace(/(?:^| and )\d+ (?:more )?files?$/, '');
  for (const m of list.matchAll(/(?:^|, )(.+?) \(((?:new|deleted), )?(binary|\+\d+ \u2212\d+)\)/g)) {
    const name = m[1];
    facts.shown.push({ text: `${name} (${m[2] ?? ''}${m[3]})`, path: name.includes(' → ') ? name.split(' → ')[1] : name });
  }
  return facts;
}

/** What a reviewer sees of a finished step's evidence. */
export type EvidenceFlag = 'changed' | 'no evidence' | 'no change, explained' | 'checked';

/**
 * The evidence flag of a step marked done: `changed` when its line records a change, `checked`
 * when its check passed (`> Check: passed…`), otherwise "no evidence", or "no change, explained"
 * when its note says why the recorded change is none. A change that was not recorded (git failed,
 * the start went unrecorded) is "no evidence" whatever a note says: a note explains an empty
 * record, it does not stand in for a missing one. Undefined for a step not done.
 */
export function evidenceFlag(step: Pick<Step, 'status' | 'record' | 'note'>): EvidenceFlag | undefined {
  if (step.status !== 'done') return undefined;
  const changed = step.record?.Changed ? readChangedLine(step.record.Changed) : undefined;
  if (changed?.recorded && changed.files > 0) return 'changed';
  if (step.record?.Check?.startsWith('passed')) return 'checked';
  if (changed && !changed.recorded) return 'no evidence';
  return (step.record?.Note ?? step.note) ? 'no change, explained' : 'no evidence';
}

/** What the mark result and pi_plan_get tell the agent about a step flagged "no evidence" (`open`: its plan still executes, so the step can be marked again). */
export function noEvidenceAdvice(plan: string, step: string, open = true): string {
  if (!open) return `${step} is done with no recorded change ("no evidence"), and the plan is finished, so the flag stays for the reviewer: next time, when a step needs no change, mark it done with a note saying why.`;
  return `${step} is done with no recorded change ("no evidence"): if nothing had to change, say why: call pi_plan_execute {"id":"${plan}","op":"mark","step":"${step}","status":"done","note":"<why nothing had to change>"}; otherwise reopen it with the reason (pi_plan_execute {"id":"${plan}","op":"mark","step":"${step}","status":"in_progress","note":"<what is left to do>"}), do the work, and mark it done again.`;
}

/** A finished plan's summary of its steps' evidence. */
export function evidenceSummary(steps: readonly Pick<Step, 'status' | 'record' | 'note'>[]): { files: number; added: number; removed: number; noEvidence: number; explained: number; recorded: number } {
  const s = { files: 0, added: 0, removed: 0, noEvidence: 0, explained: 0, recorded: 0 };
  for (const step of steps) {
    const c = step.record?.Changed ? readChangedLine(step.record.Changed) : undefined;
    if (c?.recorded) {
      s.recorded++;
      s.files += c.files;
      s.added += c.added;
      s.removed += c.removed;
    }
    const flag = evidenceFlag(step);
    if (flag === 'no evidence') s.noEvidence++;
    if (flag === 'no change, explained') s.explained++;
  }
  return s;
}

/** What a `> Changed:` line reads as when its trees are not the snapshots pinned for its step (written by hand). */
export const CONTRADICTED_CHANGE = 'not recorded (the line does not match the snapshot)';

/** The recorded `> Changed:` lines of a plan's steps, with the trees they name: what a reader checks against the pinned snapshots. */
export function changedTrees(steps: readonly Pick<Step, 'id' | 'record'>[]): { step: string; before: string; after: string }[] {
  const out: { step: string; before: string; after: string }[] = [];
  for (const s of steps) {
    const c = s.record?.Changed ? readChangedLine(s.record.Changed) : undefined;
    if (c?.recorded && c.before && c.after) out.push({ step: s.id, before: c.before, after: c.after });
  }
  return out;
}

/** The steps as a reader should see them: a line that the snapshots contradict reads as not recorded. */
export function withContradicted<T extends Pick<Step, 'id' | 'record'>>(steps: readonly T[], contradicted: ReadonlySet<string>): T[] {
  return steps.map((s) => (contradicted.has(s.id) && s.record?.Changed ? { ...s, record: { ...s.record, Changed: CONTRADICTED_CHANGE } } : s));
}
