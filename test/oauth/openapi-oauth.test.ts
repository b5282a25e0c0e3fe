import { describe, expect, it } from "vitest";
import { send } from "./helpers.ts";

describe("the OpenAPI document describes the OAuth endpoints", () => {
  it("lists /mcp, the metadata, authorize, token and registration", async () => {
    const doc = (await (await send("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { securitySchemes: Record<string, { type: string }> };
    };
    for (const path of [
      "/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/console/connect",
      "/oauth/token",
      "/oauth/register",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.components.securitySchemes.oauth?.type).toBe("oauth2");
  });
});
