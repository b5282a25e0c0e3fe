/** One way a value broke its contract: the shape every refusal's `issues` share. */
import * as v from "valibot";
import { described } from "./scalars.ts";

/** One way a value broke its contract, shaped so a model can re-plan. */
export const ContractIssueSchema = v.strictObject({
  path: described(v.string(), 'Dotted path to the offending value, "" for the payload itself.'),
  message: described(v.string(), "What is wrong, in plain words."),
  expected: described(v.nullable(v.string()), "What the contract expects there."),
  received: described(v.string(), "What was received there."),
});

/** One way a value broke its contract, shaped so a model can re-plan. */
export type ContractIssue = v.InferOutput<typeof ContractIssueSchema>;
