// `diff`: what changed since the version a person last reviewed, by step and section.
import { describeComparison, parsePlan, PlanDocument } from '../../core';
import { compareWithReviewed } from '../../service';
import { CliContext, versionNumber } from '../cliContext';

/** Registers `diff`. */
export function registerDiffCommand({ program, io, store }: CliContext): void {
  program
    .command('diff <id>')
    .description('what changed since the last version a person approved or rejected, by step and section')
    .option('--from <version>', 'compare with this reviewed version instead (v3 or 3)', versionNumber('--from takes a version, e.g. --from v3 or --from 3'))
    .option('--json', 'the comparison as JSON')
    .action(async (id: string, o: { from?: number; json?: boolean }) => {
      const st = await store({ index: false });
      const now = await st.read(id);
      const r = await compareWithReviewed({ store: st }, id, { version: o.from, doc: now });
      if (o.json) {
        io.out(JSON.stringify({ id, ...(r.comparison ?? { unavailable: r.unavailable, unreadableVersion: r.unreadableVersion }), comments: r.comments }, null, 2) + '\n');
        if (!r.comparison) process.exitCode = 1;
        return;
      }
      if (!r.comparison) {
        const kept = await st.snapshotVersions(id);
        io.err(`${id}: no comparison available: ${r.unavailable}. Versions kept: ${kept.map((v) => `v${v}`).join(', ') || 'none (a version is kept when a person approves or rejects it)'}.\n`);
        // A kept version that does not read: say how to get a comparison again.
        const bad = r.unreadableVersion;
        if (bad !== undefined) {
          const other = kept.filter((v) => v !== bad).at(-1);
          io.err(`To fix: delete ${st.reviewsDir}/${id}/v${bad}.md and its record v${bad}.json (the next approval or rejection keeps a new version)${other !== undefined ? `, or compare with another kept version: --from v${other}` : ''}.\n`);
        }
        process.exitCode = 1;
        return;
      }
      const cmp = r.comparison;
      const then = parsePlan(r.reviewedText!);
      const textOf = (d: PlanDocument, step: string) => d.steps.find((s) => s.id === step)?.text ?? '';
      io.out(`${id}: v${cmp.fromVersion} (reviewed) → v${cmp.toVersion}\n`);
      const lines = describeComparison(cmp);
      if (!lines.length) io.out('  no change to the steps or sections\n');
      for (const line of lines) {
        const step = /^[+~\u2195-] (S\d{3,4}) /.exec(line)?.[1];
        let detail = '';
        if (step && line.startsWith('~')) detail = `: "${textOf(then, step)}" → "${textOf(now, step)}"`;
        else if (step && line.startsWith('+')) detail = `: "${textOf(now, step)}"`;
        else if (step && line.startsWith('-')) detail = `: "${textOf(then, step)}"`;
        io.out(`  ${line}${detail}\n`);
      }
      if (r.comments.length) {
        io.out(`Comments of the v${cmp.fromVersion} review:\n`);
        for (const c of r.comments) io.out(`  ${(c.addressed ? 'revised' : 'untouched').padEnd(9)}  ${c.anchor}: ${c.body.replace(/\s*\n\s*/g, ' ')}\n`);
      }
    });
}
