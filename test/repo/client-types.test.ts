import type * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import {
  type CallOutcome,
  createClient,
  type Problem,
  type Reason,
  type ToolArgs,
  type ToolName,
} from "../../client/index.ts";
import type { AuditPageSchema } from "../../src/core/shapes/audit.ts";
import type { BudgetSchema } from "../../src/core/shapes/budget.ts";
import type { HaltViewSchema, RunViewSchema } from "../../src/core/shapes/run.ts";

const run = createClient({
  url: "http://127.0.0.1:1",
  key: "k",
  fetch: async () => Response.json({ decision: "applied", result: { ok: true } }),
}).run("r");

/**
 * Checked by `tsc --noEmit` in `npm test`: each `@ts-expect-error` fails the typecheck if the
 * line below it ever compiles, so a wrong tool name or argument is an error in an agent's code.
 */
describe("the typed client", () => {
  it("infers tool names and arguments from the contracts", async () => {
    expectTypeOf<ToolName>().toEqualTypeOf<
      | "create_ticket"
      | "add_comment"
      | "noop"
      | "fetch_service_logs"
      | "get_ticket"
      | "everything_echo"
      | "everything_get_sum"
      | "everything_get_structured_content"
      | "everything_get_resource_reference"
      | "ops_service_status"
      | "ops_restart_service"
      | "kb_search"
      | "notes_whoami"
      | "notes_add_note"
    >();
    expectTypeOf<ToolArgs<"add_comment">>().toEqualTypeOf<{ ticket_id: string; body: string }>();
    await run.call(
      "create_ticket",
      { ticket_id: "T-1", priority: "high" },
      { key: "k-typed-0001" },
    );
    // @ts-expect-error: no tool of this name
    await run.call("delete_everything", {});
    // @ts-expect-error: priority is one of low, normal, high, urgent
    await run.call("create_ticket", { ticket_id: "T-1", priority: "HIGH" });
    // @ts-expect-error: window is a string like 5m, not a number
    await run.call("fetch_service_logs", { service: "auth", window: 5 });
    // @ts-expect-error: add_comment needs a body
    await run.call("add_comment", { ticket_id: "T-1" });
  });

  it("discriminates the outcome on decision", async () => {
    const outcome = await run.call("get_ticket", { ticket_id: "T-1" });
    expectTypeOf(outcome).toEqualTypeOf<CallOutcome<"get_ticket">>();
    if (outcome.decision === "applied") {
      expectTypeOf<typeof outcome.result.ticket.status>().toEqualTypeOf<"open" | "closed">();
    }
    if (outcome.decision === "block") expectTypeOf(outcome.reason).toEqualTypeOf<Reason>();
    if (outcome.decision === "needs_approval") {
      expectTypeOf(outcome.approval_id).toEqualTypeOf<string>();
    }
  });

  it("types the run's answers with the fence's own wire schemas", async () => {
    type Answer<S extends v.GenericSchema> = v.InferOutput<S> | Problem;
    expectTypeOf(await run.status()).toEqualTypeOf<Answer<typeof RunViewSchema>>();
    expectTypeOf(await run.halt("done")).toEqualTypeOf<Answer<typeof HaltViewSchema>>();
    expectTypeOf(await run.audit()).toEqualTypeOf<Answer<typeof AuditPageSchema>>();
    const outcome = await run.call("noop", {});
    if (outcome.decision === "applied") {
      expectTypeOf(outcome.budget).toEqualTypeOf<v.InferOutput<typeof BudgetSchema>>();
    }
    await run.limits({ max_mutations: 1, tools: { noop: { max_calls_per_run: 2 } } });
    // @ts-expect-error: a run's limits take no field the fence does not know
    await run.limits({ max_mutation: 1 });
  });
});
