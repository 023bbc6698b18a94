/**
 * The contract tests' means of running the real `pi-plans hook` (the built bin, dist/bin.js, which
 * runs dist/hook.js): a temporary workspace with a plans folder, a host's documented payload
 * (test/fixtures/hooks) moved into it, and the command run on it as a host runs it.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createPlanText } from '../../src/core';

export const ROOT = path.resolve(__dirname, '..', '..');
/** The built bin; PI_PLANS_TEST_BIN runs the same tests against another build (an older one, to see a test fail there). */
export const BIN = process.env.PI_PLANS_TEST_BIN ?? path.join(ROOT, 'dist', 'bin.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'hooks');

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

/** Builds the bundles when they are missing. */
export function ensureBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'hook.js')) || !fs.existsSync(BIN)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
}

/**
 * Each test of the calling suite gets its own user state folder (where the hook keeps the sessions'
 * bindings and its call records), in PI_PLANS_STATE_DIR, which the hook processes inherit: the
 * fixtures' session ids repeat from test to test.
 */
export function freshStatePerTest(): void {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.PI_PLANS_STATE_DIR;
    process.env.PI_PLANS_STATE_DIR = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-state-')));
  });
  afterEach(() => {
    fs.rmSync(process.env.PI_PLANS_STATE_DIR!, { recursive: true, force: true });
    if (saved === undefined) delete process.env.PI_PLANS_STATE_DIR;
    else process.env.PI_PLANS_STATE_DIR = saved;
  });
}

/** The bindings the hook keeps now (the files of the state folder's sessions/), parsed. */
export function bindingsOnDisk(): Json[] {
  const dir = path.join(process.env.PI_PLANS_STATE_DIR!, 'sessions');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Json);
}

/** A temporary workspace with `.pi/plans`, by its real path. */
export function tempWorkspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-hook-')));
  fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
  return root;
}

/** A plan of three steps: S001 targets src/app.ts, S002 the folder docs/, S003 none. */
export function planText(id: string, status: 'draft' | 'proposed'): string {
  return createPlanText(
    {
      id,
      title: 'Read the port from the environment',
      goal: 'The port comes from PORT.',
      status,
      steps: [{ text: 'Read PORT', tool: 'edit', operation: 'change', target: 'src/app.ts' }, { text: 'Document it', tool: 'edit', operation: 'create', target: 'docs/' }, { text: 'Run the tests' }],
    },
    '2026-11-01T00:00:00.000Z',
  );
}

/** A host's fixture (`dir/name.json`) with its workspace path moved to `root`, then changed. */
export function fixture(root: string, dir: string, name: string, change: (p: Json) => void = () => undefined): Json {
  const p = JSON.parse(fs.readFileSync(path.join(FIXTURES, dir, `${name}.json`), 'utf8').replaceAll('/home/dev/proj', root)) as Json;
  change(p);
  return p;
}

export interface HookRun {
  code: number | null;
  out: Json | undefined;
  stdout: string;
  stderr: string;
}

const envOf = (env: Record<string, string>) => ({ ...process.env, CLAUDE_PROJECT_DIR: '', ...env });
const parsed = (code: number | null, stdout: string, stderr: string): HookRun => ({ code, out: stdout.trim() ? (JSON.parse(stdout) as Json) : undefined, stdout, stderr });

/** Runs the built `pi-plans hook` in `root` with a payload (an object, or raw text) on stdin. */
export function runHook(root: string, input: Json | string, args: string[] = [], env: Record<string, string> = {}): HookRun {
  // A host waits 30 s for its hook (setup's timeout), then goes on without it: a hook still running then has failed.
  const r = spawnSync(process.execPath, [BIN, 'hook', ...args], { input: typeof input === 'string' ? input : JSON.stringify(input), encoding: 'utf8', cwd: root, env: envOf(env), timeout: 30_000, killSignal: 'SIGKILL' });
  return parsed(r.status, r.stdout, r.stderr);
}

/** The same, as a process of its own that runs beside others (resolves when it ends). */
export function runHookAsync(root: string, input: Json, args: string[] = [], env: Record<string, string> = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'hook', ...args], { cwd: root, env: envOf(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve(parsed(code, stdout, stderr)));
    child.stdin.end(JSON.stringify(input));
  });
}

/** `pi-plans hook <args>` (status, collect) in `root`. */
export function hookCommand(root: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, '--root', root, 'hook', ...args], { encoding: 'utf8', env: envOf({}) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
