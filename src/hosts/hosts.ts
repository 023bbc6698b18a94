// The hosts Pi Plans integrates with, by id: one profile per folder. A new host is a new folder
// (its tools, answers and setup targets) and one line here.
import { claude } from './claude';
import { codex } from './codex';
import { copilot } from './copilot';
import { copilotCli } from './copilot-cli';
import type { HookHost, HostProfile } from './host';
import type { SetupRequest, SetupTarget } from './setup/targets';

export const HOSTS: Readonly<Record<HookHost, HostProfile>> = { claude, codex, copilot, 'copilot-cli': copilotCli };

/** The files and edits `pi-plans setup` makes for a request, in the order they are reported. */
export function setupTargets(req: SetupRequest): SetupTarget[] {
  return HOSTS[req.agent].setupTargets(req);
}
