import { sealApproval, seenNow, TEST_APPROVALS } from '../../helpers/approvals';
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  approve,
  clonePlan,
  DEFAULT_CONFIG,
  editStep,
  ensureStepIds,
  finishExecution,
  markStep,
  mergePlanTexts,
  OpContext,
  parsePlan,
  PlanDocument,
  PlanError,
  reject,
  reviewHistoryOf,
  sectionText,
  setContent,
  setMetadata,
  startExecution,
  submit,
  summarizePlan,
} from '../../../src/core';
import { errorOf, diffLines } from '../../helpers/assertions';

/** An approved fixture as a person's approval in Pi Plans leaves it: step ids given, the record signed. */
const approvedHere = (d: PlanDocument) => sealApproval(ensureStepIds(d));

// Plans written by other tools and by hand, read byte for byte from test/fixtures/corpus/.
const CORPUS = path.join(__dirname, '..', '..', 'fixtures', 'corpus');
const fixture = (name: string) => readFileSync(path.join(CORPUS, name), 'utf8');

const NOW = '2026-04-01T12:00:00.000Z';
const agent: OpContext = { now: NOW, actor: 'agent', approvals: TEST_APPROVALS };
const user: OpContext = { now: NOW, actor: 'user', approvals: TEST_APPROVALS };



/** Line breaks not preceded by "\r". */
const loneLf = (s: string) => (s.match(/(?<!\r)\n/g) ?? []).length;
const crlf = (lines: string[]) => lines.map((l) => `${l}\r`);
const stepView = (d: PlanDocument) => d.steps.map((s) => ({ id: s.id, hasId: s.hasId, status: s.status, text: s.text, tool: s.tool, operation: s.operation, target: s.target }));

// ---------- pi-planner's reader (marcfargas/pi-planner, src/persistence/plan-store.ts), reproduced ----------

const PI_STEP = /^\d+\.\s+(.+?)\s+\((\S+?):\s+(\S+?)(?:\s+→\s+(.+?))?\)$/;

function piFrontmatter(raw: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  let currentList: string[] | null = null;
  let currentKey: string | null = null;
  for (const line of raw.split('\n')) {
    const listItem = line.match(/^\s+-\s+(.+)$/);
    if (listItem && currentKey) {
      if (!currentList) currentList = [];
      currentList.push(listItem[1].trim());
      result[currentKey] = currentList;
      continue;
    }
    currentList = null;
    currentKey = null;
    const kv = line.match(/^(\S+?):\s*(.*)$/);
    if (kv) {
      let value = kv[2].trim();
      if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\"/g, '"');
      if (value === '') currentKey = kv[1];
      else result[kv[1]] = value;
    }
  }
  return result;
}

function piParse(content: string) {
  const fmMatch = content.match(/^---\n([\s\S]*?)\n---\n?([\s\S]*)$/);
  if (!fmMatch) throw new Error('Invalid plan file: no frontmatter');
  const fm = piFrontmatter(fmMatch[1]);
  const body = fmMatch[2].trim();
  const steps: { description: string; tool: string; operation: string; target?: string }[] = [];
  const stepsMatch = body.match(/## Steps\n([\s\S]*?)(?=\n## |$)/);
  if (stepsMatch) {
    for (const line of stepsMatch[1].trim().split('\n')) {
      const m = line.match(PI_STEP);
      if (m) steps.push({ description: m[1], tool: m[2], operation: m[3], target: m[4] });
    }
  }
  const ctx = body.match(/## Context\n([\s\S]*?)(?=\n## |$)/);
  // The rest of the body, as pi-planner's plan-store keeps it (`Plan.body`: the text outside the
  // Steps and Context sections, review sections included), so a round trip can check that text too.
  let remaining = body;
  if (stepsMatch) remaining = remaining.replace(/## Steps\n[\s\S]*?(?=\n## |$)/, '');
  if (ctx) remaining = remaining.replace(/## Context\n[\s\S]*?(?=\n## |$)/, '');
  remaining = remaining.trim();
  return { fm, steps, context: ctx ? ctx[1].trim() : undefined, body: remaining || undefined };
}

// ---------- (a) plans written by pi-planner ----------

describe('corpus: pi-planner plans', () => {
  const PROPOSED = fixture('pi-planner-proposed.md');

  it('the reference reader reads the fixture as pi-planner would (sanity)', () => {
    const p = piParse(PROPOSED);
    assert.equal(p.steps.length, 4);
    assert.deepEqual(p.steps[0], { description: 'Query overdue invoices for Acme Corp', tool: 'odoo-toolbox', operation: 'search', target: 'account.move' });
    assert.equal(p.fm.title, 'Send overdue invoice reminders to Acme Corp');
  });

  it('parses: frontmatter, provisional step ids S001.., annotations, context', () => {
    const d = parsePlan(PROPOSED);
    assert.deepEqual(
      { ...d.fm },
      {
        id: 'PLAN-3f9a1c2e',
        title: 'Send overdue invoice reminders to Acme Corp',
        status: 'proposed',
        version: 1,
        created_at: '2026-02-11T12:00:00.000Z',
        updated_at: '2026-02-11T12:00:00.000Z',
        planner_model: 'claude-sonnet-4-5',
        tools_required: ['odoo-toolbox', 'go-easy'],
        executor_model: 'claude-haiku-4-5',
      },
    );
    assert.equal(d.eol, '\n');
    assert.equal(d.bom, false);
    assert.deepEqual(stepView(d), [
      { id: 'S001', hasId: false, status: 'pending', text: 'Query overdue invoices for Acme Corp', tool: 'odoo-toolbox', operation: 'search', target: 'account.move' },
      { id: 'S002', hasId: false, status: 'pending', text: 'Send payment reminder email', tool: 'go-easy', operation: 'send', target: 'billing@acme.example' },
      { id: 'S003', hasId: false, status: 'pending', text: 'Log reminder activity on each invoice', tool: 'odoo-toolbox', operation: 'write', target: 'account.move' },
      { id: 'S004', hasId: false, status: 'pending', text: 'Confirm the reminders went out', tool: 'go-easy', operation: 'list', target: undefined },
    ]);
    assert.deepEqual(d.rejections, []);
    assert.equal(sectionText(d, 'Context'), 'Acme Corp has 3 invoices overdue by more than 30 days.\nUse the English reminder template.');
  });

  it('the first write gives every step its id and keeps every other line byte for byte', () => {
    const r = editStep(parsePlan(PROPOSED), { op: 'update', id: 'S002', text: 'Send the payment reminder email' }, agent);
    assert.equal(r.status, 'proposed');
    assert.deepEqual(diffLines(PROPOSED, r.text), {
      removed: [
        'version: 1',
        'updated_at: 2026-02-11T12:00:00.000Z',
        '1. Query overdue invoices for Acme Corp (odoo-toolbox: search → account.move)',
        '2. Send payment reminder email (go-easy: send → billing@acme.example)',
        '3. Log reminder activity on each invoice (odoo-toolbox: write → account.move)',
        '4. Confirm the reminders went out (go-easy: list)',
      ],
      added: [
        'version: 2',
        'updated_at: 2026-04-01T12:00:00.000Z',
        'step_seq: 4',
        '1. [ ] S001 Query overdue invoices for Acme Corp (odoo-toolbox: search → account.move)',
        '2. [ ] S002 Send the payment reminder email (go-easy: send → billing@acme.example)',
        '3. [ ] S003 Log reminder activity on each invoice (odoo-toolbox: write → account.move)',
        '4. [ ] S004 Confirm the reminders went out (go-easy: list)',
      ],
    });
    const d = parsePlan(r.text);
    assert.deepEqual(d.steps.map((s) => [s.id, s.hasId]), [['S001', true], ['S002', true], ['S003', true], ['S004', true]]);
    assert.equal(d.fm.version, 2);
    assert.equal(d.fm.step_seq, 4);
  });

  it('after our write, pi-planner\'s own reader still finds every step and every field', () => {
    const text = editStep(parsePlan(PROPOSED), { op: 'update', id: 'S004', target: 'sent-items' }, agent).text;
    let p = piParse(text);
    assert.deepEqual(p.steps, [
      { description: '[ ] S001 Query overdue invoices for Acme Corp', tool: 'odoo-toolbox', operation: 'search', target: 'account.move' },
      { description: '[ ] S002 Send payment reminder email', tool: 'go-easy', operation: 'send', target: 'billing@acme.example' },
      { description: '[ ] S003 Log reminder activity on each invoice', tool: 'odoo-toolbox', operation: 'write', target: 'account.move' },
      { description: '[ ] S004 Confirm the reminders went out', tool: 'go-easy', operation: 'list', target: 'sent-items' },
    ]);
    assert.deepEqual(p.fm, {
      id: 'PLAN-3f9a1c2e',
      title: 'Send overdue invoice reminders to Acme Corp',
      status: 'proposed',
      version: '2',
      created_at: '2026-02-11T12:00:00.000Z',
      updated_at: '2026-04-01T12:00:00.000Z',
      planner_model: 'claude-sonnet-4-5',
      tools_required: ['odoo-toolbox', 'go-easy'],
      executor_model: 'claude-haiku-4-5',
      step_seq: '4',
    });
    assert.equal(p.context, 'Acme Corp has 3 invoices overdue by more than 30 days.\nUse the English reminder template.');

    // Through approval and execution, with markers and notes: pi-planner still reads all four steps.
    let d = parsePlan(text);
    d = parsePlan(setContent(d, d.body.replace('## Steps', '## Goal\nRemind Acme.\n\n## Steps'), agent).text);
    assert.equal(d.fm.status, 'proposed');
    d = parsePlan(approve(d, seenNow(d), user).text);
    d = parsePlan(startExecution(d, agent).text);
    d = parsePlan(markStep(d, 'S001', 'done', agent, 'found 3').text);
    d = parsePlan(markStep(d, 'S002', 'in_progress', agent).text);
    d = parsePlan(markStep(d, 'S003', 'skipped', agent).text);
    p = piParse(d.text);
    assert.deepEqual(p.steps.map((s) => s.description), [
      '[x] S001 Query overdue invoices for Acme Corp',
      '[ ] S002 *in progress* Send payment reminder email',
      '[x] S003 *skipped* Log reminder activity on each invoice',
      '[ ] S004 Confirm the reminders went out',
    ]);
    assert.equal(p.fm.status, 'executing');
    assert.equal(p.fm.execution_started_at, NOW);
  });

  it('after: lines and claims are step text pi-planner\'s reader passes over: every step and field still read', () => {
    let d = parsePlan(editStep(parsePlan(PROPOSED), { op: 'update', id: 'S003', dependsOn: ['S001'] }, agent).text);
    d = parsePlan(editStep(d, { op: 'update', id: 'S002', dependsOn: [] }, agent).text);
    d = parsePlan(setContent(d, d.body.replace('## Steps', '## Goal\nRemind Acme.\n\n## Steps'), agent).text);
    d = parsePlan(startExecution(parsePlan(approve(d, seenNow(d), user).text), agent).text);
    d = parsePlan(markStep(d, 'S001', 'in_progress', agent, undefined, undefined, { session: 'claude-code-1a2b3c4d' }).text);
    d = parsePlan(markStep(d, 'S002', 'done', agent, 'sent', undefined, { session: 'codex-5e6f7a8b' }).text);
    assert.match(d.text, /S003 Log reminder activity on each invoice \(odoo-toolbox: write → account\.move\)\n {3}after: S001\n/);
    assert.match(d.text, /S001 \*in progress\* [^\n]*\n {3}> Claimed: claude-code-1a2b3c4d at /);
    const p = piParse(d.text);
    assert.deepEqual(p.steps.map((s) => [s.description, s.tool, s.operation]), [
      ['[ ] S001 *in progress* Query overdue invoices for Acme Corp', 'odoo-toolbox', 'search'],
      ['[x] S002 Send payment reminder email', 'go-easy', 'send'],
      ['[ ] S003 Log reminder activity on each invoice', 'odoo-toolbox', 'write'],
      ['[ ] S004 Confirm the reminders went out', 'go-easy', 'list'],
    ]);
    assert.equal(p.fm.status, 'executing');
  });

  it('a rejection with comments round-trips through pi-planner\'s reader: steps intact, the comment lines plain body text', () => {
    // Ids on every step (our first write), one step checked off by hand; then a person rejects it with comments.
    let d = parsePlan(editStep(parsePlan(PROPOSED), { op: 'update', id: 'S004', target: 'sent-items' }, agent).text.replace('2. [ ] S002', '2. [x] S002'));
    const reviewed = piParse(d.text).steps;
    const r = reject(d, 'Close, but not yet.', user, d.fm.version, [
      { anchor: 'S003', body: 'Log on the partner too.' },
      { anchor: 'S001', body: 'Only invoices over 30 days:\nsay how that is filtered.' },
      { anchor: 'Risks', body: 'Name what happens if the mail bounces.' },
    ]);
    const section = ['## Rejection (v2)', 'Close, but not yet.', '', '- S003: Log on the partner too.', '- S001: Only invoices over 30 days:', '  say how that is filtered.', '- Risks: Name what happens if the mail bounces.'].join('\n');
    assert.ok(r.text.endsWith(`\n\n${section}\n`), r.text);
    const p = piParse(r.text);
    // Every step as pi-planner read it before the review: id, status marker, text, annotation.
    assert.deepEqual(p.steps, reviewed);
    assert.deepEqual(p.steps.map((s) => s.description), ['[ ] S001 Query overdue invoices for Acme Corp', '[x] S002 Send payment reminder email', '[ ] S003 Log reminder activity on each invoice', '[ ] S004 Confirm the reminders went out']);
    assert.deepEqual(p.steps.map((s) => [s.tool, s.operation, s.target]), [['odoo-toolbox', 'search', 'account.move'], ['go-easy', 'send', 'billing@acme.example'], ['odoo-toolbox', 'write', 'account.move'], ['go-easy', 'list', 'sent-items']]);
    assert.equal(p.fm.status, 'rejected');
    assert.equal(p.context, 'Acme Corp has 3 invoices overdue by more than 30 days.\nUse the English reminder template.');
    // The review is plain Markdown in pi-planner's body, line for line.
    assert.equal(p.body, section);
    // And the core reads the same text back as the feedback and the comments by anchor.
    d = parsePlan(r.text);
    assert.deepEqual(reviewHistoryOf(d).map((h) => [h.kind, h.version, h.notes.feedback, h.notes.comments]), [
      ['rejection', 2, 'Close, but not yet.', [
        { anchor: 'S003', body: 'Log on the partner too.' },
        { anchor: 'S001', body: 'Only invoices over 30 days:\nsay how that is filtered.' },
        { anchor: 'Risks', body: 'Name what happens if the mail bounces.' },
      ]],
    ]);
    assert.deepEqual(stepView(d).map((s) => [s.id, s.status, s.text]), [['S001', 'pending', 'Query overdue invoices for Acme Corp'], ['S002', 'done', 'Send payment reminder email'], ['S003', 'pending', 'Log reminder activity on each invoice'], ['S004', 'pending', 'Confirm the reminders went out']]);
  });

  it('rejected plan: rejections read, title with escaped quotes, history kept byte for byte on edit', () => {
    const src = fixture('pi-planner-rejected.md');
    const d = parsePlan(src);
    assert.equal(d.fm.title, 'Archive the "Q3" leads');
    assert.equal(d.fm.status, 'rejected');
    assert.deepEqual(d.rejections, [
      { version: 1, feedback: 'Only leads from the EU pipeline.' },
      { version: 3, feedback: 'Keep leads that have an open quote.\nSay how many leads that is.' },
    ]);
    assert.deepEqual(d.steps.map((s) => [s.id, s.tool, s.operation, s.target]), [
      ['S001', 'odoo-toolbox', 'search', 'crm.lead'],
      ['S002', 'odoo-toolbox', 'write', 'crm.lead'],
    ]);
    const r = editStep(d, { op: 'update', id: 'S002', text: 'Archive the EU leads without an open quote' }, agent);
    assert.equal(r.status, 'draft');
    assert.deepEqual(diffLines(src, r.text), {
      removed: [
        'status: rejected',
        'version: 4',
        'updated_at: 2026-02-10T11:45:00.000Z',
        '1. Find Q3 leads with no activity (odoo-toolbox: search → crm.lead)',
        '2. Archive them (odoo-toolbox: write → crm.lead)',
      ],
      added: [
        'status: draft',
        'version: 5',
        'updated_at: 2026-04-01T12:00:00.000Z',
        'step_seq: 2',
        '1. [ ] S001 Find Q3 leads with no activity (odoo-toolbox: search → crm.lead)',
        '2. [ ] S002 Archive the EU leads without an open quote (odoo-toolbox: write → crm.lead)',
      ],
    });
    assert.ok(r.text.endsWith('Leads older than 90 days.\n\n\n\n## Rejection (v1)\nOnly leads from the EU pipeline.\n\n## Rejection (v3)\nKeep leads that have an open quote.\nSay how many leads that is.\n'));
  });

  it('rejected plan: the two pi-planner rejections count, so the next one lands in needs_review', () => {
    let d = parsePlan(fixture('pi-planner-rejected.md'));
    d = parsePlan(editStep(d, { op: 'update', id: 'S001', text: 'Find EU Q3 leads' }, agent).text);
    d = parsePlan(submit(d, { ...agent, config: { ...DEFAULT_CONFIG, required_sections: [] } }).text);
    assert.equal(d.fm.status, 'proposed');
    const r = reject(d, 'Still no count.', user);
    assert.equal(r.status, 'needs_review');
    assert.deepEqual(parsePlan(r.text).rejections.map((x) => x.version), [1, 3, 6]);
  });

  it('executing plan: not run on pi-planner\'s word; approved in Pi Plans (ids given then), each mark touches only its step', () => {
    const src = fixture('pi-planner-executing.md');
    // Executing with no approval record a person signed here: nothing runs on it.
    assert.throws(() => markStep(parsePlan(src), 'S001', 'done', agent), (e: PlanError) => e.code === 'APPROVAL_INVALID');
    // A person's approval of this text (ids are given at the approval, inside the approved text).
    const sealed = sealApproval(ensureStepIds(parsePlan(src)));
    const r1 = markStep(sealed, 'S001', 'done', agent, 'imported 212 lines');
    assert.equal(r1.status, 'executing');
    assert.deepEqual(diffLines(sealed.text, r1.text), {
      removed: ['version: 3', 'updated_at: 2026-02-11T08:30:00.000Z', '1. [ ] S001 Import the statement (odoo-toolbox: import → account.bank.statement)'],
      added: ['version: 4', 'updated_at: 2026-04-01T12:00:00.000Z', '1. [x] S001 Import the statement (odoo-toolbox: import → account.bank.statement)', '   > Note: imported 212 lines'],
    });
    const r2 = markStep(parsePlan(r1.text), 'S002', 'blocked', { ...agent, now: '2026-04-01T12:05:00.000Z' });
    assert.deepEqual(diffLines(r1.text, r2.text), {
      removed: ['version: 4', 'updated_at: 2026-04-01T12:00:00.000Z', '2. [ ] S002 Match payments to invoices (odoo-toolbox: reconcile)'],
      added: ['version: 5', 'updated_at: 2026-04-01T12:05:00.000Z', '2. [ ] S002 *blocked* Match payments to invoices (odoo-toolbox: reconcile)'],
    });
    assert.deepEqual(piParse(r2.text).steps.map((s) => s.description), [
      '[x] S001 Import the statement',
      '[ ] S002 *blocked* Match payments to invoices',
      '[ ] S003 Report unmatched lines',
    ]);
    assert.equal(piParse(r2.text).fm.execution_session, 'sess-4821');
  });
});

// ---------- (b) plans edited by hand ----------

describe('corpus: hand-edited plans', () => {
  const HAND = fixture('hand-edited.md');

  it('parses reordered and unknown sections, comments, unknown keys, bullets, odd spacing', () => {
    const d = parsePlan(HAND);
    assert.equal(d.fm.id, 'PLAN-a1b2c3d4');
    assert.equal(d.fm.title, 'Tidy the release checklist');
    assert.equal(d.fm.status, 'draft');
    assert.equal(d.fm.version, 7);
    assert.equal(d.fm.created_at, '2026-01-05T10:00:00Z');
    assert.equal(d.fm.updated_at, '2026-01-06T17:30:00Z');
    assert.equal(d.fm.step_seq, 3);
    assert.equal((d.fm as Record<string, unknown>).owner, undefined, 'unknown keys are not fields');
    assert.deepEqual(d.outline.sections.map((s) => [s.title, s.depth]), [
      ['Context', 2],
      ['Goal', 2],
      ['Notes from the meeting', 2],
      ['Steps', 2],
      ['Appendix', 1],
    ]);
    assert.equal(sectionText(d, 'Goal'), 'Make the checklist short enough to follow.');
    assert.deepEqual(stepView(d), [
      { id: 'S001', hasId: true, status: 'done', text: 'Collect the current checklist', tool: 'fs', operation: 'read', target: 'docs/RELEASE.md' },
      { id: 'S002', hasId: true, status: 'pending', text: 'Remove duplicated items', tool: undefined, operation: undefined, target: undefined },
      { id: 'S003', hasId: true, status: 'pending', text: 'Reorder by phase', tool: 'edit', operation: 'update', target: 'docs/RELEASE.md' },
    ]);
    assert.equal(d.steps[1].details, 'details written by hand, indented more than usual');
    assert.deepEqual(d.steps.map((s) => s.bullet), ['-', '-', '-']);
  });

  it('a step update rewrites the header line of that step only; its details, comments, unknown keys, prose and sections stay byte for byte', () => {
    const r = editStep(parsePlan(HAND), { op: 'update', id: 'S002', text: 'Remove duplicates' }, agent);
    assert.equal(r.status, 'draft');
    assert.deepEqual(diffLines(HAND, r.text), {
      removed: ['version: 7', "updated_at: '2026-01-06T17:30:00Z'", '-   [ ]   S002   Remove duplicated items'],
      added: ['version: 8', 'updated_at: 2026-04-01T12:00:00.000Z', '- [ ] S002 Remove duplicates'],
    });
  });

  it('adding a step keeps the other items as written, with their bullets', () => {
    const r = editStep(parsePlan(HAND), { op: 'add', text: 'Publish the checklist', after: 'S001' }, agent);
    assert.equal(r.step, 'S004');
    assert.deepEqual(diffLines(HAND, r.text), {
      removed: ['version: 7', "updated_at: '2026-01-06T17:30:00Z'", 'step_seq: 3'],
      added: ['version: 8', 'updated_at: 2026-04-01T12:00:00.000Z', 'step_seq: 4', '- [ ] S004 Publish the checklist'],
    });
    assert.deepEqual(parsePlan(r.text).steps.map((s) => s.id), ['S001', 'S004', 'S002', 'S003']);
  });

  it('setMetadata replaces a section in place under its odd heading', () => {
    const r = setMetadata(parsePlan(HAND), { goal: 'A checklist that fits on one page.' }, {}, agent);
    assert.deepEqual(diffLines(HAND, r.text), {
      removed: ['version: 7', "updated_at: '2026-01-06T17:30:00Z'", 'Make the checklist short enough to follow.'],
      added: ['version: 8', 'updated_at: 2026-04-01T12:00:00.000Z', 'A checklist that fits on one page.'],
    });
  });

  it('the same hand-edited plan with CRLF and a BOM: edits keep both', () => {
    const src = '\ufeff' + HAND.replace(/\n/g, '\r\n');
    const d = parsePlan(src);
    assert.equal(d.eol, '\r\n');
    assert.equal(d.bom, true);
    assert.deepEqual(d.steps.map((s) => [s.id, s.status, s.text]), [
      ['S001', 'done', 'Collect the current checklist'],
      ['S002', 'pending', 'Remove duplicated items'],
      ['S003', 'pending', 'Reorder by phase'],
    ]);
    const r = editStep(d, { op: 'update', id: 'S002', text: 'Remove duplicates' }, agent);
    assert.ok(r.text.startsWith('\ufeff---\r\n'), 'BOM kept');
    assert.equal(loneLf(r.text), 0, 'CRLF everywhere');
    assert.deepEqual(diffLines(src, r.text), {
      removed: crlf(['version: 7', "updated_at: '2026-01-06T17:30:00Z'", '-   [ ]   S002   Remove duplicated items']),
      added: crlf(['version: 8', 'updated_at: 2026-04-01T12:00:00.000Z', '- [ ] S002 Remove duplicates']),
    });
  });

  it('CRLF + BOM file (crlf-bom.md): parses, and start + markStep keep CRLF, the BOM and every untouched line', () => {
    const src = fixture('crlf-bom.md');
    assert.ok(src.startsWith('\ufeff---\r\n') && loneLf(src) === 0, 'fixture is CRLF with a BOM (check .gitattributes)');
    const d = parsePlan(src);
    assert.equal(d.eol, '\r\n');
    assert.equal(d.bom, true);
    assert.equal(d.fm.id, 'PLAN-c0ffee00');
    assert.equal(d.fm.title, 'Windows-edited plan');
    assert.deepEqual(d.fm.tools_required, ['bash']);
    assert.deepEqual(stepView(d), [
      { id: 'S001', hasId: false, status: 'pending', text: 'Run the build', tool: 'bash', operation: 'run', target: 'npm run build' },
      { id: 'S002', hasId: false, status: 'pending', text: 'Run the tests', tool: 'bash', operation: 'run', target: undefined },
      { id: 'S003', hasId: false, status: 'pending', text: 'Tag the release', tool: undefined, operation: undefined, target: undefined },
    ]);
    assert.equal(sectionText(d, 'Goal'), 'Ship the build on Windows.');

    // Approved by a person in Pi Plans: the ids are given then, and the record written, in CRLF.
    const approved = approvedHere(d);
    assert.ok(approved.text.startsWith('\ufeff---\r\n'));
    assert.equal(loneLf(approved.text), 0);
    const started = startExecution(approved, user);
    assert.equal(started.status, 'executing');
    assert.ok(started.text.startsWith('\ufeff---\r\n'));
    assert.equal(loneLf(started.text), 0);
    assert.deepEqual(diffLines(approved.text, started.text), {
      removed: crlf(['status: approved', 'version: 2', 'updated_at: 2026-03-01T09:10:00.000Z']),
      added: crlf(['status: executing', 'version: 3', 'updated_at: 2026-04-01T12:00:00.000Z', 'execution_started_at: 2026-04-01T12:00:00.000Z']),
    });
    assert.deepEqual(diffLines(src, approved.text).removed, crlf(['1. Run the build (bash: run → npm run build)', '2. Run the tests (bash: run)', '3. Tag the release']));

    const marked = markStep(parsePlan(started.text), 'S002', 'done', { ...agent, now: '2026-04-01T12:10:00.000Z' }, 'all green');
    assert.ok(marked.text.startsWith('\ufeff---\r\n'));
    assert.equal(loneLf(marked.text), 0);
    assert.deepEqual(diffLines(started.text, marked.text), {
      removed: crlf(['version: 3', 'updated_at: 2026-04-01T12:00:00.000Z', '2. [ ] S002 Run the tests (bash: run)']),
      added: crlf(['version: 4', 'updated_at: 2026-04-01T12:10:00.000Z', '2. [x] S002 Run the tests (bash: run)', '   > Note: all green']),
    });
    const back = parsePlan(marked.text);
    assert.equal(back.steps[1].status, 'done');
    assert.equal(back.steps[1].note, 'all green');
  });

  it('CRLF + BOM: setMetadata, setContent and reject write CRLF only', () => {
    const d = parsePlan(fixture('crlf-bom.md'));
    const meta = setMetadata(d, { risks: ['flaky runner', 'slow disk'], verification: 'one\ntwo' }, { title: 'Windows build' }, agent);
    assert.equal(loneLf(meta.text), 0);
    assert.ok(meta.text.startsWith('\ufeff'));
    assert.ok(meta.text.includes('\r\n## Risks\r\n- flaky runner\r\n- slow disk\r\n\r\n## Verification\r\none\r\ntwo\r\n\r\n## Context\r\n'), JSON.stringify(meta.text));
    const content = setContent(d, '## Goal\nG\n\n## Steps\n1. Build (bash: run)\n', agent);
    assert.equal(content.status, 'proposed');
    assert.equal(loneLf(content.text), 0);
    assert.ok(content.text.startsWith('\ufeff'));
    const rejected = reject(parsePlan(content.text), 'Add the tests.\nAnd a tag.', user);
    assert.equal(loneLf(rejected.text), 0);
    assert.ok(rejected.text.endsWith('\r\n\r\n## Rejection (v3)\r\nAdd the tests.\r\nAnd a tag.\r\n'), JSON.stringify(rejected.text));
  });

  const mixed = (t: string) => t.includes('\r\n') && loneLf(t) > 0;
  const executingCrlf = () => parsePlan(markStep(parsePlan(startExecution(approvedHere(parsePlan(fixture('crlf-bom.md'))), user).text), 'S001', 'done', agent).text);

  it('CRLF + BOM: a revision uses one line-end style throughout', () => {
    const rev = setContent(executingCrlf(), '## Steps\n1. [ ] S001 Run the build\n2. [ ] S002 Run all tests\n', agent, { revisionId: 'PLAN-0000beef' });
    assert.equal(loneLf(rev.text), 0, 'the superseded plan stays CRLF');
    const revText = rev.created![0].text;
    assert.equal(mixed(revText), false, `revision mixes CRLF and LF: ${JSON.stringify(revText)}`);
  });

  it('CRLF + BOM: a clone uses one line-end style throughout', () => {
    const failed = parsePlan(finishExecution(executingCrlf(), 'fail', 'runner down', agent).text);
    const clone = clonePlan(failed, 'PLAN-11112222', agent);
    assert.equal(mixed(clone), false, `clone mixes CRLF and LF: ${JSON.stringify(clone)}`);
  });
});

// ---------- (c) merge conflicts ----------

describe('corpus: merge-conflict files', () => {
  const cases: [string, number][] = [
    ['conflict.md', 11],
    ['conflict-frontmatter.md', 4],
  ];
  for (const [name, line] of cases) {
    it(`${name}: INVALID_FILE at the line of <<<<<<< (${line})`, () => {
      const src = fixture(name);
      assert.equal(src.split('\n')[line - 1].slice(0, 7), '<<<<<<<', 'fixture sanity');
      const e = errorOf(() => parsePlan(src));
      assert.equal(e.code, 'INVALID_FILE');
      assert.equal(e.details.line, line);
      assert.ok(/merge-conflict/.test(e.message), e.message);
      const named = errorOf(() => parsePlan(src, `.pi/plans/${name}`));
      assert.equal(named.details.file, `.pi/plans/${name}`);
      assert.equal(named.details.line, line);
      assert.equal(named.toLocatedString().startsWith(`.pi/plans/${name}:${line}: `), true);
      const quick = errorOf(() => summarizePlan(src));
      assert.equal(quick.code, 'INVALID_FILE');
      assert.equal(quick.details.line, line);
    });
    it(`${name} with CRLF and a BOM: same error, same line`, () => {
      const src = '\ufeff' + fixture(name).replace(/\n/g, '\r\n');
      const e = errorOf(() => parsePlan(src));
      assert.equal(e.code, 'INVALID_FILE');
      assert.equal(e.details.line, line);
    });
  }
});

describe('corpus: a pi-planner plan merged by the git merge driver', () => {
  it('stays readable by pi-planner\'s reader: every step and field, both branches\' edits', () => {
    const base = fixture('pi-planner-proposed.md');
    const ours = editStep(parsePlan(base), { op: 'update', id: 'S002', target: 'ar@acme.example' }, agent).text;
    const theirs = editStep(parsePlan(base), { op: 'update', id: 'S004', text: 'Confirm all three reminders went out' }, { ...agent, now: '2026-04-02T12:00:00.000Z' }).text;
    const r = mergePlanTexts(base, ours, theirs);
    assert.deepEqual(r.conflicts, []);
    const p = piParse(r.text);
    assert.deepEqual(p.steps, [
      { description: '[ ] S001 Query overdue invoices for Acme Corp', tool: 'odoo-toolbox', operation: 'search', target: 'account.move' },
      { description: '[ ] S002 Send payment reminder email', tool: 'go-easy', operation: 'send', target: 'ar@acme.example' },
      { description: '[ ] S003 Log reminder activity on each invoice', tool: 'odoo-toolbox', operation: 'write', target: 'account.move' },
      { description: '[ ] S004 Confirm all three reminders went out', tool: 'go-easy', operation: 'list', target: undefined },
    ]);
    assert.equal(p.fm.status, 'proposed');
    assert.equal(p.fm.version, String(Math.max(parsePlan(ours).fm.version, parsePlan(theirs).fm.version) + 1));
    assert.equal(p.fm.updated_at, '2026-04-02T12:00:00.000Z');
    assert.deepEqual(p.fm.tools_required, ['odoo-toolbox', 'go-easy']);
    assert.equal(p.context, 'Acme Corp has 3 invoices overdue by more than 30 days.\nUse the English reminder template.');
  });
});
