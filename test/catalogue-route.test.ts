import { describe, expect, it } from "vitest";
import { get, json } from "./helpers.ts";

interface JsonCatalogue {
  tools: { name: string; effect: string; input_schema: { additionalProperties: boolean } }[];
}

describe("GET /v1/tools", () => {
  it("publishes every allowed tool with its strict input schema", async () => {
    const res = await get("/v1/tools");
    expect(res.status).toBe(200);
    const body = await json<JsonCatalogue>(res);
    expect(body.tools.map((t) => t.name).sort()).toEqual([
      "add_comment",
      "create_ticket",
      "fetch_service_logs",
      "get_ticket",
      "noop",
      "notes_add_note",
      "notes_whoami",
      "ops_restart_service",
      "ops_service_status",
    ]);
    for (const tool of body.tools) expect(tool.input_schema.additionalProperties).toBe(false);
  });

  it("serves definitions an OpenAI or Anthropic client can pass straight to the model", async () => {
    const openai = await json<{ tools: { type: string; function: { strict: boolean } }[] }>(
      await get("/v1/tools?format=openai"),
    );
    expect(openai.tools.every((t) => t.type === "function" && t.function.strict)).toBe(true);
    const anthropic = await json<{ tools: { name: string; input_schema: unknown }[] }>(
      await get("/v1/tools?format=anthropic"),
    );
    expect(anthropic.tools.map((t) => t.name)).toContain("fetch_service_logs");
  });

  it("refuses an unknown format", async () => {
    const res = await get("/v1/tools?format=yaml");
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ reason: "not_found" });
  });
});
