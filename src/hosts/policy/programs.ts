// What the command policy knows of programs, by name: the ones that run another command given as
// words (wrappers), the shells and interpreters (which run code given inline or on stdin), the
// programs whose arguments may be computed without the policy losing sight of a write (readers),
// and Pi Plans' own CLI with the verbs that only a person may run. Pure tables; runners.ts and
// effects.ts read them. A program not named here is a program: it runs, its literal words are judged as paths.

/** Shells: `-c STRING` runs the string; with no script and no `-c` they read commands from stdin. */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'busybox', 'rbash', 'tcsh', 'csh']);

/**
 * Interpreters and their inline-code options (code given on the command line, which the policy
 * cannot read): `node -e`, `python -c`. With neither a script nor inline code they read code from
 * stdin. The options listed as taking a value consume the next word (so it is not the script).
 */
export interface Interpreter {
  inline: ReadonlySet<string>;
  /** Options followed by a value that is not the script. */
  valued: ReadonlySet<string>;
  /** Subcommands after which the script comes (`deno run x.ts`). */
  subcommands?: ReadonlySet<string>;
  /** A first word that runs a module by name (`python -m pip`): code we do not see, but named. */
  module?: string;
}
const NODE: Interpreter = { inline: new Set(['-e', '--eval', '-p', '--print']), valued: new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--input-type', '--conditions', '-C', '--title', '--max-old-space-size']) };
export const INTERPRETERS: ReadonlyMap<string, Interpreter> = new Map<string, Interpreter>([
  ['node', NODE],
  ['nodejs', NODE],
  ['tsx', NODE],
  ['ts-node', NODE],
  ['bun', { ...NODE, subcommands: new Set(['run']) }],
  ['deno', { inline: new Set(['eval']), valued: new Set(['--config', '-c', '--import-map']), subcommands: new Set(['run']) }],
  ...['python', 'python2', 'python3', 'pypy', 'pypy3'].map((n): [string, Interpreter] => [n, { inline: new Set(['-c']), valued: new Set(['-W', '-X', '-Q']), module: '-m' }]),
  ...['perl', 'perl5'].map((n): [string, Interpreter] => [n, { inline: new Set(['-e', '-E', '-n', '-p', '-i']), valued: new Set(['-I', '-M', '-m', '-x']) }]),
  ['ruby', { inline: new Set(['-e']), valued: new Set(['-I', '-r', '-C']) }],
  ['php', { inline: new Set(['-r', '-R', '-B', '-E']), valued: new Set(['-c', '-d', '-f']) }],
  ['lua', { inline: new Set(['-e']), valued: new Set(['-l']) }],
  ['luajit', { inline: new Set(['-e']), valued: new Set(['-l']) }],
  ['Rscript', { inline: new Set(['-e']), valued: new Set([]) }],
  ['osascript', { inline: new Set(['-e']), valued: new Set(['-l']) }],
  ['pwsh', { inline: new Set(['-c', '-command', '-encodedcommand', '-ec']), valued: new Set(['-executionpolicy', '-workingdirectory', '-wd']) }],
  ['powershell', { inline: new Set(['-c', '-command', '-encodedcommand', '-ec']), valued: new Set(['-executionpolicy']) }],
]);

/** awk and its kin: the program is inline text (unless `-f FILE`). */
export const AWKS: ReadonlySet<string> = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
/** In an awk program: a command run (`system(…)`, a pipe) or a file written (`print > f`). */
export const AWK_EFFECT = /system\s*\(|\||>/;
/** In a sed script: the `e` command or flag (runs a command), `w`/`W` (writes a file). */
export const SED_EFFECT = /(?:^|[;{}\n]|\/[gpIiMm0-9]*)\s*[!]?\s*(?:e|w|W)(?:\s|$)|\/[gpIiMm0-9]*[ewW]\b/;

/**
 * Wrappers: programs that run the command in the words after their own options. `valued`: their
 * options that take a value; `skipFirst`: a positional word of theirs before the command
 * (`timeout DURATION cmd`, `flock FILE cmd`).
 */
export interface Wrapper {
  valued: ReadonlySet<string>;
  skipFirst?: number;
  /** Options whose value is a shell command string (`flock -c CMD`, `script -c CMD`, `su -c CMD`). */
  shellString?: ReadonlySet<string>;
  /** `env`: NAME=VALUE words before the command. */
  assignments?: boolean;
}
export const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ['env', { valued: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']), assignments: true, shellString: new Set(['-S', '--split-string']) }],
  ['sudo', { valued: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U', '--user', '--group', '--chdir', '--prompt']) }],
  ['doas', { valued: new Set(['-u', '-C']) }],
  ['nohup', { valued: new Set() }],
  ['setsid', { valued: new Set() }],
  ['nice', { valued: new Set(['-n', '--adjustment']) }],
  ['ionice', { valued: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']) }],
  ['timeout', { valued: new Set(['-s', '--signal', '-k', '--kill-after']), skipFirst: 1 }],
  ['stdbuf', { valued: new Set(['-i', '-o', '-e', '--input', '--output', '--error']) }],
  ['time', { valued: new Set(['-f', '--format', '-o', '--output']) }],
  ['command', { valued: new Set() }],
  ['builtin', { valued: new Set() }],
  ['exec', { valued: new Set(['-a']) }],
  ['chronic', { valued: new Set() }],
  ['unbuffer', { valued: new Set() }],
  ['caffeinate', { valued: new Set(['-t', '-w']) }],
  ['flock', { valued: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']), skipFirst: 1, shellString: new Set(['-c', '--command']) }],
  ['script', { valued: new Set(['-t', '--timing', '-I', '-O', '-T', '-B', '-E', '-m']), shellString: new Set(['-c', '--command']), skipFirst: 1 }],
  ['su', { valued: new Set(['-s', '--shell', '-g', '-G']), shellString: new Set(['-c', '--command']), skipFirst: 1 }],
  ['runuser', { valued: new Set(['-u', '-g', '-G', '-s']), shellString: new Set(['-c', '--command']) }],
  ['systemd-run', { valued: new Set(['-p', '--property', '-u', '--unit', '-E', '--setenv', '--working-directory', '-d']) }],
  ['watch', { valued: new Set(['-n', '--interval', '-d', '--differences']) }],
  ['xargs', { valued: new Set(['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace']) }],
]);
/** Wrappers that join their command words into a string a shell runs (`watch`, `ssh host CMD`). */
export const JOINING_WRAPPERS: ReadonlySet<string> = new Set(['watch', 'ssh']);
/** Programs that drive another terminal, run commands later or elsewhere, or load code by name: their effect is not in the words the policy reads. */
export const OPAQUE: ReadonlySet<string> = new Set(['tmux', 'screen', 'expect', 'at', 'batch', 'crontab', 'parallel', 'hash', 'enable', 'fc', 'bind', 'complete', 'compgen', 'coproc', 'dtach', 'abduco', 'nsenter', 'unshare', 'chroot', 'firejail', 'bwrap', 'docker', 'podman', 'kubectl']);
/** npm's and its kin's runners of a package's bin (`npx pi-plans …`). */
export const PACKAGE_RUNNERS: ReadonlyMap<string, { sub?: ReadonlySet<string>; valued: ReadonlySet<string>; shellString?: ReadonlySet<string> }> = new Map([
  ['npx', { valued: new Set(['-p', '--package', '--node-options', '--cache']), shellString: new Set(['-c', '--call']) }],
  ['bunx', { valued: new Set(['-p', '--package']) }],
  ['npm', { sub: new Set(['exec', 'x']), valued: new Set(['-p', '--package', '-w', '--workspace', '--prefix']), shellString: new Set(['-c', '--call']) }],
  ['pnpm', { sub: new Set(['dlx', 'exec']), valued: new Set(['--package', '-C', '--dir', '--filter']), shellString: new Set(['-c', '--shell-mode']) }],
  ['yarn', { sub: new Set(['dlx', 'exec']), valued: new Set(['-p', '--package']) }],
]);

/**
 * Programs that only read (or only print): a computed argument (`wc -l "$f"`) cannot make them
 * write a file or run a command. Their redirections are judged like any other's. `git` is one for
 * its reading subcommands (GIT_READS).
 */
export const READERS: ReadonlySet<string> = new Set([
  'cat', 'head', 'tail', 'ls', 'wc', 'grep', 'egrep', 'fgrep', 'ag', 'ack', 'tree', 'stat', 'file', 'du', 'df', 'echo', 'printf', 'pwd', 'which', 'type', 'whereis',
  'realpath', 'readlink', 'basename', 'dirname', 'date', 'printenv', 'id', 'whoami', 'uname', 'hostname', 'diff', 'cmp', 'comm', 'cut', 'tr', 'nl', 'od', 'hexdump', 'xxd',
  'strings', 'jq', 'column', 'fold', 'fmt', 'paste', 'join', 'seq', 'true', 'false', 'test', '[', 'expr', 'sleep', 'export', 'local', 'declare', 'typeset', 'readonly',
  'set', 'shift', 'return', 'exit', 'break', 'continue', ':', 'read', 'wait', 'jobs', 'let', 'md5sum', 'sha1sum', 'sha256sum', 'cksum', 'base64', 'rev', 'tac', 'less', 'more',
]);
/** git's subcommands that read only. */
export const GIT_READS: ReadonlySet<string> = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'ls-tree', 'rev-parse', 'grep', 'describe', 'shortlog', 'cat-file', 'rev-list', 'merge-base', 'whatchanged', 'reflog', 'show-ref', 'for-each-ref', 'name-rev', 'count-objects', 'check-ignore', 'version', 'help']);
/** ripgrep runs a command for each file with `--pre`: then it is no reader. */
export const RG_RUNS = /^--pre(?:=|$)/;

/** Programs that act on a folder's whole content: naming a folder that holds something protected is acting on it. */
export const RECURSIVE_WRITERS: ReadonlySet<string> = new Set(['rm', 'mv', 'cp', 'rsync', 'chmod', 'chown', 'chgrp', 'find', 'trash', 'trash-put', 'gio', 'shred', 'rmdir', 'unlink', 'ln', 'tar', 'zip', 'git']);

/** Pi Plans' CLI, by the names its program or script goes by (`pi-plans`, `node dist/cli.js`, `./dist/bin.js`). */
export const CLI_PROGRAMS: ReadonlySet<string> = new Set(['pi-plans', 'pi-plans.js', 'pi-plans.cmd']);
export const CLI_SCRIPTS: ReadonlySet<string> = new Set(['pi-plans', 'pi-plans.js', 'cli.js', 'bin.js', 'hook.js', 'main.ts', 'bin.ts']);
/** The CLI's options before its verb that take a value. */
export const CLI_VALUED: ReadonlySet<string> = new Set(['--root']);

/**
 * The CLI's verbs that only a person may run (never a bound session, in any spelling): the
 * decisions on a plan, and the acts that free a session or forget a drift. `when` narrows a verb
 * to some of its forms (`setup --remove`, `drift --ack`, `hook release`).
 */
export interface PersonVerb {
  what: string;
  when?: (rest: readonly string[]) => boolean;
}
export const PERSON_VERBS: ReadonlyMap<string, PersonVerb> = new Map<string, PersonVerb>([
  ['approve', { what: 'approving a plan' }],
  ['confirm', { what: 'confirming an approval' }],
  ['trust', { what: 'trusting an approver' }],
  ['withdraw', { what: 'withdrawing an approval' }],
  ['resume', { what: 'resuming a stalled plan' }],
  ['retry', { what: 'retrying a failed plan' }],
  ['reopen', { what: 'reopening a plan' }],
  ['setup', { what: 'removing the agent hooks', when: (rest) => rest.some((w) => w === '--remove' || w.startsWith('--remove=')) }],
  ['drift', { what: 'acknowledging drift', when: (rest) => rest.some((w) => w === '--ack' || w.startsWith('--ack=')) }],
  // A dry run only reads; the removal is the person's (it takes the review copies a plan is compared with).
  ['gc', { what: "removing finished plans' records", when: (rest) => !rest.includes('--dry-run') }],
  // `hook` with no subcommand answers a payload: a forged one is the host's voice, not the agent's.
  ['hook', { what: 'releasing a session or feeding the hook a payload', when: (rest) => !['status', 'collect'].includes(rest[0] ?? '') }],
]);

/** Codex's patch tool as a command (`apply_patch <<'EOF' … EOF`): an edit of the patch's files, not a command. */
export const APPLY_PATCH: ReadonlySet<string> = new Set(['apply_patch', 'applypatch']);
