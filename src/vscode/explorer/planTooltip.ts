/**
 * A plan row's tooltip in the plan explorer (resolved on hover), in plain words: its title whole,
 * id, status and version, goal, steps by status, models, who approved and whether that holds, how
 * it ran, what its steps changed, the file's problems, the agent sessions bound to it, its checks
 * and drift. Lines wrap between words, never inside a number (plainTooltip).
 */
import * as vscode from 'vscode';
import { type AttentionFlag, evidenceSummary, type PlanDocument, standingProblem, workFactLines } from '../../core';
import { planWorkFacts } from '../../node';
import { evidenceSummaryWords } from '../../protocol/planEditor';
import type { PlanStore } from '../../store';
import { dateTime } from '../common/planIcons';
import { plainTooltip } from '../common/plainTooltip';

/** The tooltip of a plan `doc` of `store`: `file` its file's URI (for its problems), `sessions` the lines on its bound sessions. */
export async function planTooltip(store: PlanStore, doc: PlanDocument, opts: { file: vscode.Uri; flag?: AttentionFlag; sessions: readonly string[] }): Promise<vscode.MarkdownString> {
  const fm = doc.fm;
  const said: string[] = [`${fm.id} · ${fm.status.replace('_', ' ')} · v${fm.version}`];
  const goal = /## Goal\r?\n([\s\S]*?)(?:\r?\n## |$)/.exec(doc.body)?.[1]?.trim();
  if (goal) said.push(goal.length > 400 ? `${goal.slice(0, 400)}…` : goal);
  const counts = new Map<string, number>();
  for (const s of doc.steps) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  const byStatus = [...counts].map(([k, v]) => `${v} ${k.replace('_', ' ')}`).join(', ');
  said.push(doc.steps.length === 0 ? vscode.l10n.t('No steps') : doc.steps.length === 1 ? vscode.l10n.t('1 step: {0}', byStatus) : vscode.l10n.t('{0} steps: {1}', doc.steps.length, byStatus));
  said.push([fm.planner_model ? `planned by ${fm.planner_model}` : '', fm.executor_model ? `executed by ${fm.executor_model}` : ''].filter(Boolean).join(', '));
  // Who approved, as the signed record says, and whether that approval holds on this machine.
  const standing = await store.approvalStanding(doc);
  if (standing.state === 'valid') said.push(`Approved by ${standing.approver}${fm.approved_by === 'agent' ? ' (the agent)' : ''} at v${standing.version}${fm.approved_at ? ` (${dateTime(fm.approved_at)})` : ''}`);
  const problem = standingProblem(doc, standing);
  if (problem) said.push(`${problem}.`);
  if (opts.flag === 'stalled' || opts.flag === 'stale') said.push(opts.flag === 'stalled' ? 'Stalled: no activity for a while.' : 'Stale: waiting for review for a long time.');
  const last = doc.rejections.at(-1);
  if (last) said.push(doc.rejections.length === 1 ? vscode.l10n.t('Rejected once, at v{0}.', last.version) : vscode.l10n.t('Rejected {0} times; last at v{1}.', doc.rejections.length, last.version));
  const { recorded, ...ev } = evidenceSummary(doc.steps);
  if (recorded || ev.noEvidence) said.push(evidenceSummaryWords(ev).join(' '));
  // The file's problems (the row shows no file decorations): how many, where to read them.
  const problems = vscode.languages.getDiagnostics(opts.file).length;
  if (problems) said.push(problems === 1 ? vscode.l10n.t('1 problem: see the Problems panel.') : vscode.l10n.t('{0} problems: see the Problems panel.', problems));
  said.push(opts.sessions.join('\n'));
  // Checks (stale, unverified) and drift, as the files say now.
  said.push(workFactLines(fm.id, await planWorkFacts(store.root, doc)).join('\n'));
  return plainTooltip(said, fm.title);
}
