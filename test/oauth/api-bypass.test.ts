import { describe, expect, it } from "vitest";
import type { Fence } from "../../src/core/policy.ts";
import { isApiPath, withOAuth } from "../../src/oauth/provider.ts";

/** An app that answers with whether the OAuth provider's helpers were on the env it got. */
const app = {
  fetch: (_request: Request, env: Env) =>
    new Response(env.OAUTH_PROVIDER === undefined ? "direct" : "through the provider"),
};

function envFor(): Env {
  return { PUBLIC_URL: "https://fence.example" } as unknown as Env;
}

/** The fence is read only when a token is issued, which these requests never reach. */
const fence = {} as Fence;

const ctx = { waitUntil() {}, passThroughOnException() {} } as unknown as ExecutionContext;

describe("the REST API does not go through the OAuth provider", () => {
  it("a call under /v1/ reaches the app directly", async () => {
    const res = await withOAuth(app, fence).fetch(
      new Request("https://fence.example/v1/runs/r1/calls", { method: "POST" }),
      envFor(),
      ctx,
    );
    expect(await res.text()).toBe("direct");
  });

  it("any other path still goes through the provider", async () => {
    const res = await withOAuth(app, fence).fetch(
      new Request("https://fence.example/console/connect"),
      envFor(),
      ctx,
    );
    expect(await res.text()).toBe("through the provider");
  });

  it("reads the path after the origin, not a /v1/ elsewhere in the URL", () => {
    expect(isApiPath("https://fence.example/v1/tools")).toBe(true);
    expect(isApiPath("http://127.0.0.1:8787/v1/runs/a/calls?x=1")).toBe(true);
    expect(isApiPath("https://fence.example/v1")).toBe(false);
    expect(isApiPath("https://fence.example/mcp?next=/v1/")).toBe(false);
    expect(isApiPath("https://fence.example/console/v1/")).toBe(false);
    expect(isApiPath("https://fence.example")).toBe(false);
  });
});
