import { describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");
const auth = { Authorization: "Bearer tf_dev_local_key" };

describe("a real wrangler dev", () => {
  it("serves the fence on loopback and applies a call", async () => {
    const res = await fetch(`${url}/v1/runs/e2e-${crypto.randomUUID()}/calls`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ tool: "noop", args: { note: "e2e" } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ decision: "applied", result: { ok: true } });
  });

  it("refuses a request without a key", async () => {
    const res = await fetch(`${url}/v1/tools`);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain("Bearer");
  });
});
