// The approval digest as a property (issue 26): random edits to any part of an approved plan but
// its execution state void the approval, and random edits to the execution state never do. The
// plans are random too: every covered frontmatter field (title, models, tools, an unknown field,
// the id), a preamble, steps with details and `>` quotes, text between steps, sections of the
// format's and of the author's, link definitions, an approval's suggestions.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { approvalStanding, contentDigest, createPlanText, markStep, OpContext, parsePlan, PlanDocument, rewriteHeader, startExecution, StepStatus, submit, UNCOVERED_FIELDS } from '../../../src/core';
import { approveNow, TEST_APPROVALS, testKeyring } from '../../helpers/approvals';

const ctx = (actor: OpContext['actor'] = 'user'): OpContext => ({ now: '2026-02-01T00:00:00.000Z', actor, approvals: TEST_APPROVALS });
const keyring = testKeyring();
const word = fc.stringMatching(/^[a-z][a-z ]{0,14}[a-z]$/);
const sentence = fc.stringMatching(/^[A-Z][a-z ]{0,30}\.$/);
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** A random plan a person approved: every kind of content the digest covers. */
const planArb = fc
  .record({
    title: fc.stringMatching(/^[A-Z][a-z ]{0,20}[a-z]$/),
    planner: opt(fc.constantFrom('gpt-5', 'claude')),
    executor: opt(fc.constantFrom('gpt-5-mini', 'sonnet')),
    tools: fc.array(fc.constantFrom('edit', 'shell', 'read', 'web'), { maxLength: 3 }),
    team: opt(word),
    preamble: opt(sentence),
    steps: fc.array(fc.record({ text: word, details: opt(word), quote: opt(word), annotated: fc.boolean() }), { minLength: 1, maxLength: 5 }),
    between: opt(sentence),
    risks: fc.array(word, { maxLength: 3 }),
    context: opt(sentence),
    rollout: opt(sentence),
    link: fc.boolean(),
    suggestion: opt(word),
  })
  .map((p) => {
    const steps = p.steps.map((s) => ({
      text: s.text,
      details: [s.details, s.quote && `> Warning: ${s.quote}`].filter(Boolean).join('\n') || undefined,
      ...(s.annotated ? { tool: 'edit', operation: 'update', target: 'src/a.ts' } : {}),
    }));
    let text = createPlanText({ id: 'PLAN-0000abcd', title: p.title, goal: 'Do it', steps, risks: p.risks, context: p.context, tools_required: [...new Set(p.tools)], planner_model: p.planner, executor_model: p.executor }, ctx().now);
    if (p.team) text = text.replace(/^(title: .*)$/m, `$1\nteam: ${p.team}`);
    if (p.preamble) text = text.replace('\n## Goal', `\n${p.preamble}\n\n## Goal`);
    if (p.link) text = text.replace('## Goal\nDo it\n', '## Goal\nDo it, as [the docs][docs] say.\n\n[docs]: https://example.com/docs\n');
    if (p.between && p.steps.length > 1) text = text.replace(/\n2\. /, `\n\n${p.between}\n\n2. `);
    if (p.rollout) text = `${text.trimEnd()}\n\n## Rollout\n${p.rollout}\n`;
    const proposed = parsePlan(submit(parsePlan(text), ctx('agent')).text);
    const review = p.suggestion ? { comments: [{ anchor: 'S001', body: p.suggestion }] } : undefined;
    return parsePlan(approveNow(proposed, ctx(), review).text);
  });

/** Where the store's own note line of each step is (the item's last line, exactly `> Note: …`), as [start, end) offsets of the file. */
function noteLines(d: PlanDocument): [number, number][] {
  const out: [number, number][] = [];
  for (const it of d.outline.steps) {
    const last = d.body.lastIndexOf('\n', it.end - 1) + 1;
    if (last <= it.lineEnd) continue;
    const indent = (/^(\d+[.)]|[-*+])[ \t]+/.exec(d.body.slice(it.start, it.lineEnd))?.[0].length ?? 0) as number;
    if (new RegExp(`^ {${indent}}> Note: \\S`).test(d.body.slice(last, it.end))) out.push([d.block.bodyStart + last, d.block.bodyStart + it.end]);
  }
  return out;
}

/**
 * Places where an edit changes content: each line of a covered frontmatter field (its value) and
 * each non-blank line of the body past its indentation (a step's header past its checkbox, id and
 * status marker), `>` quotes under a step included; never a step's note line. Each place is a
 * range [from, to] of offsets an edit may fall in.
 */
function contentRanges(d: PlanDocument): [number, number][] {
  const out: [number, number][] = [];
  const text = d.text;
  const notes = noteLines(d);
  let at = 0;
  let key: string | undefined;
  for (const [i, line] of text.split('\n').entries()) {
    const start = at;
    at += line.length + 1;
    const end = start + line.replace(/[ \t\r]+$/, '').length;
    if (start < d.block.bodyStart) {
      if (i === 0 || line === '---') continue;
      const k = /^([a-z_]+):/.exec(line)?.[1];
      if (k) key = k;
      if (!key || UNCOVERED_FIELDS.has(key)) continue;
      // A scalar's value (a quoted one inside its quotes), or a list item's.
      const valueAt = k ? start + line.indexOf(':') + 2 : start + line.indexOf('- ') + 2;
      const quoted = line.endsWith('"');
      if (valueAt < end) out.push([valueAt + (quoted ? 1 : 0), end - (quoted ? 1 : 0)]);
      continue;
    }
    if (!line.trim() || notes.some(([a]) => a === start)) continue;
    const head = /^(\d+\. \[[ xX]\] (?:S\d{3} )?(?:\*[a-z ]+\* )?)/.exec(line);
    const first = start + (head ? head[1].length : line.length - line.trimStart().length);
    out.push([first + 1, end]);
  }
  return out;
}

describe('approval digest, as a property: content edits void an approval, execution-state edits never do', () => {
  it('a random insertion or deletion anywhere in the covered text (fields, preamble, steps, `>` quotes, text between steps, sections, link definitions, suggestions) voids the approval', () => {
    fc.assert(
      fc.property(planArb, fc.nat(), fc.nat(), fc.constantFrom('X', 'rm -rf', '#', '`', '>', '0', ''), (d, pick, where, ins) => {
        assert.equal(approvalStanding(d, keyring).state, 'valid');
        const ranges = contentRanges(d);
        const [from, to] = ranges[pick % ranges.length];
        const at = from + (where % (to - from + 1));
        // An empty insertion is a deletion of the character before (never a blank: those are no change).
        if (!ins && !/\S/.test(d.text[at - 1] ?? '')) return;
        const text = ins ? d.text.slice(0, at) + ins + d.text.slice(at) : d.text.slice(0, at - 1) + d.text.slice(at);
        let changed: PlanDocument;
        try {
          changed = parsePlan(text);
        } catch {
          return; // the edit made the file unreadable: nothing runs on it either
        }
        assert.notEqual(approvalStanding(changed, keyring).state, 'valid', `${ins ? `insert ${JSON.stringify(ins)}` : 'delete'} at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 30), at + 30))}`);
      }),
      { numRuns: 300 },
    );
  });

  /** One edit of the execution state, as the store makes it or as a hand edit of exactly those parts. */
  const execEdit = fc.oneof(
    fc.record({ kind: fc.constant('mark' as const), step: fc.nat(), status: fc.constantFrom<StepStatus>('in_progress', 'done', 'blocked', 'skipped', 'failed', 'pending'), note: opt(fc.string({ maxLength: 40 })) }),
    fc.record({ kind: fc.constant('status' as const), to: fc.constantFrom('approved', 'executing', 'stalled', 'failed') }),
    fc.record({ kind: fc.constant('fields' as const), version: fc.integer({ min: 1, max: 999 }), minute: fc.integer({ min: 10, max: 59 }), summary: opt(word), session: opt(word), seq: fc.integer({ min: 5, max: 99 }) }),
    fc.record({ kind: fc.constant('checkbox' as const), step: fc.nat(), status: fc.constantFrom<StepStatus>('pending', 'in_progress', 'done', 'blocked', 'skipped', 'failed') }),
    fc.record({ kind: fc.constant('note' as const), step: fc.nat(), note: opt(word) }),
    fc.record({ kind: fc.constant('blanks' as const), crlf: fc.boolean(), line: fc.nat() }),
  );

  /** Applies one execution-state edit: through the store's own operation (a mark), or by hand to exactly the parts execution writes. */
  function execEditFn(d: PlanDocument, e: { kind: string; [k: string]: unknown }): PlanDocument {
    /** `text` with the frontmatter field `key` set to `value` (added after `version:` when absent). */
    const field = (text: string, key: string, value: string) => (new RegExp(`^${key}: .*$`, 'm').test(text) ? text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`) : text.replace(/^(version: .*)$/m, `$1\n${key}: ${value}`));
    const step = d.steps[((e.step as number | undefined) ?? 0) % d.steps.length];
    const item = d.outline.steps[step.index];
    const at = (n: number) => d.block.bodyStart + n;
    switch (e.kind) {
      case 'mark':
        if (d.fm.status !== 'executing') return d;
        return parsePlan(markStep(d, step.id, e.status as StepStatus, ctx('user'), e.note as string | undefined).text);
      case 'status':
        return parsePlan(field(d.text, 'status', e.to as string));
      case 'fields': {
        let t = field(d.text, 'version', String(e.version));
        t = field(t, 'updated_at', `2026-03-01T10:${e.minute}:00.000Z`);
        t = field(t, 'execution_started_at', `2026-03-01T09:${e.minute}:00.000Z`);
        t = field(t, 'step_seq', String(e.seq));
        if (e.summary) t = field(t, 'result_summary', e.summary as string);
        if (e.session) t = field(t, 'execution_session', e.session as string);
        return parsePlan(t);
      }
      case 'checkbox': {
        const header = d.body.slice(item.start, item.lineEnd);
        return parsePlan(d.text.slice(0, at(item.start)) + rewriteHeader(header, e.status as StepStatus) + d.text.slice(at(item.lineEnd)));
      }
      case 'note': {
        // The step's note line replaced, removed or added as its last line, exactly as a mark writes it.
        const indent = ' '.repeat((/^(\d+[.)]|[-*+])[ \t]+/.exec(d.body.slice(item.start, item.lineEnd))?.[0].length ?? 3) as number);
        const line = e.note ? `${indent}> Note: ${e.note as string}` : '';
        const note = noteLines(d).find(([, end]) => end === at(item.end));
        const lineBreak = d.text[note ? note[0] - 2 : 0] === '\r' ? 2 : 1;
        if (note) return parsePlan(line ? d.text.slice(0, note[0]) + line + d.text.slice(note[1]) : d.text.slice(0, note[0] - lineBreak) + d.text.slice(note[1]));
        return line ? parsePlan(`${d.text.slice(0, at(item.end))}${d.eol}${line}${d.text.slice(at(item.end))}`) : d;
      }
      default: {
        // Line ends and trailing blanks: a CRLF checkout, an editor's whitespace.
        const lines = d.text.split('\n');
        const n = d.block.bodyStart > 0 ? lines.findIndex((_, i) => i > 0 && lines[i] === '---') + 1 + ((e.line as number) % (lines.length - 1)) : 0;
        if (n < lines.length - 1 && lines[n].replace(/\r$/, '') !== '---') lines[n] = lines[n].replace(/\r?$/, '  $&');
        const t = lines.join('\n');
        return parsePlan(e.crlf ? t.replace(/\r?\n/g, '\r\n') : t);
      }
    }
  }

  it('random execution-state edits (marks and notes, status, version, times, step checkboxes and markers, note lines by hand, line ends and trailing blanks) never void it', () => {
    fc.assert(
      fc.property(planArb, fc.boolean(), fc.array(execEdit, { maxLength: 8 }), (approved, started, edits) => {
        let d = started ? parsePlan(startExecution(approved, ctx('agent')).text) : approved;
        for (const e of edits) {
          d = execEditFn(d, e as { kind: string });
          if (!['approved', 'executing', 'stalled', 'failed'].includes(d.fm.status)) break;
          const s = approvalStanding(d, keyring);
          assert.equal(s.state, 'valid', `${JSON.stringify(e)}: ${s.state === 'invalid' ? s.reason : s.state}\n${d.text}`);
          assert.equal(contentDigest(d), approved.fm.approved_hash);
        }
      }),
      { numRuns: 200 },
    );
  });
});
