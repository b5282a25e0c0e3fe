import { dereference, validate } from "@readme/openapi-parser";
import { describe, expect, inject, it } from "vitest";

const url = inject("fenceUrl");

async function fetchDocument(): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document by an independent parser", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it("describes every tool's arguments with the schema the gate runs", async () => {
    const api = (await dereference(structuredClone(await fetchDocument()) as never)) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const createTicket = api.components.schemas["create_ticket.input"];
    expect(createTicket).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["ticket_id"],
      properties: { priority: { enum: ["low", "normal", "high", "urgent"] } },
    });
    const tools = await fetch(`${url}/v1/tools`, {
      headers: { Authorization: "Bearer tf_dev_local_key" },
    });
    const published = (await tools.json()) as {
      tools: Array<{ name: string; input_schema: object }>;
    };
    for (const tool of published.tools) {
      const { $schema: _dialect, ...schema } = tool.input_schema as { $schema?: string };
      expect(api.components.schemas[`${tool.name}.input`]).toEqual(schema);
    }
  });

  it("publishes the decision table's reasons as the problem's reason enum", async () => {
    const document = (await fetchDocument()) as {
      components: { schemas: { Problem: { properties: { reason: { enum: string[] } } } } };
      "x-decision-table": Record<string, { status: number; decision: string }>;
    };
    const reasons = document.components.schemas.Problem.properties.reason.enum;
    expect(reasons).toContain("contract_violation");
    expect(reasons).toEqual(Object.keys(document["x-decision-table"]));
    expect(document["x-decision-table"].idempotency_key_in_use).toMatchObject({
      status: 409,
      decision: "retry",
    });
  });
});
