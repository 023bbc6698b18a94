// The command policy's reading of shell commands (src/hosts/policy/commands.ts): every spelling of
// a person's verb that the shell runs as one is found; a command it cannot read is unknown; a
// protected place is found through quotes, globs, `cd`, links and braces; ordinary commands give
// nothing. A table of commands, with a link table standing in for the disk.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { classifyCommand, CommandContext, Finding } from '../../../src/hosts/policy/commands';
import type { Protected } from '../../../src/hosts/policy/paths';
import { patchPaths } from '../../../src/hosts/policy/patch';

const HOME = '/home/u';
const WS = '/ws';
const PLACES: Protected[] = [
  { path: `${WS}/.pi`, level: 'ask', what: 'the plan folder' },
  { path: `${HOME}/.local/state/pi-plans`, level: 'deny', what: "Pi Plans' state" },
  { path: `${HOME}/.config/pi-plans`, level: 'deny', what: "Pi Plans' configuration" },
  { path: `${WS}/.claude/settings.json`, level: 'ask', what: 'the hooks' },
];
/** Links on the pretend disk: src/p -> ../.pi/plans. */
const LINKS: Record<string, string> = { [`${WS}/src/p`]: `${WS}/.pi/plans` };
function resolve(base: string, rel: string): string {
  let cur = path.posix.isAbsolute(rel) ? '/' : base;
  for (const seg of rel.split('/')) {
    if (!seg || seg === '.') continue;
    cur = seg === '..' ? path.posix.dirname(cur) : path.posix.join(cur, seg);
    if (LINKS[cur]) cur = LINKS[cur];
  }
  return cur;
}
const CTX: CommandContext = { cwd: WS, home: HOME, places: PLACES, resolve };
const kinds = (cmd: string) => classifyCommand(cmd, CTX).map((f) => (f.kind === 'protected' ? `protected:${f.place.level}` : f.kind));
const has = (cmd: string, kind: string) => assert.ok(kinds(cmd).includes(kind), `${JSON.stringify(cmd)} should give ${kind}, gave ${JSON.stringify(kinds(cmd))}`);
const none = (cmd: string) => assert.deepEqual(kinds(cmd), [], `${JSON.stringify(cmd)} should give nothing`);

describe('the command policy reads shell commands as the shell does', () => {
  it('ordinary commands give nothing: builds, tests, git, reading files, writing source files', () => {
    for (const c of ['npm test', 'npm run build && node dist/app.js --port 3000', 'git status && git diff HEAD~1', 'git add -A && git commit -m "Read PORT"', 'ls -la src/', 'cat src/app.ts | head -20', 'echo "$HOME" > /tmp/x', 'for f in src/*.ts; do wc -l "$f"; done', 'mkdir -p src/{a,b}', 'rg -n TODO src', 'python3 scripts/gen.py', 'node scripts/build.mjs', 'pi-plans list --json', 'pi-plans show PLAN-1a2b3c4d', 'cd src && ls', 'x=$(git rev-parse HEAD); echo $x', "awk '{print $1}' file.txt", "sed -n '1,20p' src/app.ts", 'find src -name "*.ts"']) none(c);
  });

  it("a person's verb of Pi Plans' CLI is found in every spelling the shell runs as one", () => {
    const spellings = [
      'pi-plans approve PLAN-1a2b3c4d --digest sha256:x',
      "pi-p'la'ns approve PLAN-1a2b3c4d",
      'pi\\-plans app\\rove PLAN-1a2b3c4d',
      '"pi-plans" "approve" X',
      "$'\\x70i-plans' approve X",
      'cd dist && node cli.js approve X',
      'node /opt/pi/dist/bin.js --root /ws approve X',
      './dist/bin.js approve X',
      'npx pi-plans approve X',
      'npm exec -- pi-plans approve X',
      'env FOO=1 pi-plans approve X',
      'sudo -u me pi-plans approve X',
      'timeout 10 nohup pi-plans approve X',
      'bash -c "pi-plans approve X"',
      "sh -lc 'cd dist; node cli.js approve X'",
      "bash <<'EOF'\npi-plans approve X\nEOF",
      'echo ok; pi-plans confirm X',
      'pi-plans trust ed25519:abc',
      'pi-plans hook release abc',
      'pi-plans setup --agent claude --remove',
      'pi-plans drift X --ack',
      'pi-plans resume X',
      'f() { pi-plans approve X; }; f',
      "alias p='pi-plans approve'",
      'echo $(pi-plans approve X)',
      'eval pi-plans approve X',
      'find . -name x -exec pi-plans approve X \\;',
      'watch -n 1 pi-plans approve X',
      'pi-plans approve X # pi-plans hook collect PLAN-1a2b3c4d',
      'echo \'{"hook_event_name":"SessionEnd"}\' | pi-plans hook --agent claude',
    ];
    for (const s of spellings) has(s, 'person');
  });

  it('a command it cannot read is unknown: computed programs, eval of a computed string, inline code, a shell fed on stdin', () => {
    for (const c of ['p=pi-plans; $p approve X', 'echo cGk= | base64 -d | sh', 'eval "$CMD"', 'bash -c "$CMD"', 'node -e "require(\'child_process\')"', 'python3 -c "import os"', "perl -e 'system(1)'", 'cat x.sh | bash', 'pi-plans $VERB X', 'pi-pl?ns approve X', 'tmux send-keys "pi-plans approve X" Enter', 'rm -rf "$DIR"', "awk 'BEGIN{system(\"x\")}'", "sed 's/a/b/e' f", 'git -c alias.x=!sh x', 'xargs pi-plans < verbs.txt', 'cd "$D" && rm x', 'echo "unterminated']) has(c, 'unknown');
  });

  it('a shell or interpreter with no script and nothing on stdin starts an interactive session', () => {
    for (const c of ['bash', 'sh -i', 'python3', 'node']) has(c, 'interactive');
  });

  it('a protected place is found through quotes, globs, cd, links, braces, redirections and find', () => {
    for (const c of ['rm -rf .pi', 'cd .pi&&rm plans/PLAN-1.md', 'rm .p?/plans/x', 'ls ".pi"', 'echo x > .pi/plans/PLAN-1.md', 'cat src/p/PLAN-1.md', 'touch {src,.pi}/x', 'find . -delete', 'cp x ".claude/settings.json"', 'git checkout -- .pi']) has(c, 'protected:ask');
    for (const c of ['rm -rf ~/.local/state/pi-plans', 'cat ~/.config/pi-plans/approval-key.pem', 'rm -rf ~/.local', 'ls /home/u/.config/pi-plans', 'cd ~ && rm -rf .local/state']) has(c, 'protected:deny');
    // `*` does not match a leading dot (bash's default), and reading the workspace is not naming .pi.
    none('ls *');
    none('ls .');
    none('rm -rf "~/.local/state/pi-plans"'.replace('~', 'not-home'));
  });

  it('hook collect, alone, is found as collect mode; Codex\'s apply_patch in the shell is an edit of its files', () => {
    assert.deepEqual(classifyCommand('pi-plans hook collect PLAN-1a2b3c4d', CTX), [{ kind: 'collect', plan: 'PLAN-1a2b3c4d' }]);
    const f = classifyCommand("cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: new.ts\n+x\n*** End Patch\nEOF", CTX).filter((x): x is Extract<Finding, { kind: 'edit' }> => x.kind === 'edit');
    assert.equal(f.length, 1);
    assert.ok(f[0].paths.includes('/ws/src/new.ts'), JSON.stringify(f[0].paths));
    has("apply_patch <<'EOF'\n*** Begin Patch\n  *** Add File: ../.pi/plans/PLAN-1.md\n+x\n*** End Patch\nEOF", 'edit');
    has('apply_patch "$P"', 'unknown');
  });
});

describe("Codex's patch format, read as Codex reads it", () => {
  it('headers with blanks around them count (Codex trims them); a line in a chunk is content', () => {
    assert.deepEqual(patchPaths('*** Begin Patch\n   *** Add File: a.ts\n+x\n*** Delete File: b.ts\n*** Update File: c.ts\n*** Move to: d.ts\n@@\n-a\n+b\n  *** Add File: e.ts\n*** End Patch'), ['a.ts', 'b.ts', 'c.ts', 'd.ts']);
    assert.deepEqual(patchPaths("<<'EOF'\n*** Begin Patch\n*** Add File: a.ts\n+x\n*** End Patch\nEOF"), ['a.ts']);
    assert.deepEqual(patchPaths('  *** Begin Patch  \n*** Update File: x.py\n import foo\n+bar\n*** End Patch\n'), ['x.py']);
  });
  it('a patch Codex refuses has no paths (undefined), never a partial list', () => {
    for (const p of ['*** Add File: a.ts\n+x', '*** Begin Patch\n*** Update File: x\n*** End Patch', '*** Begin Patch\n*** Frob File: x\n*** End Patch', '*** Begin Patch\n*** Add File: a\n+x']) assert.equal(patchPaths(p), undefined, p);
  });
});
