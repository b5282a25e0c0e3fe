/**
 * The run's side-effect budget, as every call answer, the run's status and the ledger publish
 * it: one schema, from which the ledger's and the client's types are inferred and the OpenAPI
 * component is generated.
 */
import * as v from "valibot";
import { Count, described } from "./scalars.ts";

/** Used, limit and left of one budget counter. */
export const CounterSchema = v.strictObject({
  used: described(Count, "Charged so far."),
  limit: described(Count, "The most the run may use."),
  left: described(Count, "What is left (never negative)."),
});

/** Used, limit and left of one budget counter. */
export type Counter = v.InferOutput<typeof CounterSchema>;

/** The run's side-effect budget, published in every call answer. */
export const BudgetSchema = v.strictObject({
  mutations: described(CounterSchema, "Mutations applied, one per idempotency key."),
  paid_calls: described(CounterSchema, "Calls that reached a paid tool (cache hits are free)."),
});

/** The run's side-effect budget, published in every call answer. */
export type Budget = v.InferOutput<typeof BudgetSchema>;
