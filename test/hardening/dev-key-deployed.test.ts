import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { FENCE } from "../../demo/fence.ts";
import { buildApp } from "../../src/app.ts";
import { DEV_KEY, json } from "../helpers.ts";

const LOOPBACK_CLIENT = { "CF-Connecting-IP": "127.0.0.1" };

/** Its own file: the isolate's log is fresh, and the app runs in the test's own isolate. */
describe("a deployed worker with DEV_KEY set", () => {
  it("is refused, and said on the log, on a request that crossed Cloudflare's network", async () => {
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    // The app runs in this isolate, so its log is the one spied on.
    const request = new Request("http://127.0.0.1/v1/tools", {
      headers: { Authorization: `Bearer ${DEV_KEY}`, ...LOOPBACK_CLIENT, "CF-Ray": "8f1e-DFW" },
    });
    const res = await buildApp(FENCE).fetch(request, env);
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ detail: expect.stringContaining("local development") });
    expect(said.mock.calls.flat().join(" ")).toContain("DEV_KEY is set on a deployed worker");
    said.mockRestore();
  });
});
