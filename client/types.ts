/**
 * The fence's wire types as a client sees them: tool names and argument types inferred from
 * the contracts (types only; nothing of the server is imported at run time), the decision
 * union every call answers with, and the problem details of a refusal.
 */
import type * as v from "valibot";
import type { TOOLS } from "../contracts/index.ts";

type Contracts = typeof TOOLS;

/**
 * The contracts by name, as types: those of `contracts/`, and those a module of the project
 * adds to this interface (the demo's tools: demo/client-tools.ts).
 */
export interface Tools extends Contracts {}

/** A tool the fence knows. */
export type ToolName = keyof Tools;

/** What a tool takes, as the agent writes it (defaults may be left out). */
export type ToolArgs<N extends ToolName> = v.InferInput<Tools[N]["input"]>;

/** What a tool gives back once the fence checked it against its output contract. */
export type ToolResult<N extends ToolName> = v.InferOutput<Tools[N]["output"]>;

/** Used, limit and left of one budget counter. */
export interface Counter {
  /** Charged so far. */
  used: number;
  /** The most the run may use. */
  limit: number;
  /** What is left. */
  left: number;
}

/** The run's side-effect budget after the call. */
export interface Budget {
  /** Mutations applied, one per idempotency key. */
  mutations: Counter;
  /** Calls that reached a paid tool. */
  paid_calls: Counter;
}

/** One problem in a call's arguments (or an upstream's answer). */
export interface Issue {
  /** Dotted path to the value. */
  path: string;
  /** What is wrong. */
  message: string;
  /** What the contract expects there. */
  expected: string | null;
  /** What was received there. */
  received: string;
}

/** RFC 9457 problem details of a refusal, with the fence's members. */
export interface Problem {
  /** `urn:toolfence:reason:<reason>`. */
  type: string;
  /** Short summary of the reason. */
  title: string;
  /** HTTP status. */
  status: number;
  /** What happened to this call. */
  detail: string;
  /** What to do next. */
  decision: "block" | "retry" | "escalate";
  /** The stable reason code. */
  reason: string;
  /** For contract failures: each problem, so the model can re-plan. */
  issues?: Issue[];
  /** The call's id in the audit. */
  call_id?: string;
  /** The budget after the call. */
  budget?: Budget;
}

/** A call that ran, was replayed from its key, or was served from the cache. */
export interface Success<N extends ToolName> {
  /** How the result came. */
  decision: "applied" | "replayed" | "cached";
  /** The tool's result. */
  result: ToolResult<N>;
  /** The call's id in the audit. */
  call_id: string;
  /** The budget after the call. */
  budget: Budget;
  /** The result cache key of a cacheable read. */
  cache_key?: string;
}

/** A call refused: `block` (do not retry), `retry` (same call, same key, later), `escalate`. */
export interface Refused extends Problem {
  /** What to do next. */
  decision: "block" | "retry" | "escalate";
}

/** A call held for a human: not run, not charged; re-propose it after approval. */
export interface NeedsApproval {
  /** The fence's answer. */
  decision: "needs_approval";
  /** `approval_required`. */
  reason: string;
  /** The pending approval to wait for. */
  approval_id: string;
  /** When the approval lapses. */
  expires_at: string;
  /** The call's id in the audit. */
  call_id?: string;
  /** The budget (unchanged). */
  budget?: Budget;
}

/** Every answer to a proposed call, discriminated by `decision`. */
export type CallOutcome<N extends ToolName> = (Success<N> | Refused | NeedsApproval) & {
  /** HTTP status of the answer. */
  status: number;
};
