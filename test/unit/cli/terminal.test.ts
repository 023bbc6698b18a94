// `pi-plans approve` and `confirm` at a real terminal: the built CLI in a pseudo-terminal (util-linux
// `script`), answered at its prompt as a person types, and the same commands without a terminal.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const ID = 'PLAN-0000000a';
const PLAN = `---\nid: ${ID}\ntitle: "Fix the thing"\nstatus: proposed\nversion: 3\ncreated_at: 2026-01-01T00:00:00.000Z\nupdated_at: 2026-01-02T00:00:00.000Z\n---\n\n## Goal\nMake it work\n\n## Steps\n1. [ ] S001 first\n`;

describe('pi-plans at a terminal (a pseudo-terminal, the built CLI)', function () {
  this.timeout(30_000);
  let root: string;
  let home: string;
  const env = () => ({ ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_STATE_HOME: path.join(home, 'state'), PI_PLANS_CACHE_DIR: path.join(home, 'cache') });
  const file = () => fs.readFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), 'utf8');

  /** Runs the CLI in a pseudo-terminal; types `answer` once the prompt is on the screen. */
  function atTerminal(answer: string, ...args: string[]): Promise<{ code: number; screen: string }> {
    const command = [process.execPath, CLI, '--root', root, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    return new Promise((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        screen += d.toString();
        if (!typed && /\[y\/N\] /.test(screen)) {
          typed = true;
          child.stdin.write(`${answer}\n`);
        }
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code: code ?? 1, screen }));
    });
  }

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tty-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-plans-tty-home-'));
    fs.mkdirSync(path.join(root, '.pi', 'plans'), { recursive: true });
    fs.writeFileSync(path.join(root, '.pi', 'plans', `${ID}.md`), PLAN);
    fs.mkdirSync(path.join(home, 'config', 'pi-plans'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'pi-plans', 'config.json'), JSON.stringify({ name: 'Ana' }));
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('approve shows the title, version and digest and asks: "n" leaves the plan as it was, "y" approves it, signed', async () => {
    const no = await atTerminal('n', 'approve', ID);
    assert.equal(no.code, 1);
    assert.match(no.screen, /Fix the thing[\s\S]*version: 3[\s\S]*digest: sha256:[0-9a-f]{64}[\s\S]*Approve PLAN-0000000a "Fix the thing" at v3\? \[y\/N\]/);
    assert.match(no.screen, /was not approved/);
    assert.equal(file(), PLAN);
    const yes = await atTerminal('y', 'approve', ID);
    assert.equal(yes.code, 0, yes.screen);
    assert.match(yes.screen, /PLAN-0000000a approved at v3 \(now v4\), signed by Ana\./);
    assert.match(file(), /^status: approved$/m);
    assert.match(file(), /^approval_sig: /m);
  });

  it('the same command without a terminal (a pipe, as an agent runs it) approves nothing', () => {
    const r = spawnSync(process.execPath, [CLI, '--root', root, 'approve', ID], { env: env(), encoding: 'utf8', input: 'y\n' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /a person decides: run `pi-plans approve PLAN-0000000a` in a terminal/);
    assert.equal(file(), PLAN);
  });
});
