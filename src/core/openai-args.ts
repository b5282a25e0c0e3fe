/**
 * OpenAI strict mode's argument conventions mapped back to the contract's (a `null` for an
 * optional key means absent).
 */
import * as v from "valibot";
import type { AnySchema, ToolContract } from "./contract.ts";
import { entriesOf } from "./validate.ts";

/** A JSON object as it arrived, before validation. */
export type JsonLikeObject = { [key: string]: unknown };

/**
 * Maps arguments that arrived in OpenAI strict-mode form back to the contract's form.
 *
 * Strict mode makes the model send every key and `null` for an optional one it leaves out.
 * Rule: a TOP-LEVEL key whose value is `null` is dropped only when the contract's input
 * schema marks that key optional AND the key's schema would not accept `null`. Nothing else
 * changes: a `null` on a required key, an unknown key or a wrong type passes through for the
 * gate to refuse. Apply it only to calls that arrived in OpenAI's form.
 */
export function fromOpenAiStrictArgs(contract: ToolContract, args: JsonLikeObject): JsonLikeObject {
  const entries = entriesOf(contract.input) as Record<string, AnySchema> | undefined;
  if (entries === undefined) return args;
  // Object.fromEntries defines own properties, so a "__proto__" key stays a key for the gate.
  return Object.fromEntries(
    Object.entries(args).filter(([key, value]) => {
      if (value !== null || !Object.hasOwn(entries, key)) return true;
      const entry = entries[key];
      return !(isOptional(entry) && !v.is(entry, null));
    }),
  );
}

function isOptional(schema: AnySchema | undefined): schema is AnySchema {
  const kind = schema?.type;
  return kind === "optional" || kind === "exact_optional" || kind === "nullish";
}
