// Starts a real VS Code (code-server from .tools/, bound to 127.0.0.1, throwaway state) and a
// headless Debian chromium driving its workbench. Shared by the integration shim, the UI tests
// and `npm run demo`. Everything it creates is removed by stop(); nothing goes to $HOME.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TOOLS = path.join(ROOT, '.tools');
export const NODE24 = path.join(TOOLS, 'node/bin/node');
export const CODE_SERVER = path.join(TOOLS, 'code-server/node_modules/code-server/out/node/entry.js');
export const CHROMIUM = process.env.PI_PLANS_CHROMIUM || '/usr/bin/chromium';

/** Throws with the fix when the setup has not run. */
export function checkSetup() {
  for (const [p, what] of [[NODE24, 'Node 24'], [CODE_SERVER, 'code-server'], [CHROMIUM, 'chromium']]) {
    if (!fs.existsSync(p)) throw new Error(`${what} is missing (${p}): run \`bash scripts/setup-vscode.sh\` first`);
  }
}

/** A free TCP port on 127.0.0.1 (`preferred` when it is free). */
export function freePort(preferred = 0) {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', (e) => (preferred ? freePort(0).then(resolve, reject) : reject(e)));
    s.listen(preferred, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A temp folder that stop() removes. */
function tmp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `pi-plans-${prefix}-`));
}

const NOISE = /^\[[A-Z][A-Za-z]+\] |open-vsx|copilot|ERR_NAME_NOT_RESOLVED|ENOTFOUND|telemetry|marketplace|Failed to load resource|getaddrinfo|net::ERR_/i;

/**
 * User settings every run gets: no Welcome page, no animations (screenshots and clicks wait for
 * nothing that moves), no tips.
 */
export const BASE_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.reduceMotion': 'on',
  'workbench.tips.enabled': false,
  // PI_PLANS_THEME=light|dark picks the theme (the README's pictures come in both).
  ...(process.env.PI_PLANS_THEME ? { 'workbench.colorTheme': process.env.PI_PLANS_THEME === 'light' ? 'Default Light Modern' : 'Default Dark Modern' } : {}),
};

/**
 * The sample workspace's approvers: the key that signed the approval its executing plan carries
 * (read from the file, so it is never written twice).
 */
export function sampleApprovers() {
  const text = fs.readFileSync(path.join(ROOT, 'examples', '.pi', 'plans', 'PLAN-3f9a1c2e.md'), 'utf8');
  const key = /^approval_key: (\S+)$/m.exec(text)?.[1];
  const name = /^approver: "?([^"\n]+)"?$/m.exec(text)?.[1];
  return key ? [{ name, key }] : [];
}

/**
 * Starts code-server. `extensionsDir` may be given; otherwise a fresh one is made, with `vsix`
 * (a path or several) installed. `settings` are merged over BASE_SETTINGS into the user settings.
 * `testDriver` turns on VS Code's smoke-test driver (extension tests in the URL; no toasts).
 * `signal` aborts a start under way (nothing is left behind). `userConfig` is the person's Pi Plans
 * configuration ($XDG_CONFIG_HOME/pi-plans/config.json): by default they are Ana and trust the
 * sample approver. `env`: more of the environment code-server (and the extension host) runs with.
 * Returns { port, url(folder, payload), stop(), log }.
 */
export async function startCodeServer({ extensionsDir, vsix, userDataDir, quiet = true, trust = false, port: wanted, settings = {}, signal, testDriver = false, userConfig, env: extraEnv = {} } = {}) {
  checkSetup();
  const home = tmp('home');
  const created = [home];
  let child;
  // A failed or aborted start leaves nothing behind: no process, no temp folder.
  const undo = () => {
    if (child && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const d of created) fs.rmSync(d, { recursive: true, force: true });
  };
  try {
    return await startIn();
  } catch (e) {
    undo();
    throw e;
  }

  async function startIn() {
    const dirs = {
      userData: userDataDir ?? (created.push(tmp('user-data')), created.at(-1)),
      extensions: extensionsDir ?? (created.push(tmp('extensions')), created.at(-1)),
    };
    fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
    const settingsFile = path.join(dirs.userData, 'User', 'settings.json');
    const existing = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
    fs.writeFileSync(settingsFile, JSON.stringify({ ...BASE_SETTINGS, ...existing, ...settings }, null, 2));
    fs.mkdirSync(path.join(home, 'tmp'));
    fs.mkdirSync(path.join(home, 'run'), { mode: 0o700 });
    fs.writeFileSync(path.join(home, 'config.yaml'), 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
    // The person's Pi Plans configuration (outside the workspace): by default, they trust the
    // sample reviewer whose signed approval the sample workspace's executing plan carries.
    fs.mkdirSync(path.join(home, '.config', 'pi-plans'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(home, '.config', 'pi-plans', 'config.json'), JSON.stringify(userConfig ?? { name: 'Ana', trustedApprovers: sampleApprovers() }, null, 2));
    const env = {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local/share'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      XDG_STATE_HOME: path.join(home, '.local/state'),
      NODE_COMPILE_CACHE: path.join(home, 'node-compile-cache'),
      // IPC sockets (vscode-ipc-*.sock, vscode-git-*.sock) and language-server scratch go here too.
      TMPDIR: path.join(home, 'tmp'),
      XDG_RUNTIME_DIR: path.join(home, 'run'),
      PI_PLANS_CACHE_DIR: path.join(home, 'pi-plans-cache'),
      ...extraEnv,
    };
    delete env.NODE_OPTIONS;
    for (const file of [vsix ?? []].flat()) {
      const r = spawnSync(NODE24, [CODE_SERVER, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData, '--config', path.join(home, 'config.yaml'), '--install-extension', file], { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`installing ${file} failed: ${r.stderr || r.stdout}`);
    }
    const port = wanted ?? (await freePort());
    const args = [
      CODE_SERVER,
      '--bind-addr', `127.0.0.1:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      ...(trust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      // Needed for extension tests passed in the URL (the payload), and it turns notification
      // toasts off: only the integration harness asks for it.
      ...(testDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
      '--user-data-dir', dirs.userData,
      '--extensions-dir', dirs.extensions,
      '--config', path.join(home, 'config.yaml'),
    ];
    if (signal?.aborted) throw new Error('aborted');
    child = spawn(NODE24, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const onData = (d) => {
      log += d;
      if (!quiet) for (const line of String(d).split('\n')) if (line.trim() && !NOISE.test(line)) process.stderr.write(`[code-server] ${line}\n`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (signal?.aborted) throw new Error('aborted');
      if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${log}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (r.ok) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error(`code-server did not answer on 127.0.0.1:${port}:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    let stopped = false;
    return {
      port,
      dirs,
      /** The process id (and process group id) of code-server. */
      pid: child.pid,
      /** Temp folders stop() removes. */
      created,
      /** The environment code-server (and so the extension host) runs with: its home and XDG folders. */
      env,
      /** Where the extension keeps a workspace folder's review copies (the user's state folder, by the folder's real path; src/node/ports/approvalKeys.ts). */
      reviewCopies(folder) {
        const digest = createHash('sha256').update(fs.realpathSync(folder)).digest('hex').slice(0, 16);
        return path.join(env.XDG_STATE_HOME, 'pi-plans', 'reviews', digest);
      },
      get log() {
        return log;
      },
      /** Workbench URL for a folder (or a .code-workspace file), with an optional payload (extension development, tests). */
      url(folder, payload) {
        const q = new URLSearchParams(folder.endsWith('.code-workspace') ? { workspace: folder } : { folder });
        if (payload) q.set('payload', JSON.stringify(payload));
        return `http://127.0.0.1:${port}/?${q}`;
      },
      /** `vscode-remote://` URI of a path on this machine, as the payload wants it. */
      remote(p) {
        return `vscode-remote://127.0.0.1:${port}${p}`;
      },
      /** Stops the server (the whole process group) and removes what it created. */
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          process.kill(-child.pid, 'SIGKILL'); // the whole group: language servers included
        } catch {
          /* already gone */
        }
        await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
        for (const d of created) fs.rmSync(d, { recursive: true, force: true });
      },
    };
  }
}

/** Launches headless chromium with a throwaway profile. Returns { browser, page, stop() }. */
export async function startBrowser({ width = 1400, height = 900 } = {}) {
  const { chromium } = await import('playwright-core');
  const home = tmp('chromium-home');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    env: { ...process.env, HOME: home },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  return {
    browser,
    page,
    async stop() {
      await browser.close().catch(() => undefined);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Console text without the workbench's %c styling. */
export function consoleText(msg) {
  return msg.text().replace(/%c/g, '').trim();
}
export { NOISE };
