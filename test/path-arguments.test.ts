import { env } from "cloudflare:workers";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { addComment } from "../demo/contracts/add_comment.ts";
import { getTicket } from "../demo/contracts/get_ticket.ts";
import { CONTRACTS } from "../demo/contracts/index.ts";
import policy from "../demo/contracts/policy.json" with { type: "json" };
import { buildApp } from "../src/app.ts";
import type { ToolContract } from "../src/core/contract.ts";
import { templateOf } from "../src/core/path-args.ts";
import { loadFence } from "../src/core/policy.ts";
import { execute } from "../src/execute/execute.ts";
import { dev, devRequest, json, newRun, propose, proposeThrough } from "./helpers.ts";
import { reply, UpstreamDouble } from "./upstream-double.ts";

/** A value that would be a dot segment, or add one, once filled into a URL path. */
const DOT_FORMS = ["", ".", "..", "%2e", "%2E%2e", "%252e%252e", ".%2e", "a/b", "..%2f..", "a\\b"];

/** Every shipped tool whose upstream fills an argument into its path. */
const TEMPLATED = CONTRACTS.filter((c) => (templateOf(c.upstream) ?? "").includes("{"));

/** A copy of `c` whose path argument takes any string, its upstream the double. */
function loose(c: ToolContract): ToolContract {
  const input =
    c.effect === "mutate"
      ? v.strictObject({ ticket_id: v.string(), body: v.string() })
      : v.strictObject({ ticket_id: v.string() });
  const path = templateOf(c.upstream) ?? "";
  const method = "method" in c.upstream ? c.upstream.method : "POST";
  return { ...c, input, upstream: { kind: "service", binding: "UPSTREAM", method, path } };
}

const LOOSE = TEMPLATED.map(loose);
const loaded = loadFence({ ...policy, allowed_tools: LOOSE.map((c) => c.name), tools: {} }, LOOSE);
if (!loaded.ok) throw new Error(loaded.error.join("; "));
const app = buildApp(loaded.value);

function callOf(c: ToolContract, ticketId: string, i: number) {
  const args =
    c.effect === "mutate" ? { ticket_id: ticketId, body: "hi" } : { ticket_id: ticketId };
  return { tool: c.name, args, idempotency_key: `k-dots-${String(i).padStart(4, "0")}` };
}

describe("arguments filled into an upstream path", () => {
  it("covers every path-templated tool of the contracts", () => {
    expect(TEMPLATED.map((c) => c.name).sort()).toEqual(["add_comment", "get_ticket"]);
  });

  it.each(LOOSE.map((c) => [c.name, c] as const))(
    "%s: every dot form is blocked before any request exists, audited and not charged",
    async (_name, contract) => {
      const double = new UpstreamDouble(reply(200, {}));
      const bindings = { ...env, UPSTREAM: double } as Env;
      const run = newRun("dots");
      for (const [i, value] of DOT_FORMS.entries()) {
        const res = await proposeThrough(app, bindings, run, callOf(contract, value, i));
        expect(res.status, JSON.stringify(value)).toBe(422);
        expect(await json(res)).toMatchObject({
          decision: "block",
          reason: "contract_violation",
          issues: [{ path: "ticket_id", expected: "one path segment" }],
        });
      }
      expect(double.received).toEqual([]);
      const status = await json<{ budget: { paid_calls: { used: number } }; decisions: object }>(
        await app.fetch(devRequest(`/v1/runs/${run}`), bindings),
      );
      expect(status.budget.paid_calls.used).toBe(0);
      expect(status.decisions).toEqual({ block: DOT_FORMS.length });
    },
  );

  it.each(TEMPLATED.map((c) => [c.name, c] as const))(
    "%s as shipped: its id pattern refuses every dot form",
    async (_name, contract) => {
      const run = newRun("dots");
      for (const [i, value] of DOT_FORMS.entries()) {
        const res = await propose(run, callOf(contract, value, i));
        expect(await json(res), JSON.stringify(value)).toMatchObject({
          reason: "contract_violation",
        });
      }
      const status = await dev.runStatus(run);
      expect(status.budget.paid_calls.used).toBe(0);
    },
  );

  it("never sends a request whose filled URL leaves the upstream's base path", async () => {
    const double = new UpstreamDouble(reply(200, {}));
    for (const contract of [addComment, getTicket].map(loose)) {
      const ran = await execute(
        contract,
        { ticket_id: "..", body: "x" },
        {
          env: { ...env, UPSTREAM: double } as Env,
          tenant: "default",
          runId: "r",
          upstreamKey: null,
          timeoutMs: 1000,
        },
      );
      expect(ran).toMatchObject({ ok: false, refusal: { reason: "contract_violation" } });
    }
    expect(double.received).toEqual([]);
  });
});
