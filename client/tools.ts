/**
 * Tool names and argument types inferred from the contracts: the only server-side import of
 * the client, and a type-only one, so a wrong tool name or argument fails to compile in the
 * agent's code while nothing of the worker is bundled.
 */
import type { InferInput, InferOutput } from "valibot";
import type { Contracts } from "../contracts/index.ts";

/** The name of every tool in the contracts. */
export type ToolName = Contracts["name"];

/** The contract of the tool called `Name`. */
export type ContractOf<Name extends ToolName> = Extract<Contracts, { name: Name }>;

/** What the agent may send as the tool's `args` (defaults still optional). */
export type ArgsOf<Name extends ToolName> = InferInput<ContractOf<Name>["input"]>;

/** What a successful call of the tool returns as `result`. */
export type ResultOf<Name extends ToolName> = InferOutput<ContractOf<Name>["output"]>;

/** The names of the tools that change the world, and so need an idempotency key. */
export type MutationName = Extract<Contracts, { effect: "mutate" }>["name"];
