/**
 * The worker builds its app (every route, OAuth around it) at the isolate's first request, and
 * once: nothing of it runs when the module loads, so startup is shorter and an isolate that
 * only runs Durable Objects never builds it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { CONTRACTS, POLICY_SOURCE } from "../contracts/index.ts";
import * as app from "../src/app.ts";
import { startFence } from "../src/fence.ts";
import { createWorker } from "../src/worker.ts";

vi.mock("../src/app.ts", { spy: true });

async function get(handler: ReturnType<typeof createWorker>["handler"], path: string) {
  const ctx = createExecutionContext();
  const res = await handler.fetch(new Request(`https://fence.example${path}`), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("the worker's app", () => {
  it("is built at the first request, not when the worker is made, and only once", async () => {
    vi.mocked(app.buildApp).mockClear();
    const { handler } = createWorker(startFence(CONTRACTS, POLICY_SOURCE));
    expect(app.buildApp).not.toHaveBeenCalled();

    const first = await get(handler, "/healthz");
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true });
    expect(app.buildApp).toHaveBeenCalledTimes(1);

    expect((await get(handler, "/healthz")).status).toBe(200);
    expect((await get(handler, "/openapi.json")).status).toBe(200);
    expect(app.buildApp).toHaveBeenCalledTimes(1);
  });

  it("carries an entry's own routes, added when it is built", async () => {
    const { handler } = createWorker(startFence(CONTRACTS, POLICY_SOURCE), (built) => {
      built.get("/entry-route", (c) => c.text("mine"));
    });
    const res = await get(handler, "/entry-route");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("mine");
  });

  it("builds again at the next request when a build failed", async () => {
    let builds = 0;
    const { handler } = createWorker(startFence(CONTRACTS, POLICY_SOURCE), (built) => {
      builds += 1;
      if (builds === 1) throw new Error("the first build fails");
      built.get("/entry-route", (c) => c.text("built"));
    });
    await expect(get(handler, "/entry-route")).rejects.toThrow("the first build fails");
    const res = await get(handler, "/entry-route");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("built");
    expect(builds).toBe(2);
  });
});
