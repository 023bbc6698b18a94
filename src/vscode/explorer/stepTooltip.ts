/**
 * A step row's tooltip in the plan explorer (resolved on hover): the step, its details and record
 * lines, its evidence flag and its check, read against the working tree now (stale when its files
 * changed since it ran; as recorded outside git).
 */
import * as vscode from 'vscode';
import { checkStanding, type CheckStanding, checkWords, dependencyLine, evidenceFlag, type PlanDocument, stepCheck } from '../../core';
import { checkStandings, readPlanState } from '../../node';

type PlanStep = PlanDocument['steps'][number];

/** `tool: operation → target`, or nothing for a step without the annotation. */
export function stepAnnotation(s: PlanStep): string {
  return s.tool ? `${s.tool}: ${s.operation ?? ''}${s.target ? ` → ${s.target}` : ''}` : '';
}

/** The tooltip of step `s` of `doc`, a plan of the workspace folder at `root`. */
export async function stepTooltip(root: string, doc: PlanDocument, s: PlanStep): Promise<vscode.MarkdownString> {
  // The record line, else (a step not worked on yet) the result kept beside the plan.
  const recorded = s.record?.Check ?? readPlanState(root, doc.fm.id).checks[s.id]?.line;
  // Outside git, or when git fails, the result reads as recorded.
  const check: CheckStanding | undefined = stepCheck(s) ? await checkStandings(root, doc).then((m) => m.get(s.id), () => checkStanding(s, recorded, undefined)) : undefined;
  const annotation = stepAnnotation(s);
  const flag = evidenceFlag(s);
  const tip = new vscode.MarkdownString();
  tip.appendText(`${s.id} · ${s.status.replace('_', ' ')}\n\n${s.text}`);
  if (annotation) tip.appendText(`\n\n${annotation}`);
  const deps = dependencyLine(doc.steps, s.id);
  if (deps) tip.appendText(`\n\n${deps}`);
  if (s.details) tip.appendText(`\n\n${s.details}`);
  if (s.record?.Claimed) tip.appendText(`\n\nClaimed: ${s.record.Claimed}`);
  if (s.record?.Changed) tip.appendText(`\n\nChanged: ${s.record.Changed}`);
  if (flag === 'no evidence') tip.appendText('\n\nNo evidence: marked done with no recorded change and no note saying why.');
  if (flag === 'no change, explained') tip.appendText('\n\nNo change, explained: no recorded change; the note says why.');
  if (s.note) tip.appendText(`\n\nNote: ${s.note}`);
  if (check) tip.appendText(`\n\n${checkWords(check)}: ${check.command}${recorded ? ` (${recorded})` : ''}`);
  return tip;
}
