// What the UI tests do the same way in every file: run a palette command, keep a screenshot of a
// failed test, close a workbench and remove its folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './codeServer.mjs';

const RESULTS = path.join(ROOT, 'test-results');

/** Runs a command from the palette by its title, as a person with a keyboard does. */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  // The palette must hold the keyboard focus before its text is typed: a focus that moves after F1
  // (a click's editor focus arriving late) closes it, and this then fails naming where the focus went.
  const input = page.locator('.quick-input-widget input');
  await waitForFocus(input);
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/**
 * Opens a row's context menu (a right click) and chooses `label` by the keyboard, as a person
 * does: down the menu until it is focused, then Enter. Fails, naming the menu's items, when the
 * menu has no such item.
 */
export async function chooseFromContextMenu(page, row, label) {
  await row.click({ button: 'right' });
  const menu = page.locator('.context-view .monaco-menu');
  await menu.waitFor({ timeout: 10_000 });
  const items = await menu.locator('.action-label').allInnerTexts();
  if (!items.includes(label)) throw new Error(`no "${label}" in the row's menu: ${items.join(' | ')}`);
  for (let i = 0; i < items.length && !(await menu.locator('.action-item.focused', { hasText: label }).count()); i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
}

/**
 * Waits until `locator`'s element has the keyboard focus in a document that has the focus (a key
 * pressed now reaches it), in its own frame (a webview's too). Fails naming where the focus is.
 */
export async function waitForFocus(locator, timeout = 10_000) {
  const handle = await locator.elementHandle({ timeout });
  const frame = await handle.ownerFrame();
  try {
    await frame.waitForFunction((e) => e === document.activeElement && document.hasFocus(), handle, { timeout });
  } catch (e) {
    const describe = () => { const a = document.activeElement; return `${a?.tagName}.${a?.className} ${a?.getAttribute?.('aria-label') ?? a?.getAttribute?.('data-href')} hasFocus=${document.hasFocus()}`; };
    const where = await locator.page().evaluate(describe).catch(() => '?');
    const inner = await frame.evaluate(describe).catch(() => '?');
    throw new Error(`the focus did not reach ${locator} in ${timeout} ms: the workbench's is on ${where}; the frame's on ${inner}`, { cause: e });
  } finally {
    await handle.dispose();
  }
}

/** In an `afterEach`: a failed test leaves a screenshot in test-results/ named after it. */
export async function keepFailureShot(test, page, prefix) {
  if (test?.state !== 'failed' || !page) return;
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, `${prefix}-${test.title.replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
}

/** Stops the browser and code-server of a test file and removes its workspace folder. */
export async function closeWorkbench({ browser, server, folder }) {
  await browser?.stop();
  await server?.stop();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
}
