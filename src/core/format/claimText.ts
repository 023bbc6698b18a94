/**
 * A claim's record line as text (`> Claimed: <session> at <ISO time>`, see claims.ts): read,
 * written, and the session names in it. A leaf the agent hook reads plans with (no schema, no graph).
 */
import { LIMITS } from '../limits/limits';
import { oneLine } from './steps';

/** Who holds a step, since when, and whose claim it took over, if any. */
export interface Claim {
  session: string;
  at: string;
  takenFrom?: { session: string; at: string };
}

const ISO = String.raw`\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)`;
const CLAIM = new RegExp(String.raw`^(?<session>.+?) at (?<at>${ISO})(?: \(taken over from (?<from>.+?), claimed (?<fromAt>${ISO})\))?$`);

/** The claim a record line's text says, or undefined for text that is not one (or longer than a claim the store writes). */
export function parseClaim(text: string | undefined): Claim | undefined {
  const g = text === undefined || text.length > LIMITS.note ? undefined : CLAIM.exec(text.trim())?.groups;
  if (!g) return undefined;
  return { session: g.session, at: g.at, ...(g.from ? { takenFrom: { session: g.from, at: g.fromAt } } : {}) };
}

/** A session id as a claim carries it: one line, short. */
export function cleanSession(session: string): string {
  return oneLine(session).slice(0, 80) || 'unknown';
}

/**
 * The session a host's agent session claims steps as, from the host's own session id (the one its
 * hooks are given): the MCP server names its calls so, and the hook finds the step that session
 * holds by it. The same after a restart of the server or a resume of the session.
 */
export function hostSession(host: string, sessionId: string): string {
  return cleanSession(`${host}-${sessionId}`);
}

/** The record line's text of a claim. */
export function renderClaim(c: Claim): string {
  const text = `${c.session} at ${c.at}${c.takenFrom ? ` (taken over from ${c.takenFrom.session}, claimed ${c.takenFrom.at})` : ''}`;
  return text.slice(0, LIMITS.note);
}
