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

/** What a tool takes and gives back, as types: the client's view of one contract. */
export interface ToolTypes {
  /** The arguments, as the agent writes them (defaults may be left out). */
  input: unknown;
  /** The result, once the fence checked it against its output contract. */
  output: unknown;
}

/** The client's view of a map of valibot contracts by name (e.g. `typeof TOOLS`). */
export type ContractTypes<
  C extends Record<string, { input: v.GenericSchema; output: v.GenericSchema }>,
> = {
  [N in keyof C]: { input: v.InferInput<C[N]["input"]>; output: v.InferOutput<C[N]["output"]> };
};

/** The tools of `contracts/` as the package was built: the fence's own. */
type BuiltTools = ContractTypes<typeof TOOLS>;

/**
 * The tools a module adds by augmentation, either from valibot contracts (the demo's:
 * demo/client-tools.ts) or as the plain types `npm run contracts -- types` writes for a project
 * without the fence's sources; one named as a built tool replaces it.
 */
// biome-ignore lint/suspicious/noEmptyInterface: augmented by the modules that declare tools
export interface Tools {}

/** Every tool the client knows: those added, and the built ones no addition replaces. */
type KnownTools = Tools & Omit<BuiltTools, keyof Tools>;

/** A tool the fence knows. */
export type ToolName = keyof KnownTools & string;

/** What a tool takes, as the agent writes it (defaults may be left out). */
export type ToolArgs<N extends ToolName> = KnownTools[N] extends ToolTypes
  ? KnownTools[N]["input"]
  : never;

/** What a tool gives back once the fence checked it against its output contract. */
export type ToolResult<N extends ToolName> = KnownTools[N] extends ToolTypes
  ? KnownTools[N]["output"]
  : never;

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
