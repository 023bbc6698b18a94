/**
 * The three ways a host's sessions are kept to their plans, in words (install/protection.ts tells
 * which one a workspace has). Pure: the hook's small bundle prints these in `hook status`.
 */
export type Protection = 'sealed' | 'hooks only' | 'unprotected';

/** What each protection means, in a line (the status and the tooltip). */
export const PROTECTION_WORDS: Record<Protection, string> = {
  sealed: "sealed: the host's sandbox keeps the agent from the approval key and from writing .pi/",
  'hooks only': 'hooks only: the hook checks each call; an agent with a shell may find a way past it (setup --seal where the host can be sealed, and pi-plans key --protect)',
  unprotected: "unprotected: no hook of Pi Plans' is set up for this host any more, so nothing checks its calls (pi-plans setup --agent …)",
};
