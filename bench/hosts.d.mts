// Types of bench/hosts.mjs (plain JavaScript: it drives the real hosts through test/hosts/hosts.mjs).
export interface HostFigure {
  runs: number;
  calls: number;
  withHooksMs: number;
  withoutMs: number;
  addedPerCallMs: number;
}
export function hostFigures(hosts?: string[]): Promise<Record<string, HostFigure>>;
export function printHosts(f: Record<string, HostFigure>): void;
