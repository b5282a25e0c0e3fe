import { describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { FENCE } from "../src/fence.ts";
import { openApiDocument } from "../src/http/openapi/document.ts";
import { ROUTES } from "../src/http/openapi/routes.ts";

/** Hono's `:param` as OpenAPI's `{param}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

describe("the OpenAPI document and the routes", () => {
  it("describes exactly the routes the app serves", () => {
    const served = buildApp(FENCE)
      .routes.filter((r) => r.method !== "ALL")
      .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`);
    const described = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(served).size).toBeGreaterThan(5);
    expect([...new Set(served)].sort()).toEqual([...described].sort());
  });

  it("offers a call body for every tool the policy allows, and no other", () => {
    const schemas = openApiDocument(FENCE).components?.schemas ?? {};
    const bodies = (schemas.CallBody as { anyOf: Array<{ title: string }> }).anyOf;
    const titles = bodies.map((b) => b.title).sort();
    const expected = [...FENCE.policy.allowed_tools, "OpenAI tool call", "Anthropic tool use"];
    expect(titles).toEqual(expected.sort());
  });
});
