/**
 * The fence's wire types as a client sees them: tool names and argument types inferred from
 * the contracts, and every answer's shape inferred from the fence's own wire schemas
 * (`src/core/shapes/`): the decision union every call answers with, the problem details of a
 * refusal, the budget, the run's status, an audit entry. Types only: nothing of the server is
 * imported at run time, and the bundled declarations carry what they need.
 */
import type * as v from "valibot";
import type { TOOLS } from "../contracts/index.ts";
import type { CallResult, Pending, Refused } from "../src/core/shapes/decision.ts";

export type { Reason } from "../src/core/reasons.ts";
export type { AuditEntry, AuditPage } from "../src/core/shapes/audit.ts";
export type { Budget, Counter } from "../src/core/shapes/budget.ts";
export type {
  CallResult,
  ContractIssue as Issue,
  Problem,
  Refused,
} from "../src/core/shapes/decision.ts";
export type { HaltView, LimitsView, RunView } from "../src/core/shapes/run.ts";

/** A call held for a human: not run, not charged; re-propose it after approval. */
export type NeedsApproval = Pending;

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

/** A call that ran, was replayed from its key, or was served from the cache. */
export interface Success<N extends ToolName> extends Omit<CallResult, "result"> {
  /** The tool's result. */
  result: ToolResult<N>;
}

/** Every answer to a proposed call, discriminated by `decision`. */
export type CallOutcome<N extends ToolName> = (Success<N> | Refused | NeedsApproval) & {
  /** HTTP status of the answer. */
  status: number;
};
