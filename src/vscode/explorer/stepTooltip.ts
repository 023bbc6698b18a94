/**
 * A step row's tooltip in the plan explorer (resolved on hover), in plain words: the step, what it
 * does and waits for, who held it and when (local time), what it changed, its evidence flag, its
 * note and its check, read against the working tree now (stale when its files changed since it
 * ran; as recorded outside git). Lines wrap between words, never inside a number.
 */
import * as vscode from 'vscode';
import { checkStanding, type CheckStanding, checkWords, dependencyLine, evidenceFlag, parseCheckRecord, parseClaim, type PlanDocument, readChangedLine, stepCheck } from '../../core';
import { checkStandings, readPlanState } from '../../node';
import { dateTime } from '../common/planIcons';
import { plainTooltip } from '../common/plainTooltip';

type PlanStep = PlanDocument['steps'][number];

/** `tool: operation → target`, or nothing for a step without the annotation. */
export function stepAnnotation(s: PlanStep): string {
  return s.tool ? `${s.tool}: ${s.operation ?? ''}${s.target ? ` → ${s.target}` : ''}` : '';
}

/** `n thing` / `n things`. */
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Who holds (or held) the step and since when, in words; the line as written when it is in no form the store writes. */
export function claimWords(text: string, done: boolean): string {
  const c = parseClaim(text);
  if (!c) return `Claimed: ${text}`;
  const from = c.takenFrom ? `, taken over from ${c.takenFrom.session} (who had it since ${dateTime(c.takenFrom.at)})` : '';
  return `${done ? 'Worked on' : 'Held'} by agent session ${c.session} since ${dateTime(c.at)}${from}.`;
}

/** What the step's `> Changed:` line says, in words. */
export function changedWords(text: string): string {
  const c = readChangedLine(text);
  if (!c.recorded) return `Its changes were not recorded${c.why ? ` (${c.why})` : ''}.`;
  if (!c.files) return 'It changed no file.';
  const lines = `${count(c.added, 'line')} added, ${c.removed} removed`;
  const files = c.shown.map((f) => f.text).join(', ');
  const more = c.files > c.shown.length ? ` and ${count(c.files - c.shown.length, 'more file')}` : '';
  const others = c.notBySession.length ? `\nChanged by another process meanwhile: ${c.notBySession.join(', ')}.` : '';
  return `It changed ${count(c.files, 'file')} (${lines}): ${files}${more}.${others}`;
}

/** The tooltip of step `s` of `doc`, a plan of the workspace folder at `root`. */
export async function stepTooltip(root: string, doc: PlanDocument, s: PlanStep): Promise<vscode.MarkdownString> {
  // The record line, else (a step not worked on yet) the result kept beside the plan.
  const recorded = s.record?.Check ?? readPlanState(root, doc.fm.id).checks[s.id]?.line;
  // Outside git, or when git fails, the result reads as recorded.
  const check: CheckStanding | undefined = stepCheck(s) ? await checkStandings(root, doc).then((m) => m.get(s.id), () => checkStanding(s, recorded, undefined)) : undefined;
  const annotation = stepAnnotation(s);
  const flag = evidenceFlag(s);
  const done = s.status === 'done' || s.status === 'skipped';
  const ran = recorded ? parseCheckRecord(recorded) : undefined;
  const paragraphs = [
    s.text,
    annotation,
    dependencyLine(doc.steps, s.id) ?? '',
    s.details ?? '',
    s.record?.Claimed ? claimWords(s.record.Claimed, done) : '',
    s.record?.Changed ? changedWords(s.record.Changed) : '',
    flag === 'no evidence' ? 'Marked done with no change recorded and no note saying why.' : '',
    flag === 'no change, explained' ? 'It changed nothing, and its note says why.' : '',
    s.note ? `Note: ${s.note}` : '',
    check ? `${checkWords(check)[0].toUpperCase()}${checkWords(check).slice(1)}: ${check.command}${ran ? ` (${ran.outcome}, exit ${ran.exit ?? 'none'}, ${dateTime(ran.at)})` : recorded ? ` (${recorded})` : ''}` : '',
  ];
  return plainTooltip(paragraphs, `${s.id} · ${s.status.replace('_', ' ')}`);
}
