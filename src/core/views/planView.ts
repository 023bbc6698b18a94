/**
 * What the plan editor shows, computed from a plan's text: the fields, steps and sections, with
 * Markdown rendered into a sanitized tree (remark, GFM, remark-rehype, rehype-sanitize's GitHub
 * schema) that travels as data. Pure: the face passes what it knows from outside the text (the
 * attention flag, plan work mode, the checkpoint log, which targets are files).
 */
import type { Element, Root as HastRoot, RootContent as HastContent } from 'hast';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import type { EDITABLE_SECTIONS, InvalidView, PlanEditorCommand, PlanView, ViewNode, Words } from './planViewModel';
import type { AttentionFlag } from '../rules/attentionOrder';
import { parsePlan, PlanDocument } from '../format/document';
import { isPlanError } from '../limits/errors';
import { LIMITS } from '../limits/limits';
import { parseFailure, scanMarkdown } from '../markdown/markdownGuard';
import { nothingHidden } from '../markdown/markdownShown';
import { editorPrimary, planCommands, stepMarks } from './planActions';
import { editedInPlace, progressOf } from '../format/policy';
import { commentAddressed, comparePlans, describeComparison, PlanComparison, reviewHistoryOf, signedApprovalSection } from '../rules/review';
import { type ApprovalStanding, contentDigest, standingProblem } from '../rules/approval';
import { type Checkpoint, STEP_STATUSES } from '../format/schema';
import { planGraph, runnableSteps, wavesOf } from '../rules/graph';
import { RECORD_KEYS, type Step, type StepRecord } from '../format/steps';
import { evidenceFlag, evidenceSummary, readChangedLine, withContradicted } from '../rules/evidence';
import { driftWords, formatCheckRecord, parseCheckRecord, type PlanWorkFacts, stepCheck } from '../rules/checks';
import { parseClaim } from '../ops/claims';

/** remark, GFM, what Markdown would draw as nothing made visible (markdownShown.ts), HTML, sanitized. */
const markdown = unified().use(remarkParse).use(remarkGfm).use(nothingHidden).use(remarkRehype).use(rehypeSanitize);

/** Attributes that survive into the view (after the sanitizer), by their HTML names. */
const KEPT: Record<string, string> = { href: 'href', title: 'title', className: 'class', start: 'start', type: 'type', checked: 'checked', disabled: 'disabled', align: 'align' };

function attributes(el: Element): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(el.properties ?? {})) {
    const name = KEPT[k];
    if (!name || v === null || v === undefined || v === false) continue;
    (out ??= {})[name] = Array.isArray(v) ? v.join(' ') : v === true ? '' : String(v);
  }
  return out;
}

function toNodes(children: readonly HastContent[]): ViewNode[] {
  const out: ViewNode[] = [];
  for (const n of children) {
    // Adjacent text is one string (a footnote reference drawn as text sits between two).
    if (n.type === 'text') {
      if (typeof out[out.length - 1] === 'string') out[out.length - 1] += n.value;
      else out.push(n.value);
    }
    else if (n.type === 'element') {
      // Images would load from the network (the webview forbids it): a link to the image stands
      // in, its alt text (or "image") as its words, so its address shows as any link's does.
      if (n.tagName === 'img') {
        const { alt, src, title } = n.properties ?? {};
        const words = `[${alt ? String(alt) : 'image'}]`;
        out.push(src ? { t: 'a', a: { href: String(src), ...(title ? { title: String(title) } : {}) }, c: [words] } : words);
        continue;
      }
      const a = attributes(n);
      const c = toNodes(n.children);
      out.push({ t: n.tagName, ...(a ? { a } : {}), ...(c.length ? { c } : {}) });
    }
  }
  return out;
}

/**
 * Markdown as a sanitized tree: no script, no event handler, no `javascript:` link, no raw HTML
 * survives. Text the pre-scan refuses (markdownGuard: too deep, too many emphasis markers, over
 * the editor's work budget), or whose parse fails, is shown as the text it is, in a code block
 * under the reason: the reviewer sees all of it, and the extension host's thread never parses it.
 */
export function renderMarkdown(text: string): ViewNode[] {
  const known = rendered.get(text);
  if (known) {
    rendered.delete(text);
    rendered.set(text, known);
    return known;
  }
  const refusal = scanMarkdown(text, { work: LIMITS.markdown.renderWork });
  let nodes: ViewNode[];
  if (refusal) nodes = asText(text, refusal.message);
  else {
    try {
      nodes = toNodes((markdown.runSync(markdown.parse(text), text) as HastRoot).children);
    } catch (e) {
      nodes = asText(text, parseFailure(e).message);
    }
  }
  remember(text, nodes);
  return nodes;
}

/** Text shown as it is, under why it is not rendered. */
function asText(text: string, why: string): ViewNode[] {
  return [{ t: 'p', c: [{ t: 'em', c: [`Shown as plain text: ${why}`] }] }, { t: 'pre', c: [{ t: 'code', c: [text] }] }];
}

/**
 * Rendered Markdown by its text: a plan re-rendered after one step changed renders only that
 * step again. The nodes are never mutated after they are made (the view is serialized as is).
 * Bounded in entries and in characters (a few large sections must not keep megabytes alive);
 * the least recently used go first.
 */
const rendered = new Map<string, ViewNode[]>();
const RENDERED_LIMIT = 4000;
const RENDERED_CHARS = 2 * 1024 * 1024;
let renderedChars = 0;

function remember(text: string, nodes: ViewNode[]): void {
  rendered.set(text, nodes);
  renderedChars += text.length;
  while (rendered.size > RENDERED_LIMIT || (renderedChars > RENDERED_CHARS && rendered.size > 1)) {
    const oldest = rendered.keys().next().value as string;
    rendered.delete(oldest);
    renderedChars -= oldest.length;
  }
}

/**
 * Text Markdown leaves as it is, without running the parser: it starts with a letter (no list,
 * heading, quote or code marker), has no character Markdown or GFM gives a meaning inline
 * (emphasis, code, links, HTML, entities, escapes, tables, strikethrough) and nothing an
 * autolink could take for a URL or an e-mail address. A property test holds it equal to the parser.
 */
export function isPlainInline(text: string): boolean {
  return /^\p{L}[\p{L}\p{N} ,.;:()'"?/+=%\u2192-]*$/u.test(text) && !/www\.|:\/\/|\s$| {2}/i.test(text);
}

/** One line of Markdown (a step's text) without the paragraph around it. */
export function renderInline(text: string): ViewNode[] {
  if (isPlainInline(text)) return [text];
  const nodes = renderMarkdown(text);
  const only = nodes.length === 1 ? nodes[0] : undefined;
  return typeof only === 'object' && only.t === 'p' ? (only.c ?? []) : nodes;
}

/** A path at the start of a list item of the Files section: `src/a.ts`, `./docs/x.md` (plain or as code). */
const LEADING_PATH = /^\.?[\w@-][\w@./-]*/;

/**
 * The Files section's items with the workspace files they start with as links (`- src/a.ts: why`
 * or ``- `src/a.ts` ``); the rendered nodes are shared, so the items are rebuilt, never changed.
 */
function linkFiles(nodes: readonly ViewNode[], isFile: (path: string) => boolean): ViewNode[] {
  return nodes.map((n) => {
    if (typeof n === 'string' || (n.t !== 'ul' && n.t !== 'ol' && n.t !== 'li' && n.t !== 'p')) return n;
    if (n.t !== 'li') return n.c ? { ...n, c: linkFiles(n.c, isFile) } : n;
    const [first, ...rest] = n.c ?? [];
    if (typeof first === 'object' && first.t === 'p') return { ...n, c: [...linkFiles([first], isFile), ...rest] };
    const code = typeof first === 'object' && first.t === 'code' && first.c?.length === 1 && typeof first.c[0] === 'string' ? first.c[0] : undefined;
    const head = typeof first === 'string' ? LEADING_PATH.exec(first)?.[0] : code && LEADING_PATH.exec(code)?.[0] === code ? code : undefined;
    if (!head || !/[./]/.test(head) || !isFile(head)) return n;
    const tail = typeof first === 'string' ? first.slice(head.length) : '';
    return { ...n, c: [{ t: 'a', a: { href: head }, c: [code ? first : head] }, ...(tail ? [tail] : []), ...rest] };
  });
}

/** What the editor needs beyond the text. */
export interface PlanViewContext {
  flag?: AttentionFlag;
  /** The plan is the active plan (plan work mode). */
  active?: boolean;
  /** The document has unsaved changes: approving is not offered. */
  dirty?: boolean;
  /** Restricted Mode: nothing can be changed. */
  readOnly?: boolean;
  checkpoints?: readonly Checkpoint[];
  /** Whether a step's target, or a path that starts an item of the Files section, names a file of the workspace (shown as a link). */
  isFile?: (target: string) => boolean;
  /** Unresolved draft review threads by anchor (step id or section title). */
  threads?: Readonly<Record<string, number>>;
  /** The comparison with the last reviewed version (its text and that review's comments). */
  reviewed?: { text: string; comments: readonly { anchor: string; body: string }[] };
  /** Where the plan's approval stands, checked by the face with the user's keys (see core/approval.ts). */
  standing?: ApprovalStanding;
  /** What the files say now: the checks' standings and the drift since approval (the face looks; issue 30). */
  facts?: PlanWorkFacts;
  /** The last output lines of each step's check, by step id. */
  checkTails?: Readonly<Record<string, readonly string[]>>;
  /** Steps whose `> Changed:` line the pinned snapshots contradict (the face looks in git): drawn as not recorded. */
  contradicted?: ReadonlySet<string>;
}

/** Statuses a plan's checks may run in: its approval governs it, or it finished under one. */
const CHECKS_RUN = new Set(['approved', 'executing', 'stalled', 'failed', 'completed']);

/** Run checks and Acknowledge drift, where they apply: checks of a plan whose approval holds, drift when some was found. */
function checkCommands(doc: PlanDocument, ctx: PlanViewContext): PlanEditorCommand[] {
  if (ctx.readOnly) return [];
  const out: PlanEditorCommand[] = [];
  const holds = doc.fm.status === 'completed' || ctx.standing?.state === 'valid';
  if (CHECKS_RUN.has(doc.fm.status) && holds && doc.steps.some((s) => stepCheck(s))) out.push('runChecks');
  if (ctx.facts?.drifted.length) out.push('acknowledgeDrift');
  return out;
}

const TIMELINE_LIMIT = 50;
/** Sections the editor edits as Markdown, by title. */
const SECTION_KEY: Record<string, (typeof EDITABLE_SECTIONS)[number]> = { Assumptions: 'assumptions', Risks: 'risks', Verification: 'verification', Files: 'files', Context: 'context' };

/** The editor's view of a plan text, or the problem that keeps it from being read (with its line). */
export function planView(text: string, ctx: PlanViewContext = {}): PlanView | InvalidView {
  let doc;
  try {
    doc = parsePlan(text);
  } catch (e) {
    if (!isPlanError(e)) throw e;
    return { kind: 'invalid', message: e.message, ...(e.details.line !== undefined ? { line: e.details.line } : {}) };
  }
  if (ctx.contradicted?.size) doc = { ...doc, steps: withContradicted(doc.steps, ctx.contradicted) };
  const fm = doc.fm;
  const { sections, stepsSection } = doc.outline;
  const bodyOf = (s: (typeof sections)[number]) => doc.body.slice(s.headingEnd, s.end).trim();
  // Every part of the body is drawn somewhere: the goal (the first `## Goal`), the steps and the
  // text around them, the review history (a person's reviews: `## Approval/Rejection (vN)`), and
  // every other section, however titled (a second Goal, a `# Steps` of depth 1 included).
  const goal = sections.find((s) => s.depth === 2 && s.title === 'Goal');
  const steps = sections[stepsSection];
  const history = reviewHistoryOf(doc);
  const historyTitles = new Set(history.map((h) => `${h.kind === 'approval' ? 'Approval' : 'Rejection'} (v${h.version})`));
  const isHistory = (s: (typeof sections)[number]) => s.depth === 2 && historyTitles.has(s.title);
  const preamble = doc.body.slice(0, sections[0]?.start ?? doc.body.length).trim();
  const loose = stepsLooseText(doc);
  const standing = ctx.standing;
  const signedSection = signedApprovalSection(doc, standing);
  const approvalText = standing && standing.state !== 'none' ? (standingProblem(doc, standing) ?? `approved by ${(standing as { approver: string }).approver} at v${(standing as { version: number }).version}`) : undefined;
  const approver = approverOf(doc, standing);
  const { done, total } = progressOf(doc.steps);
  // The person's own commands: approve becomes "save to approve" while the text is not saved; plan
  // work on the active plan is ended, not started again.
  const own = (c: PlanEditorCommand): PlanEditorCommand => (c === 'approve' && ctx.dirty ? 'saveToApprove' : c === 'startWork' && ctx.active ? 'endWork' : c);
  const commands: PlanEditorCommand[] = ctx.readOnly ? [] : [...planCommands(fm.status, { flag: ctx.flag }).map(own), ...checkCommands(doc, ctx)];
  const primary = ctx.readOnly ? undefined : editorPrimary(fm.status, { flag: ctx.flag });
  const drifted = ctx.facts?.drifted.length ? driftWords(ctx.facts.drifted) : undefined;
  const unverified = Object.values(ctx.facts?.checks ?? {}).some((c) => c.unverified);
  const marks = [ctx.active ? 'active' : '', ctx.flag ?? '', drifted ? 'drifted' : '', unverified ? 'unverified' : ''].filter(Boolean);
  const since = sinceReview(doc, ctx.reviewed);
  return {
    kind: 'plan',
    id: fm.id,
    title: fm.title,
    status: fm.status,
    version: fm.version,
    createdAt: fm.created_at,
    updatedAt: fm.updated_at,
    ...(fm.planner_model ? { plannerModel: fm.planner_model } : {}),
    ...(fm.executor_model ? { executorModel: fm.executor_model } : {}),
    toolsRequired: [...(fm.tools_required ?? [])],
    // Who approved (approverOf), as the timeline names them too.
    ...(approver ? { approvedBy: approver.name } : {}),
    ...(fm.approved_version !== undefined ? { approvedVersion: fm.approved_version } : {}),
    digest: contentDigest(doc),
    ...(approvalText && standing && standing.state !== 'none' ? { approval: { state: standing.state, text: approvalText } } : {}),
    ...(preamble ? { preamble: renderMarkdown(preamble) } : {}),
    ...(loose.intro ? { stepsIntro: renderMarkdown(loose.intro) } : {}),
    ...(drifted ? { drifted } : {}),
    marks,
    done,
    total,
    ...(goal ? { goal: renderMarkdown(bodyOf(goal)) } : {}),
    steps: stepViews(doc, ctx, loose, since),
    ...graphView(doc),
    ...finishedEvidence(doc),
    sections: sections.filter((s) => s !== goal && s !== steps && !isHistory(s)).map((s) => sectionView(s.title, bodyOf(s), ctx, since)),
    ...(since ? { review: reviewView(since, ctx.reviewed?.comments ?? []) } : {}),
    // An approval's section is the person's only when the signed record names its text; any other
    // (written into the file by hand, or of an approval that no longer holds) says it is not signed.
    history: historyViews(sections, bodyOf, signedSection),
    timeline: timelineOf(ctx.checkpoints ?? [], doc, approver),
    ...(fm.result_summary ? { resultSummary: fm.result_summary } : {}),
    commands,
    ...(primary ? { primary: own(primary) } : {}),
    // Edited here only where an edit keeps the status (a draft, a proposal): never voids an approval.
    editable: !ctx.readOnly && editedInPlace(fm.status),
    ...(goal ? { goalText: bodyOf(goal) } : {}),
    dirty: !!ctx.dirty,
    readOnly: !!ctx.readOnly,
  };
}

/** What changed since the last reviewed version (none when there is none, or its copy does not read). */
interface SinceReview {
  cmp: PlanComparison;
  then: PlanDocument;
  step(id: string): 'added' | 'changed' | 'moved' | undefined;
  section(title: string): 'added' | 'changed' | undefined;
}

function sinceReview(doc: PlanDocument, reviewed: PlanViewContext['reviewed']): SinceReview | undefined {
  if (!reviewed) return undefined;
  let then: PlanDocument;
  try {
    then = parsePlan(reviewed.text);
  } catch {
    return undefined; // a snapshot that does not read: no comparison, never an error
  }
  if (then.fm.id !== doc.fm.id) return undefined;
  const cmp = comparePlans(then, doc);
  return {
    cmp,
    then,
    step: (id) => (cmp.added.includes(id) ? 'added' : cmp.changed.includes(id) ? 'changed' : cmp.moved.includes(id) ? 'moved' : undefined),
    section: (title) => (cmp.sectionsAdded.includes(title) ? 'added' : cmp.sectionsChanged.includes(title) ? 'changed' : undefined),
  };
}

/** A step's record lines other than its note, in the store's order: as the agent reads them, and said plainly where they read. */
function recordView(record: StepRecord | undefined): { key: string; text: string; words?: Words }[] | undefined {
  const lines = RECORD_KEYS.filter((k) => k !== 'Note' && record?.[k]).map((k) => {
    const words = recordWords(k, record![k]!);
    return { key: k, text: record![k]!, ...(words ? { words } : {}) };
  });
  return lines.length ? lines : undefined;
}

/**
 * A record line in words, its times for the reader's locale: who holds (or held) the step and
 * since when, whose claim it took over; a check's result and when it ran. Undefined for a line in
 * no form the store writes (it is shown as written).
 */
function recordWords(key: string, text: string): Words | undefined {
  if (key === 'Claimed') {
    const c = parseClaim(text);
    if (!c) return undefined;
    return ['Claimed by ', c.session, ' · ', { at: c.at }, ...(c.takenFrom ? [` (taken over from ${c.takenFrom.session}, claimed `, { at: c.takenFrom.at }, ')'] : [])];
  }
  if (key === 'Check') {
    const r = parseCheckRecord(text);
    if (!r) return undefined;
    const at = /Z$/.test(r.at) && !Number.isNaN(Date.parse(r.at)) ? { at: r.at } : r.at;
    return [`Check ${formatCheckRecord({ ...r, at: '' }).replace(/ \u00b7 $/, '')} \u00b7 `, at];
  }
  return undefined;
}

/**
 * Who approved the plan, as the header and the timeline both say it: the signed record's approver
 * while that approval holds, or for a finished plan the approval it ran on (its record verified);
 * without the keys at hand, as the file says. None when no approval holds (the approval line
 * above the actions says why).
 */
function approverOf(doc: PlanDocument, standing: ApprovalStanding | undefined): { name: string; version: number } | undefined {
  const fm = doc.fm;
  const agent = fm.approved_by === 'agent';
  if (standing?.state === 'valid') return { name: `${standing.approver}${agent ? ' (the agent)' : ''}`, version: standing.version };
  if (standing?.state === 'none' && standing.finished && fm.approver) return { name: `${fm.approver}${agent ? ' (the agent)' : ''}`, version: standing.finished.version };
  if (!standing && fm.approved_version !== undefined && (fm.approver || fm.approved_by)) return { name: fm.approver ?? (agent ? 'the agent' : 'a person'), version: fm.approved_version };
  return undefined;
}

/** The waves of a plan that uses `after:` lines (none for a plain list: it is one sequence). */
function graphView(doc: PlanDocument): { waves?: string[][] } {
  const graph = planGraph(doc.steps);
  return graph.explicit.size ? { waves: wavesOf(doc.steps, graph).waves } : {};
}

/** A finished plan's evidence summary, once any step recorded a change. */
function finishedEvidence(doc: PlanDocument): { evidenceSummary?: NonNullable<PlanView['evidenceSummary']> } {
  if (doc.fm.status !== 'completed' && doc.fm.status !== 'failed') return {};
  const { recorded, ...sum } = evidenceSummary(doc.steps);
  return recorded || sum.noEvidence ? { evidenceSummary: sum } : {};
}

/** A step's evidence for the editor: what its `> Changed:` line says and its flag. */
function evidenceView(s: Step): { evidence?: NonNullable<PlanView['steps'][number]['evidence']> } {
  const flag = evidenceFlag(s);
  const c = s.record?.Changed ? readChangedLine(s.record.Changed) : undefined;
  if (!flag && !c) return {};
  return {
    evidence: {
      ...(flag ? { flag } : {}),
      recorded: !!c?.recorded,
      ...(c?.why ? { why: c.why } : c ? {} : { why: 'no change recorded' }),
      files: c?.shown.map((f) => f.text) ?? [],
      count: c?.files ?? 0,
      added: c?.added ?? 0,
      removed: c?.removed ?? 0,
      ...(c?.notBySession.length ? { notBySession: c.notBySession } : {}),
      ...(c?.alongside.length ? { alongside: c.alongside } : {}),
      canView: !!(c?.recorded && c.files && c.before && c.after),
    },
  };
}

function stepViews(doc: PlanDocument, ctx: PlanViewContext, loose: ReturnType<typeof stepsLooseText>, since: SinceReview | undefined) {
  const status = doc.fm.status;
  const graph = planGraph(doc.steps);
  const runnable = new Set(runnableSteps(doc.steps, graph).map((s) => s.id));
  const shown = (id: string) => (graph.explicit.size ? { waitsFor: graph.deps.get(id) ?? [], runnable: runnable.has(id) } : {});
  return doc.steps.map((s) => {
    const changed = since?.step(s.id);
    return {
      id: s.id,
      status: s.status,
      text: renderInline(s.text),
      ...(s.tool ? { tool: s.tool } : {}),
      ...(s.operation ? { operation: s.operation } : {}),
      ...(s.target ? { target: s.target, targetIsFile: ctx.isFile?.(s.target) ?? false } : {}),
      ...(s.details ? { details: renderMarkdown(s.details) } : {}),
      ...(s.note ? { note: s.note } : {}),
      ...checkView(s.id, ctx),
      ...(recordView(s.record) ? { record: recordView(s.record) } : {}),
      ...evidenceView(s),
      source: s.text,
      marks: ctx.readOnly ? [] : stepMarks(status, s.status),
      ...(ctx.threads?.[s.id] ? { threads: ctx.threads[s.id] } : {}),
      ...(changed ? { since: changed } : {}),
      ...(loose.after[s.index] ? { after: renderMarkdown(loose.after[s.index]) } : {}),
      ...shown(s.id),
    };
  });
}

/** A step's check in the view, from the facts the face looked up. */
function checkView(id: string, ctx: PlanViewContext): { check?: NonNullable<PlanView['steps'][number]['check']> } {
  const c = ctx.facts?.checks[id];
  if (!c) return {};
  const tail = ctx.checkTails?.[id];
  return { check: { command: c.command, reading: c.reading, unverified: c.unverified, ...(c.record ? { record: formatCheckRecord(c.record) } : {}), ...(tail?.length ? { tail: [...tail] } : {}) } };
}

function sectionView(title: string, source: string, ctx: PlanViewContext, since: SinceReview | undefined) {
  const key = SECTION_KEY[title];
  const changed = since?.section(title);
  const body = renderMarkdown(source);
  return { title, body: title === 'Files' && ctx.isFile ? linkFiles(body, ctx.isFile) : body, ...(key ? { key, source } : {}), ...(ctx.threads?.[title] ? { threads: ctx.threads[title] } : {}), ...(changed ? { since: changed } : {}) };
}

function reviewView({ cmp, then }: SinceReview, comments: NonNullable<PlanViewContext['reviewed']>['comments']) {
  return {
    fromVersion: cmp.fromVersion,
    removed: cmp.removed.map((id) => ({ id, text: then.steps.find((s) => s.id === id)?.text ?? '' })),
    comments: comments.map((c) => ({ anchor: c.anchor, body: c.body, addressed: commentAddressed(c, cmp) })),
    changes: describeComparison(cmp).length,
  };
}

/**
 * The review history. An approval's section is the person's only when the signed record names its
 * text; any other (written into the file by hand, or of an approval that no longer holds) says it
 * is not signed.
 */
function historyViews(sections: PlanDocument['outline']['sections'], bodyOf: (s: PlanDocument['outline']['sections'][number]) => string, signedSection: number | undefined) {
  return sections.flatMap((s, i) => {
    const m = s.depth === 2 ? /^(Rejection|Approval) \(v(\d+)\)$/.exec(s.title) : null;
    if (!m) return [];
    const kind = m[1] === 'Approval' ? ('approval' as const) : ('rejection' as const);
    return [{ kind, version: Number(m[2]), body: renderMarkdown(bodyOf(s)), ...(kind === 'approval' && i !== signedSection ? { unsigned: true } : {}) }];
  });
}

/** Who acted, as the timeline says it. */
const BY: Record<string, string> = { agent: 'by the agent', user: 'by a person', cli: 'by a person (CLI)' };
const STEP_STATUS_SET: ReadonlySet<string> = new Set(STEP_STATUSES);

/**
 * The checkpoint log as the timeline reads it, oldest first (the latest 50): one wording per kind
 * of event. A step event says the step's status; a decision names the version the person decided
 * on (the write that records it is the next one); the approval in force names its approver.
 * Times stay ISO: the webview writes them in the reader's locale.
 */
function timelineOf(checkpoints: readonly Checkpoint[], doc: PlanDocument, approver: { name: string; version: number } | undefined): PlanView['timeline'] {
  const shown = checkpoints.slice(-TIMELINE_LIMIT);
  // Which step event is each step's last in the log: its status now is the one the file says.
  const lastOfStep = new Map<string, Checkpoint>();
  for (const c of checkpoints) if (c.type === 'step' && c.step) lastOfStep.set(c.step, c);
  // The plan's status before each event, from the events before it (the log's first shown event has none).
  let before: string | undefined;
  for (const c of checkpoints.slice(0, checkpoints.length - shown.length)) if (c.type !== 'step' && c.status) before = c.status;
  return shown.map((c) => {
    const decided = c.version !== undefined ? c.version - 1 : undefined;
    let by = c.actor ? BY[c.actor] : undefined;
    let text: string;
    // What follows who acted: the status an edit or a mark led to.
    let then = '';
    switch (c.type) {
      case 'created':
        text = `Created as ${c.status === 'proposed' ? 'a proposal' : 'a draft'}${c.version !== undefined ? ` (v${c.version})` : ''}`;
        break;
      case 'edit': {
        if (c.status && before && c.status !== before) then = `: ${c.status === 'proposed' ? 'back to review' : `now ${c.status.replace('_', ' ')}`}`;
        text = `Edited${c.step ? ` ${c.step}` : ''}${c.version !== undefined ? ` (v${c.version})` : ''}`;
        break;
      }
      case 'step': {
        // The documented log records the step's status; older writers recorded the plan's there.
        const known = c.status && STEP_STATUS_SET.has(c.status) ? c.status : lastOfStep.get(c.step ?? '') === c ? doc.steps.find((x) => x.id === c.step)?.status : undefined;
        text = `${c.step ?? 'A step'} marked${known ? ` ${known.replace('_', ' ')}` : ''}`;
        if (c.status === 'completed') then = ': the plan is complete';
        break;
      }
      case 'submitted':
        // A submit (a resubmission of a changed approved plan too: its note says so).
        text = `Submitted${c.version !== undefined ? ` v${c.version}` : ''} for review`;
        break;
      case 'status':
        text = statusEvent(c.status, before, c.version);
        if (c.status === 'approved' && before !== 'failed' && before !== 'stalled' && approver && decided === approver.version) by = `by ${approver.name}`;
        break;
      case 'archived':
        text = 'Archived';
        break;
      case 'approval_confirmed':
        text = 'Approval confirmed on this machine';
        break;
      default: {
        const what = c.type.replace(/_/g, ' ');
        text = `${what.charAt(0).toUpperCase()}${what.slice(1)}${c.step ? ` ${c.step}` : ''}${c.status ? `: ${c.status.replace('_', ' ')}` : ''}`;
      }
    }
    if (c.type !== 'step' && c.status) before = c.status;
    return { at: c.at, text: `${text}${by ? ` ${by}` : ''}${then}`, ...(c.note ? { note: c.note } : {}) };
  });
}

/**
 * A change of the plan's status, said as what happened. `version`: the plan's after the change; a
 * person's approval or rejection is of the version before it (the decision's write is the next one).
 */
function statusEvent(to: string | undefined, from: string | undefined, version: number | undefined): string {
  const v = version !== undefined ? ` v${version - 1}` : '';
  switch (to) {
    case 'proposed':
      return from === 'approved' ? 'Approval withdrawn: back to review' : `Submitted${version !== undefined ? ` v${version}` : ''} for review`;
    case 'approved':
      return from === 'failed' || from === 'stalled' ? 'Set to run again' : `Approved${v}`;
    case 'rejected':
      return `Rejected${v}`;
    case 'needs_review':
      return `Rejected${v} a third time: a person must reopen it`;
    case 'executing':
      return from === 'failed' || from === 'stalled' ? 'Execution resumed' : 'Execution started';
    case 'completed':
      return 'Completed';
    case 'failed':
      return 'Failed';
    case 'stalled':
      return 'Marked stalled';
    case 'cancelled':
      return 'Cancelled';
    case 'superseded':
      return 'Superseded by its revision';
    case 'draft':
      return from === 'needs_review' ? 'Reopened as a draft' : 'Back to draft';
    default:
      return to ? `Status: ${to.replace('_', ' ')}` : 'Status changed';
  }
}

/**
 * The Steps section's text that is not a step: before the first step (`intro`), and after each
 * step up to the next one or the section's end (`after`, by step index). Markdown a reviewer
 * would not otherwise see, though the agent reads it.
 */
export function stepsLooseText(doc: PlanDocument): { intro: string; after: string[] } {
  const sec = doc.outline.sections[doc.outline.stepsSection];
  const items = doc.outline.steps;
  if (!sec) return { intro: '', after: [] };
  const body = doc.body;
  const intro = body.slice(sec.headingEnd, items.length ? items[0].start : sec.end).trim();
  const after = items.map((it, i) => body.slice(it.end, i + 1 < items.length ? items[i + 1].start : sec.end).trim());
  return { intro, after };
}
