import { env } from "cloudflare:workers";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolContract } from "../src/core/contract.ts";
import { execute } from "../src/execute/execute.ts";

const searchLogs: ToolContract = {
  name: "search_logs",
  version: "v1",
  description: "Search a log backend over HTTPS.",
  effect: "read",
  paid: true,
  input: v.strictObject({ service: v.string(), window: v.string() }),
  output: v.strictObject({ logs: v.array(v.string()) }),
  timeoutMs: 1000,
  cacheTtlSeconds: 0,
  sharedCache: false,
  upstream: {
    kind: "http",
    method: "GET",
    url: "https://logs.example.com/api/{service}/query",
    auth: { header: "Authorization", secret: "LOGS_TOKEN", scheme: "Bearer" },
  },
};

const context = {
  env: { ...env, LOGS_TOKEN: "s3cret-token" } as Env,
  tenant: "acme",
  runId: "run-1",
  upstreamKey: null,
  timeoutMs: 1000,
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an HTTP upstream", () => {
  it("sends the secret from the environment and the arguments as the query of a GET", async () => {
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockResolvedValue(Response.json({ logs: ["[INFO] ok"] }));
    const out = await execute(searchLogs, { service: "auth api", window: "1h" }, context);
    expect(out).toEqual({ ok: true, result: { logs: ["[INFO] ok"] } });
    const request = spy.mock.calls[0]?.[0] as Request;
    expect(request.method).toBe("GET");
    expect(request.url).toBe(
      "https://logs.example.com/api/auth%20api/query?service=auth+api&window=1h",
    );
    expect(request.headers.get("Authorization")).toBe("Bearer s3cret-token");
    expect(request.headers.get("X-Toolfence-Tenant")).toBe("acme");
    expect(request.headers.has("Idempotency-Key")).toBe(false);
  });

  it("classifies a refused secret as upstream_authz", async () => {
    vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("no", { status: 401 }));
    const out = await execute(searchLogs, { service: "auth", window: "1h" }, context);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.refusal.reason).toBe("upstream_authz");
  });
});
