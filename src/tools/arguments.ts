/**
 * A tool's arguments: strict objects, refused in the project's words. zod strips unknown keys by
 * default, so a typo (`versoin`) used to pass as if the key were absent and switched the guard it
 * meant (the lost-update check) off. Every face parses with these schemas: the VS Code LM tools
 * with each tool's own, the MCP server with the variant of `mcpSchemaOf`.
 */
import * as z from 'zod/mini';
import { PLAN_ID_PATTERN } from '../core';

/** The known name closest to `name` (case aside), if it is close enough to be a typo of it. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(wanted, k.toLowerCase());
    if (!best || d < best.d) best = { name: k, d };
  }
  // A third of the letters wrong (at least one) is still a typo; more is another word.
  return best && best.d <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: the optimal string alignment distance. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** `Unknown argument "versoin" (did you mean "version"?)`, one clause per key; a key like no known one lists them. */
function unknownArguments(keys: readonly string[], known: readonly string[]): string {
  return keys
    .map((k) => {
      const near = closestName(k, known);
      return `Unknown argument ${JSON.stringify(k.slice(0, 60))} (${near ? `did you mean ${JSON.stringify(near)}?` : `the arguments are: ${known.join(', ')}`})`;
    })
    .join('; ');
}

/** A tool's arguments (or an object inside them): a strict object whose unknown keys are refused by name, with the closest known key. */
export function argsObject<S extends z.core.$ZodLooseShape>(shape: S) {
  const known = Object.keys(shape);
  return z.strictObject(shape, { error: (iss) => (iss.code === 'unrecognized_keys' ? unknownArguments(iss.keys, known) : undefined) });
}

/** A tool's arguments, checked: the parsed value, or an Error whose message names every problem and the fix (for the model). */
export function parseArguments<S extends z.ZodMiniType>(schema: S, input: unknown): z.infer<S> {
  const r = z.safeParse(schema, input ?? {});
  if (r.success) {
    const nul = nulByteIn(r.data);
    if (nul) throw new ArgumentsError(`${nul.path.join('.') || 'input'}: contains a NUL byte (character ${nul.at + 1}): plans are text; call again without it.`);
    return r.data;
  }
  const problems = r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message.replace(/\.$/, '')}`);
  throw new ArgumentsError(`${problems.join('; ')}: fix the arguments and call again.`);
}

/**
 * The first string of the arguments with a NUL byte in it, with its place: the argument is
 * refused as the caller's (the plan it would be written into is fine, and no one must fix a file).
 */
function nulByteIn(v: unknown, path: (string | number)[] = []): { path: (string | number)[]; at: number } | undefined {
  if (typeof v === 'string') {
    const at = v.indexOf('\u0000');
    return at === -1 ? undefined : { path, at };
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = nulByteIn(v[i], [...path, i]);
      if (hit) return hit;
    }
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const hit = nulByteIn(x, [...path, k]);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Arguments a tool's schema refused: nothing was read or changed. */
export class ArgumentsError extends Error {
  override readonly name = 'ArgumentsError';
}

/** The plan id where it must be given: over MCP no plan is active, so nothing stands in for a missing one. */
const requiredId = z
  .string({ error: (iss) => (iss.input === undefined ? 'required (no plan is active over MCP): pass the plan id; pi_plan_list finds it' : undefined) })
  .check(z.maxLength(20), z.regex(PLAN_ID_PATTERN, 'PLAN- and 8 lowercase hex digits'));

/**
 * A tool's arguments as the MCP server takes them: the tool's own schema, with `id` required
 * wherever the tool takes a plan id (VS Code keeps it optional: there it defaults to the active plan).
 */
export function mcpSchemaOf(tool: { schema: z.ZodMiniObject }): z.ZodMiniObject {
  const shape = tool.schema.shape;
  return 'id' in shape ? argsObject({ ...shape, id: requiredId }) : tool.schema;
}
