import { Command, Option } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ApprovalStanding,
  contentDigest,
  DIGEST_PATTERN,
  KEY_PATTERN,
  nextStatus,
  SeenPlan,
  describeComparison,
  shortKey,
  standingProblem,
  parsePlan,
  ReviewComment,
  isPlanError,
  isPlanId,
  progressOf,
  ProblemSeverity,
  PLAN_STATUSES,
  PlanDocument,
  PlanError,
  PlanStatus,
  sectionText,
} from '../core';
import * as readline from 'node:readline/promises';
import { clearPlanLock, NodeApprovalKeys, openNodeStore, userConfigDir } from '../node';
import { gitSetup, runMergeDriver } from './git';
import { approvePlan, changePlanStatus, compareWithReviewed, confirmApproval, rejectPlan } from '../service';
import { IndexEntry, PlanStore } from '../store';

/** The package version, set by the bundler (the CLI is built with esbuild). */
declare const __PI_PLANS_VERSION__: string | undefined;
const PKG_VERSION = typeof __PI_PLANS_VERSION__ === 'string' ? __PI_PLANS_VERSION__ : sourceVersion();

/** Run from source (tests, tsx), there is no bundler: the version is the repository's package.json. */
function sourceVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Output sinks, and the person at the terminal, so tests can run the CLI in-process. */
export interface CliIo {
  out(s: string): void;
  err(s: string): void;
  /**
   * Asks the person at the terminal and resolves to their answer; absent when there is no
   * terminal (a pipe, a script, an agent's tool call): nothing is then decided by asking.
   */
  ask?(question: string): Promise<string>;
}

/** A question on the terminal, when stdin and stdout are one. */
async function askTerminal(question: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

const realIo: CliIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), ...(process.stdin.isTTY && process.stdout.isTTY ? { ask: askTerminal } : {}) };

/** The approval (and whether it holds here) in one line for `show` and `list`. */
function standingLine(doc: PlanDocument, s: ApprovalStanding): string | undefined {
  if (s.state === 'valid') {
    const how = s.signer === 'own' ? 'signed with your key' : s.signer === 'trusted' ? 'signed with a key you trust' : 'approved on another machine, confirmed here';
    return `approved by ${s.approver}${doc.fm.approved_by === 'agent' ? ' (the agent, with agent approval on)' : ''} at v${s.version} (${how})`;
  }
  const problem = standingProblem(doc, s);
  if (!problem) return undefined;
  if (s.state === 'changed') return `CHANGED SINCE APPROVAL: ${problem}; submit it for review again`;
  if (s.state === 'foreign') return `APPROVED ELSEWHERE: ${problem} (\`pi-plans confirm ${doc.fm.id}\`)`;
  return `APPROVAL NOT VALID: ${problem}; submit it for review again`;
}

function entryLine(e: IndexEntry, flag?: string): string {
  if (!e.valid) return `${e.id}  INVALID  .pi/plans/${e.file}${e.error?.line ? `:${e.error.line}` : ''}: ${e.error?.message}`;
  const steps = e.steps ? `${e.stepsDone}/${e.steps} steps` : 'no steps';
  const note =
    flag === 'stalled'
      ? '  (no activity within executor_timeout_minutes: stalled?)'
      : flag === 'stale'
        ? '  (stale: waiting for review longer than stale_after_days)'
        : flag === 'changed'
          ? '  (CHANGED SINCE APPROVAL: approve it again before it runs)'
          : flag === 'unapproved'
            ? '  (APPROVAL NOT VALID: no valid approval record; a person approves it before it runs)'
            : flag === 'foreign'
              ? `  (APPROVED ELSEWHERE: confirm it with pi-plans confirm ${e.id} before it runs)`
              : '';
  return `${e.id}  ${e.status!.padEnd(12)} v${String(e.version).padEnd(4)} ${steps.padEnd(12)} ${e.title}${note}`;
}

function docJson(doc: PlanDocument, standing: ApprovalStanding) {
  const sections: Record<string, string> = {};
  for (const s of doc.outline.sections) if (s.depth === 2 && s.title.toLowerCase() !== 'steps') sections[s.title] = sectionText(doc, s.title) ?? '';
  return {
    ...doc.fm,
    digest: contentDigest(doc),
    approval: standing.state === 'none' ? undefined : { state: standing.state, ...(standing.state === 'invalid' ? { reason: standing.reason } : {}), problem: standingProblem(doc, standing) },
    steps: doc.steps.map(({ index: _i, bullet: _b, hasId: _h, ...s }) => s),
    sections,
    rejections: doc.rejections,
  };
}

/** Builds the `pi-plans` program. Exit codes: 0 ok, 1 refused or invalid, 2 usage. */
export function buildProgram(io: CliIo = realIo): Command {
  const program = new Command();
  program
    .name('pi-plans')
    .description('Read, validate and review the plans in .pi/plans of a workspace.')
    .option('--root <dir>', 'workspace folder that holds .pi/plans', process.cwd())
    .version(PKG_VERSION, '-V, --version', 'print the version')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();

  /** The store of --root; `index: false` for commands on one named plan (no index is built: the cost does not grow with the folder). */
  const store = async (opts: { index?: boolean } = {}): Promise<PlanStore> => {
    const root = program.opts<{ root: string }>().root;
    // A typo in a path is an error, not an empty list, and nothing is written for it.
    const st = await fs.promises.stat(root).catch(() => undefined);
    if (!st) throw new UsageError(`--root ${root} does not exist: pass the workspace folder that holds .pi/plans`);
    if (!st.isDirectory()) throw new UsageError(`--root ${root} is not a folder: pass the workspace folder that holds .pi/plans`);
    return openNodeStore(root, { index: opts.index });
  };
  const statusOption = () => new Option('--status <status...>', 'only plans in these statuses').choices([...PLAN_STATUSES]);

  program
    .command('list')
    .description('list plans (invalid files too, with their reason)')
    .addOption(statusOption())
    .option('--json', 'machine-readable output')
    .action(async (o: { status?: PlanStatus[]; json?: boolean }) => {
      const s = await store();
      const rows = s.list({ status: o.status });
      const keyring = await s.keyring();
      const flags = await Promise.all(rows.map((r) => s.attention(r, { keyring })));
      if (o.json) io.out(JSON.stringify(rows.map((r, i) => (flags[i] ? { ...r, attention: flags[i] } : r)), null, 2) + '\n');
      else if (!rows.length) io.out(`No plans${o.status ? ` with status ${o.status.join(', ')}` : ''} in ${path.join(s.root, '.pi/plans')}.\n`);
      else io.out(rows.map((r, i) => entryLine(r, flags[i])).join('\n') + '\n');
    });

  program
    .command('show <id>')
    .description('show one plan')
    .option('--json', 'machine-readable output')
    .action(async (id: string, o: { json?: boolean }) => {
      const st = await store({ index: false });
      const doc = await st.read(id);
      const standing = await st.approvalStanding(doc);
      if (o.json) io.out(JSON.stringify(docJson(doc, standing), null, 2) + '\n');
      else {
        const f = doc.fm;
        const { done, total } = progressOf(doc.steps);
        io.out(`${f.id}: ${f.title}\nstatus: ${f.status}   version: ${f.version}   steps: ${done}/${total} done   updated: ${f.updated_at}\n`);
        io.out(`digest: ${contentDigest(doc)}\n`);
        const line = standingLine(doc, standing);
        if (line) io.out(`${line}\n`);
        io.out(`${doc.body.replace(/^\s+/, '\n')}`);
        if (!doc.body.endsWith('\n')) io.out('\n');
      }
    });

  program
    .command('validate')
    .description('check every plan file fully; exit 1 when any is invalid (for CI)')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      const s = await store();
      type Row = { file: string; line?: number; column?: number; severity: ProblemSeverity; code: string; message: string };
      const problems: Row[] = [];
      if (s.configError) problems.push({ file: '.pi/plans.json', severity: 'error', code: 'invalid-config', message: s.configError.message });
      let checked = 0;
      // Every file the index lists, analyzed through the store (only regular files are ever opened):
      // each problem with its line, severity and rule, as the editor's Problems view shows them.
      for (const entry of [...s.list()].sort((a, b) => a.file.localeCompare(b.file))) {
        checked++;
        const file = `.pi/plans/${entry.file}`;
        if (!isPlanId(entry.id)) {
          problems.push({ file, line: entry.error?.line, severity: 'error', code: 'invalid-file-name', message: entry.error!.message });
          continue;
        }
        for (const p of (await s.analyze(entry.id)).problems) {
          problems.push(p.wholeFile ? { file, severity: p.severity, code: p.code, message: p.message } : { file, line: p.line, column: p.range.start.character + 1, severity: p.severity, code: p.code, message: p.message });
        }
      }
      const errors = problems.filter((p) => p.severity === 'error').length;
      const warnings = problems.filter((p) => p.severity === 'warning').length;
      if (o.json) io.out(JSON.stringify({ checked, errors, warnings, problems }, null, 2) + '\n');
      else {
        // Errors and warnings; notes (a step that gets its id on the next write) only in --json.
        for (const p of problems) {
          if (p.severity === 'info') continue;
          io.out(`${p.file}${p.line ? `:${p.line}` : ''}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}\n`);
        }
        const w = warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
        io.out(`${checked} plan file${checked === 1 ? '' : 's'} checked, ${errors} problem${errors === 1 ? '' : 's'}${w}.\n`);
      }
      if (errors) process.exitCode = 1;
    });

  const seen = () => new Option('--seen-version <n>', 'the version you reviewed (default: the current one)').argParser((v) => {
    if (!/^\d+$/.test(v)) throw new PlanError('INVALID_INPUT', '--seen-version takes a whole number');
    return Number(v);
  });

  // --comment S003="text" or --comment Risks="text", repeatable: a review comment on a step or a section.
  const comment = () =>
    new Option('--comment <anchor=text>', 'a comment on a step (S003="…") or a section (Risks="…"); repeatable').argParser((v: string, list: ReviewComment[] = []) => {
      const at = v.indexOf('=');
      if (at < 1 || !v.slice(at + 1).trim()) throw new UsageError(`--comment takes ANCHOR=TEXT, a step id or section title, "=", then the comment (e.g. --comment S003="Split this step"); got "${v.slice(0, 80)}"`);
      return [...list, { anchor: v.slice(0, at).trim(), body: v.slice(at + 1) }];
    });

  const digestOption = () =>
    new Option('--digest <digest>', 'for a script you run: the content digest of the text you reviewed (`pi-plans show ID` prints it)').argParser((v) => {
      if (!DIGEST_PATTERN.test(v)) throw new UsageError(`--digest takes the digest \`pi-plans show\` prints: sha256: and 64 hex digits (got "${v.slice(0, 80)}")`);
      return v;
    });

  /**
   * Refuses a person's decision where no person can be asked (a pipe, a script, an agent's tool
   * call). Worded for the person, never as a recipe for a model: it names what the person does,
   * and tells an agent reading it to ask the user instead.
   */
  const needsPerson = (what: string, where: string, agent: string): never => {
    throw new PlanError('HUMAN_ONLY', `${what}, and there is no terminal here to ask one. ${where} An agent reading this: ${agent}`);
  };

  /**
   * What the person decides on: on a terminal, the text shown to them there (title, version,
   * digest) and confirmed; for an approval in a script the person runs, the text `--digest`
   * names. Without a terminal and without a digest nothing is decided: a script or an agent
   * cannot stand in for the person. A confirmation takes no digest: only a person at a terminal.
   */
  const decided = async (st: PlanStore, id: string, o: { digest?: string; seenVersion?: number }, what: 'approve' | 'confirm'): Promise<SeenPlan> => {
    if (o.digest && what === 'approve') return { digest: o.digest, version: o.seenVersion };
    // A plan that cannot be approved now is refused for that reason first (not for want of a terminal).
    const current = await st.read(id);
    if (what === 'approve') nextStatus(id, current.fm.status, 'approve', 'cli');
    if (!io.ask) {
      if (what === 'approve') {
        needsPerson(`${id} was not approved: approving a plan is a person's decision`, `The person approves it in VS Code, or runs \`pi-plans approve ${id}\` in their own terminal (it shows the plan and asks).`, 'ask the user to review the plan; do not approve it yourself.');
      }
      needsPerson(
        `${id}: the approval was not confirmed: confirming an approval made on another machine is a person's decision`,
        `The person confirms it in VS Code (Pi Plans: Confirm Approval…), or runs \`pi-plans confirm ${id}\` in their own terminal.`,
        'ask the user; do not confirm it yourself.',
      );
    }
    const ask = io.ask!;
    const doc = current;
    const digest = contentDigest(doc);
    const { done, total } = progressOf(doc.steps);
    io.out(`${doc.fm.id}: ${doc.fm.title}\nstatus: ${doc.fm.status}   version: ${doc.fm.version}   steps: ${done}/${total} done\ndigest: ${digest}\n`);
    if (what === 'confirm') {
      const s = await st.approvalStanding(doc);
      if (s.state === 'foreign') io.out(`approved by ${s.approver} at v${s.version} on another machine, key ${shortKey(s.key)}\n`);
    }
    if (o.seenVersion !== undefined && o.seenVersion !== doc.fm.version) {
      throw new PlanError('STALE_APPROVAL', `the plan changed since you opened it: you reviewed v${o.seenVersion}, ${id} is now v${doc.fm.version}. Review the current version, then ${what} it.`);
    }
    const answer = await ask(what === 'approve' ? `Approve ${id} "${doc.fm.title}" at v${doc.fm.version}? [y/N] ` : `Confirm this approval of ${id} on this machine, so it can run? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new NotDone(`${id} was not ${what === 'approve' ? 'approved' : 'confirmed'}.`);
    return { digest, version: doc.fm.version, text: doc.text };
  };

  /** What could not be done beside a decision that was written: the decision stands, and each failure is named. */
  const warn = (id: string, decision: string, warnings: readonly string[] | undefined) => {
    for (const w of warnings ?? []) io.err(`pi-plans: warning: ${id} is ${decision}, and that stands; but ${w}\n`);
  };

  program
    .command('approve <id>')
    .description('approve a proposed plan (a person\'s decision): it shows the plan\'s title, version and digest and asks; in a script you run, --digest names the text you reviewed; comments become non-blocking suggestions')
    .addOption(digestOption())
    .addOption(seen())
    .addOption(comment())
    .action(async (id: string, o: { digest?: string; seenVersion?: number; comment?: ReviewComment[] }) => {
      const st = await store({ index: false });
      const seenPlan = await decided(st, id, o, 'approve');
      const { doc, warnings } = await approvePlan({ store: st }, id, { actor: 'cli', seen: seenPlan, comments: o.comment });
      io.out(`${id} approved at v${doc.fm.approved_version} (now v${doc.fm.version})${o.comment?.length ? ` with ${o.comment.length} suggestion${o.comment.length === 1 ? '' : 's'}` : ''}, signed by ${doc.fm.approver}.\n`);
      warn(id, 'approved', warnings);
    });

  program
    .command('confirm <id>')
    .description('confirm, on this machine, an approval made on another machine by a key not trusted here, so the plan can run (at a terminal: it shows who signed and asks)')
    .action(async (id: string) => {
      const st = await store({ index: false });
      const seenPlan = await decided(st, id, {}, 'confirm');
      const doc = await st.read(id);
      if (contentDigest(doc) !== seenPlan.digest) throw new PlanError('STALE_APPROVAL', `the text of ${id} changed since you read it: review it again (\`pi-plans show ${id}\`)`);
      await confirmApproval({ store: st }, id, { actor: 'cli' });
      io.out(`${id}: the approval by ${doc.fm.approver} at v${doc.fm.approved_version} is confirmed on this machine; the plan can run.\n`);
    });

  program
    .command('key')
    .description('show your approval key (made on first use, kept in your user configuration folder): give it to teammates who trust your approvals')
    .action(() => {
      const keys = new NodeApprovalKeys(userConfigDir(), () => [path.resolve(program.opts<{ root: string }>().root)]);
      const problem = keys.problem();
      if (problem) throw new PlanError('APPROVAL_INVALID', problem);
      const me = keys.identity(true);
      io.out(`${me.key}  ${me.name}\nkept in ${keys.configDir} (never in a workspace); a teammate trusts it with: pi-plans trust ${me.key} --name "${me.name}"\n`);
    });

  program
    .command('trust <key>')
    .description('trust another person\'s approval key: their approvals (made on their machine) run here without a confirmation (at a terminal: it names the key and asks)')
    .requiredOption('--name <name>', 'whose key it is')
    .action(async (key: string, o: { name: string }) => {
      const keys = new NodeApprovalKeys(userConfigDir(), () => [path.resolve(program.opts<{ root: string }>().root)]);
      if (!KEY_PATTERN.test(key)) throw new PlanError('INVALID_INPUT', `"${key.slice(0, 60)}" is not an approval key: it is ed25519: and 43 characters, as \`pi-plans key\` prints it`);
      const problem = keys.problem();
      if (problem) throw new PlanError('APPROVAL_INVALID', `the key cannot be trusted: ${problem}`);
      if (!io.ask) {
        needsPerson(
          "the key was not trusted: trusting another person's approval key is a person's decision",
          "The person runs `pi-plans trust` in their own terminal, or chooses Always Trust in VS Code's Confirm Approval.",
          'ask the user; do not trust a key yourself.',
        );
      }
      const answer = await io.ask!(`Trust approvals signed by ${shortKey(key)} as ${o.name}'s, on this machine? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) throw new NotDone(`${shortKey(key)} was not trusted.`);
      keys.trust(key, o.name);
      io.out(`Approvals signed by ${shortKey(key)} (${o.name}) are trusted on this machine.\n`);
    });

  program
    .command('reject <id>')
    .description('reject a proposed plan with feedback and comments for its author')
    .option('--feedback <text>', 'what must change, overall')
    .addOption(comment())
    .addOption(seen())
    .addOption(digestOption())
    .action(async (id: string, o: { feedback?: string; seenVersion?: number; digest?: string; comment?: ReviewComment[] }) => {
      if (!o.feedback?.trim() && !o.comment?.length) throw new UsageError('say what must change: --feedback "…" and/or --comment S003="…" (repeatable)');
      const { doc, warnings } = await rejectPlan({ store: await store({ index: false }) }, id, { actor: 'cli', feedback: o.feedback ?? '', seenVersion: o.seenVersion, seen: o.digest ? { digest: o.digest } : undefined, comments: o.comment });
      io.out(`${id} ${doc.fm.status === 'needs_review' ? 'rejected a third time: needs_review (reopen it to continue)' : 'rejected'} (v${doc.fm.version}).\n`);
      warn(id, 'rejected', warnings);
    });

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
        const step = /^[+~↕-] (S\d{3,4}) /.exec(line)?.[1];
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

  for (const [name, action, what] of [
    ['cancel', 'cancel', 'cancel a plan'],
    ['reopen', 'reopen', 'reopen a plan in needs_review as a draft'],
    ['retry', 'retry', 'send a failed or stalled plan back to approved'],
    ['resume', 'resume', 'resume a failed or stalled plan (executing again)'],
  ] as const) {
    const cmd = program.command(`${name} <id>`).description(what);
    if (name === 'cancel') cmd.option('--reason <text>', 'why');
    cmd.action(async (id: string, o: { reason?: string }) => {
      const { doc } = await changePlanStatus({ store: await store({ index: false }) }, id, action, { actor: 'cli', reason: o.reason });
      io.out(`${id} is now ${doc.fm.status} (v${doc.fm.version}).\n`);
    });
  }

  program
    .command('mcp')
    .description('serve the plan tools over MCP on stdin/stdout (for Claude Code, Codex, Cursor, any MCP client)')
    .option('--review-wait <seconds>', 'how long pi_plan_submit waits for the person\'s decision before answering "still awaiting review"', wholeNumber('--review-wait takes a whole number of seconds, e.g. --review-wait 45'))
    .action(async (o: { reviewWait?: number }) => {
      // Loaded only for this command: the MCP SDK stays out of every other command's start-up.
      const [{ checkRoot, serveMcp }, { StdioServerTransport }] = await Promise.all([import('../mcp/server'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
      const root = path.resolve(program.opts<{ root: string }>().root);
      const problem = checkRoot(root);
      if (problem) throw new UsageError(problem);
      io.err(`[pi-plans mcp] serving ${root} on stdio\n`);
      await serveMcp({ root, reviewWaitMs: o.reviewWait !== undefined ? o.reviewWait * 1000 : undefined, log: (l) => io.err(`[pi-plans mcp] ${l}\n`), version: PKG_VERSION }, new StdioServerTransport());
    });

  program
    .command('merge-driver <base> <ours> <theirs> [path]')
    .description('git merge driver for plan files (%O %A %B %P): merges by step id and frontmatter key; set up by git-setup')
    .option('--marker-size <n>', 'conflict marker length (git\'s %L)', wholeNumber('--marker-size takes a whole number (git passes %L)'))
    .action((base: string, ours: string, theirs: string, file: string | undefined, o: { markerSize?: number }) => {
      process.exitCode = runMergeDriver({ base, ours, theirs, path: file, markerSize: o.markerSize }, io);
    });

  program
    .command('git-setup')
    .description('register the merge driver in this repository\'s git config and write .gitattributes and .pi/plans/.gitignore (the git policy)')
    .option('--command <cmd>', 'how git should run pi-plans (default: this Node and this script, by absolute path)')
    .action((o: { command?: string }) => {
      const root = path.resolve(program.opts<{ root: string }>().root);
      process.exitCode = gitSetup(root, { command: o.command, cli: path.resolve(process.argv[1] ?? 'pi-plans') }, io);
    });

  program
    .command('unlock <id>')
    .description('clear a plan\'s lock left by a crashed writer, or something planted where the lock goes (a link is removed itself, never its target); a lock a live process holds is not cleared')
    .action(async (id: string) => {
      const st = await store({ index: false });
      const removed = await clearPlanLock(st.pathOf(id), { root: st.root });
      io.out(removed ? `${id}: its lock (${removed.kind}${removed.owners.length ? `, held by pid ${removed.owners.map((o) => `${o.pid} on ${o.host}`).join(', ')}` : ''}) was cleared.\n` : `${id} has no lock to clear.\n`);
    });

  program
    .command('clone <id>')
    .description('start a new proposed plan from a finished, rejected or failed one')
    .action(async (id: string) => {
      const doc = await (await store({ index: false })).clone(id, 'cli');
      io.out(`${doc.fm.id} created from ${id} (proposed).\n`);
    });

  // A usage error ends with commander's "Did you mean …?" and where to read more, not the whole
  // help: pages of help would push the error and the suggestion off the screen.
  for (const cmd of [program, ...program.commands]) {
    cmd.showHelpAfterError(cmd === program ? 'Run `pi-plans --help` for the commands and options.' : `Run \`pi-plans ${cmd.name()} --help\` for its arguments and options.`);
  }

  return program;
}

/** An option's parser for a whole number; anything else is a usage error that says what to pass. */
function wholeNumber(usage: string): (v: string) => number {
  return (v) => {
    if (!/^\d+$/.test(v)) throw new UsageError(usage);
    return Number(v);
  };
}

/** An option's parser for a version as plans and messages write it, `v3` (or `V3`), or as a bare number, `3`. */
function versionNumber(usage: string): (v: string) => number {
  const whole = wholeNumber(usage);
  return (v) => whole(v.replace(/^[vV]/, ''));
}

/** A wrong argument: exit code 2, like commander's own usage errors. */
class UsageError extends Error {}

/** The person said no at the prompt: nothing was done (exit code 1, the message on stderr). */
class NotDone extends Error {}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo = realIo): Promise<number> {
  const program = buildProgram(io);
  process.exitCode = 0;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (e) {
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) {
      return ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version' ? 0 : 2;
    }
    if (e instanceof UsageError) {
      io.err(`pi-plans: ${e.message}\n`);
      return 2;
    }
    if (e instanceof NotDone) {
      io.err(`${e.message}\n`);
      return 1;
    }
    if (isPlanError(e)) {
      io.err(`pi-plans: ${e.toLocatedString()}\n`);
      return 1;
    }
    io.err(`pi-plans: ${(e as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
