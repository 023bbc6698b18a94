/**
 * The list corpora (bench/list.ts) through the other two faces that list plans (issue 40):
 *   mcp       `pi-plans mcp` started as a host starts it (a process of the built command, the SDK's
 *             stdio client), until its first `pi_plan_list` answered: the wait of an agent's
 *             first list; and that call alone. Cold: an empty cache folder; warm: the folder a
 *             first server left.
 *   explorer  the extension host's index of the folder (its ports: no synchronous I/O, the outline
 *             worker reading the files) and its attention pass over the plans an approval governs
 *             or that may be stalled or stale (WorkspacePlans.computeAttention), in a process of
 *             its own (bench/child.ts), cold and warm likewise.
 * Three runs of each, interleaved; the target: a mixed folder costs what the proposed-only folder
 * costs (≤ 1.1×).
 */
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { corpusRoot, LIST_TARGETS, median } from './list';

const KINDS = ['mixed', 'proposed', 'signed'] as const;
type Kind = (typeof KINDS)[number];
type Phase = 'cold' | 'warm';

export interface FacesFigures {
  plans: number;
  runs: number;
  /** By corpus and phase: MCP (spawn to the first list's answer; the call alone), explorer (index, attention pass). */
  corpora: Record<Kind, Record<Phase, { mcpMs: number[]; mcpCallMs: number[]; indexMs: number[]; attentionMs: number[] }>>;
  /** What the first list said, by corpus (the attention flags, counted from its lines). */
  listed: Record<Kind, string>;
}

/** `pi-plans mcp` from its spawn until its first `pi_plan_list` answered, and the call alone (ms); the answer's text. */
async function mcpList(bin: string, root: string, env: Record<string, string>): Promise<{ ms: number; callMs: number; text: string }> {
  const t = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, '--root', root, 'mcp'], env: { ...(process.env as Record<string, string>), ...env }, stderr: 'ignore' });
  const client = new Client({ name: 'pi-plans-bench', version: '0' });
  try {
    await client.connect(transport);
    const t2 = performance.now();
    const r = (await client.callTool({ name: 'pi_plan_list', arguments: {} })) as { content: { type: string; text?: string }[]; isError?: boolean };
    const end = performance.now();
    const text = r.content.map((c) => c.text ?? '').join('');
    if (r.isError) throw new Error(`pi_plan_list failed: ${text.slice(0, 300)}`);
    return { ms: end - t, callMs: end - t2, text };
  } finally {
    await client.close();
  }
}

/** Measures each corpus through the MCP server and the explorer's index, `runs` times, interleaved. */
export async function facesFigures(n: number, bin: string, runs = 3): Promise<FacesFigures> {
  const repo = path.resolve(__dirname, '..');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-bench-faces-'));
  try {
    const child = path.join(work, 'child.js');
    await esbuild.build({ entryPoints: [path.join(__dirname, 'child.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: child, logLevel: 'error' });
    const worker = path.join(repo, 'dist', 'outlineWorker.js');
    if (!fs.existsSync(worker)) execFileSync(process.execPath, [path.join(repo, 'scripts', 'build.mjs')], { cwd: repo, stdio: 'ignore' });
    const envOf = (kind: Kind, cacheDir: string): Record<string, string> => {
      const { configHome } = corpusRoot(kind, n);
      return { PI_PLANS_CACHE_DIR: cacheDir, XDG_CONFIG_HOME: kind === 'signed' ? configHome : path.join(work, 'config'), XDG_STATE_HOME: path.join(work, `state-${kind}`), PI_PLANS_STATE_DIR: '' };
    };
    const explorer = (kind: Kind, cacheDir: string) => {
      const out = execFileSync(process.execPath, [child, 'explorer', corpusRoot(kind, n).root, cacheDir, worker], { encoding: 'utf8', env: { ...process.env, ...envOf(kind, cacheDir) }, stdio: ['ignore', 'pipe', 'inherit'] });
      return JSON.parse(out.trim().split('\n').at(-1)!) as { openMs: number; attentionMs: number };
    };
    const figures: FacesFigures = { plans: n, runs, corpora: {} as FacesFigures['corpora'], listed: {} as FacesFigures['listed'] };
    const warm = new Map<Kind, { mcp: string; explorer: string }>();
    for (const kind of KINDS) {
      figures.corpora[kind] = { cold: { mcpMs: [], mcpCallMs: [], indexMs: [], attentionMs: [] }, warm: { mcpMs: [], mcpCallMs: [], indexMs: [], attentionMs: [] } };
      const dirs = { mcp: fs.mkdtempSync(path.join(work, `warm-mcp-${kind}-`)), explorer: fs.mkdtempSync(path.join(work, `warm-explorer-${kind}-`)) };
      const first = await mcpList(bin, corpusRoot(kind, n).root, envOf(kind, dirs.mcp));
      const flags = new Map<string, number>();
      // A row's flag is its last field, one of the flags the list explains after its rows.
      for (const line of first.text.split('\n')) {
        const flag = /· (changed since approval|approval not valid|approved on another machine|stalled|stale)$/.exec(line)?.[1];
        if (line.startsWith('- ') && flag) flags.set(flag, (flags.get(flag) ?? 0) + 1);
      }
      figures.listed[kind] = `${first.text.split('\n')[0]}${flags.size ? ` (${[...flags].map(([k, v]) => `${v} ${k}`).join(', ')})` : ''}`;
      explorer(kind, dirs.explorer);
      warm.set(kind, dirs);
    }
    for (let i = 0; i < runs; i++) {
      for (const kind of KINDS) {
        const c = figures.corpora[kind];
        const cold = fs.mkdtempSync(path.join(work, `cold-${kind}-`));
        const m = await mcpList(bin, corpusRoot(kind, n).root, envOf(kind, cold));
        c.cold.mcpMs.push(m.ms);
        c.cold.mcpCallMs.push(m.callMs);
        fs.rmSync(cold, { recursive: true, force: true });
        const w = await mcpList(bin, corpusRoot(kind, n).root, envOf(kind, warm.get(kind)!.mcp));
        c.warm.mcpMs.push(w.ms);
        c.warm.mcpCallMs.push(w.callMs);
        const cold2 = fs.mkdtempSync(path.join(work, `cold-x-${kind}-`));
        const x = explorer(kind, cold2);
        c.cold.indexMs.push(x.openMs);
        c.cold.attentionMs.push(x.attentionMs);
        fs.rmSync(cold2, { recursive: true, force: true });
        const y = explorer(kind, warm.get(kind)!.explorer);
        c.warm.indexMs.push(y.openMs);
        c.warm.attentionMs.push(y.attentionMs);
      }
    }
    return figures;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The faces' table: each corpus's median and its ratio to the proposed-only folder, against the target. */
export function printFaces(f: FacesFigures): void {
  const f0 = (x: number) => x.toFixed(0);
  console.log('');
  console.log(`The same ${f.plans} plans through the MCP server and the explorer's index (ms, ${f.runs} runs interleaved; x prop.: the same figure on the proposed-only folder; target <= ${LIST_TARGETS.mixedVsProposed}x):`);
  const cols: [keyof FacesFigures['corpora']['mixed']['cold'], string][] = [
    ['mcpMs', 'MCP: spawn to first list'],
    ['mcpCallMs', 'MCP: the list call'],
    ['indexMs', 'explorer: index'],
    ['attentionMs', 'explorer: attention pass'],
  ];
  for (const [key, label] of cols) {
    for (const phase of ['cold', 'warm'] as const) {
      const prop = median(f.corpora.proposed[phase][key]);
      const cells = KINDS.map((kind) => {
        const xs = f.corpora[kind][phase][key];
        const m = median(xs);
        const ratio = kind === 'proposed' ? '' : ` ${(m / prop).toFixed(2)}x${kind === 'mixed' ? (m / prop <= LIST_TARGETS.mixedVsProposed ? ' met' : ' NOT met') : ''}`;
        return `${kind} ${xs.map(f0).join('/')} -> ${f0(m)}${ratio}`;
      });
      console.log(`  ${`${label}, ${phase}`.padEnd(32)} ${cells.join('   ')}`);
    }
  }
  console.log(`  what pi_plan_list said: ${KINDS.map((k) => `${k}: ${f.listed[k]}`).join(' | ')}`);
}
