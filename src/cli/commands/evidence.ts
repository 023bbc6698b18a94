// `pi-plans show --evidence`: each step's recorded change, the whole file list from git (the
// trees its `> Changed:` line names), its flag, and a finished plan's summary.
import { ChangedFacts, evidenceFlag, EvidenceFlag, evidenceSummary, PlanDocument, readChangedLine } from '../../core';
import { GitEvidence, TreeChange } from '../../node';
import { printable } from '../planShown';

export interface StepEvidenceReport {
  step: string;
  status: string;
  flag?: EvidenceFlag;
  changed?: ChangedFacts;
  /** Every file, from git; absent when the trees cannot be read (named in `problem`). */
  files?: TreeChange[];
  problem?: string;
  note?: string;
}

/** The evidence of every step that has any (a `> Changed:` line or a flag). */
export async function evidenceReport(doc: PlanDocument, root: string): Promise<{ steps: StepEvidenceReport[]; summary?: ReturnType<typeof evidenceSummary> }> {
  const git = await GitEvidence.open(root).catch(() => undefined);
  const steps: StepEvidenceReport[] = [];
  for (const s of doc.steps) {
    const flag = evidenceFlag(s);
    const changed = s.record?.Changed ? readChangedLine(s.record.Changed) : undefined;
    if (!flag && !changed) continue;
    const r: StepEvidenceReport = { step: s.id, status: s.status, flag, changed, note: s.record?.Note ?? s.note };
    if (changed?.recorded && changed.before && changed.after) {
      if (!git) r.problem = 'not in a git repository here: the file list is the line\'s own';
      else r.files = await git.diff(changed.before, changed.after).catch(() => ((r.problem = 'its trees are no longer in the repository'), undefined));
    }
    steps.push(r);
  }
  return { steps, summary: doc.fm.status === 'completed' || doc.fm.status === 'failed' ? evidenceSummary(doc.steps) : undefined };
}

function fileLine(f: TreeChange): string {
  const name = f.from ? `${f.from} → ${f.path}` : f.path;
  return `    ${f.status.padEnd(8)} ${name}${f.binary ? ' (binary)' : ` +${f.added} −${f.removed}`}`;
}

/** The report as text. */
export function evidenceText(report: Awaited<ReturnType<typeof evidenceReport>>): string {
  if (!report.steps.length) return 'evidence: no step has recorded a change yet\n';
  const out = ['evidence:'];
  for (const r of report.steps) {
    const c = r.changed;
    const what = !c ? 'no change recorded' : !c.recorded ? `not recorded (${c.why})` : c.files ? `${c.files} file${c.files === 1 ? '' : 's'} +${c.added} −${c.removed} (tree ${c.before}..${c.after})` : `nothing changed (tree ${c.before})`;
    out.push(`  ${r.step} [${r.status}] ${what}${r.flag && r.flag !== 'changed' ? `: ${r.flag}` : ''}`);
    for (const f of r.files ?? []) out.push(fileLine(f));
    if (!r.files && c?.shown.length) for (const f of c.shown) out.push(`    ${f.text}`);
    if (c?.notBySession.length) out.push(`    changed by another process while the step ran: ${c.notBySession.join(', ')}`);
    if (c?.alongside.length) out.push(`    another session worked on ${c.alongside.join(', ')} while the step ran: some of these files may be ${c.alongside.length === 1 ? "that step's" : "those steps'"}`);
    if (r.problem) out.push(`    (${r.problem})`);
    // The agent's note beside a step with no change: the reviewer weighs it (it explains an empty record, never a missing one).
    if ((r.flag === 'no change, explained' || r.flag === 'no evidence') && r.note) out.push(`    note: ${r.note}`);
  }
  const s = report.summary;
  if (s) out.push(`summary: ${s.files} file change${s.files === 1 ? '' : 's'} +${s.added} −${s.removed} over ${s.recorded} recorded step${s.recorded === 1 ? '' : 's'}; ${s.noEvidence} with no evidence, ${s.explained} explained`);
  return printable(out.join('\n')) + '\n';
}

