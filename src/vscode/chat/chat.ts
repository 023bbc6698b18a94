import * as vscode from 'vscode';
import { byAttention, isPlanError, PLAN_ID_PATTERN, planCommands, PlanCommand, planGraph, progressOf, wavesOf, type PlanDocument } from '../../core';
import { submitPlan } from '../../service';
import type { PlanStore } from '../../store';
import { HOST_NAMES } from '../../hosts/setup/targets';
import { hooksSetUp } from '../../hosts/install/apply';
import { COLLECT_PROMPT } from '../../tools/chatFiles';
import { PLANNING_STRATEGIES, renderPlanningSection, type PlanningStrategy } from '../../tools/strategies';
import { openAgentChat } from '../shell/planCommands';
import type { WorkspaceActivePlans } from '../workspace/activePlans';
import { CHAT, COMMANDS, PLAN_COMMAND_IDS, SETTINGS } from '../common/ids';
import { statusIcon } from '../common/planIcons';
import type { WorkspacePlans } from '../workspace/workspacePlans';

/** What a finished answer says about itself (the follow-ups read it). */
interface PlansResultMetadata {
  command: string;
  id?: string;
  status?: string;
}

/** A plan found for a command: its store, id and folder name. */
interface Target {
  store: PlanStore;
  id: string;
  folder: string;
}

/** The plan tools a planning turn may call: drafting and reading, never deciding or executing. */
const PLANNING_TOOLS = new Set(['pi_plan_create', 'pi_plan_step', 'pi_plan_update', 'pi_plan_set_content', 'pi_plan_get', 'pi_plan_list']);
/** Rounds of tool calls one planning turn may take. */
const MAX_ROUNDS = 8;

const BUTTON_TITLES: Record<PlanCommand, string> = {
  approve: 'Approve',
  reject: 'Reject…',
  confirm: 'Confirm approval…',
  execute: 'Execute in Copilot',
  resume: 'Resume',
  retry: 'Retry',
  reopen: 'Reopen',
  startWork: 'Start plan work',
  withdraw: 'Withdraw approval',
  clone: 'Clone',
  cancel: 'Cancel…',
  archive: 'Archive',
};

const STEP_ICONS: Record<string, string> = {
  pending: '$(circle-large-outline)',
  in_progress: '$(sync)',
  done: '$(pass-filled)',
  skipped: '$(debug-step-over)',
  blocked: '$(error)',
  failed: '$(error)',
};

/** The help every answer without a plan to show ends with. */
const HELP = [
  '`/on [PLAN-id | title]` start plan work (a title starts a new draft)',
  '`/done` end plan work',
  '`/reset` end plan work and forget the plan',
  '`/list` plans by status',
  '`/show [PLAN-id]` a plan as a card',
  '`/approve [PLAN-id]`, `/reject [PLAN-id] <feedback>` your decision',
  '`/execute [PLAN-id]` hand an approved plan to agent mode',
  '`/collect <task>` plan by trying: agent mode\'s edits and commands become the steps of a draft',
];

/**
 * The `@plans` chat participant: plan work from the conversation. Slash commands act without a
 * language model, through the same commands as the explorer and the CodeLens; free text is a
 * short planning turn with the plan tools that ends with the plan's review card.
 */
export class PlansChat implements vscode.Disposable {
  private readonly participant: vscode.ChatParticipant;

  constructor(
    private readonly plans: WorkspacePlans,
    private readonly active: WorkspaceActivePlans,
    extensionUri: vscode.Uri,
  ) {
    this.participant = vscode.chat.createChatParticipant(CHAT.participant, (request, context, stream, token) => this.handle(request, context, stream, token));
    this.participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'plans-activity.svg');
    this.participant.followupProvider = { provideFollowups: (result) => this.followups(result.metadata as PlansResultMetadata | undefined) };
  }

  dispose(): void {
    this.participant.dispose();
  }

  private async handle(request: vscode.ChatRequest, _context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    await this.plans.ready;
    const arg = request.prompt.trim();
    try {
      switch (request.command) {
        case 'list':
          return this.list(stream);
        case 'show':
          return await this.show(stream, arg);
        case 'on':
          return await this.on(stream, arg);
        case 'done':
        case 'reset':
          return await this.end(stream, request.command === 'reset');
        case 'approve':
          return await this.decide(stream, 'approve', arg);
        case 'reject':
          return await this.decide(stream, 'reject', arg);
        case 'execute':
          return await this.execute(stream, arg);
        case 'collect':
          return await this.collect(stream, arg);
        default:
          return await this.plan(request, stream, token);
      }
    } catch (e) {
      const message = isPlanError(e) ? e.message : e instanceof Error ? e.message : String(e);
      return { errorDetails: { message }, metadata: { command: request.command ?? 'plan' } satisfies PlansResultMetadata };
    }
  }

  // ---------- finding the plan ----------

  /** The plan a command names (a plan id in its text), else the active plan, else the one plan work was last on. */
  private target(arg: string, fallback?: (entry: { status?: string }) => boolean): Target | undefined {
    const id = /\bPLAN-[0-9a-f]{8}\b/.exec(arg)?.[0];
    const find = (x: string) => this.plans.folders().find((f) => f.store.entry(x));
    if (id) {
      const f = find(id);
      return f ? { store: f.store, id, folder: f.name } : undefined;
    }
    const last = this.active.last();
    for (const a of last ? [...this.active.list(), last] : this.active.list()) {
      const f = find(a.id);
      if (f) return { store: f.store, id: a.id, folder: f.name };
    }
    // The one plan that fits (the one proposed plan, for a decision), when there is exactly one.
    if (fallback) {
      const fits = this.plans.folders().flatMap((f) => f.store.list().filter((e) => e.valid && fallback(e)).map((e) => ({ store: f.store, id: e.id, folder: f.name })));
      if (fits.length === 1) return fits[0];
    }
    return undefined;
  }

  private notFound(stream: vscode.ChatResponseStream, arg: string, command: string): vscode.ChatResult {
    const id = /\bPLAN-[0-9a-f]{8}\b/.exec(arg)?.[0];
    stream.markdown(
      id
        ? vscode.l10n.t('{0} is not a plan of this workspace (removed or archived?). `/list` shows the plans there are.', id)
        : vscode.l10n.t('Which plan? Name it (`/{0} PLAN-…`), or start plan work on one with `/on`. `/list` shows the plans.', command),
    );
    return { metadata: { command } satisfies PlansResultMetadata };
  }

  // ---------- slash commands ----------

  private list(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const folders = this.plans.folders();
    if (!folders.some((f) => f.store.list().length)) {
      stream.markdown(vscode.l10n.t('No plans in this workspace yet. Start one with `/on <title>`, or ask me to plan a task.'));
      return { metadata: { command: 'list' } satisfies PlansResultMetadata };
    }
    for (const f of folders) {
      const rows = f.store.list();
      if (!rows.length) continue;
      const uri = folderUri(f.name);
      const flagOf = (e: { file: string }) => (uri ? this.plans.attention(uri, e.file) : undefined);
      const md = new vscode.MarkdownString('', true);
      if (folders.length > 1) md.appendMarkdown(`**${escape(f.name)}**\n\n`);
      for (const e of rows.map((r) => ({ ...r, flag: flagOf(r) })).sort(byAttention)) {
        if (!e.valid || !e.status) {
          md.appendMarkdown(`- $(warning) \`${e.file}\`: ${escape(e.error?.message ?? 'invalid')}\n`);
          continue;
        }
        const flag = e.flag ? ` · ${e.flag}` : '';
        md.appendMarkdown(`- ${statusIcon(e.status, e.flag)} **${escape(e.title ?? e.id)}** · \`${e.id}\` · ${e.status.replace('_', ' ')}${flag} · ${e.stepsDone}/${e.steps} ${vscode.l10n.t('steps')}\n`);
      }
      stream.markdown(md);
    }
    stream.markdown(vscode.l10n.t('\n`/show PLAN-…` shows one as a card.'));
    return { metadata: { command: 'list' } satisfies PlansResultMetadata };
  }

  private async show(stream: vscode.ChatResponseStream, arg: string): Promise<vscode.ChatResult> {
    const t = this.target(arg, (e) => e.status === 'proposed');
    if (!t) return this.notFound(stream, arg, 'show');
    const doc = await this.card(stream, t);
    return { metadata: { command: 'show', id: t.id, status: doc.fm.status } satisfies PlansResultMetadata };
  }

  private async on(stream: vscode.ChatResponseStream, arg: string): Promise<vscode.ChatResult> {
    let t: Target | undefined;
    if (arg && !PLAN_ID_PATTERN.test(arg)) {
      // A title: a new draft, with plan work on it.
      const folder = this.plans.folders()[0];
      if (!folder) {
        stream.markdown(vscode.l10n.t('Open a folder first: plans live in its `.pi/plans` folder.'));
        return { metadata: { command: 'on' } satisfies PlansResultMetadata };
      }
      const doc = await folder.store.create({ title: arg }, 'user');
      t = { store: folder.store, id: doc.fm.id, folder: folder.name };
      stream.markdown(vscode.l10n.t('New draft {0}.', t.id) + '\n\n');
    } else {
      t = this.target(arg);
      if (t && !arg && isDone(t.store.entry(t.id)?.status)) t = undefined;
    }
    if (!t) {
      const open = this.plans.folders().flatMap((f) => f.store.list().filter((e) => e.valid && !isDone(e.status)).map((e) => ({ e, f })));
      if (!open.length) {
        stream.markdown(vscode.l10n.t('No plan to work on. `/on <title>` starts a new draft, or ask me to plan a task.'));
        return { metadata: { command: 'on' } satisfies PlansResultMetadata };
      }
      stream.markdown(vscode.l10n.t('Work on which plan? (`/on <title>` starts a new one.)') + '\n\n');
      for (const { e } of open.slice(0, 10)) stream.button({ command: COMMANDS.startWork, arguments: [{ id: e.id }], title: `${e.title ?? e.id} (${e.id})` });
      return { metadata: { command: 'on' } satisfies PlansResultMetadata };
    }
    await this.active.set(t.id, t.folder);
    stream.markdown(vscode.l10n.t('Plan work is on for {0}: the plan tools are available to agents, and the plan is their source of truth.', t.id) + '\n\n');
    const doc = await this.card(stream, t);
    return { metadata: { command: 'on', id: t.id, status: doc.fm.status } satisfies PlansResultMetadata };
  }

  private async end(stream: vscode.ChatResponseStream, forget: boolean): Promise<vscode.ChatResult> {
    const was = await this.active.endWork({ forget });
    const ids = was.map((a) => a.id).join(', ');
    if (forget) stream.markdown(was.length ? vscode.l10n.t('Plan work ended on {0}, and no plan is remembered: `/on` starts afresh.', ids) : vscode.l10n.t('No plan work was active; no plan is remembered now.'));
    else stream.markdown(was.length ? vscode.l10n.t('Plan work ended on {0}. The plan stays as it is; `/on` resumes it.', ids) : vscode.l10n.t('No plan work is active. `/on` starts it.'));
    return { metadata: { command: forget ? 'reset' : 'done' } satisfies PlansResultMetadata };
  }

  /** A person's decision, through the same commands as the explorer and the CodeLens (approval is confirmed in a modal). */
  private async decide(stream: vscode.ChatResponseStream, what: 'approve' | 'reject', arg: string): Promise<vscode.ChatResult> {
    const t = this.target(arg, (e) => e.status === 'proposed');
    if (!t) return this.notFound(stream, arg, what);
    const feedback = arg.replace(/\bPLAN-[0-9a-f]{8}\b/, '').trim();
    if (what === 'reject' && !feedback) {
      stream.markdown(vscode.l10n.t('Say what must change: `/reject {0} <feedback>`. Comments on steps go with it.', t.id));
      return { metadata: { command: what, id: t.id } satisfies PlansResultMetadata };
    }
    const version = t.store.entry(t.id)?.version;
    const r = await vscode.commands.executeCommand<{ status: string } | undefined>(what === 'approve' ? PLAN_COMMAND_IDS.approve : PLAN_COMMAND_IDS.reject, what === 'approve' ? { id: t.id, version } : { id: t.id, version, feedback });
    if (!r) stream.markdown(vscode.l10n.t('{0} is unchanged (not confirmed, or refused: see the notification).', t.id) + '\n\n');
    const doc = await this.card(stream, t);
    return { metadata: { command: what, id: t.id, status: doc.fm.status } satisfies PlansResultMetadata };
  }

  private async execute(stream: vscode.ChatResponseStream, arg: string): Promise<vscode.ChatResult> {
    const t = this.target(arg, (e) => e.status === 'approved');
    if (!t) return this.notFound(stream, arg, 'execute');
    const status = t.store.entry(t.id)?.status;
    if (!status || !planCommands(status, { flag: this.flagOf(t) }).includes('execute')) {
      stream.markdown(vscode.l10n.t('{0} is {1}: only an approved or executing plan runs.', t.id, status ?? 'invalid') + '\n\n');
      await this.card(stream, t);
      return { metadata: { command: 'execute', id: t.id, status } satisfies PlansResultMetadata };
    }
    stream.markdown(vscode.l10n.t('Handing {0} to agent mode.', t.id));
    await vscode.commands.executeCommand(PLAN_COMMAND_IDS.execute, { id: t.id });
    return { metadata: { command: 'execute', id: t.id, status } satisfies PlansResultMetadata };
  }

  /**
   * Collect mode from chat: what it is, whether hooks enforce it in this folder, and with a task,
   * agent mode asked to plan it in collect mode (pi_plan_create with collect: true; the hook binds
   * the session and records each edit or command it tries as a step).
   */
  private async collect(stream: vscode.ChatResponseStream, task: string): Promise<vscode.ChatResult> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const hosts = folder?.uri.scheme === 'file' ? [...new Set(hooksSetUp(folder.uri.fsPath).map((h) => HOST_NAMES[h.host]))] : [];
    stream.markdown(
      vscode.l10n.t(
        'Collect mode plans by trying: agent mode creates a draft with `pi_plan_create` and `collect: true`, then goes about the task; each file edit or terminal command it tries is not run but recorded as a step of the draft (its tool, operation and target), and `pi_plan_submit` puts the plan up for your review. A draft that collected nothing is cancelled.',
      ) + '\n\n',
    );
    if (!hosts.length) {
      stream.markdown(vscode.l10n.t('No pi-plans hooks are set up for this folder, so nothing would be intercepted: run **Pi Plans: Set Up an Agent…** first.') + '\n\n');
      stream.button({ command: COMMANDS.setUpAgent, arguments: ['copilot', 'workspace', folder?.uri], title: vscode.l10n.t('Set Up Copilot\'s Hooks') });
      return { metadata: { command: 'collect' } satisfies PlansResultMetadata };
    }
    if (!task) {
      stream.markdown(vscode.l10n.t('Hooks enforce it here for {0}. Give the task: `/collect <task>`.', hosts.join(', ')));
      return { metadata: { command: 'collect' } satisfies PlansResultMetadata };
    }
    stream.markdown(vscode.l10n.t('Handing the task to agent mode in collect mode (hooks for {0}).', hosts.join(', ')));
    await openAgentChat(`${COLLECT_PROMPT}${task}`);
    return { metadata: { command: 'collect' } satisfies PlansResultMetadata };
  }

  // ---------- free text: a planning turn ----------

  private async plan(request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    if (!request.prompt.trim()) {
      stream.markdown(vscode.l10n.t('Tell me what to plan, or use a command:') + '\n\n' + HELP.map((h) => `- ${h}`).join('\n'));
      return { metadata: { command: 'help' } satisfies PlansResultMetadata };
    }
    const strategy = vscode.workspace.getConfiguration(SETTINGS.section).get<PlanningStrategy>(SETTINGS.strategy, 'react');
    const t = this.target('');
    const current = t ? await t.store.read(t.id).catch(() => undefined) : undefined;
    const tools = vscode.lm.tools.filter((x) => PLANNING_TOOLS.has(x.name));
    const brief = [
      'You draft and revise plans with the Pi Plans tools. You do not execute anything and you do not submit: the user reviews the plan when you are done.',
      renderPlanningSection(PLANNING_STRATEGIES.includes(strategy) ? strategy : 'react'),
      current && !isDone(current.fm.status)
        ? `The active plan is ${current.fm.id} (${current.fm.status}). Revise it (pi_plan_step, pi_plan_update, pi_plan_set_content) rather than creating another. Its Markdown:\n\n${current.text}`
        : 'There is no active plan: create one with pi_plan_create.',
      'Keep your reply short: say what you changed.',
    ].join('\n\n');
    const messages = [vscode.LanguageModelChatMessage.User(brief), vscode.LanguageModelChatMessage.User(request.prompt)];
    let rounds = 0;
    try {
      for (;;) {
        const response = await request.model.sendRequest(messages, { tools: tools.map((x) => ({ name: x.name, description: x.description, inputSchema: x.inputSchema })) }, token);
        const calls: vscode.LanguageModelToolCallPart[] = [];
        const said: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            stream.markdown(part.value);
            said.push(part);
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            calls.push(part);
            said.push(part);
          }
        }
        if (!calls.length || ++rounds > MAX_ROUNDS || token.isCancellationRequested) break;
        messages.push(vscode.LanguageModelChatMessage.Assistant(said));
        const results: vscode.LanguageModelToolResultPart[] = [];
        for (const call of calls) {
          stream.progress(vscode.l10n.t('Running {0}…', call.name));
          const result = PLANNING_TOOLS.has(call.name)
            ? await Promise.resolve(vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: request.toolInvocationToken }, token)).catch((e: unknown) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`Error: ${e instanceof Error ? e.message : String(e)}`)]))
            : new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`${call.name} is not available while planning here; use the plan tools.`)]);
          results.push(new vscode.LanguageModelToolResultPart(call.callId, result.content));
        }
        messages.push(vscode.LanguageModelChatMessage.User(results));
      }
    } catch (e) {
      if (e instanceof vscode.LanguageModelError) {
        stream.markdown(vscode.l10n.t('No language model answered ({0}). The commands work without one:', e.message) + '\n\n' + HELP.map((h) => `- ${h}`).join('\n'));
        return { metadata: { command: 'plan' } satisfies PlansResultMetadata };
      }
      throw e;
    }
    // The review card of the plan the turn worked on (a draft with steps is put up for review).
    const after = this.target('');
    if (!after) return { metadata: { command: 'plan' } satisfies PlansResultMetadata };
    const entry = after.store.entry(after.id);
    if (entry?.status === 'draft' && entry.steps > 0) {
      await submitPlan({ store: after.store, folder: after.folder, active: this.active }, after.id, { actor: 'agent' }).catch((e: unknown) => {
        stream.markdown(`\n\n${isPlanError(e) ? e.message : String(e)}`);
      });
    }
    stream.markdown('\n\n');
    const doc = await this.card(stream, after);
    return { metadata: { command: 'plan', id: after.id, status: doc.fm.status } satisfies PlansResultMetadata };
  }

  // ---------- the card ----------

  private flagOf(t: Target) {
    const uri = folderUri(t.folder);
    return uri ? this.plans.attention(uri, `${t.id}.md`) : undefined;
  }

  /** A plan as a card: status, progress, steps, the file as a reference, and a button per action valid now. */
  private async card(stream: vscode.ChatResponseStream, t: Target): Promise<PlanDocument> {
    const doc = await t.store.read(t.id);
    const fm = doc.fm;
    const flag = this.flagOf(t);
    const { done, total } = progressOf(doc.steps);
    const uri = vscode.Uri.file(t.store.pathOf(t.id));
    stream.markdown(new vscode.MarkdownString(`### ${statusIcon(fm.status, flag)} ${escape(fm.title)}\n\n`, true));
    stream.anchor(uri, `${fm.id}.md`);
    const md = new vscode.MarkdownString('', true);
    md.appendMarkdown(` · **${fm.status.replace('_', ' ')}**${flag ? ` (${flag})` : ''} · v${fm.version} · ${done}/${total} ${vscode.l10n.t('steps done')}\n\n`);
    for (const s of doc.steps.slice(0, 30)) md.appendMarkdown(`- ${STEP_ICONS[s.status] ?? ''} \`${s.id}\` ${escape(s.text)}\n`);
    if (doc.steps.length > 30) md.appendMarkdown(`- … ${vscode.l10n.t('{0} more', doc.steps.length - 30)}\n`);
    // A plan that uses `after:` lines runs in waves: the steps of one can go to subagents together.
    const graph = planGraph(doc.steps);
    if (graph.explicit.size) {
      const waves = wavesOf(doc.steps, graph).waves.slice(0, 12).map((w, i) => `${i + 1}: ${w.map((id) => `\`${id}\``).join(' ')}`);
      md.appendMarkdown(`\n**${vscode.l10n.t('Waves')}** (${vscode.l10n.t('steps that can run together')}): ${waves.join(' · ')}\n`);
    }
    stream.markdown(md);
    stream.reference(uri);
    const version = fm.version;
    stream.button({ command: COMMANDS.open, arguments: [{ id: t.id }], title: vscode.l10n.t('Open') });
    for (const c of planCommands(fm.status, { flag })) {
      if (c === 'archive' || c === 'clone') continue;
      if (c === 'startWork' && this.active.list().some((a) => a.id === t.id)) continue; // already on
      stream.button({ command: PLAN_COMMAND_IDS[c], arguments: [{ id: t.id, version }], title: vscode.l10n.t(BUTTON_TITLES[c]) });
    }
    return doc;
  }

  private followups(meta: PlansResultMetadata | undefined): vscode.ChatFollowup[] {
    if (!meta) return [];
    const out: vscode.ChatFollowup[] = [];
    if (meta.id && meta.status === 'approved') out.push({ prompt: meta.id, command: 'execute', label: vscode.l10n.t('Execute the approved plan') });
    if (meta.id && meta.status === 'proposed') out.push({ prompt: meta.id, command: 'approve', label: vscode.l10n.t('Approve {0}', meta.id) });
    if (meta.id && meta.command !== 'show') out.push({ prompt: meta.id, command: 'show', label: vscode.l10n.t('Show {0}', meta.id) });
    if (meta.command !== 'list') out.push({ prompt: '', command: 'list', label: vscode.l10n.t('List the plans') });
    return out;
  }
}

/** The workspace folder of a name, as the stores are named. */
function folderUri(name: string): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.find((w) => w.name === name)?.uri;
}

function isDone(status: string | undefined): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'superseded';
}

/** Text that Markdown would read as markup, escaped. */
function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
