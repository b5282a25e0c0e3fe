import * as v from "valibot";
import type { ToolContract } from "../../src/core/contract.ts";

export const noop = {
  name: "noop",
  version: "v1",
  description: "Do nothing and say so. Free: never charged to the budget.",
  effect: "read",
  paid: false,
  input: v.strictObject({
    note: v.optional(v.pipe(v.string(), v.maxLength(200), v.description("Why nothing is done"))),
  }),
  output: v.strictObject({ ok: v.literal(true) }),
  timeoutMs: 1000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: { kind: "inline", answer: () => ({ ok: true }) },
  example: { args: { note: "nothing to do" }, result: { ok: true } },
} satisfies ToolContract;
