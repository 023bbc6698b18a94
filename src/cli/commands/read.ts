// The commands that read plans and change nothing: list, show, validate.
import * as path from 'node:path';
import { ApprovalStanding, contentDigest, isPlanId, PlanDocument, PlanStatus, ProblemSeverity, progressOf, sectionText, standingProblem } from '../../core';
import { planWorkFacts } from '../../node';
import { IndexEntry } from '../../store';
import { SETUP_HOSTS } from '../../hosts/setup/targets';
import { CliContext, outJsonArray, statusOption } from '../cliContext';
import { evidenceReport, evidenceText } from './evidence';
import { factLinesOf } from './checks';

/** Registers `list`, `show` and `validate`, in that order. */
export function registerReadCommands(ctx: CliContext): void {
  registerList(ctx);
  registerShow(ctx);
  registerValidate(ctx);
}

function registerList({ program, io, store }: CliContext): void {
  program
    .command('list')
    .description('list plans (invalid files too, with their reason)')
    .addOption(statusOption())
    .option('--json', 'machine-readable output')
    .action(async (o: { status?: PlanStatus[]; json?: boolean }) => {
      const s = await store();
      const rows = s.list({ status: o.status });
      const flags = await s.attentionOfAll(rows);
      if (o.json) outJsonArray(io, rows, (r, i) => (flags[i] ? { ...r, attention: flags[i] } : r));
      else if (!rows.length) io.out(o.status && s.list().length ? `No plans with status ${o.status.join(', ')} in ${path.join(s.root, '.pi/plans')}.\n` : noPlansYet(path.join(s.root, '.pi/plans')));
      else io.out(rows.map((r, i) => entryLine(r, flags[i])).join('\n') + '\n');
    });
}

function registerShow({ program, io, store }: CliContext): void {
  program
    .command('show <id>')
    .description('show one plan')
    .option('--json', 'machine-readable output')
    .option('--evidence', "each step's recorded change (every file, from git), its flag (no evidence, no change explained), a finished plan's summary")
    .action(async (id: string, o: { json?: boolean; evidence?: boolean }) => {
      const st = await store({ index: false });
      const doc = await st.read(id);
      const standing = await st.approvalStanding(doc);
      // A `> Changed:` line the pinned snapshots contradict (written by hand) reads as not recorded.
      const evidence = o.evidence ? await evidenceReport(await st.withEvidenceChecked(doc), st.root) : undefined;
      if (o.json) {
        // Checks and drift, when the plan has any (issue 30).
        const facts = await planWorkFacts(st.root, doc);
        const any = Object.keys(facts.checks).length > 0 || facts.drifted.length > 0;
        io.out(JSON.stringify({ ...docJson(doc, standing), ...(evidence ? { evidence } : {}), ...(any ? { facts } : {}) }, null, 2) + '\n');
      } else if (evidence) {
        io.out(`${doc.fm.id}: ${doc.fm.title}\nstatus: ${doc.fm.status}   version: ${doc.fm.version}\n`);
        for (const fact of await factLinesOf(st.root, doc)) io.out(`${fact}\n`);
        io.out(evidenceText(evidence));
      }
      else {
        const f = doc.fm;
        const { done, total } = progressOf(doc.steps);
        io.out(`${f.id}: ${f.title}\nstatus: ${f.status}   version: ${f.version}   steps: ${done}/${total} done   updated: ${f.updated_at}\n`);
        io.out(`digest: ${contentDigest(doc)}\n`);
        const line = standingLine(doc, standing);
        if (line) io.out(`${line}\n`);
        for (const fact of await factLinesOf(st.root, doc)) io.out(`${fact}\n`);
        io.out(`${doc.body.replace(/^\s+/, '\n')}`);
        if (!doc.body.endsWith('\n')) io.out('\n');
      }
    });
}

function registerValidate({ program, io, store }: CliContext): void {
  program
    .command('validate')
    .description('check every plan file fully; exit 1 when any is invalid (for CI)')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const s = await store();
      type Row = { file: string; line?: number; column?: number; severity: ProblemSeverity; code: string; message: string };
      const problems: Row[] = [];
      if (s.configError) problems.push({ file: '.pi/plans.json', severity: 'error', code: 'invalid-config', message: s.configError.message });
      let checked = 0;
      // Every file the index lists, analyzed through the store (only regular files are ever opened):
      // each problem with its line, severity and rule, as the editor's Problems view shows them.
      for (const entry of [...s.list()].sort((a, b) => a.file.localeCompare(b.file))) {
        checked++;
        const file = `.pi/plans/${entry.file}`;
        if (!isPlanId(entry.id)) {
          problems.push({ file, line: entry.error?.line, severity: 'error', code: 'invalid-file-name', message: entry.error!.message });
          continue;
        }
        for (const p of (await s.analyze(entry.id)).problems) {
          problems.push(p.wholeFile ? { file, severity: p.severity, code: p.code, message: p.message } : { file, line: p.line, column: p.range.start.character + 1, severity: p.severity, code: p.code, message: p.message });
        }
      }
      const errors = problems.filter((p) => p.severity === 'error').length;
      const warnings = problems.filter((p) => p.severity === 'warning').length;
      if (o.json) io.out(JSON.stringify({ checked, errors, warnings, problems }, null, 2) + '\n');
      else {
        // Errors and warnings; notes (a step that gets its id on the next write) only in --json.
        for (const p of problems) {
          if (p.severity === 'info') continue;
          io.out(`${p.file}${p.line ? `:${p.line}` : ''}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}\n`);
        }
        const w = warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
        io.out(`${checked} plan file${checked === 1 ? '' : 's'} checked, ${errors} problem${errors === 1 ? '' : 's'}${w}.\n`);
      }
      if (errors) process.exitCode = 1;
    });
}

/** An empty plan folder: how plans get there, and the command that sets an agent up to write them. */
function noPlansYet(dir: string): string {
  const others = SETUP_HOSTS.filter((h) => h !== 'claude' && h !== 'copilot');
  return [
    `No plans in ${dir} yet.`,
    'An agent writes them, through the plan tools, once it is set up for this workspace:',
    `  pi-plans setup --agent claude      (or ${others.join(', ')})`,
    '  pi-plans setup --agent copilot     (Copilot in VS Code, with the Pi Plans extension)',
    "Then ask the agent for a plan of the task: it waits here for your review (pi-plans show, pi-plans approve).",
    '',
  ].join('\n');
}

/** The approval (and whether it holds here) in one line for `show` and `list`. */
function standingLine(doc: PlanDocument, s: ApprovalStanding): string | undefined {
  if (s.state === 'valid') {
    const how = s.signer === 'own' ? 'signed with your key' : s.signer === 'trusted' ? 'signed with a key you trust' : 'approved on another machine, confirmed here';
    return `approved by ${s.approver}${doc.fm.approved_by === 'agent' ? ' (the agent, with agent approval on)' : ''} at v${s.version} (${how})`;
  }
  const problem = standingProblem(doc, s);
  if (!problem) return undefined;
  if (s.state === 'changed') return `CHANGED SINCE APPROVAL: ${problem}; submit it for review again`;
  if (s.state === 'foreign') return `APPROVED ELSEWHERE: ${problem} (\`pi-plans confirm ${doc.fm.id}\`)`;
  return `APPROVAL NOT VALID: ${problem}; submit it for review again`;
}

function entryLine(e: IndexEntry, flag?: string): string {
  if (!e.valid) return `${e.id}  INVALID  .pi/plans/${e.file}${e.error?.line ? `:${e.error.line}` : ''}: ${e.error?.message}`;
  const steps = e.steps ? `${e.stepsDone}/${e.steps} steps` : 'no steps';
  const note =
    flag === 'stalled'
      ? '  (no activity within executor_timeout_minutes: stalled?)'
      : flag === 'stale'
        ? '  (stale: waiting for review longer than stale_after_days)'
        : flag === 'changed'
          ? '  (CHANGED SINCE APPROVAL: approve it again before it runs)'
          : flag === 'unapproved'
            ? '  (APPROVAL NOT VALID: no valid approval record; a person approves it before it runs)'
            : flag === 'foreign'
              ? `  (APPROVED ELSEWHERE: confirm it with pi-plans confirm ${e.id} before it runs)`
              : '';
  return `${e.id}  ${e.status!.padEnd(12)} v${String(e.version).padEnd(4)} ${steps.padEnd(12)} ${e.title}${note}`;
}

function docJson(doc: PlanDocument, standing: ApprovalStanding) {
  const sections: Record<string, string> = {};
  for (const s of doc.outline.sections) if (s.depth === 2 && s.title.toLowerCase() !== 'steps') sections[s.title] = sectionText(doc, s.title) ?? '';
  return {
    ...doc.fm,
    digest: contentDigest(doc),
    approval: standing.state === 'none' ? undefined : { state: standing.state, ...(standing.state === 'invalid' ? { reason: standing.reason } : {}), problem: standingProblem(doc, standing) },
    steps: doc.steps.map(({ index: _i, bullet: _b, hasId: _h, ...s }) => s),
    sections,
    rejections: doc.rejections,
  };
}
