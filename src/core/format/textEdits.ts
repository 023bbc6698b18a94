/**
 * Text edits: what an operation changed, as replacements of whole lines of the text it was given.
 * Editors apply them as one undoable edit (a VS Code `WorkspaceEdit`); the store writes the text
 * they produce. Lines the operation did not change are in no edit.
 */

/** A zero-based line and character (UTF-16 code units), as editors count them. */
export interface TextPosition {
  line: number;
  character: number;
}

/** Replace `[start, end)` of the original text (offsets, and the same range as positions) with `newText`. */
export interface TextEdit {
  start: number;
  end: number;
  range: { start: TextPosition; end: TextPosition };
  newText: string;
}

/** Lines with their line breaks kept (the last may have none). */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl + 1;
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

/** The position of an offset in a text. */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, character: offset - lineStart };
}

/**
 * Myers' O(ND) diff of two line arrays: for each line of `a`, whether it is kept (matched in
 * order in `b`). Plans differ in a few lines per operation, so D is small.
 */
function keptLines(a: readonly string[], b: readonly string[]): { keptA: boolean[]; keptB: boolean[] } {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1] < v[max + k + 1]) ? v[max + k + 1] : v[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
  }
  // Walk back through the saved frontiers, marking the diagonal (kept) moves.
  const keptA = new Array<boolean>(n).fill(false);
  const keptB = new Array<boolean>(m).fill(false);
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0 && (x > 0 || y > 0); d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[max + k - 1] < vd[max + k + 1]) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[max + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      keptA[--x] = true;
      keptB[--y] = true;
    }
    if (d > 0) {
      x = prevX;
      y = prevY;
    }
  }
  return { keptA, keptB };
}

/**
 * The edits that turn `before` into `after`, each replacing a run of whole changed lines. Applying
 * them to `before` (from the last to the first) gives exactly `after`.
 */
export function diffEdits(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  const a = splitLines(before);
  const b = splitLines(after);
  // Common head and tail first: the diff then runs on what changed.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const { keptA, keptB } = keptLines(midA, midB);
  const offsets: number[] = [0];
  for (const l of a) offsets.push(offsets[offsets.length - 1] + l.length);
  const edits: TextEdit[] = [];
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && keptA[i] && keptB[j]) {
      i++;
      j++;
      continue;
    }
    const i0 = i;
    const j0 = j;
    while (i < midA.length && !keptA[i]) i++;
    while (j < midB.length && !keptB[j]) j++;
    const start = offsets[head + i0];
    const end = offsets[head + i];
    edits.push({ start, end, range: { start: positionAt(before, start), end: positionAt(before, end) }, newText: midB.slice(j0, j).join('') });
  }
  return edits;
}

/** Applies non-overlapping edits to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((x, y) => y.start - x.start)) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}
