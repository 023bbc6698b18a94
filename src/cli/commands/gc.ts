// `pi-plans gc`: what Pi Plans keeps per plan and per call, with its size and bound, and the removal
// of what belongs to finished plans (and what has expired), a person's act at a terminal.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Option } from 'commander';
import { listHookRecords, hookKinds } from '../../hosts/hook/gcRecords';
import { listStoreRecords, removeRecords, type GcRemoved, type NodeGcRecord } from '../../node/gcRecords';
import { finishedPlans, gcChoose, gcRows, type GcRow } from '../../store/gc';
import { CliContext, needsPerson, personConfirms, UsageError } from '../cliContext';

/** A size as a person reads it. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What gc found and would do: the report's rows, the finished plans, what it would remove and what it cannot. */
export interface GcPlan {
  root: string;
  planFiles: number;
  finished: string[];
  rows: GcRow[];
  remove: NodeGcRecord[];
  blocked: NodeGcRecord[];
  problems: string[];
}

/** Lists everything and decides (removes nothing). */
export async function gcPlan(root: string, now: number, env: NodeJS.ProcessEnv = process.env): Promise<GcPlan> {
  const store = await listStoreRecords(root, env);
  const ids = [...new Set(store.plans.map((p) => p.id))];
  const kinds = [...store.kinds, ...hookKinds(env)];
  const records = [...store.records, ...listHookRecords(root, ids, now, env)];
  const finished = finishedPlans(store.plans);
  const { remove, blocked } = gcChoose(kinds, records, finished);
  return { root, planFiles: store.plans.length, finished: [...finished].sort(), rows: gcRows(kinds, records, remove), remove, blocked, problems: store.problems };
}

/** Removes what the plan chose (each record only while it is what was listed). */
export function gcRemove(p: GcPlan): Promise<GcRemoved> {
  return removeRecords(p.root, p.remove);
}

const count = (n: number, what: string) => `${n.toLocaleString('en')} ${what}${n === 1 ? '' : 's'}`;

/** The report as text: a row per kind (now, what gc removes, the bound), then where each is, what is left and why. */
export function gcText(p: GcPlan): string {
  const cell = (n: number, b: number) => `${n.toLocaleString('en').padStart(7)} ${sizeText(b).padStart(9)}`;
  const head = `${'kind'.padEnd(20)} ${'now'.padStart(17)}   ${'gc removes'.padStart(17)}   bound`;
  const lines = [
    `Pi Plans' records for ${p.root}: ${count(p.planFiles, 'plan file')}, ${count(p.finished.length, 'finished plan')} (completed, cancelled or superseded in every file of its id)${p.finished.length ? `: ${p.finished.slice(0, 8).join(', ')}${p.finished.length > 8 ? ` and ${(p.finished.length - 8).toLocaleString('en')} more` : ''}` : ''}.`,
    '',
    head,
    ...p.rows.map((r) => `${r.kind.padEnd(20)} ${cell(r.count, r.bytes)}   ${r.policy === 'kept' ? 'never'.padStart(17) : cell(r.removeCount, r.removeBytes)}   ${r.bound}`),
  ];
  const total = p.rows.reduce((a, r) => ({ n: a.n + r.removeCount, b: a.b + r.removeBytes }), { n: 0, b: 0 });
  lines.push('', `gc removes ${count(total.n, 'record')} (${sizeText(total.b)}): a finished plan's records, and what has expired; never a plan file, nor anything of a plan that is not finished.`);
  lines.push('Where:', ...p.rows.map((r) => `  ${r.kind}: ${r.where}`));
  if (p.blocked.length) lines.push(`Left (of finished plans or expired, but not a plain file of Pi Plans' own; a person looks at them):`, ...p.blocked.slice(0, 20).map((r) => `  ${r.name}: ${r.blocked}`));
  if (p.problems.length) lines.push('Not looked at:', ...p.problems.map((x) => `  ${x}`));
  return `${lines.join('\n')}\n`;
}

/** The plan as JSON (sizes in bytes; the records it removes named). */
function gcJson(p: GcPlan, removed?: GcRemoved): string {
  return `${JSON.stringify({ root: p.root, planFiles: p.planFiles, finished: p.finished, rows: p.rows, remove: p.remove.map((r) => ({ kind: r.kind, name: r.name, plan: r.plan, bytes: r.bytes, count: r.count ?? 1 })), blocked: p.blocked.map((r) => ({ kind: r.kind, name: r.name, why: r.blocked })), problems: p.problems, ...(removed ? { removed } : {}) }, null, 2)}\n`;
}

/** Registers `gc`. */
export function registerGcCommand(ctx: CliContext): void {
  const { program, io, root } = ctx;
  program
    .command('gc')
    .description("show what Pi Plans keeps per plan and per call (sizes, bounds), and remove finished plans' records (review copies, checkpoint logs, check state, evidence refs, step reports, hook verdicts) and expired ones (a person's decision, at a terminal); never a plan file")
    .option('--dry-run', 'print what would be removed and the sizes; remove nothing')
    .addOption(new Option('--json', 'print the report as JSON'))
    .action(async (o: { dryRun?: boolean; json?: boolean }) => {
      const dir = path.resolve(root());
      const st = await fs.promises.stat(dir).catch(() => undefined);
      if (!st?.isDirectory()) throw new UsageError(`--root ${root()} ${st ? 'is not a folder' : 'does not exist'}: pass the workspace folder that holds .pi/plans`);
      const p = await gcPlan(dir, Date.now());
      if (o.dryRun || !p.remove.length) {
        io.out(o.json ? gcJson(p) : `${gcText(p)}${o.dryRun ? 'Nothing was removed (--dry-run).' : 'Nothing to remove.'}\n`);
        return;
      }
      if (!o.json) io.out(gcText(p));
      if (!io.ask) needsPerson("Nothing was removed: gc is a person's decision", 'The person runs `pi-plans gc` in their own terminal (`pi-plans gc --dry-run` shows what it would remove).', 'ask the user; do not remove these records yourself.');
      const n = p.rows.reduce((a, r) => a + r.removeCount, 0);
      await personConfirms(ctx, `Remove ${count(n, 'record')} (${sizeText(p.rows.reduce((a, r) => a + r.removeBytes, 0))}) of ${count(p.finished.length, 'finished plan')} and expired? [y/N] `, 'Nothing was removed.');
      const removed = await gcRemove(p);
      if (o.json) return void io.out(gcJson(p, removed));
      io.out(`Removed ${count(removed.removed, 'record')} (${sizeText(removed.bytes)}).\n`);
      if (removed.left.length) io.out(`Left, changed since they were listed (run gc again):\n${removed.left.slice(0, 20).map((l) => `  ${l}\n`).join('')}`);
    });
}
