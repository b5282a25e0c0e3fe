import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  MAX_CONTENT_BLOCKS,
  MAX_CONTENT_DATA,
  MAX_CONTENT_TEXT,
  McpContentList,
} from "../../contracts/mcp-content.ts";
import { opsServiceStatus } from "../../demo/contracts/ops_service_status.ts";
import { renderContract } from "../../scripts/lib/mcp/contract-file.ts";

// What an imported MCP tool may answer is bounded before it is stored, cached or passed on.
const text = (n: number) => ({ type: "text", text: "x".repeat(n) });
const fits = (content: unknown) => v.safeParse(McpContentList, content).success;

describe("the content of imported MCP tools' results", () => {
  it("is a bounded list of bounded blocks", () => {
    expect(fits([text(MAX_CONTENT_TEXT)])).toBe(true);
    expect(fits([text(MAX_CONTENT_TEXT + 1)])).toBe(false);
    expect(fits(Array.from({ length: MAX_CONTENT_BLOCKS }, () => text(1)))).toBe(true);
    expect(fits(Array.from({ length: MAX_CONTENT_BLOCKS + 1 }, () => text(1)))).toBe(false);
    const image = (n: number) => ({ type: "image", data: "A".repeat(n), mimeType: "image/png" });
    expect(fits([image(MAX_CONTENT_DATA)])).toBe(true);
    expect(fits([image(MAX_CONTENT_DATA + 1)])).toBe(false);
    const resource = {
      type: "resource",
      resource: { uri: "x:/1", text: "y".repeat(MAX_CONTENT_TEXT + 1) },
    };
    expect(fits([resource])).toBe(false);
  });

  it("is what a new import's output contract and the committed ones use", () => {
    const rendered = renderContract(
      { name: "lookup", inputSchema: { type: "object" } },
      { source: "http://127.0.0.1:1/mcp", prefix: "", endpoint: { urlVar: "U" } },
    );
    expect(rendered.ok && rendered.text).toContain("content: McpContentList,");
    const structuredContent = { service: "a", healthy: true, replicas: 1, version: "1" };
    const answer = (content: unknown) =>
      v.safeParse(opsServiceStatus.output, { content, structuredContent }).success;
    expect(answer([text(10)])).toBe(true);
    expect(answer([text(MAX_CONTENT_TEXT + 1)])).toBe(false);
  });
});
