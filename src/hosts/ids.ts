// The hosts Pi Plans integrates with, by the names `--agent` and bindings use. A leaf: every room
// of the host integration may import it.

/** The hosts `pi-plans hook` answers and `pi-plans setup` configures. */
export const HOOK_HOSTS = ['copilot', 'claude', 'codex', 'copilot-cli'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];
