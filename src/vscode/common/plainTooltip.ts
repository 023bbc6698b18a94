/**
 * Tooltips of plain text that wrap like text. `MarkdownString.appendText` turns every space into
 * a non-breaking one, so a hover narrower than a paragraph breaks it wherever the line ends,
 * inside words and numbers ("4" / "29"). Here Markdown's characters are escaped and spaces stay
 * breakable, except after a number (`5 lines`, `+5 −0`, `9:28 PM`): a number stays with its word.
 */
import * as vscode from 'vscode';

/** Text as Markdown that draws exactly it: every ASCII punctuation character escaped, a newline a line break. */
export function markdownText(text: string): string {
  return keepNumbersWhole(text)
    .replace(/[\\`*_{}[\]()#+\-.!|<>~&$"':;,=?@%^/]/g, '\\$&')
    .replace(/\r?\n/g, '  \n');
}

/**
 * A number stays on one line with what follows it (a word, a unit, a signed number: `+5 −0`): the
 * space after it is non-breaking. Never between two plain numbers, so a list of numbers still wraps.
 */
export function keepNumbersWhole(text: string): string {
  return text.replace(/(\d) (?=[\p{L}%]|[+−-]\d)/gu, '$1\u00a0');
}

/**
 * A tooltip made of paragraphs of plain text (each may hold line breaks); `title`, when given, is
 * drawn bold first. Nothing in the text is read as Markdown, HTML, a command link or an icon.
 */
export function plainTooltip(paragraphs: readonly string[], title?: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  const parts = paragraphs.filter((p) => p.length > 0).map(markdownText);
  if (title) parts.unshift(`**${markdownText(title)}**`);
  md.appendMarkdown(parts.join('\n\n'));
  return md;
}

/** The text a tooltip shows (for tests): escapes undone, no-break spaces as spaces, line breaks as newlines. */
export function tooltipText(tip: string | vscode.MarkdownString | undefined): string {
  if (typeof tip === 'string') return tip;
  return (tip?.value ?? '')
    .replace(/&nbsp;/g, ' ')
    .replace(/\u00a0/g, ' ')
    .replace(/ {2}\n/g, '\n')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1');
}
