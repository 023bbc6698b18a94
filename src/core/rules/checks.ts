/**
 * Checks the person approved, and drift since approval (issue 30), the pure parts: which command a
 * step names as its check (a details line `verify: <command>`, part of the approved text), the
 * one-line record of a check's result written under the step (`> Check: passed · exit 0 · 3.2 s ·
 * tree 5d6e7f8 · 2026-11-26T19:00Z`), how a result reads against the files now (passed, failed,
 * stale, unverified), and which targets drifted from the hashes recorded at approval. No I/O: the
 * Node side (src/node/work/checkTree.ts, src/node/work/planChecks.ts) runs git and the commands.
 */
import { approvalStanding, type ApprovalKeyring, standingProblem } from './approval';
import type { PlanDocument } from '../format/document';
import type { Step } from '../format/steps';
import type { Link, Root, Text } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/** A details line naming the step's check: `verify: npm test -- health` (the key in any case). */
const VERIFY_LINE = /^(?<indent>[ \t]*)verify:[ \t]*(?<command>\S.*?)[ \t]*$/i;

/**
 * Characters that make a command read otherwise than it runs: control characters but the tab;
 * invisible format characters, the bidirectional controls among them (Trojan Source,
 * CVE-2021-42574: `echo ok \u2067;touch x \u2066#\u2069\u2069` shows as `echo ok #;touch x`);
 * every other character Unicode says to draw as nothing (Default_Ignorable_Code_Point: the Hangul
 * fillers, `ls\u3164-la` is one word that looks like two); and every blank but the plain space and
 * the tab (no-break and wide spaces, line and paragraph separators, the braille blank U+2800). A
 * `verify:` line holding one names no check.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SHOWN_OTHERWISE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800]/u;

/** remark's parser with GFM, as the outline reads plans. */
const markdown = unified().use(remarkParse).use(remarkGfm);

/** The checks of the last item sources read (a view reads the same steps again on every render). */
const checksRead = new Map<string, string | undefined>();

/**
 * The command a step names as its check: its first `verify:` line that Markdown reads as a line
 * of the item's own paragraphs, as the reviewer sees it: not in a code block or a fence, an HTML
 * comment or block, a nested list or a quote, where a reviewer reads it as an example or never
 * sees it. A command holding a character that shows it otherwise than it runs names none. Read
 * from the item's source (`checkSource`, kept by the parser when a details line starts with
 * `verify:`).
 */
export function stepCheck(step: Pick<Step, 'checkSource'>): string | undefined {
  const src = step.checkSource;
  if (src === undefined) return undefined;
  if (checksRead.has(src)) return checksRead.get(src);
  const plain = plainCheckIn(src);
  const found = plain === null ? checkIn(src) : plain;
  if (checksRead.size >= 500) checksRead.delete(checksRead.keys().next().value as string);
  checksRead.set(src, found);
  return found;
}

/** A line's characters that may mean something else inline: code, emphasis, strikethrough, links, images, footnotes, HTML, escapes, entities. */
const INLINE_MARK = /[\\`*_[\]<~]|&[#A-Za-z0-9]/;
/** A step's header as the store writes it: one space after the bullet, then its checkbox, id and status marker, each with one space after it. */
const PLAIN_HEADER = /^(?:\d{1,9}[.)]|[-*+]) (?:\[[ xX]\] )?(?:S\d{3,4} )?(?:\*(?:in progress|blocked|failed|skipped)\* )?/;

/**
 * `checkIn` with no parse, for an item whose every line can only be text of its own paragraphs
 * (as the store writes a step with details): its header as `PLAIN_HEADER`, and each other line
 * blank or indented one to four spaces past the bullet (inside the item by its indent alone, no
 * code block) starting with a letter (no block starts with one), with no character that means
 * something else inline (`INLINE_MARK`; a `&` only before a name or number, a pipe, `!` or `>`
 * mid-line, and a web address GFM links as written, read as they stand). Then the first
 * `verify:` line is the check, as remark's parse would say. Null for any other item: the caller
 * parses it. Held equal to the parse by test/unit/core/plainCheck.test.ts.
 */
export function plainCheckIn(src: string): string | undefined | null {
  const lines = src.split('\n');
  const head = PLAIN_HEADER.exec(lines[0]);
  if (!head || /\r./.test(src) || INLINE_MARK.test(lines[0].slice(head[0].length))) return null;
  const width = head[0].indexOf(' ') + 1;
  let check: string | undefined | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (/^[ \t]*$/.test(line)) continue;
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    if (indent < width || indent > width + 3 || !/[A-Za-z]/.test(line[indent]) || INLINE_MARK.test(line)) return null;
    const m: RegExpExecArray | null = check === null ? VERIFY_LINE.exec(line) : null;
    if (m?.groups) check = SHOWN_OTHERWISE.test(m.groups.command) ? undefined : m.groups.command;
  }
  return check ?? undefined;
}

/** `stepCheck` of one item's source, parsed. */
export function checkIn(src: string): string | undefined {
  const root = markdown.parse(src) as Root;
  const list = root.children[0];
  const item = list?.type === 'list' ? list.children[0] : undefined;
  if (!item) return undefined;
  // Where the item's plain text is: text directly in its own paragraphs, and the lines each
  // paragraph shows. Text shows as its value; a web address GFM made a link of, as written; a hard
  // break as a line break. Anything else (a code span, emphasis, inline HTML, an image) shows
  // otherwise than its source, and stands as a character no line holds.
  const plain: { start: number; end: number; shown: Set<string> }[] = [];
  for (const p of item.children) {
    if (p.type !== 'paragraph') continue;
    const shownText = p.children.map((c) => (c.type === 'text' ? c.value : c.type === 'break' ? '\n' : c.type === 'link' && asWritten(src, c) ? (c.children[0] as Text).value : '\u0000')).join('');
    const shown = new Set(shownText.split('\n').map((l) => l.trim()));
    for (const t of p.children) {
      if (t.type === 'text' && t.position) plain.push({ start: t.position.start.offset ?? 0, end: t.position.end.offset ?? 0, shown });
    }
  }
  let at = 0;
  for (const [i, line] of src.split('\n').entries()) {
    const m = i > 0 ? VERIFY_LINE.exec(line.replace(/\r$/, '')) : null;
    const key = at + (m?.groups?.indent.length ?? 0);
    const text = m?.groups ? plain.find((t) => key >= t.start && key < t.end) : undefined;
    // Shown as written, whole (no inline HTML, code, emphasis, escape or entity reads otherwise), and nothing invisible.
    if (text) return text.shown.has(line.trim()) && !SHOWN_OTHERWISE.test(m!.groups!.command) ? m!.groups!.command : undefined;
    at += line.length + 1;
  }
  return undefined;
}

/** Whether a link shows exactly its source: a web address GFM linked as it stands (`https://…`, `www.…`). */
function asWritten(src: string, link: Link): boolean {
  const [only, ...more] = link.children;
  const at = link.position;
  return !more.length && only?.type === 'text' && at !== undefined && src.slice(at.start.offset, at.end.offset) === only.value;
}

/** A check's result as the step's `> Check:` record line says it. */
export interface CheckRecord {
  outcome: 'passed' | 'failed';
  /** The command's exit code; null when it was ended by a signal or could not start. */
  exit: number | null;
  seconds: number;
  /** The working tree it ran on (a git tree id, short in the line); absent outside git. */
  tree?: string;
  /** When it ended, ISO time to the minute or second. */
  at: string;
}

/** The length a tree id is written with in the record line. */
export const SHORT_TREE = 7;

/** The record line's text (after `> Check: `). */
export function formatCheckRecord(r: CheckRecord): string {
  const parts = [r.outcome, r.exit === null ? 'no exit code' : `exit ${r.exit}`, `${r.seconds.toFixed(1)} s`];
  if (r.tree) parts.push(`tree ${r.tree.slice(0, SHORT_TREE)}`);
  parts.push(r.at.replace(/(T\d{2}:\d{2}):\d{2}(\.\d+)?Z$/, '$1Z'));
  return parts.join(' · ');
}

const RECORD =
  /^(?<outcome>passed|failed) \u00b7 (?:exit (?<exit>-?\d+)|no exit code) \u00b7 (?<seconds>\d+(?:\.\d+)?) s(?: \u00b7 tree (?<tree>[0-9a-f]{4,64}))? \u00b7 (?<at>\S+)$/;

/** A `> Check:` record's text read back; undefined for text in no form the store writes (a hand edit). */
export function parseCheckRecord(text: string): CheckRecord | undefined {
  const g = RECORD.exec(text.trim())?.groups;
  if (!g) return undefined;
  const r: CheckRecord = { outcome: g.outcome as CheckRecord['outcome'], exit: g.exit === undefined ? null : Number(g.exit), seconds: Number(g.seconds), at: g.at };
  if (g.tree) r.tree = g.tree;
  return r;
}

/**
 * How a step's check reads now:
 * - `passed` / `failed`: the last result, on the files as they are;
 * - `stale`: it ran, but the step's files (or the tree, when the step names no file) changed since;
 * - `unverified`: the step is done and its check has not passed on the current files (never run,
 *   failed, or stale);
 * - `not run`: it has a check that never ran and is not done.
 * Undefined for a step without a check.
 */
export type CheckReading = 'passed' | 'failed' | 'stale' | 'not run';

export interface CheckStanding {
  command: string;
  reading: CheckReading;
  /** The step is done and its check has not passed on the current files. */
  unverified: boolean;
  record?: CheckRecord;
}

/**
 * The standing of a step's check. `same` says whether the files the check ran on are the files now
 * (the Node side compares the recorded tree with the working tree); undefined when it cannot tell
 * (outside git, or no tree was recorded): the result then reads as recorded.
 */
export function checkStanding(step: Pick<Step, 'checkSource' | 'status'>, recordText: string | undefined, same: boolean | undefined): CheckStanding | undefined {
  const command = stepCheck(step);
  if (!command) return undefined;
  const record = recordText ? parseCheckRecord(recordText) : undefined;
  const reading: CheckReading = !record ? 'not run' : same === false ? 'stale' : record.outcome;
  return { command, reading, unverified: step.status === 'done' && reading !== 'passed', ...(record ? { record } : {}) };
}

/** One word for a standing, as the views and the tools write it: `check passed`, `check stale`, `unverified`. */
export function checkWords(s: CheckStanding): string {
  const head = s.reading === 'not run' ? 'check not run' : `check ${s.reading}`;
  return s.unverified ? `${head}, unverified` : head;
}

// ---------- drift ----------

/** A target path's content as recorded: a git object id (blob or tree), or null when it did not exist. */
export type TargetHashes = Record<string, string | null>;

/** One drifted target: what it was at approval (or at the last acknowledgement), what it is now. */
export interface DriftedTarget {
  path: string;
  was: string | null;
  now: string | null;
  /** Commits since the base that touch it (`abc1234 subject`), when git can tell. */
  commits?: string[];
}

/**
 * The paths a plan's steps name as targets (`(tool: op → target)`) that read as paths in the
 * workspace: relative, no `..`, no spaces or call parentheses (a target like `account.move(42)` is
 * a symbol, not a file). Trailing slashes are dropped. Sorted, unique.
 */
export function targetPaths(steps: readonly Pick<Step, 'target'>[]): string[] {
  const out = new Set<string>();
  for (const s of steps) {
    const raw = s.target?.trim() ?? '';
    if (!/[./]/.test(raw)) continue; // a bare word names a symbol or a thing, not a file
    const t = raw.replace(/^\.\//, '').replace(/\/+$/, '');
    if (!t || /[\s()\u0060\u0027\u0022*?<>|]/.test(t) || t.startsWith('/') || /^[A-Za-z]:/.test(t) || t.split('/').includes('..')) continue;
    out.add(t);
  }
  return [...out].sort();
}

/**
 * The targets whose content differs from `base`, skipping those `ownChange` attributes to the
 * plan's own execution. A target recorded as absent that is still absent is not drift; one that
 * existed and is gone is.
 */
export function driftedTargets(base: TargetHashes, now: TargetHashes, ownChange: (path: string) => boolean = () => false): DriftedTarget[] {
  const out: DriftedTarget[] = [];
  for (const path of Object.keys(base).sort()) {
    const was = base[path] ?? null;
    const is = now[path] ?? null;
    if (was === is || ownChange(path)) continue;
    out.push({ path, was, now: is });
  }
  return out;
}

/** One line on drifted targets, for the tools, the CLI, the hook and the views. */
export function driftWords(drifted: readonly DriftedTarget[]): string {
  const one = (d: DriftedTarget) => {
    const what = d.now === null ? `${d.path} (deleted)` : d.was === null ? `${d.path} (created)` : d.path;
    return d.commits?.length ? `${what} [${d.commits.slice(0, 3).join('; ')}${d.commits.length > 3 ? '; …' : ''}]` : what;
  };
  const shown = drifted.slice(0, 8).map(one).join(', ');
  return `drifted since approval: ${shown}${drifted.length > 8 ? `, and ${drifted.length - 8} more` : ''}`;
}

// ---------- which plans' checks may run ----------

/** Statuses whose checks may run: the approval governs them, or the plan finished under it. */
const CHECKABLE: ReadonlySet<string> = new Set(['approved', 'executing', 'stalled', 'failed', 'completed']);

/**
 * Why a plan's checks may not run now (one sentence naming the fix), or undefined: only the
 * commands of a text a person approved run, so the approval must hold (a completed plan's record
 * is checked as it was while it ran).
 */
export function checksRefusal(doc: PlanDocument, keyring: ApprovalKeyring | undefined): string | undefined {
  const id = doc.fm.id;
  if (!CHECKABLE.has(doc.fm.status)) return `${id} is ${doc.fm.status}: only the checks of a plan a person approved run; submit it and have it approved first`;
  if (!keyring) return `${id}'s approval cannot be checked without the user's approval keys, so its checks do not run`;
  const asRun = doc.fm.status === 'completed' ? { ...doc, fm: { ...doc.fm, status: 'executing' as const } } : doc;
  const problem = standingProblem(asRun, approvalStanding(asRun, keyring));
  return problem ? `${problem}, so its checks do not run (a person approves the current text first)` : undefined;
}

// ---------- the facts every face shows ----------

/** What the files say of a plan now: each step's check standing (by step id) and the drifted targets. */
export interface PlanWorkFacts {
  checks: Record<string, CheckStanding>;
  drifted: DriftedTarget[];
}

/** The per-step flag, for a step's row: `check passed`, `check stale, unverified`, …; undefined without a check. */
export function stepFactWords(facts: PlanWorkFacts | undefined, step: string): string | undefined {
  const c = facts?.checks[step];
  return c ? checkWords(c) : undefined;
}

/**
 * The facts as lines for a model or a terminal (pi_plan_get, `pi-plans show`): drift first (it
 * concerns the whole plan), then each check. Empty when there is nothing to say.
 */
export function workFactLines(id: string, facts: PlanWorkFacts): string[] {
  const out: string[] = [];
  if (facts.drifted.length) {
    out.push(`DRIFTED: ${driftWords(facts.drifted)}. A person acknowledges it (\`pi-plans drift ${id} --ack\`, or Acknowledge Drift in VS Code) or sends the plan back to review (\`pi-plans withdraw ${id}\`, or Withdraw Approval in VS Code); re-read those files before going on.`);
  }
  for (const [step, c] of Object.entries(facts.checks)) {
    const rec = c.record ? ` (${formatCheckRecord(c.record)})` : '';
    out.push(`${step} ${checkWords(c)}${rec}: \`${c.command}\``);
  }
  return out;
}

/** What a mark's result adds for a step marked done whose check has not passed on the current files. */
export function unverifiedWords(id: string, step: string, facts: PlanWorkFacts | undefined): string | undefined {
  const c = facts?.checks[step];
  if (!c?.unverified) return undefined;
  return `${step} is unverified: its check \`${c.command}\` has ${c.reading === 'not run' ? 'not run' : c.reading === 'stale' ? 'not run on the current files (stale)' : 'failed'}. Run it (\`pi-plans verify ${id} ${step}\`, or Run checks in VS Code) or say in a note why it need not pass.`;
}

/**
 * Whether a step's `> Changed:` record (issue 30's evidence line) names `path` (a file, or a file
 * under it when it is a folder): true or false when the line lists every file it saw, undefined
 * when it cannot tell (no line, nothing recorded, or a list summarised as "and N more files").
 */
export function changedMentions(changed: string | undefined, path: string): boolean | undefined {
  if (!changed || changed.startsWith('not recorded')) return undefined;
  if (changed.startsWith('nothing')) return false;
  const list = changed.split(' · ')[0];
  if (/\bmore files?$/.test(list)) return undefined;
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|, |→ )${escaped}(?: \\(|/)`).test(list);
}
