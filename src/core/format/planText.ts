/** Plan bytes to text and offsets to lines: strict UTF-8 decoding with the line of the first bad byte, line starts, the line of an offset. */
import { PlanError } from '../limits/errors';
import { LIMITS } from '../limits/limits';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes to text: invalid UTF-8 is an error, never silently replaced (writing it back would corrupt the file). */
export function decodePlanBytes(bytes: Uint8Array, file?: string): string {
  if (bytes.byteLength > LIMITS.fileBytes) throw fileTooLarge(bytes.byteLength, file);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const line = lineOfFirstInvalidByte(bytes);
    throw new PlanError('INVALID_FILE', 'the file is not valid UTF-8: re-save it as UTF-8', { file, line, rule: 'invalid-utf8' });
  }
}

/** The refusal of a plan file of `size` bytes, over the cap (known from its size, before any read). */
export function fileTooLarge(size: number, file?: string): PlanError {
  return new PlanError('TOO_LARGE', `the file is ${size} bytes, over the ${LIMITS.fileBytes}-byte limit: split the plan or move context into .pi/plans/artifacts/`, { file });
}

/**
 * The line of the first byte that is not valid UTF-8: the shortest prefix a streaming strict
 * decoder refuses (binary search; a valid prefix that ends mid-character is not refused).
 */
function lineOfFirstInvalidByte(bytes: Uint8Array): number {
  const refuses = (n: number) => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, n), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  let lo = 0;
  let hi = bytes.length;
  if (!refuses(hi)) hi = bytes.length; // only a truncated last character: report the end
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (refuses(mid)) hi = mid;
    else lo = mid + 1;
  }
  // bytes[lo - 1] completes the refusal; a line break there ends a truncated sequence on the line before it.
  let line = 1;
  for (let i = 0; i < Math.min(lo - 1, bytes.length); i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** The offsets where the lines of a text start (0 first). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 0-based line of an offset, by binary search over `lineStarts`. */
export function lineAtOffset(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** 1-based line of an offset. */
export function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
