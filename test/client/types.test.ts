import { createClient, type Decision, type FenceRun, intentKey } from "toolfence/client";
import { describe, expectTypeOf, it } from "vitest";

// Never called: these bodies only have to compile (or, where marked, fail to), which
// `npm run typecheck` checks; a `@ts-expect-error` that no longer errors fails it.
function calls(run: FenceRun) {
  // @ts-expect-error: no tool of that name in the contracts.
  run.call("create_tiket", { ticket_id: "T-1" }, { key: intentKey("create", "T-1") });
  // @ts-expect-error: priority is an enum, and case is never folded.
  run.call("create_ticket", { ticket_id: "T-1", priority: "URGENT" }, { key: "k-12345678" });
  // @ts-expect-error: an unknown key is refused.
  run.call("fetch_service_logs", { service: "checkout", window: "1h", since: 24 });
  // @ts-expect-error: a required argument is missing.
  run.call("add_comment", { ticket_id: "T-1" }, { key: "k-12345678" });
  // @ts-expect-error: a mutation needs its idempotency key.
  run.call("create_ticket", { ticket_id: "T-1" });
  run.call("create_ticket", { ticket_id: "T-1", priority: "urgent" }, { key: "k-12345678" });
  return run.call("fetch_service_logs", { service: "checkout", window: "1h" });
}

describe("the client's types come from the contracts", () => {
  it("types a call's result from the tool's output contract", () => {
    type Answer = Awaited<ReturnType<typeof calls>>;
    expectTypeOf<Extract<Answer, { result: unknown }>["result"]>().toEqualTypeOf<{
      logs: string[];
    }>();
    expectTypeOf<Answer["decision"]>().toEqualTypeOf<Decision["decision"]>();
  });

  it("lists every decision, needs_approval included", () => {
    expectTypeOf<Decision["decision"]>().toEqualTypeOf<
      "applied" | "replayed" | "cached" | "block" | "retry" | "escalate" | "needs_approval"
    >();
  });

  it("takes tool names from the contracts", () => {
    const run = createClient({ url: "http://127.0.0.1:1", key: "k" }).run("r");
    expectTypeOf(run.call)
      .parameter(0)
      .toEqualTypeOf<"create_ticket" | "add_comment" | "noop" | "fetch_service_logs">();
  });
});
