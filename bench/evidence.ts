/**
 * A step's evidence in a git repository of 10,000 files (generated in a temporary folder, one
 * commit): what recording it costs when the step ends (NodeEvidence.end: a snapshot of the
 * working tree from a temporary index and the diff from the step's start; the pin under
 * refs/pi-plans/ follows, not waited for) and when it starts (the snapshot and its pin), against
 * `git status --porcelain` on the same repository, each in the processes the machine's git starts;
 * through the port a long-lived process keeps and through one made per mark (a CLI command). The two are interleaved so both see the same machine;
 * between rounds a "step" edits three files and adds one. Prints medians and the ratio (target <= 2x).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NodeEvidence } from '../src/node/work/stepEvidence';

export interface EvidenceFigures {
  files: number;
  rounds: number;
  status: number;
  start: number;
  end: number;
  /** The same through a port made for the one mark (the CLI's way: finds the repository, reads the "before" tree from its ref). */
  freshStart: number;
  freshEnd: number;
  ratio: number;
  target: number;
  changedPerStep: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A repository of `files` files of a few lines each, in 100 folders, committed. */
function generateRepo(files: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-evidence-'));
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, 'src', `d${i % 100}`);
    if (i < 100) fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `f${i}.ts`), `export const v${i} = ${i};\nexport function f${i}() {\n  return v${i} * 2;\n}\n`);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=b@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', 'corpus');
  return dir;
}

async function timed(f: () => unknown): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

export async function evidenceFigures(files = 10_000, rounds = 30): Promise<EvidenceFigures> {
  const dir = generateRepo(files);
  try {
    // The port as the VS Code extension and the MCP server keep it (one per workspace folder).
    const kept = new NodeEvidence(dir);
    const status = () => execFileSync('git', ['status', '--porcelain'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
    status(); // warm the OS file cache and git's own index
    const s: number[] = [];
    const times = { start: [] as number[], end: [] as number[], freshStart: [] as number[], freshEnd: [] as number[] };
    let changed = 0;
    for (let r = 0; r < rounds; r++) {
      // Odd rounds through a port made for each mark, as one CLI command would.
      const fresh = r % 2 === 1;
      const port = () => (fresh ? new NodeEvidence(dir) : kept);
      times[fresh ? 'freshStart' : 'start'].push(await timed(() => port().begin('PLAN-bench0001', `S${r}`)));
      // The step's work: three files edited, one added.
      for (let k = 0; k < 3; k++) fs.appendFileSync(path.join(dir, 'src', `d${(r * 7 + k) % 100}`, `f${(r * 7 + k) % 100}.ts`), `// round ${r}\n`);
      fs.writeFileSync(path.join(dir, `new${r}.ts`), `export const r = ${r};\n`);
      s.push(await timed(status));
      const p = port();
      let files = 0;
      times[fresh ? 'freshEnd' : 'end'].push(await timed(async () => {
        const c = await p.end('PLAN-bench0001', `S${r}`);
        files = c.recorded ? c.files.length : -1;
      }));
      await p.settled();
      changed = files;
    }
    const st = median(s);
    const end = median(times.end);
    return { files, rounds, status: st, start: median(times.start), end, freshStart: median(times.freshStart), freshEnd: median(times.freshEnd), ratio: end / st, target: 2, changedPerStep: changed };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printEvidence(e: EvidenceFigures): void {
  console.log('');
  console.log(`Step evidence in a git repository of ${e.files} files (medians of ${e.rounds} rounds, each step changing ${e.changedPerStep} files):`);
  console.log(`  git status --porcelain             ${e.status.toFixed(1)} ms`);
  console.log(`  a step starts (snapshot + pin)     ${e.start.toFixed(1)} ms`);
  console.log(`  a step ends (snapshot + diff)      ${e.end.toFixed(1)} ms: ${e.ratio.toFixed(2)}x git status (target <= ${e.target}x) ${e.ratio <= e.target ? 'met' : 'NOT met'}; its pin follows, unwaited`);
  console.log(`  the same, a port made per mark (a CLI command: finds the repository, reads the start's ref): starts ${e.freshStart.toFixed(1)} ms, ends ${e.freshEnd.toFixed(1)} ms (${(e.freshEnd / e.status).toFixed(2)}x)`);
}
