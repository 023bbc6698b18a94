import type { PlanDocument, PlanWorkFacts } from '../core';
import type { ActivePlans, ReviewOutcome } from '../service';
import type { PlanStore } from '../store';

export type { ActivePlans, ReviewOutcome } from '../service';

/** The plan stores a face serves: one per workspace folder (one for the CLI and MCP server). */
export interface PlanStores {
  /** Every folder's store, with a name a model can pass back as `folder`. */
  folders(): { name: string; store: PlanStore }[];
}


/** A face's way to put a plan in front of a person and wait for the decision. Optional. */
export interface ReviewGate {
  awaitDecision(store: PlanStore, id: string, signal: AbortSignal): Promise<ReviewOutcome>;
}

/** A plan's checks and drift, looked up by the face (git and files are not the tools' business). */
export interface WorkFactsPort {
  of(store: PlanStore, doc: PlanDocument): Promise<PlanWorkFacts>;
}

/** The user's settings the tools obey. */
export interface ToolSettings {
  /** Application-scoped opt-in: an agent may approve plans. Off by default. */
  agentMayApprove: boolean;
  /** `always`: every tool is available; `activePlan`: step and execution tools need plan work mode. */
  gating: 'always' | 'activePlan';
  /** Submit waits for the person's decision (true) or returns at once with "awaiting review". */
  waitForReview: boolean;
}

/** Everything a tool handler may use. */
export interface ToolContext {
  stores: PlanStores;
  active: ActivePlans;
  settings: ToolSettings;
  review?: ReviewGate;
  /** What the files say of a plan now (its checks, its drift since approval): a face that can look at the working tree gives it. */
  facts?: WorkFactsPort;
  /** Aborted when the chat request is cancelled. */
  signal?: AbortSignal;
  /**
   * Who calls, as step claims record it (`> Claimed: <session> at …`): VS Code's window session,
   * an MCP connection's own id. Without one, marks claim nothing and `next` claims as "agent".
   */
  session?: string;
}
