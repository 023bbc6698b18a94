/** The webview's line to the extension: VS Code's API (acquired once) and the messages it posts. */
import type { FromWebview } from '../protocol/planEditor';

declare function acquireVsCodeApi(): { postMessage(m: FromWebview): void; getState(): unknown; setState(s: unknown): void };
export const vscode = acquireVsCodeApi();
export const post = (m: FromWebview) => vscode.postMessage(m);
