import { describe, expect, it } from "vitest";
import { json, newRun, propose, runStatus } from "./helpers.ts";

interface Problem {
  decision: string;
  reason: string;
  issues?: { path: string; expected: string | null; received: string }[];
}

async function problemOf(res: Response): Promise<Problem> {
  expect(res.headers.get("Content-Type")).toBe("application/problem+json");
  return json<Problem>(res);
}

describe("the contract gate over HTTP", () => {
  // The four malformed calls of the deterministic-cache article.
  const malformed: [Record<string, unknown>, string[]][] = [
    [{ service: "auth", window: "24 hours" }, ["window"]],
    [{ service: "Auth Service", window: "yesterday" }, ["service", "window"]],
    [{ service: ["auth"], window: 24 }, ["service", "window"]],
    [{ service: "", window: "24h" }, ["service"]],
  ];
  for (const [args, paths] of malformed) {
    it(`rejects fetch_service_logs ${JSON.stringify(args)} naming ${paths.join(", ")}`, async () => {
      const run = newRun();
      const res = await propose(run, { tool: "fetch_service_logs", args });
      expect(res.status).toBe(422);
      const body = await problemOf(res);
      expect(body.reason).toBe("contract_violation");
      expect([...new Set(body.issues?.map((i) => i.path))].sort()).toEqual(paths);
      expect((await runStatus(run)).budget.paid_calls.used).toBe(0);
    });
  }

  it("blocks near-miss tool names instead of folding them", async () => {
    for (const tool of ["Create_Ticket", "create_ticket ", " noop", "NOOP"]) {
      const res = await propose(newRun(), { tool, args: {}, idempotency_key: "k-nearmiss-1" });
      expect(res.status).toBe(422);
      expect((await problemOf(res)).reason).toBe("unknown_tool");
    }
  });

  it("never coerces a near-miss enum or a numeric string", async () => {
    const cases = [
      { ticket_id: "T-1", priority: "HIGH" },
      { ticket_id: "T-1", priority: "high " },
      { ticket_id: 24 },
      { ticket_id: "T-1", extra: true },
    ];
    for (const args of cases) {
      const res = await propose(newRun(), {
        tool: "create_ticket",
        args,
        idempotency_key: "k-enum-0001",
      });
      expect(res.status).toBe(422);
      expect((await problemOf(res)).reason).toBe("contract_violation");
    }
  });

  it("applies a valid read and answers with its result", async () => {
    const res = await propose(newRun(), {
      tool: "fetch_service_logs",
      args: { service: "auth-service", window: "24h" },
    });
    expect(res.status).toBe(200);
    const body = await json<{ decision: string; result: { logs: string[] } }>(res);
    expect(body.decision).toBe("applied");
    expect(body.result.logs.length).toBeGreaterThan(0);
    expect(body.result.logs[0]).toContain("auth-service");
  });
});

describe("the body forms", () => {
  const args = { service: "auth-service", window: "1h" };
  const forms: [string, string, string][] = [
    ["canonical JSON", "application/json", JSON.stringify({ tool: "fetch_service_logs", args })],
    [
      "fenced model text",
      "text/plain",
      `\`\`\`json\n${JSON.stringify({ tool: "fetch_service_logs", args })}\n\`\`\``,
    ],
    ["bare model text", "text/plain", JSON.stringify({ tool: "fetch_service_logs", args })],
    [
      "an OpenAI tool call",
      "application/json",
      JSON.stringify({
        type: "function",
        id: "call_1",
        function: { name: "fetch_service_logs", arguments: JSON.stringify(args) },
      }),
    ],
    [
      "an Anthropic tool_use block",
      "application/json",
      JSON.stringify({ type: "tool_use", id: "toolu_1", name: "fetch_service_logs", input: args }),
    ],
  ];
  for (const [name, contentType, text] of forms) {
    it(`accepts ${name} and gets the same logs`, async () => {
      const res = await propose(newRun(), text, { contentType });
      expect(res.status).toBe(200);
      const body = await json<{ result: { logs: string[] } }>(res);
      expect(body.result.logs[0]).toContain("auth-service");
    });
  }

  const bad: [string, string, string, number, string][] = [
    [
      "duplicate keys",
      "application/json",
      '{"tool":"noop","tool":"create_ticket","args":{}}',
      400,
      "malformed_payload",
    ],
    ["a list", "application/json", '[{"tool":"noop","args":{}}]', 400, "malformed_payload"],
    [
      "args as a string of JSON",
      "application/json",
      '{"tool":"noop","args":"{}"}',
      400,
      "malformed_payload",
    ],
    ["an empty body", "application/json", "", 400, "malformed_payload"],
    [
      "a fence with trailing prose",
      "text/plain",
      '```json\n{"tool":"noop","args":{}}\n```\nDone!',
      400,
      "malformed_payload",
    ],
    [
      "a form post",
      "application/x-www-form-urlencoded",
      "tool=noop",
      415,
      "unsupported_media_type",
    ],
    [
      "nesting 100 deep",
      "application/json",
      `{"tool":"noop","args":{"note":${"[".repeat(100)}${"]".repeat(100)}}}`,
      413,
      "payload_too_large",
    ],
    [
      "a 100 kB body",
      "application/json",
      JSON.stringify({ tool: "noop", args: { note: "x".repeat(100_000) } }),
      413,
      "payload_too_large",
    ],
  ];
  for (const [name, contentType, text, status, reason] of bad) {
    it(`refuses ${name} with ${status} ${reason}`, async () => {
      const run = newRun();
      const res = await propose(run, text, { contentType });
      expect(res.status).toBe(status);
      expect((await problemOf(res)).reason).toBe(reason);
      expect((await runStatus(run)).decisions).toEqual({ block: 1 });
    });
  }
});
