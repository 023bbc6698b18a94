// The files a Codex patch (its `apply_patch` tool, or `apply_patch <<'EOF'` in its shell) touches,
// read by the rules Codex itself reads a patch with (openai/codex, codex-rs/apply-patch: the
// whole text trimmed; a heredoc's `<<'EOF'` … `EOF` lines around it taken off; the Begin and End
// markers and every hunk header trimmed of blanks before they are matched; an update's chunks end
// at a line that starts with `*` or with no diff marker), so a header Codex accepts is never
// missed and a line Codex reads as content is never taken for a header. Pure.

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';

/** The patch's lines between its markers, or undefined when Codex would refuse it. */
function body(text: string): string[] | undefined {
  const lines = text.trim().split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const strict = (ls: string[]) => (ls.length >= 2 && ls[0].trim() === BEGIN && ls[ls.length - 1].trim() === END ? ls.slice(1, -1) : ls.length === 1 && ls[0].trim() === BEGIN && ls[0].trim() === END ? [] : undefined);
  const inner = strict(lines);
  if (inner) return inner;
  const first = lines[0];
  if (lines.length >= 4 && (first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') && lines[lines.length - 1].endsWith('EOF')) return strict(lines.slice(1, -1));
  return undefined;
}

/** How many lines an update's chunk starting at `at` takes (its `@@` line included), or undefined when Codex would refuse it. */
function chunk(lines: readonly string[], at: number, first: boolean): number | undefined {
  let start = 0;
  if (lines[at] === '@@' || lines[at].startsWith('@@ ')) start = 1;
  else if (!first) return undefined;
  if (at + start >= lines.length) return undefined;
  let n = 0;
  for (let i = at + start; i < lines.length; i++) {
    const line = lines[i];
    if (line === EOF_MARK) {
      if (n === 0) return undefined;
      n++;
      break;
    }
    if (line === '' || line[0] === ' ' || line[0] === '+' || line[0] === '-') {
      n++;
      continue;
    }
    if (n === 0) return undefined;
    break;
  }
  return n + start;
}

/**
 * The paths of every file a patch adds, deletes, updates or moves to, as written (relative to the
 * folder the patch is applied in, or absolute); undefined when Codex would not apply the patch.
 */
export function patchPaths(text: string): string[] | undefined {
  const lines = body(text);
  if (!lines) return undefined;
  const paths: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = lines[i].trim();
    if (head.startsWith(ADD)) {
      paths.push(head.slice(ADD.length));
      i++;
      while (i < lines.length && lines[i].startsWith('+')) i++;
    } else if (head.startsWith(DELETE)) {
      paths.push(head.slice(DELETE.length));
      i++;
    } else if (head.startsWith(UPDATE)) {
      paths.push(head.slice(UPDATE.length));
      i++;
      if (i < lines.length && lines[i].startsWith(MOVE)) paths.push(lines[i++].slice(MOVE.length));
      let chunks = 0;
      while (i < lines.length) {
        if (lines[i].trim() === '') {
          i++;
          continue;
        }
        if (lines[i].startsWith('*')) break;
        const n = chunk(lines, i, chunks === 0);
        if (n === undefined) return undefined;
        chunks++;
        i += n;
      }
      if (!chunks) return undefined;
    } else return undefined;
  }
  return paths;
}
