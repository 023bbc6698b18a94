import * as vscode from 'vscode';
import { HookChoice, writeUserHookSettings } from '../../hosts/install/userSettings';
import { userConfigDir } from '../../node/ports/userFolders';
import { SETTINGS } from '../common/ids';

/**
 * `piPlans.hooks.planningTerminal` and `piPlans.hooks.otherFiles`, set in the person's user
 * settings, written where `pi-plans hook` reads them: Pi Plans' `config.json` in their
 * configuration folder (outside every workspace, as the hook reads no policy a workspace file
 * could relax). At activation and whenever the person changes either.
 */
export class HookSettingsSync implements vscode.Disposable {
  private readonly disposable: vscode.Disposable;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.disposable = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.hooksPlanningTerminal}`) || e.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.hooksOtherFiles}`)) this.sync();
    });
    this.sync();
  }

  dispose(): void {
    this.disposable.dispose();
  }

  /** Writes the person's choices (their user settings only; defaults are not written). */
  sync(): void {
    const c = vscode.workspace.getConfiguration(SETTINGS.section);
    const user = (key: string) => c.inspect<HookChoice>(key)?.globalValue;
    try {
      if (writeUserHookSettings(userConfigDir(), { planningTerminal: user(SETTINGS.hooksPlanningTerminal), otherFiles: user(SETTINGS.hooksOtherFiles) })) this.log.info('Agent hook settings written to your Pi Plans configuration (config.json).');
    } catch (e) {
      this.log.warn(`Agent hook settings were not written to your Pi Plans configuration: ${(e as Error).message}`);
    }
  }
}
